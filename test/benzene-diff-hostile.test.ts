/**
 * The Benzene differ on hostile pairs: names holding control characters, quotes, `/`, `~` and
 * prototype keys (messages quote them as the document's JSON writes them, `data` holds them as they
 * are, locations still point at their nodes), many versions of one topic, and a large pair whose
 * findings grow with the edits, not with the product of the documents (time bounds live in bench/).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { BenzeneDocument, RequestEntry } from '../src/runtime/benzene/document.js'
import { diffFiles } from './helpers/benzene-diff.js'

const tmp = join(import.meta.dirname, '.tmp/benzene-diff-hostile')

function write(name: string, doc: unknown): string {
  mkdirSync(tmp, { recursive: true })
  const file = join(tmp, `${name}.spec.json`)
  writeFileSync(file, JSON.stringify(doc, null, 2))
  return file
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${encodeURIComponent(name.replace(/~/g, '~0').replace(/\//g, '~1'))}` })

function document(requests: RequestEntry[], schemas: Record<string, unknown>, events: BenzeneDocument['events'] = []): BenzeneDocument {
  return {
    openapi: '3.0.1',
    info: { title: 'hostile', version: '' },
    requests,
    events,
    components: { schemas: schemas as BenzeneDocument['components']['schemas'] },
  }
}

describe('hostile names', () => {
  const odd = 'pay\u0007ments:"capture"\n\u202e'
  const slashy = 'Money/EUR~1'
  const base = () =>
    document(
      [
        { topic: odd, request: ref(slashy), response: { type: 'string' } },
        { topic: '__proto__', request: { type: 'string' }, response: ref('constructor') },
      ],
      { [slashy]: { type: 'object', properties: { amount: { type: 'number' } } }, constructor: { type: 'string' } },
      [{ topic: 'hasOwnProperty', message: { type: 'string' } }],
    )

  it('quotes them in messages as the JSON writes them, keeps them as they are in data', async () => {
    const was = base()
    const is = base()
    is.requests = is.requests.slice(1)
    is.events = []
    const findings = await diffFiles(write('names-old', was), write('names-new', is))
    const removed = findings.find((f) => f.rule === 'benzene-request-removed')!
    expect(removed.message).toContain(JSON.stringify(odd))
    expect(removed.message).not.toContain('\n')
    expect(removed.message).not.toContain('\u0007')
    expect(removed.data).toStrictEqual({ topic: odd })
    expect(removed.audiences).toEqual([{ kind: 'client', name: odd }])
    expect(removed.old).toMatchObject({ pointer: '/requests/0', line: 8, column: 5 })
    const event = findings.find((f) => f.rule === 'benzene-event-removed')!
    expect(event.audiences).toEqual([{ kind: 'client', name: 'hasOwnProperty' }])
    const hashes = findings.find((f) => f.rule === 'benzene-hash-changed')!.data!.hashes as Array<{ topic?: string }>
    expect(hashes.map((h) => h.topic)).toContain(odd)
  })

  it('places a change in a component named with `/` and `~` at its escaped pointer', async () => {
    const was = base()
    const is = base()
    ;(is.components.schemas[slashy] as { properties: Record<string, unknown> }).properties.amount = { type: 'integer' }
    ;(is.components.schemas.constructor as Record<string, unknown>).maxLength = 3
    const findings = await diffFiles(write('slash-old', was), write('slash-new', is))
    const money = findings.filter((f) => f.new?.pointer.startsWith('/components/schemas/Money~1EUR~01'))
    expect(money.length).toBeGreaterThan(0)
    expect(money[0]!.new!.line).toBeGreaterThan(1)
    expect(money[0]!.message).toContain(JSON.stringify(slashy))
    // A component schema named like a prototype member is one like any other: the `__proto__` topic's response reaches it.
    const ctor = findings.filter((f) => f.new?.pointer.startsWith('/components/schemas/constructor'))
    expect(ctor.length).toBeGreaterThan(0)
    expect(ctor[0]!.audiences.map((a) => a.name)).toContain('__proto__')
  })

  it('pairs many versions of one topic by version, and never calls removed-and-added a version change', async () => {
    const entry = (version: string): RequestEntry => ({ topic: 'orders:get', version, request: { type: 'string' }, response: { type: 'string' } })
    const was = document([entry('v1'), entry('v2'), entry('v3')], {})
    const is = document([entry('v2'), entry('v4'), entry('v5')], {})
    const findings = await diffFiles(write('versions-old', was), write('versions-new', is))
    const rules = findings.map((f) => `${f.rule} ${(f.data as { version?: string } | undefined)?.version}`)
    expect(rules.filter((r) => !r.startsWith('benzene-hash-changed')).sort()).toEqual([
      'benzene-request-added v4',
      'benzene-request-added v5',
      'benzene-request-removed v1',
      'benzene-request-removed v3',
    ])
  })

  it('with several versions on a side, one version gone and one new is a removal and an addition, not a version change (requests and events)', async () => {
    const entry = (version: string): RequestEntry => ({ topic: 'orders:get', version, request: { type: 'string' }, response: { type: 'string' } })
    const event = (version: string) => ({ topic: 'orders:got', version, message: { type: 'string' } })
    const was = document([entry('v1'), entry('v2')], {}, [event('v1'), event('v2')])
    const is = document([entry('v2'), entry('v3')], {}, [event('v2'), event('v3')])
    for (const [old, next, gone, come] of [
      [was, is, 'v1', 'v3'],
      [is, was, 'v3', 'v1'],
    ] as const) {
      const findings = await diffFiles(write(`several-old-${gone}`, old), write(`several-new-${gone}`, next))
      const rules = findings.map((f) => `${f.rule} ${(f.data as { version?: string } | undefined)?.version}`)
      expect(rules.filter((r) => !r.startsWith('benzene-hash-changed')).sort()).toEqual([
        `benzene-event-added ${come}`,
        `benzene-event-removed ${gone}`,
        `benzene-request-added ${come}`,
        `benzene-request-removed ${gone}`,
      ])
    }
  })

  it('a $ref replaced by an inline schema is a change of the payload, not of the component it named', async () => {
    const entry = (request: unknown): RequestEntry => ({ topic: 'svc:do', request, response: { type: 'string' } }) as RequestEntry
    const was = document([entry({ $ref: '#/components/schemas/Req' })], { Req: { type: 'object' } })
    const is = document([entry({ type: 'string' })], { Req: { type: 'object' } })
    const findings = (await diffFiles(write('inline-old', was), write('inline-new', is))).filter((f) => f.rule.startsWith('schema-'))
    expect(findings.length).toBeGreaterThan(0)
    for (const f of findings) expect(f.message).toMatch(/^The request payload of "svc:do": /)
  })

  it('tells an unversioned entry from one with a version', async () => {
    const entry = (version?: string): RequestEntry => ({
      topic: 'orders:get',
      ...(version ? { version } : {}),
      request: { type: 'string' },
      response: { type: 'string' },
    })
    const findings = await diffFiles(write('unversioned-old', document([entry()], {})), write('unversioned-new', document([entry('v1')], {})))
    const changed = findings.find((f) => f.rule === 'benzene-request-version-changed')!
    expect(changed.message).toBe('The request topic "orders:get" changed from no version to version "v1": clients of the old one get no handler.')
    expect(changed.old!.pointer).toBe('/requests/0')
    expect(changed.new!.pointer).toBe('/requests/0/version')
  })
})

describe('a large pair', () => {
  /** `n` topics, each with its own request schema and a shared response schema. */
  function large(n: number, edit: (i: number) => boolean): BenzeneDocument {
    const requests: RequestEntry[] = []
    const schemas: Record<string, unknown> = { Shared: { type: 'object', properties: { id: { type: 'string' } } } }
    for (let i = 0; i < n; i++) {
      requests.push({ topic: `orders:op-${i}`, request: ref(`Req${i}`), response: ref('Shared'), httpMappings: [{ method: 'POST', path: `/orders/${i}` }] })
      schemas[`Req${i}`] = { type: 'object', properties: { id: { type: 'string', ...(edit(i) ? { maxLength: 8 } : {}) } } }
    }
    return document(requests, schemas)
  }

  it('reports each edit once, whatever the size, and names every topic a shared schema reaches', async () => {
    const n = 3000
    const was = large(n, () => false)
    const is = large(n, (i) => i % 100 === 0)
    is.requests.splice(5, 1)
    ;(is.components.schemas.Shared as { properties: Record<string, unknown> }).properties.name = { type: 'string' }
    const findings = await diffFiles(write('large-old', was), write('large-new', is))
    const byRule = new Map<string, number>()
    for (const f of findings) byRule.set(f.rule, (byRule.get(f.rule) ?? 0) + 1)
    expect(byRule.get('benzene-request-removed')).toBe(1)
    expect(byRule.get('benzene-hash-changed')).toBe(1)
    const schema = findings.filter((f) => f.rule.startsWith('schema-'))
    // Each edited request schema, and the shared one: one finding each.
    expect(schema.filter((f) => f.new?.pointer.startsWith('/components/schemas/Req'))).toHaveLength(n / 100)
    const shared = schema.filter((f) => f.new?.pointer.startsWith('/components/schemas/Shared'))
    expect(shared).toHaveLength(1)
    // Every topic still there has the shared response: its clients receive it, the service sends it.
    expect(new Set(shared[0]!.audiences.map((a) => a.name)).size).toBe(n - 1)
    const hashes = findings.find((f) => f.rule === 'benzene-hash-changed')!.data!.hashes as unknown[]
    // The whole-service hash and every topic's (the shared response is in each closure).
    expect(hashes).toHaveLength(1 + n)
    expect(findings.find((f) => f.rule === 'benzene-hash-changed')!.message).toContain(`and ${n - 5} more`)
  })
})
