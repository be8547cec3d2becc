/**
 * A compile-time dependency loaded when first used, not when the package is imported. Most
 * processes never need some of them (the exact YAML reader runs only for a failing or unusual
 * document, the pattern parser only for schemas with patterns), and each costs every process that
 * imports the package 5 to 25 ms to load (bench/cold-start.ts). CommonJS builds, loaded
 * synchronously: the compile stages that use them are synchronous. Compile time only: the runtime
 * never imports this (a browser has no `require`).
 */
import { createRequire } from 'node:module'
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
        module = file === undefined ? null : (require(file) as T)
      } catch {
        module = null
      }
    return module ?? undefined
  }
}
