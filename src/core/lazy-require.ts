/**
 * A compile-time dependency loaded when first used, not when the package is imported. Most
 * processes never need some of them (the exact YAML reader runs only for a failing or unusual
 * document, the pattern parser only for schemas with patterns), and each costs every process that
 * imports the package 5 to 25 ms to load (bench/cold-start.ts). CommonJS builds, loaded
 * synchronously: the compile stages that use them are synchronous. Compile time only: the runtime
 * never imports this (a browser has no `require`).
 */
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

export function lazyRequire<T>(name: string): () => T {
  let module: T | undefined
  return () => (module ??= require(name) as T)
}
