/**
 * The package's bundled chunks (dist/chunks, scripts/bundle-cli.mjs) hold the runtime code the
 * compiler uses, except the runtime files that export a class and the runtime files those import:
 * they stay imports of the files generated modules import, so that a class is one per app
 * (`SubjectError` thrown by `globalSubjectParser` is the one `unplugin-contracts/runtime` exports)
 * and no file is loaded both as itself and as a copy (the build keeps every runtime file such a
 * file imports). Read from the build.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'
import { describe, expect, it } from 'vitest'

const dist = join(import.meta.dirname, '../dist')
const chunks = join(dist, 'chunks')
const runtime = join(dist, 'src/runtime')

const walk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : []))

/** The classes a runtime file exports, by name. */
const exportedClasses = (text: string): string[] =>
  [...text.matchAll(/^(export\s+)?(?:default\s+)?class\s+([A-Za-z_$][\w$]*)/gm)]
    .filter(([, exported, name]) => exported !== undefined || new RegExp(`^export\\s*\\{[^}]*\\b${name}\\b`, 'm').test(text))
    .map(([, , name]) => name!)

/** The runtime files a runtime file imports (relative imports), as paths. */
const runtimeImports = (file: string): string[] =>
  [...readFileSync(file, 'utf8').matchAll(/^(?:import|export)\b[^;]*?\bfrom\s*['"](\.\.?\/[^'"]+)['"]/gm)].map(([, path]) => join(dirname(file), path!))

describe('the runtime in the bundled package', () => {
  const chunkTexts = readdirSync(chunks).map((name) => ({ name, text: readFileSync(join(chunks, name), 'utf8') }))
  const imported = new Set(
    chunkTexts.flatMap(({ text }) =>
      [...text.matchAll(/from\s*"(\.\.\/src\/runtime\/[^"]+)"/g)].map(([, path]) => relative(runtime, join(chunks, path!)).split(sep).join('/')),
    ),
  )

  it('a runtime file that exports a class is imported, never copied into a chunk', () => {
    const classes = walk(runtime).flatMap((file) => exportedClasses(readFileSync(file, 'utf8')).map((name) => ({ file, name })))
    expect(classes.map((c) => c.name)).toContain('SubjectError')
    for (const { file, name } of classes)
      for (const chunk of chunkTexts) expect(new RegExp(`\\bclass\\s+${name}\\b`).test(chunk.text), `${name} (${file}) in ${chunk.name}`).toBe(false)
    // The compiler's `globalSubjectParser` throws the runtime's own SubjectError.
    expect(imported).toContain('nats/subjects.js')
  })

  it('the runtime files the chunks import export a class or are imported by one that does, and exist', () => {
    expect(imported.size).toBeGreaterThan(0)
    const classFiles = new Set(
      [...imported].map((path) => join(runtime, path)).filter((file) => existsSync(file) && exportedClasses(readFileSync(file, 'utf8')).length > 0),
    )
    const reachedFromClasses = new Set<string>()
    const pending = [...classFiles]
    while (pending.length > 0) {
      const file = pending.pop()!
      if (reachedFromClasses.has(file)) continue
      reachedFromClasses.add(file)
      pending.push(...runtimeImports(file))
    }
    for (const path of imported) {
      const file = join(runtime, path)
      expect(existsSync(file), path).toBe(true)
      expect(reachedFromClasses.has(file), `${path}: neither exports a class nor is imported by a file that does`).toBe(true)
      expect(dirname(file).startsWith(runtime)).toBe(true)
    }
  })
})
