/**
 * The formats' differs (`contracts diff`), loaded on first use as the formats are: a diff of two
 * NATS documents loads the NATS differ alone. Keyed by the format's name (`ContractFormat.name`).
 */
import type { FormatDiffer } from '../core/diff/types.js'

const loaders: Record<string, () => Promise<FormatDiffer<any>>> = {
  benzene: async () => (await import('./benzene/diff/index.js')).benzeneDiffer,
  nats: async () => (await import('./nats/diff/index.js')).natsDiffer,
  dasp: async () => (await import('./dasp/diff/index.js')).daspDiffer,
}

/** The names of the formats that have a differ, in the order `formats` lists them. */
export const DIFF_FORMATS: readonly string[] = Object.keys(loaders)

/** The differ for a format, or `undefined` when the format has none. */
export async function loadDiffer(format: string): Promise<FormatDiffer<any> | undefined> {
  return Object.hasOwn(loaders, format) ? loaders[format]!() : undefined
}
