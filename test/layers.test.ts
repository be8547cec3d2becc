/**
 * The layers of docs/architecture.md, followed through every import (the lint rules of
 * eslint.config.js see one file's imports at a time): what a format's code reaches, transitively,
 * is its own folder, core and the runtime; never another format, nor the list of all formats.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const src = join(import.meta.dirname, '../src')
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []))

/** The project files `file` imports (static, dynamic and type-only), as `.ts` paths. */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!)
  return specifiers.map((s) => resolve(dirname(file), s.replace(/\.js$/, '.ts'))).filter((path) => existsSync(path))
}

/** Every project file `file` reaches through its imports, itself included. */
function reach(file: string): Set<string> {
  const seen = new Set<string>()
  const queue = [file]
  while (queue.length > 0) {
    const next = queue.pop()!
    if (seen.has(next)) continue
    seen.add(next)
    queue.push(...imports(next))
  }
  return seen
}

describe('layers, transitively', () => {
  it.each(['benzene', 'nats', 'dasp'])('the %s folder reaches its own files, core and the runtime only', (format) => {
    const reached = new Set(files(join(src, 'formats', format)).flatMap((file) => [...reach(file)]))
    expect(reached.size).toBeGreaterThan(10)
    const outside = [...reached]
      .map((file) => relative(src, file).split('\\').join('/'))
      .filter((file) => !file.startsWith(`formats/${format}/`) && !file.startsWith('core/') && !file.startsWith('runtime/'))
    expect(outside).toEqual([])
  })
})
