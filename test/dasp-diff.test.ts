/**
 * The DASP differ, rule by rule: each case of fixtures/diff/dasp/cases.json is a pair of versions
 * of the base selection (fixtures/diff/dasp/base) that fires the rule (level, audiences, and the
 * old and new locations asserted, positions checked against an independent JSON parser) and a near
 * pair that does not fire it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { levelFor } from '../src/core/diff/schema-diff-types.js'
import { SCHEMA_DIFF_RULES } from '../src/core/diff/schema-diff.js'
import type { DiffFinding } from '../src/core/diff/types.js'
import { daspDiffer } from '../src/formats/dasp/diff/index.js'
import { diffVersions, type Edit, FILES, type FileName, position, side } from './dasp-diff-fixtures.js'

interface Case {
  rule: string
  name?: string
  level: DiffFinding['level']
  audiences: string[]
  old?: Edit[]
  new?: Edit[]
  at: { old?: [FileName, string]; new?: [FileName, string] }
  near: { old?: Edit[]; new?: Edit[] }
}

const cases: Case[] = JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/diff/dasp/cases.json'), 'utf8'))
const root = mkdtempSync(join(tmpdir(), 'dasp-diff-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let serial = 0
const dir = () => join(root, String(serial++))

const kinds = (f: DiffFinding) => f.audiences.map((a) => a.kind).sort()

describe('each rule fires on its pair and not on the near pair', () => {
  for (const c of cases) {
    it(`${c.rule}${c.name ? ` (${c.name})` : ''}`, async () => {
      const { findings, old, next } = await diffVersions(dir(), c.old ?? [], c.new ?? [])
      const hits = findings.filter((f) => f.rule === c.rule)
      expect(hits, JSON.stringify(findings, null, 1)).toHaveLength(1)
      const hit = hits[0]!
      expect(hit.level).toBe(c.level)
      expect(kinds(hit)).toEqual([...c.audiences].sort())
      for (const [version, base] of [
        ['old', old],
        ['new', next],
      ] as const) {
        const expected = c.at[version]
        const location = hit[version]
        if (!expected) {
          expect(location).toBeUndefined()
          continue
        }
        const file = join(base, '..', FILES[expected[0]])
        expect(location).toMatchObject({ file, pointer: expected[1], ...position(file, expected[1]) })
      }
      expect(hit.message.length).toBeGreaterThan(0)
      expect(daspDiffer.rules.find((r) => r.id === c.rule)?.levels).toContain(c.level)

      const near = await diffVersions(dir(), c.near.old ?? [], c.near.new ?? [])
      expect(near.findings.filter((f) => f.rule === c.rule)).toEqual([])
    })
  }
})

describe('the catalogue', () => {
  it('has a fixture pair for every rule of its own, and declares each rule once', () => {
    const ids = daspDiffer.rules.map((r) => r.id)
    expect(new Set(ids).size).toBe(ids.length)
    const own = ids.filter((id) => id.startsWith('dasp-'))
    expect(own.filter((id) => !cases.some((c) => c.rule === id))).toEqual([])
    for (const rule of daspDiffer.rules) {
      expect(rule.summary.length).toBeGreaterThan(0)
      expect(rule.example.old).not.toBe(rule.example.new)
      for (const kind of rule.audiences) expect(['client', 'host', 'saved-session']).toContain(kind)
    }
  })

  it('every directional rule names a mirror that exists and points back', () => {
    const byId = new Map(daspDiffer.rules.map((r) => [r.id, r]))
    for (const rule of daspDiffer.rules) {
      if (!rule.mirror || !('rule' in rule.mirror)) continue
      const mirror = byId.get(rule.mirror.rule)
      expect(mirror, rule.id).toBeDefined()
      expect(mirror!.mirror).toEqual({ rule: rule.id })
    }
  })

  it("re-exports the schema engine's rules with their parties mapped to host (receives) and client (sends)", () => {
    for (const rule of SCHEMA_DIFF_RULES) {
      const mine = daspDiffer.rules.find((r) => r.id === rule.id)
      expect(mine).toBeDefined()
      expect(mine!.audiences).toEqual(rule.audiences.map((a) => (a === 'receiver' ? 'host' : a === 'sender' ? 'client' : a)))
    }
  })
})

describe('array setting items go through the schema engine', () => {
  it('maps each change to the host as receiver and the client as sender, at the items pointer', async () => {
    const edit: Edit = { file: 'auth', pointer: '/settings/commands/items/properties/kind/enum/-', value: 'audit' }
    const { findings, next } = await diffVersions(dir(), [], [edit])
    const schema = findings.filter((f) => SCHEMA_DIFF_RULES.some((r) => r.id === f.rule))
    expect(schema.length).toBeGreaterThan(0)
    for (const f of schema) {
      const effect = f.data!.effect as Parameters<typeof levelFor>[0]
      const expected = [...(levelFor(effect, 'receives') === f.level ? ['host'] : []), ...(levelFor(effect, 'sends') === f.level ? ['client'] : [])].sort()
      expect(kinds(f)).toEqual(f.level === 'info' ? [] : expected)
      expect(f.new!.file).toBe(join(next, '..', FILES.auth))
      expect(f.new!.pointer.startsWith('/settings/commands/items')).toBe(true)
      expect(f.new).toMatchObject(position(f.new!.file, f.new!.pointer))
    }
  })

  it('an unchanged element schema gives no schema finding when other bounds move', async () => {
    const { findings } = await diffVersions(dir(), [], [{ file: 'auth', pointer: '/settings/commands/maxItems', value: 32 }])
    expect(findings.filter((f) => SCHEMA_DIFF_RULES.some((r) => r.id === f.rule))).toEqual([])
    expect(findings.map((f) => f.rule)).toContain('dasp-setting-narrowed')
  })
})

describe('versions', () => {
  it('an unchanged version has no finding, and a reordered one neither', async () => {
    expect((await diffVersions(dir(), [], [])).findings).toEqual([])
    const reordered: Edit[] = [
      { file: 'app', pointer: '/extensions', reverse: true },
      { file: 'app', pointer: '/definitions', reverse: true },
      { file: 'auth', pointer: '/settings', reverse: true },
      { file: 'enc', pointer: '/operations', reverse: true },
    ]
    expect((await diffVersions(dir(), [], reordered)).findings).toEqual([])
  })

  it('findings are sorted by new location, then old, then rule, with no duplicate', async () => {
    const { findings } = await diffVersions(
      dir(),
      [],
      [
        { file: 'app', pointer: '/extensions/1/settings/grant_bytes', value: 8192 },
        { file: 'app', pointer: '/extensions/0/settings/rekey_s', value: 600 },
        { file: 'auth', pointer: '/settings/grant_bytes/maximum', value: 65536 },
        { file: 'auth', pointer: '/processing', value: 'Another order.' },
      ],
    )
    const keys = findings.map((f) => JSON.stringify(f))
    expect(new Set(keys).size).toBe(keys.length)
    const order = (f: DiffFinding) => [f.new?.file ?? '', f.new?.line ?? 0, f.new?.column ?? 0]
    for (let i = 1; i < findings.length; i++) {
      const [a, b] = [order(findings[i - 1]!), order(findings[i]!)]
      expect(a[0]! < b[0]! || (a[0] === b[0] && (a[1]! < b[1]! || (a[1] === b[1] && a[2]! <= b[2]!)))).toBe(true)
    }
    expect(findings.map((f) => f.rule)).toEqual(
      expect.arrayContaining([
        'dasp-persistent-setting-changed',
        'dasp-connection-setting-changed',
        'dasp-setting-widened',
        'dasp-definition-changed-in-place',
      ]),
    )
  })

  it('reads the definitions through DiffSide.read: the version it returns is the one compared', async () => {
    // The new side's working copy has one definition, its `read` (as under --against) another.
    const { old, next } = await diffVersions(dir(), [], [])
    const other = join(dir(), 'other')
    const { next: changed } = await diffVersions(other, [], [{ file: 'auth', pointer: '/operations/-', value: 'dasp.v1.read' }])
    const a = await side(old)
    const b = await side(next)
    const authFile = join(next, '..', FILES.auth)
    const read = async (file: string) => (file === authFile ? readFileSync(join(changed, '..', FILES.auth), 'utf8') : b.read(file))
    const findings = await daspDiffer.diff(a, { ...b, read })
    expect(findings.map((f) => f.rule)).toContain('dasp-operation-added')
    expect(findings.find((f) => f.rule === 'dasp-operation-added')!.new!.file).toBe(authFile)
  })

  it("falls back to the compile's copy of a definition that `read` cannot give", async () => {
    const { old, next } = await diffVersions(dir(), [], [{ file: 'auth', pointer: '/operations/-', value: 'dasp.v1.read' }])
    const b = await side(next)
    const findings = await daspDiffer.diff(await side(old), { ...b, read: async () => undefined })
    expect(findings.map((f) => f.rule)).toContain('dasp-operation-added')
  })
})

describe('the DASP-EXT-007 drafts with sha256-manifest pins', () => {
  const counter = join(import.meta.dirname, '../fixtures/dasp/counter.dasp.json')

  it('a version compared with itself has no finding', async () => {
    expect(await daspDiffer.diff(await side(counter), await side(counter))).toEqual([])
  })

  it("a definition's manifest pin that changes is dasp-pin-changed for everyone, at the definition's content", async () => {
    const a = await side(counter)
    const definition = join(import.meta.dirname, '../fixtures/dasp/extensions/proof-of-authority.dasp-ext.json')
    const text = readFileSync(definition, 'utf8')
    const changed = text.replace(/"sha256": "[0-9a-f]{64}"/, `"sha256": "${'0'.repeat(64)}"`)
    expect(changed).not.toBe(text)
    // The git version of the definition (as `--against` reads it) carries another pin than the working tree.
    const findings = await daspDiffer.diff({ ...a, read: async (file) => (file === definition ? changed : a.read(file)) }, a)
    expect(findings).toHaveLength(1)
    expect(findings[0]).toMatchObject({
      rule: 'dasp-pin-changed',
      level: 'breaking',
      new: { file: definition, pointer: '/content', ...position(definition, '/content') },
    })
    expect(kinds(findings[0]!)).toEqual(['client', 'host', 'saved-session'])
  })
})
