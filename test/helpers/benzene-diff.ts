/** Diffs two Benzene documents as `contracts diff` does: each version compiled to its model, then the differ. */
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { ContractCompiler } from '../../src/core/compile.js'
import type { DiffFinding, DiffSide } from '../../src/core/diff/types.js'
import { benzeneDiffer } from '../../src/formats/benzene/diff/index.js'
import type { BenzeneModel } from '../../src/formats/benzene/model.js'
import { benzeneFormat, formats } from '../../src/formats/index.js'

/** One version: the file's model (compiled without errors, or the test fails here with the diagnostics). */
export async function benzeneSide(file: string, query?: string): Promise<DiffSide<BenzeneModel>> {
  // A compiler per version: the old and the new file of a pair never share a cache entry.
  const compiler = new ContractCompiler({ formats })
  const path = resolve(file)
  const result = await compiler.model<BenzeneModel>(path, benzeneFormat, query === undefined ? {} : { query })
  if (!result.model) throw new Error(`${file} has no model: ${result.diagnostics.map((d) => `${d.code} ${d.pointer} ${d.message}`).join('; ')}`)
  return { file: path, model: result.model, read: async (other) => readFile(other, 'utf8').catch(() => undefined) }
}

export async function diffFiles(oldFile: string, newFile: string, query?: string): Promise<DiffFinding[]> {
  return benzeneDiffer.diff(await benzeneSide(oldFile, query), await benzeneSide(newFile, query))
}
