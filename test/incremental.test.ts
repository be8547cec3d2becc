/**
 * Recompiles after an edit (issue 21): a compiler keeps what its stages computed by content
 * (`CompileMemos`), so an edit of one topic redoes that topic's validator functions and hash input
 * only, and the module is byte for byte what a fresh compiler writes.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { beforeEach, describe, expect, it } from 'vitest'
import { ContractCompiler } from '../src/index.js'
import { ok } from '../src/runtime/shared/result.js'
import { loadModule } from './helpers/load-module.js'
import { ShopBundle } from './helpers/nats-bundle.js'
import { natsDocument } from '../bench/generate.js'

const work = join(import.meta.dirname, '.tmp/incremental')
const file = join(work, 'service.spec.json')

/** A service of `n` topics, each with its own request schema (patterns, long enums, many members: every kind of module constant). */
function document(n: number, edit?: { topic: number; schema: unknown }): string {
  const schemas: Record<string, unknown> = {
    Money: {
      type: 'object',
      required: ['Amount'],
      properties: { Amount: { type: 'number', minimum: 0 }, Currency: { type: 'string', pattern: '^[A-Z]{3}$' } },
    },
  }
  const requests: unknown[] = []
  for (let i = 0; i < n; i++) {
    schemas[`Request${i}`] = edit?.topic === i ? edit.schema : requestSchema(i)
    schemas[`Response${i}`] = { type: 'object', properties: { Id: { type: 'string' }, Total: { $ref: '#/components/schemas/Money' } } }
    requests.push({ topic: `svc:op-${i}`, request: { $ref: `#/components/schemas/Request${i}` }, response: { $ref: `#/components/schemas/Response${i}` } })
  }
  return JSON.stringify({ openapi: '3.0.1', info: { title: 'incremental', version: '1' }, requests, events: [], components: { schemas } }, null, 2)
}

function requestSchema(i: number): unknown {
  const members = Object.fromEntries(Array.from({ length: 10 }, (_, k) => [`field${k}`, { type: 'string', maxLength: 8 + i }]))
  return {
    type: 'object',
    additionalProperties: false,
    required: ['Code'],
    properties: {
      ...members,
      Code: { type: 'string', pattern: `^op${i}-[a-z]+$` },
      Kind: { type: 'string', enum: ['a', 'b', 'c', 'd', 'e', `kind${i}`] },
      Total: { $ref: '#/components/schemas/Money' },
    },
  }
}

const write = (text: string) => writeFileSync(file, text)
/** Whether a topic client sends `request` (a sender that answers every request with an empty success). */
const sends = async (client: { send(sender: unknown, request: unknown): Promise<{ isSuccessful: boolean }> }, request: unknown) =>
  (await client.send({ send: async () => ok({}) }, request)).isSuccessful
const fresh = async () => new ContractCompiler().compile(file)

beforeEach(() => {
  rmSync(work, { recursive: true, force: true })
  mkdirSync(work, { recursive: true })
})

describe('a Benzene recompile after an edit', () => {
  it('writes the bytes a fresh compiler writes, module and declarations, and redoes only the edited topic', async () => {
    const compiler = new ContractCompiler()
    write(document(40))
    const first = await compiler.compile(file)
    expect(first.diagnostics).toEqual([])
    const code = compiler.memos.of('schema-code')
    const bytes = compiler.memos.of('benzene:schemas')
    // A file's first compile (a one-shot build's only one) neither reads nor fills the memos.
    expect([code.hits, code.misses, bytes.hits, bytes.misses]).toEqual([0, 0, 0, 0])
    // Its first recompile fills them (nothing to reuse yet): here, another topic was edited. One
    // function per request definition; the 40 responses are copies of one another, one definition
    // (src/formats/benzene/definition-classes.ts), and a payload that is one `$ref` has no function.
    write(document(40, { topic: 2, schema: { type: 'object', properties: { Other: { type: 'boolean' } } } }))
    await compiler.compile(file)
    expect(code.misses).toBeGreaterThan(40)
    const before = { code: code.misses, bytes: bytes.misses }
    // One topic's request gains a member with a pattern of its own (a new module constant).
    const edited = requestSchema(7) as { properties: Record<string, unknown> }
    edited.properties.Note = { type: 'string', pattern: '^edited$' }
    write(document(40, { topic: 7, schema: edited }))
    const second = await compiler.compile(file)
    const reference = await fresh()
    expect(second.code).toBe(reference.code)
    expect(second.dts).toBe(reference.dts)
    expect(second.code).not.toBe(first.code)
    expect(second.code).toContain('"^edited$"')
    // The two definitions that changed (topic 7's, and topic 2's back to its first form) are written again; the other 38 are not.
    expect(code.misses - before.code).toBeGreaterThan(0)
    expect(code.misses - before.code).toBeLessThanOrEqual(2)
    expect(bytes.misses - before.bytes).toBe(2)
    expect(code.hits).toBeGreaterThan(38)
  })

  it('gives the first bytes back when the edit is undone, and the generated validators judge as before', async () => {
    const compiler = new ContractCompiler()
    write(document(12))
    const first = await compiler.compile(file)
    write(document(12, { topic: 3, schema: { type: 'object', required: ['Only'], properties: { Only: { type: 'integer' } } } }))
    const edited = await compiler.compile(file)
    write(document(12))
    const undone = await compiler.compile(file)
    expect(undone.code).toBe(first.code)
    const mod = await loadModule(edited.code!, 'incremental-edited')
    expect(await sends(mod.op3, { Only: 1.5 })).toBe(false)
    expect(await sends(mod.op3, { Only: 2 })).toBe(true)
    const back = await loadModule(undone.code!, 'incremental-undone')
    expect(await sends(back.op3, { Code: 'op3-x', Kind: 'kind3' })).toBe(true)
    expect(await sends(back.op3, { Code: 'op4-x' })).toBe(false)
  })

  it('keeps names from a document as escaped literals, control characters included, on a hit as on a miss', async () => {
    const odd = {
      type: 'object',
      required: ['\u0001a'],
      properties: { '\u0001a': { type: 'string', pattern: '^\u0001[0-9]\u0001$' }, 'b\u00010': { enum: [1, 2, 3, 4, 5, '\u00011\u0001'] } },
    }
    const compiler = new ContractCompiler()
    write(document(3, { topic: 1, schema: odd }))
    expect((await compiler.compile(file)).diagnostics).toEqual([])
    write(document(3, { topic: 1, schema: odd }).replace('"incremental"', '"incremental-1"'))
    const miss = await compiler.compile(file)
    expect(miss.code).toBe((await fresh()).code)
    write(document(3, { topic: 1, schema: odd }).replace('"incremental"', '"incremental-2"'))
    const hit = await compiler.compile(file)
    expect(compiler.memos.of('schema-code').hits).toBeGreaterThan(0)
    expect(hit.code!.includes('\u0001')).toBe(false)
    expect(hit.code).toBe((await fresh()).code)
    const mod = await loadModule(hit.code!, 'incremental-control')
    expect(await sends(mod.op1, { '\u0001a': '\u00017\u0001', 'b\u00010': '\u00011\u0001' })).toBe(true)
    expect(await sends(mod.op1, { '\u0001a': 'x' })).toBe(false)
    expect(await sends(mod.op1, { '\u0001a': '\u00017\u0001', 'b\u00010': '1' })).toBe(false)
  })

  it('leaves the declarations out when asked for none, and the module is the same', async () => {
    write(document(5))
    const compiler = new ContractCompiler()
    const without = await compiler.compile(file, { declarations: false })
    const withTypes = await compiler.compile(file)
    expect(without.dts).toBeUndefined()
    expect(withTypes.dts).toContain('export declare const op0')
    expect(without.code).toBe(withTypes.code)
  })
})

describe('a Benzene recompile after random edits', () => {
  /** One edit of the 6-topic document: its title, one topic's entry, one request schema, or a shared schema. */
  const edits = fc.oneof(
    fc.record({ kind: fc.constant('title' as const), text: fc.string({ maxLength: 6 }) }),
    fc.record({ kind: fc.constant('entry' as const), topic: fc.nat(5), text: fc.string({ maxLength: 6 }) }),
    fc.record({ kind: fc.constant('schema' as const), topic: fc.nat(5), max: fc.nat(40) }),
    fc.record({ kind: fc.constant('shared' as const), minimum: fc.integer({ min: -5, max: 5 }) }),
  )
  type Edit = typeof edits extends fc.Arbitrary<infer E> ? E : never
  const edited = (edit: Edit): string => {
    const doc = JSON.parse(document(6)) as Record<string, any>
    if (edit.kind === 'title') doc.info.title = edit.text
    else if (edit.kind === 'entry') doc.requests[edit.topic].version = edit.text
    else if (edit.kind === 'schema') doc.components.schemas[`Request${edit.topic}`].properties.field0.maxLength = edit.max
    else doc.components.schemas.Money.properties.Amount.minimum = edit.minimum
    return JSON.stringify(doc)
  }

  it('writes what a fresh compiler writes after each edit of a sequence, and hashes again only the topics an edit reached', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(edits, { minLength: 2, maxLength: 3 }), async (sequence) => {
        const compiler = new ContractCompiler()
        write(document(6))
        // The file's first compile keeps no memos; its first recompile (other bytes, the same document) fills them.
        await compiler.compile(file)
        write(document(6) + '\n')
        await compiler.compile(file)
        const hashes = compiler.memos.of('benzene:topic-hash')
        for (const edit of sequence) {
          write(edited(edit))
          const before = hashes.misses
          const warm = await compiler.compile(file)
          // An edit of one topic's entry or request schema reaches that topic's projection alone.
          if (edit.kind === 'entry' || edit.kind === 'schema') expect(hashes.misses - before).toBeLessThanOrEqual(1)
          const reference = await fresh()
          expect(warm.diagnostics).toEqual(reference.diagnostics)
          expect(warm.code).toBe(reference.code)
          expect(warm.dts).toBe(reference.dts)
        }
        // Unchanged, the next compile hashes no topic again.
        const misses = hashes.misses
        await compiler.compile(file)
        expect(hashes.misses).toBe(misses)
      }),
      { numRuns: 4 },
    )
  })
})

describe('a NATS recompile after an edit', () => {
  it('writes the bytes a fresh compiler writes, after an edit outside the checked payloads and after one inside them', async () => {
    const shop = ShopBundle.copy('incremental-nats')
    shop.withRuntimeSchemaCheck().relock()
    const compiler = new ContractCompiler()
    // The memo keeps generated validator functions: the form the option validators: 'code' writes.
    const code = { nats: { validators: 'code' } } as const
    const first = await compiler.compile(shop.doc('payments'), code)
    expect(first.diagnostics).toEqual([])
    expect(first.code).toContain('compiledValidator')
    const memo = compiler.memos.of('schema-code')
    const recompiled = async () => {
      const misses = memo.misses
      const result = await compiler.compile(shop.doc('payments'), code)
      expect(result.diagnostics).toEqual([])
      expect(result.code).toBe((await new ContractCompiler().compile(shop.doc('payments'), code)).code)
      return memo.misses - misses
    }
    // The first recompile fills the memo; after it, an edit that changes nothing a validator checks writes no function.
    shop.edit('payments/asyncapi/asyncapi.yaml', '  title: Payments\n', '  title: Payments (edited)\n').relock()
    expect(await recompiled()).toBeGreaterThan(0)
    shop.edit('payments/asyncapi/asyncapi.yaml', '  title: Payments (edited)\n', '  title: Payments (edited again)\n').relock()
    expect(await recompiled()).toBe(0)
    // A schema the checked payload reaches changed: its function is written again.
    shop
      .edit(
        'payments/asyncapi/asyncapi.yaml',
        'properties: { paymentId: { type: string }, amount: { type: number }, reason: { type: string } }',
        'properties: { paymentId: { type: string, minLength: 3 }, amount: { type: number }, reason: { type: string } }',
      )
      .relock()
    const written = await recompiled()
    expect(written).toBeGreaterThan(0)
    expect(written).toBeLessThan(memo.hits)
    // The default form (the schemas as data) from the same compiler, after the edits: a fresh compiler's bytes.
    const data = await compiler.compile(shop.doc('payments'))
    expect(data.code).toContain('dataValidator')
    expect(data.code).toBe((await new ContractCompiler().compile(shop.doc('payments'))).code)
  })
})

describe('a NATS recompile after random edits', () => {
  const natsFile = join(work, 'service.asyncapi.yaml')
  const base = natsDocument(6, { payloads: true })
  /**
   * One edit of the 6-channel document, each of one part: a stream's limit, a channel's filter, a
   * token type's bound, a payload schema's description, or a line added near the top (every
   * position after it moves). Values the rules refuse are drawn too, so diagnostics are compared.
   */
  const edits = fc.oneof(
    fc.record({ kind: fc.constant('stream' as const), value: fc.integer({ min: -2, max: 3_000_000 }) }),
    fc.record({ kind: fc.constant('filter' as const), channel: fc.nat(5), event: fc.nat(7) }),
    fc.record({ kind: fc.constant('token' as const), max: fc.nat(50) }),
    fc.record({ kind: fc.constant('schema' as const), schema: fc.nat(5), text: fc.stringMatching(/^[a-z ]{0,6}$/) }),
    fc.record({ kind: fc.constant('line' as const), text: fc.stringMatching(/^[a-z]{0,6}$/) }),
  )
  type Edit = typeof edits extends fc.Arbitrary<infer E> ? E : never
  const once = (text: string, from: string, to: string): string => {
    expect(text).toContain(from)
    return text.replace(from, to)
  }
  const edited = (edit: Edit): string => {
    if (edit.kind === 'stream') return once(base, 'max_msgs: 1000000', `max_msgs: ${edit.value}`)
    if (edit.kind === 'filter') return once(base, `inRegion: svc0.{region}.*.event${edit.channel}\n`, `inRegion: svc0.{region}.*.event${edit.event}\n`)
    if (edit.kind === 'token') return once(base, 'maxLength: 40\n', `maxLength: ${edit.max}\n`)
    if (edit.kind === 'schema') return once(base, `description: Event ${edit.schema}.\n`, `description: "Event ${edit.schema} ${edit.text}."\n`)
    return once(base, 'info:\n', `info:\n  description: "${edit.text}"\n`)
  }

  it('writes what a fresh compiler writes after each edit of a sequence, with the same diagnostics', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(edits, { minLength: 2, maxLength: 3 }), async (sequence) => {
        const compiler = new ContractCompiler()
        writeFileSync(natsFile, base)
        await compiler.compile(natsFile)
        writeFileSync(natsFile, base + '\n')
        await compiler.compile(natsFile)
        for (const edit of sequence) {
          writeFileSync(natsFile, edited(edit))
          const warm = await compiler.compile(natsFile)
          const reference = await new ContractCompiler().compile(natsFile)
          expect(warm.diagnostics).toEqual(reference.diagnostics)
          expect(warm.code).toBe(reference.code)
          expect(warm.dts).toBe(reference.dts)
        }
      }),
      { numRuns: 6 },
    )
  })
})
