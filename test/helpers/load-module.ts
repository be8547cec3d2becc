import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const dir = join(import.meta.dirname, '../.tmp/modules')
let count = 0

/**
 * Imports generated code as Node would: the file is written inside the repository, so
 * `unplugin-contracts/runtime` resolves to this package by its own name.
 */
export async function loadModule(code: string, name = 'module'): Promise<Record<string, any>> {
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `${name}-${process.pid}-${count++}.mjs`)
  writeFileSync(file, code)
  return import(pathToFileURL(file).href)
}
