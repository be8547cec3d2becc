/** The generated docs are current, and every code the compiler can emit is declared once. */
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { declaredCodes, diagnosticsDoc } from '../scripts/diagnostics-doc.js'

const root = join(import.meta.dirname, '..')
const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [readFileSync(join(dir, e.name), 'utf8')] : [],
  )

describe('diagnostic codes as data', () => {
  it('docs/diagnostics.md is what `npm run docs:diagnostics` writes', () => {
    expect(readFileSync(join(root, 'docs/diagnostics.md'), 'utf8')).toBe(diagnosticsDoc())
  })

  it('every code in src/ is declared exactly once (a rule or a code table)', () => {
    const declared = declaredCodes().flatMap((c) => c.rows.map((r) => r.code))
    expect(new Set(declared).size).toBe(declared.length)
    const used = new Set(
      sources(join(root, 'src')).flatMap((text) => [...text.matchAll(/'((?:BENZENE|JSON|CONTRACTS|NATS|YAML|DASP|PIPELINE)_[A-Z0-9_]+)'/g)].map((m) => m[1]!)),
    )
    expect(used.size).toBeGreaterThan(100)
    for (const code of used) expect(declared, code).toContain(code)
  })
})
