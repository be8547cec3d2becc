/**
 * What `npm pack` ships (its own list, `--dry-run --json`): every file the package names (its
 * `exports`, their types, the bin), every file a shipped README or doc links to, nothing of the
 * repository's tests, fixtures or scratch folders, and only files git tracks besides the build.
 * The build itself must run before packing, from an unbuilt clone too: `prepack` builds.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join, posix } from 'node:path'
import { describe, expect, it } from 'vitest'
import { packageVersion } from '../src/core/package-version.js'
import { isRelative, renderMarkdown, splitTarget } from './helpers/markdown.js'

const root = join(import.meta.dirname, '..')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string
  exports: unknown
  bin: Record<string, string> | string
  types?: string
  main?: string
  scripts: Record<string, string>
}

// `--ignore-scripts`: the list, not a second build (npm test built the package before the suite).
const npm = (args: string[]): string => execFileSync('npm', args, { cwd: root, encoding: 'utf8', timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'] })
const packed = (JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts'])) as [{ files: { path: string }[] }])[0].files.map((f) => f.path)
const shipped = new Set(packed)
const tracked = new Set(execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0'))

/** Every path string in a conditional `exports` value (nested conditions included). */
function targets(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (value === null || typeof value !== 'object') return []
  return Object.values(value).flatMap(targets)
}

/** A shipped file, or for a pattern (`./schemas/*`), at least one shipped file it matches. */
function ships(target: string): boolean {
  const path = posix.normalize(target.replace(/^\.\//, ''))
  if (!path.includes('*')) return shipped.has(path)
  const [before, after] = path.split('*') as [string, string]
  return packed.some((f) => f.startsWith(before) && f.endsWith(after) && f.length >= before.length + after.length)
}

describe('npm pack', () => {
  it('ships every file the package names: exports and their types, the bin', () => {
    const named = [
      ...targets(pkg.exports),
      ...(typeof pkg.bin === 'string' ? [pkg.bin] : Object.values(pkg.bin)),
      ...(pkg.types ? [pkg.types] : []),
      ...(pkg.main ? [pkg.main] : []),
    ]
    expect(named.length).toBeGreaterThan(20)
    expect(named.filter((t) => !ships(t))).toEqual([])
    expect(shipped.has('package.json')).toBe(true)
    expect(shipped.has('README.md')).toBe(true)
  })

  it('ships the editor schemas: the catalogue and every schema it lists (each url relative to it)', () => {
    const catalogue = JSON.parse(readFileSync(join(root, 'schemas/catalog.json'), 'utf8')) as { schemas: { url: string }[] }
    const urls = catalogue.schemas.map((s) => posix.join('schemas', s.url))
    expect(urls.length).toBeGreaterThanOrEqual(4)
    expect([...urls, 'schemas/catalog.json'].filter((url) => !shipped.has(url))).toEqual([])
  })

  it('ships every file its README and docs link to, images included', () => {
    const docs = packed.filter((f) => f.endsWith('.md') && (f === 'README.md' || f.startsWith('docs/') || f.endsWith('/README.md')))
    expect(docs).toContain('docs/getting-started.md')
    expect(docs).toContain('examples/payments-client/README.md')
    const missing: string[] = []
    let count = 0
    for (const doc of docs) {
      for (const link of renderMarkdown(readFileSync(join(root, doc), 'utf8')).links) {
        if (!isRelative(link.target)) continue
        count++
        const path = posix.normalize(posix.join(posix.dirname(doc), splitTarget(link.target).path))
        const folder = path.endsWith('/') ? path : `${path}/`
        if (!shipped.has(path) && !packed.some((f) => f.startsWith(folder))) missing.push(`${doc}:${link.line}: ${link.target}`)
      }
    }
    expect(count).toBeGreaterThan(50)
    expect(missing).toEqual([])
  })

  it('ships nothing of the tests, fixtures or scratch folders, and nothing untracked outside the build', () => {
    expect(
      packed.filter((f) => /^(test|fixtures|bench|conformance|src|scripts)\//.test(f) || /(^|\/)\.tmp\//.test(f) || /(^|\/)node_modules\//.test(f)),
    ).toEqual([])
    expect(packed.filter((f) => !f.startsWith('dist/') && !tracked.has(f))).toEqual([])
    // The build is whole: the entries' chunks and the validators the compiler loads by path.
    expect(packed.filter((f) => f.startsWith('dist/chunks/')).length).toBeGreaterThan(5)
    expect(shipped.has('dist/src/formats/nats/asyncapi-validators.cjs')).toBe(true)
  })

  it('builds before packing (prepack), and the version the code reports is package.json’s', () => {
    expect(pkg.scripts.prepack).toMatch(/(^|&&\s*)npm run build(\s*&&|$)/)
    expect(pkg.scripts.build).toContain('scripts/package-version.mjs')
    expect(packageVersion).toBe(pkg.version)
  })
})
