/**
 * A compile-time dependency loaded when first used, not when the package is imported. Most
 * processes never need some of them (the exact YAML reader runs only for a failing or unusual
 * document, the pattern parser only for schemas with patterns), and each costs every process that
 * imports the package 5 to 25 ms to load (bench/cold-start.ts). CommonJS builds, loaded
 * synchronously: the compile stages that use them are synchronous. Compile time only: the runtime
 * never imports this (a browser has no `require`).
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import { Script } from 'node:vm'
import { builtFile } from './package-info.js'

const require = createRequire(import.meta.url)

export function lazyRequire<T>(name: string): () => T {
  let module: T | undefined
  return () => (module ??= require(name) as T)
}

/**
 * A CommonJS file the build writes (`dist/<path>`, a precompiled validator), required when first
 * asked for: undefined when the caller runs from the sources or the file is not there, and then
 * the caller does without it (`builtFile`).
 */
export function lazyBuilt<T>(callerUrl: string, path: string): () => T | undefined {
  const file = builtFile(callerUrl, path)
  let module: T | null | undefined
  return () => {
    if (module === undefined)
      try {
        module = file === undefined ? null : (loadBuilt(file).exports as T)
      } catch {
        module = null
      }
    return module ?? undefined
  }
}

/** Where the build keeps V8's code cache of a built CommonJS file (`scripts/code-cache.mjs`). */
export const codeCacheFile = (file: string): string => `${file}.v8-cache`

/**
 * A code cache file is the SHA-256 (hex) of the text it was made from, then V8's data. V8's own
 * check of the source is its length, not its bytes: without this, a rebuilt file of the same
 * length could run stale compiled functions.
 */
const sourceDigest = (source: string): string => createHash('sha256').update(source).digest('hex')
const DIGEST_LENGTH = 64

/** Wraps a CommonJS file's text as Node does, so that `Script` compiles what `require` would. */
const commonJsWrapper = (source: string): string => `(function (exports, require, module, __filename, __dirname) {${source}\n})`

/** The code cache file of a built file `loadBuilt` compiled (and ran, so that its functions are in it). */
export function codeCacheOf(loaded: { source: string; script: Script }): Buffer {
  return Buffer.concat([Buffer.from(sourceDigest(loaded.source), 'latin1'), loaded.script.createCachedData()])
}

/**
 * A built CommonJS file evaluated as `require` would, with V8's code cache that the build wrote
 * beside it: the precompiled AsyncAPI validator is 0.9 MB of code, and compiling it was the
 * largest single cost of a fresh `contracts check` (~19 ms of 180). The cache is only a hint:
 * V8 rejects one made by another V8 version or with other flags, and then compiles the text as
 * usual; for other text of the same length it would not (`sourceDigest` guards that). The file is
 * the package's own build output, never a contract's text.
 */
export function loadBuilt(file: string): { exports: unknown; cache: 'used' | 'rejected' | 'none'; source: string; script: Script } {
  const source = readFileSync(file, 'utf8')
  let cachedData: Buffer | undefined
  try {
    const cache = readFileSync(codeCacheFile(file))
    if (cache.toString('latin1', 0, DIGEST_LENGTH) === sourceDigest(source)) cachedData = cache.subarray(DIGEST_LENGTH)
  } catch {
    cachedData = undefined // not built (or removed): compiled without it
  }
  const script = new Script(commonJsWrapper(source), { filename: file, cachedData })
  const module = { exports: {} as unknown }
  ;(script.runInThisContext() as (...args: unknown[]) => void)(module.exports, createRequire(file), module, file, dirname(file))
  return { exports: module.exports, cache: cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'used', source, script }
}
