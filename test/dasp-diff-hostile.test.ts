/**
 * The DASP differ on what a document may hold: huge versions (the differ is linear; a quadratic step
 * on the 30,000-member lists here would be about 10^9 comparisons per list, beyond the suite's time
 * limit, which is the only bound here: the cost itself is measured in bench/, not asserted), odd
 * names (case, Unicode normalization, pointer characters, prototype names, control characters, huge
 * names) and malformed parts. It never throws, and its findings are deterministic.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { DiffFinding, DiffSide } from '../src/core/diff/types.js'
import { daspDiffer } from '../src/formats/dasp/diff/index.js'
import type { DaspModel } from '../src/formats/dasp/model.js'
import { splitPointer } from '../src/runtime/shared/json-pointer.js'

type Json = Record<string, any>

/** A version held in memory: the differ reads the selection and every definition through `read` (the model has no sources). */
function memorySide(dir: string, files: Record<string, unknown>): DiffSide<DaspModel> {
  const texts = new Map(Object.entries(files).map(([rel, v]) => [join(dir, rel), typeof v === 'string' ? v : JSON.stringify(v, null, 1)]))
  const file = join(dir, 'app.dasp.json')
  const model = { file, request: {}, floor: { extensions: [] }, attributes: [] } as DaspModel
  return { file, model, read: async (path) => texts.get(path) }
}

const pin = (n: number) => ({ kind: 'git-commit', repository: 'https://example.com/x', commit: n.toString(16).padStart(40, '0') })
const contract = (uri: string) => ({ uri, version: '1', content: pin(1) })

function definition(uri: string, version: string, parts: Json = {}): Json {
  return {
    identity: { uri, version },
    status: 'draft',
    content: pin(2),
    supports: { core: [contract('urn:core')], profiles: 'any', bindings: [contract('urn:binding')] },
    dependencies: [],
    scopes: ['session'],
    operations: ['dasp.v1.command'],
    settings: {},
    attributes: [],
    processing: 'p',
    ...parts,
  }
}

function selection(extensions: Json[], definitions: string[]): Json {
  return { dasp: 'draft-01', core: contract('urn:core'), profile: contract('urn:profile'), binding: contract('urn:binding'), definitions, extensions }
}

const count = (findings: DiffFinding[], rule: string) => findings.filter((f) => f.rule === rule).length

/** Every location's pointer names a node of its document, and its position is 1-based. */
function locationsHold(findings: DiffFinding[], documents: Map<string, unknown>): void {
  for (const f of findings)
    for (const l of [f.old, f.new]) {
      if (!l) continue
      expect(l.line).toBeGreaterThanOrEqual(1)
      expect(l.column).toBeGreaterThanOrEqual(1)
      let node = documents.get(l.file)
      for (const token of splitPointer(l.pointer)) {
        expect(node !== null && typeof node === 'object' && Object.hasOwn(node, token), `${l.file}#${l.pointer}`).toBe(true)
        node = (node as Json)[token]
      }
    }
}

describe('huge versions', () => {
  it('2,000 extensions with their definitions, and one definition with 30,000 operations, attributes and enum values', async () => {
    const n = 2_000
    const big = 30_000
    const make = (dir: string, changed: boolean) => {
      const files: Record<string, unknown> = {}
      const extensions: Json[] = []
      const definitions: string[] = []
      for (let i = 0; i < n; i++) {
        const version = changed && i % 2 === 0 ? '2' : '1'
        files[`d/${i}.dasp-ext.json`] = definition(`urn:x:${i}`, version, {
          settings: { s: { type: 'integer', minimum: 0, maximum: 10, persistence: i % 3 === 0 ? 'session' : 'connection' } },
        })
        definitions.push(`d/${i}.dasp-ext.json`)
        extensions.push({ uri: `urn:x:${i}`, version, scope: 'session', settings: { s: changed && i % 5 === 0 ? 1 : 0 } })
      }
      const keep = (k: number) => !changed || k % 2 === 1
      files['d/big.dasp-ext.json'] = definition('urn:big', '1', {
        operations: Array.from({ length: big }, (_, k) => `op.${k}`).filter((_, k) => keep(k)),
        attributes: Array.from({ length: big }, (_, k) => ({ name: `a${k}`, type: 'String', on: ['dasp.v1.command'], class: 'delivery' })).filter((_, k) =>
          keep(k),
        ),
        settings: { e: { type: 'enum', values: Array.from({ length: big }, (_, k) => `v${k}`).filter((_, k) => keep(k) || k === 1), persistence: 'session' } },
      })
      definitions.push('d/big.dasp-ext.json')
      extensions.push({ uri: 'urn:big', version: '1', scope: 'session', settings: { e: 'v1' } })
      files['app.dasp.json'] = selection(extensions, definitions)
      return memorySide(dir, files)
    }
    const findings = await daspDiffer.diff(make('/huge/old', false), make('/huge/new', true))
    expect(count(findings, 'dasp-extension-version-changed')).toBe(n / 2)
    // Every fifth extension's setting changed (on both the versioned and the unversioned ones); persistent when i % 3 === 0.
    const fifth = Array.from({ length: n }, (_, i) => i).filter((i) => i % 5 === 0)
    expect(count(findings, 'dasp-persistent-setting-changed')).toBe(fifth.filter((i) => i % 3 === 0).length)
    expect(count(findings, 'dasp-connection-setting-changed')).toBe(fifth.filter((i) => i % 3 !== 0).length)
    expect(count(findings, 'dasp-operation-removed')).toBe(big / 2)
    expect(count(findings, 'dasp-attribute-removed')).toBe(big / 2)
    expect(count(findings, 'dasp-setting-narrowed')).toBe(big / 2)
    expect(count(findings, 'dasp-definition-changed-in-place')).toBe(1)
  }, 60_000)
})

describe('odd names', () => {
  const twoVersions = async (oldSelection: Json, newSelection: Json, oldDefs: Record<string, Json>, newDefs: Record<string, Json>) => {
    const oldFiles = { 'app.dasp.json': oldSelection, ...oldDefs }
    const newFiles = { 'app.dasp.json': newSelection, ...newDefs }
    const findings = await daspDiffer.diff(memorySide('/odd/old', oldFiles), memorySide('/odd/new', newFiles))
    const documents = new Map<string, unknown>([
      ...Object.entries(oldFiles).map(([k, v]) => [join('/odd/old', k), v] as const),
      ...Object.entries(newFiles).map(([k, v]) => [join('/odd/new', k), v] as const),
    ])
    locationsHold(findings, documents)
    // Deterministic: the same pair gives the same findings.
    expect(await daspDiffer.diff(memorySide('/odd/old', oldFiles), memorySide('/odd/new', newFiles))).toEqual(findings)
    return findings
  }

  it('identities are compared exactly: another case or another Unicode normalization is another extension', async () => {
    for (const [before, after] of [
      ['urn:example:ext:Auth', 'urn:example:ext:auth'],
      ['urn:example:caf\u00e9', 'urn:example:cafe\u0301'],
      ['https://example.com/ext', 'https://example.com/ext/'],
      ['https://EXAMPLE.com/ext', 'https://example.com/ext'],
    ]) {
      const findings = await twoVersions(
        selection([{ uri: before, version: '1', scope: 'session', settings: {} }], ['e.dasp-ext.json']),
        selection([{ uri: after, version: '1', scope: 'session', settings: {} }], ['e.dasp-ext.json']),
        { 'e.dasp-ext.json': definition(before, '1') },
        { 'e.dasp-ext.json': definition(after, '1') },
      )
      expect(findings.map((f) => f.rule).sort()).toEqual(['dasp-extension-added', 'dasp-extension-removed'])
      expect(findings.find((f) => f.rule === 'dasp-extension-added')!.data).toEqual({ nearMiss: before })
      expect(findings.find((f) => f.rule === 'dasp-extension-removed')!.data).toEqual({ nearMiss: after })
    }
  })

  it('a version differing only by case is another version', async () => {
    const findings = await twoVersions(
      selection([{ uri: 'urn:e', version: 'draft-01', scope: 'session', settings: {} }], ['e.dasp-ext.json']),
      selection([{ uri: 'urn:e', version: 'DRAFT-01', scope: 'session', settings: {} }], ['e.dasp-ext.json']),
      { 'e.dasp-ext.json': definition('urn:e', 'draft-01') },
      { 'e.dasp-ext.json': definition('urn:e', 'DRAFT-01') },
    )
    expect(findings.map((f) => f.rule)).toContain('dasp-extension-version-changed')
  })

  it('setting names with pointer characters, prototype names, control characters and huge names', async () => {
    const huge = 'n'.repeat(200_000)
    const names = ['__proto__', 'constructor', 'a/b~c', '', 'toString', 'bell\u0007\u001b[31m', '\u202eevil', huge]
    const spec = (persistence: string) => Object.fromEntries(names.map((k) => [k, { type: 'integer', persistence }]))
    const values = (v: number) => Object.fromEntries(names.map((k) => [k, v]))
    // JSON.parse makes `__proto__` an own member; build the documents as text so it stays one.
    const text = (value: unknown) => JSON.stringify(value).replace(/"__proto_x_"/g, '"__proto__"')
    const rename = (o: Json) => JSON.parse(JSON.stringify(o).replace(/"__proto__"/g, '"__proto_x_"'))
    const defn = (p: string) => JSON.parse(text(rename(definition('urn:e', '1', { settings: spec(p) }))))
    const sel = (v: number) => JSON.parse(text(rename(selection([{ uri: 'urn:e', version: '1', scope: 'session', settings: values(v) }], ['e.dasp-ext.json']))))
    const findings = await twoVersions(sel(1), sel(2), { 'e.dasp-ext.json': defn('session') }, { 'e.dasp-ext.json': defn('connection') })
    expect(count(findings, 'dasp-persistent-setting-changed')).toBe(names.length)
    expect(count(findings, 'dasp-setting-persistence-changed')).toBe(names.length)
    expect(findings.map((f) => f.new!.pointer)).toContain('/extensions/0/settings/a~1b~0c')
    expect(findings.map((f) => f.new!.pointer)).toContain('/extensions/0/settings/__proto__')
    for (const f of findings) {
      expect(f.message.length).toBeLessThan(1_000)
      expect([...f.message].some((c) => c.charCodeAt(0) < 0x20)).toBe(false)
    }
  })

  it('malformed parts and unreadable definitions: no throw, nothing invented', async () => {
    const odd = {
      dasp: 'draft-01',
      core: null,
      profile: 'x',
      binding: [],
      definitions: [1, null, '../../etc/passwd', 'https://x/y', 'bad.json'],
      extensions: 'x',
    }
    const findings = await daspDiffer.diff(
      memorySide('/bad/old', { 'app.dasp.json': odd, 'bad.json': '{ not json' }),
      memorySide('/bad/new', {
        'app.dasp.json': { ...odd, extensions: [null, 3, { uri: 1 }, { uri: 'urn:e', version: '1', scope: 'session', settings: null }] },
      }),
    )
    expect(findings.map((f) => f.rule)).toEqual(['dasp-extension-added'])
    // A selection that cannot be read at all is an empty version, not an error.
    expect(await daspDiffer.diff(memorySide('/none/old', {}), memorySide('/none/new', { 'app.dasp.json': '[' }))).toEqual([])
  })

  it('the same extension requested twice, and in two scopes', async () => {
    const e = (scope: string) => ({ uri: 'urn:e', version: '1', scope, settings: {} })
    const findings = await twoVersions(
      selection([e('session'), e('session'), e('command')], ['e.dasp-ext.json']),
      selection([e('command'), e('session')], ['e.dasp-ext.json']),
      { 'e.dasp-ext.json': definition('urn:e', '1', { scopes: ['session', 'command'] }) },
      { 'e.dasp-ext.json': definition('urn:e', '1', { scopes: ['session', 'command'] }) },
    )
    expect(findings.map((f) => [f.rule, f.old?.pointer])).toEqual([['dasp-extension-removed', '/extensions/1']])
  })
})
