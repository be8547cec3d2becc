/**
 * A compile-time dependency loaded when first used, not when the package is imported. Most
 * processes never need some of them (the exact YAML reader runs only for a failing or unusual
 * document, the pattern parser only for schemas with patterns), and each costs every process that
 * imports the package 5 to 25 ms to load (bench/cold-start.ts). CommonJS builds, loaded
 * synchronously: the compile stages that use them are synchronous. Compile time only: the runtime
 * never imports this (a browser has no `require`).
 */
import { isAscii } from 'node:buffer'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import { Script } from 'node:vm'
import { cacheOnExit, readCodeCache, sourceDigest } from './code-cache.js'
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
  let module: T | null | undefined
  return () => {
    if (module === undefined)
      try {
        // Found when first asked for, not when the caller's module loads (src/core/package-info.ts says why).
        const file = builtFile(callerUrl, path)
        module = file === undefined ? null : (loadBuilt(file).exports as T)
      } catch {
        module = null
      }
    return module ?? undefined
  }
}

/** Wraps a CommonJS file's text as Node does, so that `Script` compiles what `require` would. */
const commonJsWrapper = (source: string): string => `(function (exports, require, module, __filename, __dirname) {${source}\n})`

/**
 * A built CommonJS file evaluated as `require` would, with V8's code cache of its text when this
 * user's machine made one (src/core/code-cache.ts): the precompiled AsyncAPI validator is 0.9 MB of
 * code, and compiling it was the largest single cost of a fresh `contracts check` (~19 ms of 180).
 * Without a cache it is compiled from its text, and the cache is made when the process exits.
 * The file is the package's own build output, never a contract's text.
 */
export function loadBuilt(file: string): { exports: unknown; cache: 'used' | 'rejected' | 'none'; source: string } {
  // Read as bytes and digested as read: the digest of the text's UTF-8, without encoding the text
  // again. The validators are ASCII (minified ajv output), whose Latin-1 reading is the same text,
  // made without decoding (together about a third of loading the 0.9 MB AsyncAPI one).
  const bytes = readFileSync(file)
  const source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8')
  const digest = sourceDigest(bytes)
  const cachedData = readCodeCache(digest)
  const script = new Script(commonJsWrapper(source), { filename: file, cachedData })
  const cache = cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'used'
  if (cache !== 'used') cacheOnExit(digest, script)
  const module = { exports: {} as unknown }
  ;(script.runInThisContext() as (...args: unknown[]) => void)(module.exports, createRequire(file), module, file, dirname(file))
  return { exports: module.exports, cache, source }
}
