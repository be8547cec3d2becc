/**
 * The Benzene differ, rule by rule: fixtures/diff/benzene/<rule>/ holds `old.spec.json`, a
 * `new.spec.json` whose change fires the rule (level, audiences and both locations asserted) and a
 * `near.spec.json` whose change is close but must not fire it. The contract hashes a finding reports
 * are checked against the compiler's own hash functions for both versions.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { DiffAudience, DiffFinding, DiffLocation } from '../src/core/diff/types.js'
import { BENZENE_DIFF_RULES, benzeneDiffer } from '../src/formats/benzene/diff/index.js'
import { BENZENE_RULES } from '../src/formats/benzene/diff/rules.js'
import { SCHEMA_DIFF_RULES } from '../src/core/diff/schema-diff.js'
import type { BenzeneDocument } from '../src/runtime/benzene/document.js'
import { contractHash } from '../src/runtime/benzene/hash-node.js'
import { serviceLevel, topicScoped, wholeService } from '../src/runtime/benzene/projection.js'
import { splitPointer } from '../src/runtime/shared/json-pointer.js'
import { benzeneSide, diffFiles } from './helpers/benzene-diff.js'

const fixtures = resolve(import.meta.dirname, '../fixtures/diff/benzene')
const fixture = (rule: string, version: 'old' | 'new' | 'near') => join(fixtures, rule, `${version}.spec.json`)
const readDoc = (file: string): BenzeneDocument => JSON.parse(readFileSync(file, 'utf8'))

type Where = [pointer: string, line: number, column: number] | null

/** Rule, the level it fires at, its audiences, its old and new location (null: none). */
const rows: Array<[rule: string, level: DiffFinding['level'], audiences: DiffAudience[], old: Where, next: Where]> = [
  ['benzene-request-removed', 'breaking', [{ kind: 'client', name: 'payments:refund' }], ['/requests/2', 50, 5], ['/requests', 13, 15]],
  ['benzene-request-added', 'info', [], ['/requests', 13, 15], ['/requests/4', 77, 5]],
  [
    'benzene-request-version-changed',
    'breaking',
    [{ kind: 'client', name: 'payments:capture@v2' }],
    ['/requests/1/version', 32, 18],
    ['/requests/1/version', 32, 18],
  ],
  ['benzene-event-removed', 'breaking', [{ kind: 'client', name: 'payment:failed' }], ['/events/1', 86, 5], ['/events', 78, 13]],
  ['benzene-event-added', 'info', [], ['/events', 78, 13], ['/events/2', 98, 5]],
  [
    'benzene-event-version-changed',
    'breaking',
    [{ kind: 'client', name: 'payment:captured@v1' }],
    ['/events/0/version', 81, 18],
    ['/events/0/version', 81, 18],
  ],
  ['benzene-reserved-changed', 'breaking', [{ kind: 'client', name: 'payments:ping' }], ['/requests/3', 68, 5], ['/requests/3/reserved', 70, 19]],
  [
    'benzene-http-mapping-removed',
    'breaking',
    [{ kind: 'client', name: 'payments:capture@v2' }],
    ['/requests/1/httpMappings/0', 34, 9],
    ['/requests/1/httpMappings', 33, 23],
  ],
  ['benzene-http-mapping-added', 'info', [], ['/requests/2', 50, 5], ['/requests/2/httpMappings/0', 53, 9]],
  ['benzene-message-endpoint-removed', 'breaking', [{ kind: 'client' }], ['/messageEndpoint', 8, 22], ['', 1, 1]],
  ['benzene-message-endpoint-changed', 'breaking', [{ kind: 'client' }], ['/messageEndpoint', 8, 22], ['/messageEndpoint', 8, 22]],
  ['benzene-message-endpoint-added', 'info', [], ['', 1, 1], ['/messageEndpoint', 154, 22]],
  ['benzene-transport-removed', 'breaking', [{ kind: 'client' }], ['/transports/1', 11, 5], ['/transports', 9, 17]],
  ['benzene-transport-added', 'info', [], ['/transports', 9, 17], ['/transports/2', 12, 5]],
  ['benzene-component-removed', 'info', [], ['/components/schemas/Unused', 150, 17], ['/components/schemas', 100, 16]],
  ['benzene-component-added', 'info', [], ['/components/schemas', 100, 16], ['/components/schemas/Extra', 153, 16]],
  ['benzene-info-changed', 'info', [], ['/info/title', 4, 14], ['/info/title', 4, 14]],
  ['benzene-openapi-changed', 'info', [], ['/openapi', 2, 14], ['/openapi', 2, 14]],
  ['benzene-example-changed', 'info', [], ['/requests/1/example', 45, 18], ['/requests/1/example', 45, 18]],
  ['benzene-unknown-member-changed', 'info', [], ['/x-owner', 155, 14], ['/x-owner', 155, 14]],
  ['benzene-hash-changed', 'warning', [{ kind: 'client' }, { kind: 'client', name: 'payments:capture@v2' }], ['', 1, 1], ['', 1, 1]],
]

/** The JSON value at `pointer`. */
function valueAt(doc: unknown, pointer: string): unknown {
  let node = doc
  for (const token of splitPointer(pointer)) node = (node as Record<string, unknown>)[token]
  return node
}

/** A location names a node of its file, and its line and column are where that node's JSON text starts (read apart from the differ's source). */
function expectAtNode(location: DiffLocation): void {
  const text = readFileSync(location.file, 'utf8')
  const line = text.split('\n')[location.line - 1]!
  const value = valueAt(JSON.parse(text), location.pointer)
  expect(value, `${location.pointer} exists`).not.toBeUndefined()
  const json = JSON.stringify(value)
  const start = line.slice(location.column - 1)
  if (value !== null && typeof value === 'object') expect(start[0]).toBe(json[0])
  else expect(start.startsWith(json)).toBe(true)
}

function expectWhere(location: DiffLocation | undefined, where: Where, file: string): void {
  if (where === null) return expect(location).toBeUndefined()
  expect(location).toEqual({ file, pointer: where[0], line: where[1], column: where[2] })
  expectAtNode(location!)
}

describe('each rule: a change that fires it, a near change that does not', () => {
  it.each(rows)('%s', async (rule, level, audiences, old, next) => {
    const fired = (await diffFiles(fixture(rule, 'old'), fixture(rule, 'new'))).filter((f) => f.rule === rule)
    expect(fired).toHaveLength(1)
    const [finding] = fired
    expect(finding!.level).toBe(level)
    expect(finding!.audiences).toEqual(audiences)
    expectWhere(finding!.old, old, fixture(rule, 'old'))
    expectWhere(finding!.new, next, fixture(rule, 'new'))
    expect(finding!.message).toMatch(/\.$/)
    const near = await diffFiles(fixture(rule, 'old'), fixture(rule, 'near'))
    // The hash rule always reports (which hashes change, or that none does): near, at info.
    if (rule === 'benzene-hash-changed') expect(near.find((f) => f.rule === rule)?.level).toBe('info')
    else expect(near.filter((f) => f.rule === rule)).toEqual([])
  })

  it('has a fixture for each of its own rules, and a row for each fixture', () => {
    const folders = readdirSync(fixtures).sort()
    expect(folders).toEqual(BENZENE_RULES.map((r) => r.id).sort())
    expect(rows.map((r) => r[0]).sort()).toEqual(folders)
  })
})

describe('the rule catalogue', () => {
  it('declares each rule once, with levels, audiences, an example and a mirror', () => {
    const ids = BENZENE_DIFF_RULES.map((r) => r.id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const rule of BENZENE_DIFF_RULES) {
      expect(rule.levels.length).toBeGreaterThan(0)
      // A rule that reports only at info breaks nobody and names no audience; every other names one.
      expect(rule.audiences.length > 0).toBe(rule.levels.some((level) => level !== 'info'))
      for (const audience of rule.audiences) expect(['client', 'service']).toContain(audience)
      expect(rule.example.old.length).toBeGreaterThan(0)
      expect(rule.example.new.length).toBeGreaterThan(0)
      expect(rule.mirror).toBeDefined()
      if (rule.mirror && 'rule' in rule.mirror) expect(ids).toContain(rule.mirror.rule)
    }
  })

  it("re-exports the schema engine's rules with this format's audiences", () => {
    for (const schemaRule of SCHEMA_DIFF_RULES) {
      const mapped = BENZENE_DIFF_RULES.find((r) => r.id === schemaRule.id)
      expect(mapped?.audiences).toEqual(schemaRule.levels.some((level) => level !== 'info') ? ['client', 'service'] : [])
    }
  })

  it('reports only declared rules, at a declared level, naming declared audiences', async () => {
    const declared = new Map(BENZENE_DIFF_RULES.map((r) => [r.id, r]))
    for (const [rule] of rows) {
      for (const version of ['new', 'near'] as const) {
        for (const finding of await diffFiles(fixture(rule, 'old'), fixture(rule, version))) {
          const entry = declared.get(finding.rule)
          expect(entry, finding.rule).toBeDefined()
          expect(entry!.levels).toContain(finding.level)
          for (const a of finding.audiences) expect(entry!.audiences).toContain(a.kind)
        }
      }
    }
  })
})

describe('contract hashes', () => {
  it('lists each hash that changes, as the compiler computes them for both versions', async () => {
    const oldFile = fixture('benzene-hash-changed', 'old')
    const newFile = fixture('benzene-hash-changed', 'new')
    const findings = await diffFiles(oldFile, newFile)
    const hash = findings.find((f) => f.rule === 'benzene-hash-changed')!
    const was = readDoc(oldFile)
    const is = readDoc(newFile)
    const capture = (doc: BenzeneDocument) => doc.requests.find((r) => r.topic === 'payments:capture')!
    expect(hash.data).toEqual({
      hashes: [
        { kind: 'whole-service', old: contractHash(wholeService(was)), new: contractHash(wholeService(is)) },
        {
          kind: 'topic',
          topic: 'payments:capture',
          version: 'v2',
          old: contractHash(topicScoped(was, capture(was))),
          new: contractHash(topicScoped(is, capture(is))),
        },
      ],
    })
    // The whole-service hash is the one `contracts hash` prints for the file (the model's).
    expect((hash.data!.hashes as Array<{ old: string }>)[0]!.old).toBe((await benzeneSide(oldFile)).model.moduleHash)
    expect(hash.message).toContain('"payments:capture@v2"')
  })

  it('says so when no hash changes (an example edited)', async () => {
    const findings = await diffFiles(fixture('benzene-example-changed', 'old'), fixture('benzene-example-changed', 'new'))
    const hash = findings.find((f) => f.rule === 'benzene-hash-changed')!
    expect(hash.level).toBe('info')
    expect(hash.message).toMatch(/no contract hash changes/i)
    expect(hash.data).toEqual({ hashes: [] })
  })

  it('compares the include-list hash when the compile has an include-list', async () => {
    const query = 'topics=payments:capture,payments:refund'
    const oldFile = fixture('benzene-request-added', 'old')
    const newFile = fixture('benzene-request-added', 'new')
    const findings = await diffFiles(oldFile, newFile, query)
    const hash = findings.find((f) => f.rule === 'benzene-hash-changed')!
    const topics = ['payments:capture', 'payments:refund']
    // A new topic outside the include-list changes the whole-service hash, not the include-list one.
    expect(hash.data).toEqual({
      hashes: [{ kind: 'whole-service', old: contractHash(wholeService(readDoc(oldFile))), new: contractHash(wholeService(readDoc(newFile))) }],
    })
    const edited = await diffFiles(fixture('benzene-hash-changed', 'old'), fixture('benzene-hash-changed', 'new'), query)
    const hashes = edited.find((f) => f.rule === 'benzene-hash-changed')!.data!.hashes as Array<Record<string, unknown>>
    const was = readDoc(fixture('benzene-hash-changed', 'old'))
    const is = readDoc(fixture('benzene-hash-changed', 'new'))
    expect(hashes.find((h) => h.kind === 'service-level')).toEqual({
      kind: 'service-level',
      topics,
      old: contractHash(serviceLevel(was, topics)),
      new: contractHash(serviceLevel(is, topics)),
    })
    expect((await benzeneSide(fixture('benzene-hash-changed', 'old'), query)).model.moduleHash).toBe(contractHash(serviceLevel(was, topics)))
  })

  it('hashes a reserved topic on its own: its route respelled changes its topic hash, not the whole-service one (§6.2 drops reserved entries there)', async () => {
    const oldFile = fixture('benzene-http-mapping-added', 'old')
    const newFile = fixture('benzene-http-mapping-added', 'near')
    const hash = (await diffFiles(oldFile, newFile)).find((f) => f.rule === 'benzene-hash-changed')!
    const spec = (doc: BenzeneDocument) => doc.requests.find((r) => r.topic === 'benzene:spec')!
    const was = readDoc(oldFile)
    const is = readDoc(newFile)
    expect(contractHash(wholeService(was))).toBe(contractHash(wholeService(is)))
    expect(hash.data).toEqual({
      hashes: [{ kind: 'topic', topic: 'benzene:spec', old: contractHash(topicScoped(was, spec(was))), new: contractHash(topicScoped(is, spec(is))) }],
    })
    expect(hash.audiences).toEqual([{ kind: 'client', name: 'benzene:spec' }])
  })

  it('names a removed topic with its old hash and no new one', async () => {
    const oldFile = fixture('benzene-request-removed', 'old')
    const findings = await diffFiles(oldFile, fixture('benzene-request-removed', 'new'))
    const hashes = findings.find((f) => f.rule === 'benzene-hash-changed')!.data!.hashes as Array<Record<string, unknown>>
    const was = readDoc(oldFile)
    const refund = was.requests.find((r) => r.topic === 'payments:refund')!
    expect(hashes).toContainEqual({ kind: 'topic', topic: 'payments:refund', old: contractHash(topicScoped(was, refund)), new: null })
  })
})

describe('the whole diff', () => {
  it('has no findings for a document against itself', async () => {
    const file = fixture('benzene-request-removed', 'old')
    expect(await diffFiles(file, file)).toEqual([])
  })

  it('is deterministic, sorted by new location, and never repeats a finding', async () => {
    const a = await diffFiles(fixture('benzene-http-mapping-removed', 'old'), fixture('benzene-http-mapping-removed', 'new'))
    const b = await diffFiles(fixture('benzene-http-mapping-removed', 'old'), fixture('benzene-http-mapping-removed', 'new'))
    expect(a).toEqual(b)
    const keys = a.map((f) => JSON.stringify([f.rule, f.old?.pointer, f.new?.pointer, f.message]))
    expect(new Set(keys).size).toBe(keys.length)
    const lines = a.filter((f) => f.new).map((f) => f.new!.line * 1e6 + f.new!.column)
    expect(lines).toEqual([...lines].sort((x, y) => x - y))
    // A path moved is the old route gone (breaking) and the new one added (info).
    expect(a.map((f) => [f.rule, f.level])).toEqual([
      ['benzene-hash-changed', 'warning'],
      ['benzene-http-mapping-removed', 'breaking'],
      ['benzene-http-mapping-added', 'info'],
    ])
  })

  it('reports each transport of a list that is gone, located at the document in the new version', async () => {
    const doc = readDoc(fixture('benzene-transport-removed', 'old'))
    delete doc.transports
    const dir = resolve(import.meta.dirname, '.tmp/benzene-diff')
    mkdirSync(dir, { recursive: true })
    const file = join(dir, 'no-transports.spec.json')
    writeFileSync(file, JSON.stringify(doc, null, 2))
    const removed = (await diffFiles(fixture('benzene-transport-removed', 'old'), file)).filter((f) => f.rule === 'benzene-transport-removed')
    const root = { file, pointer: '', line: 1, column: 1 }
    expect(removed.map((f) => [f.level, f.old?.pointer, f.new, f.data])).toEqual([
      ['breaking', '/transports/0', root, { transport: 'benzene' }],
      ['breaking', '/transports/1', root, { transport: 'sqs' }],
    ])
  })

  it('reads format: int64 as the validators do (the int64 option): int64 to int32 narrows what clients may send', async () => {
    const dir = resolve(import.meta.dirname, '.tmp/benzene-diff')
    mkdirSync(dir, { recursive: true })
    const amountAs = (format: string): string => {
      const doc = readDoc(fixture('benzene-component-added', 'old'))
      const schemas = (doc.components as { schemas: Record<string, { properties: Record<string, unknown> }> }).schemas
      schemas.CapturePayment!.properties.amount = { type: 'integer', format }
      const file = join(dir, `amount-${format}.spec.json`)
      writeFileSync(file, JSON.stringify(doc, null, 2))
      return file
    }
    const int64 = amountAs('int64')
    const findings = await diffFiles(int64, amountAs('int32'))
    const narrowed = findings.filter((f) => f.rule === 'schema-format-narrowed')
    expect(narrowed.length).toBeGreaterThan(0)
    expect(narrowed.every((f) => f.new?.pointer === '/components/schemas/CapturePayment/properties/amount/format')).toBe(true)
    expect(narrowed.map((f) => f.level)).toContain('breaking')
    expect(findings.filter((f) => f.rule.startsWith('schema-format') || f.rule === 'schema-unknown')).toEqual(narrowed)
    // The near change: the same format on both sides is no finding at all.
    expect(await diffFiles(int64, amountAs('int64'))).toEqual([])
  })

  it('is the registered differ for the format', async () => {
    const { loadDiffer } = await import('../src/formats/diffs.js')
    expect(await loadDiffer('benzene')).toBe(benzeneDiffer)
    expect(benzeneDiffer.format).toBe('benzene')
  })

  it('keeps its source out of what lists the model', async () => {
    const { model } = await benzeneSide(fixture('benzene-request-removed', 'old'))
    expect(Object.keys(model)).not.toContain('source')
    expect(model.source.file).toBe(model.file)
  })
})
