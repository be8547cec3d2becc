/**
 * The formats' differs (`contracts diff`), loaded on first use as the formats are: a diff of two
 * NATS documents loads the NATS differ alone. Keyed by the format's name (`ContractFormat.name`).
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
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

/**
 * The diff worker's script (diff-worker.ts as built: a large diff is shared with it,
 * core/diff/parallel.ts): beside this file as TypeScript compiles it, or from the bundles (dist/cli.js,
 * dist/chunks/, dist/cli-chunks/). From the sources (the tests) there is none: one thread.
 */
export const DIFF_WORKER: URL | undefined = [
  new URL('./diff-worker.js', import.meta.url),
  new URL('../src/formats/diff-worker.js', import.meta.url),
  new URL('./src/formats/diff-worker.js', import.meta.url),
].find((url) => url.pathname.endsWith('/src/formats/diff-worker.js') && existsSync(fileURLToPath(url)))
