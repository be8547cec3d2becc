import type { InputHost } from '../../core/format.js'
import { parseJsonSource, type JsonSource } from '../../core/json-source.js'
import type { Diagnostic } from '../../core/diagnostics.js'
import { JsonRegionsByFile } from '../../core/json-regions.js'
import type { CompileMemos } from '../../core/memo.js'

/**
 * A Benzene document is one JSON file: its source with positions, and its parse problems. A
 * recompile shares the parts of the document its edit left unchanged with the last parse
 * (core/json-regions.ts), so that what later stages keep by identity is found again.
 */
export async function loadBenzene(file: string, host: InputHost, memos?: CompileMemos): Promise<{ input?: JsonSource; diagnostics: Diagnostic[] }> {
  const regions = memos?.kept('benzene:json-regions', () => new JsonRegionsByFile()).of(file)
  const { source, diagnostics } = parseJsonSource(file, await host.readText(file), regions)
  // A text that was not read has nothing to check; one read past a key mistake is checked (codes.ts READ_PAST).
  return source.value === undefined ? { diagnostics } : { input: source, diagnostics }
}
