import type { InputHost } from '../../core/format.js'
import { parseJsonSource, type JsonSource } from '../../core/json-source.js'
import type { Diagnostic } from '../../core/diagnostics.js'

/** A Benzene document is one JSON file: its source with positions, and its parse problems. */
export async function loadBenzene(file: string, host: InputHost): Promise<{ input: JsonSource; diagnostics: Diagnostic[] }> {
  const { source, diagnostics } = parseJsonSource(file, await host.readText(file))
  return { input: source, diagnostics }
}
