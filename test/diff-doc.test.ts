/** docs/diff.md is what `npm run docs:diff` writes from the live rules, and every rule it documents has one anchor. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { diffChapters, diffDoc } from '../scripts/diff-doc.js'
import { CORE_DIFF_RULES } from '../src/core/diff/core-rules.js'
import { SCHEMA_DIFF_RULES } from '../src/core/diff/schema-diff.js'
import { DIFF_FORMATS, loadDiffer } from '../src/formats/diffs.js'

const root = join(import.meta.dirname, '..')

describe('docs/diff.md', () => {
  it('is what `npm run docs:diff` writes (run it after changing a rule)', async () => {
    expect(readFileSync(join(root, 'docs/diff.md'), 'utf8')).toBe(await diffDoc())
  })

  it("documents every rule of core, the schema engine and each format's differ, each id with one anchor", async () => {
    const doc = await diffDoc()
    const ids = new Set([...CORE_DIFF_RULES, ...SCHEMA_DIFF_RULES].map((r) => r.id))
    for (const format of DIFF_FORMATS) for (const rule of (await loadDiffer(format))!.rules) ids.add(rule.id)
    for (const id of ids) {
      expect(doc.split(`<a id="${id}"></a>`).length - 1, id).toBe(1)
      expect(doc).toContain(`\`${id}\``)
    }
    const chapters = await diffChapters()
    expect(chapters.map((c) => c.title).slice(0, 2)).toEqual(['Every format', 'Schemas'])
    expect(chapters).toHaveLength(2 + DIFF_FORMATS.length)
    // Each rule's example shows both versions; each level and audience is written.
    for (const rule of chapters.flatMap((c) => c.rules)) {
      expect(doc).toContain(`old: ${rule.example.old}\nnew: ${rule.example.new}`)
      expect(rule.levels.length, rule.id).toBeGreaterThan(0)
    }
  })

  it('rule ids are kebab-case and declared once per differ', async () => {
    for (const rules of [CORE_DIFF_RULES, SCHEMA_DIFF_RULES, ...(await Promise.all(DIFF_FORMATS.map(async (f) => (await loadDiffer(f))!.rules)))]) {
      const ids = rules.map((r) => r.id)
      expect(new Set(ids).size).toBe(ids.length)
      for (const id of ids) expect(id).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/)
    }
  })
})
