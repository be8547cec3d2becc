/**
 * Components compared once each (`SettledComparisons`, src/core/diff/schema/pair.ts): a format
 * that diffs every component of a document on its own passes one record to all the calls, the
 * components a component names first, and a call that reaches an already compared component takes
 * its effect instead of walking it again. And a witness is not searched deeper than the engine's
 * validator answers.
 *
 * Found with a hostile document, a chain of components `S0 -> S1 -> ... -> Sn` whose last link
 * changed: the Benzene diff took 1.6 s at n = 200, 17 s at 800 and 3 minutes at 1,600 (each
 * component's call walked the rest of the chain, and searched a witness along it); the NATS diff of
 * an 8,000-link chain overflowed the stack placing a witness and reported an unknown change.
 *
 * The oracle is the plain walk: every component compared on its own with no record, on fresh
 * copies of the documents; the format keeps, of one change found by several calls, the highest
 * level for each party (findings.ts `finalize`), so that is what the two must agree on.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SettledComparisons, countMembers, diffSchemas, documentPairBound } from '../src/core/diff/schema-diff.js'
import { levelFor, type SchemaChange, type SchemaDiffOptions } from '../src/core/diff/schema-diff-types.js'
import { Findings } from '../src/formats/nats/diff/context.js'
import { diffContracts } from '../src/core/diff/runner.js'
import { formats } from '../src/formats/index.js'
import { loadDiffer } from '../src/formats/diffs.js'
import { Random, oracleSeed } from './helpers/diff-oracle-random.js'
import { randomEdit, randomSchema, refTo, type Schema } from './helpers/diff-oracle-schemas.js'
import { benzeneDocument } from '../bench/generate.js'
import { diffFiles } from './helpers/benzene-diff.js'
import { miniNatsDocument } from './helpers/nats-mini.js'
import { cloneJson, sideOf, type ComponentsDoc } from './helpers/schema-diff.js'

const dir = join(import.meta.dirname, '.tmp/diff-settled-components')
mkdirSync(dir, { recursive: true })

/** Every component compared on its own, in `order`; with `settled`, one record shared by the calls. */
function diffComponents(
  docs: { old: ComponentsDoc; new: ComponentsDoc },
  order: readonly string[],
  dialect: 'json-schema' | 'openapi-3.0',
  settled?: SettledComparisons,
  tally?: { pairs: number },
  same?: { old: ComponentsDoc; new: ComponentsDoc },
) {
  // `same`: these document objects, as a format's later calls of one diff get them (what the engine keeps per pair of documents carries over).
  const old = same?.old ?? cloneJson(docs.old)
  const next = same?.new ?? cloneJson(docs.new)
  const changes: SchemaChange[] = []
  for (const name of order) {
    const pointer = `/components/schemas/${name}`
    const options = settled ? { dialect, settled, tally } : { dialect }
    changes.push(...diffSchemas(sideOf(old, pointer, { file: '/virtual/old.json' }), sideOf(next, pointer, { file: '/virtual/new.json' }), options))
  }
  return changes
}

/** What a format keeps of the changes: by rule and location, the highest level for a receiver and for a sender. */
function kept(changes: readonly SchemaChange[]): Map<string, [string, string]> {
  const rank = { info: 0, warning: 1, breaking: 2 } as const
  const out = new Map<string, [string, string]>()
  for (const c of changes) {
    const key = `${c.rule} ${c.old?.pointer ?? '-'} ${c.new?.pointer ?? '-'}`
    const levels: [string, string] = [levelFor(c.effect, 'receives'), levelFor(c.effect, 'sends')]
    const seen = out.get(key)
    out.set(
      key,
      seen
        ? ([0, 1].map((i) => (rank[levels[i] as keyof typeof rank] > rank[seen[i] as keyof typeof rank] ? levels[i] : seen[i])) as [string, string])
        : levels,
    )
  }
  return out
}

/** The components in an order where each comes after those it names (the names are C0..Cn, naming only higher numbers but for `back`). */
const dependenciesFirst = (n: number) => Array.from({ length: n }, (_, i) => `C${n - 1 - i}`)

describe('a record shared by the calls of one document', () => {
  it('finds what the plain walk finds, at the same levels (random components naming each other, random edits)', () => {
    const seed = oracleSeed(20261206)
    const random = new Random(seed)
    let compared = 0
    let changed = 0
    for (let run = 0; run < 60; run++) {
      const n = random.int(3, 10)
      const names = Array.from({ length: n }, (_, i) => `C${i}`)
      const schemas: Record<string, Schema> = {}
      // Each names higher-numbered components (a DAG), and now and then a lower one (a cycle: no order is dependencies-first there).
      for (let i = 0; i < n; i++) schemas[`C${i}`] = randomSchema(random, 2, random.chance(0.15) ? names : names.slice(i + 1))
      const edited = cloneJson(schemas)
      for (const name of random.sample(names, random.int(1, 3))) edited[name] = randomEdit(random, edited[name]!).new
      // A component that is a chain link: names the next, so the walk from the first crosses them all.
      if (random.chance(0.5)) for (let i = 0; i + 1 < n; i++) for (const doc of [schemas, edited]) doc[`C${i}`] = { allOf: [doc[`C${i}`]!, refTo(`C${i + 1}`)] }
      const docs = { old: { components: { schemas } }, new: { components: { schemas: edited } } }
      const dialect = random.chance(0.5) ? 'openapi-3.0' : 'json-schema'
      const order = dependenciesFirst(n)
      const plain = kept(diffComponents(docs, order, dialect))
      const settled = new SettledComparisons()
      const same = { old: cloneJson(docs.old), new: cloneJson(docs.new) }
      const once = kept(diffComponents(docs, order, dialect, settled, undefined, same))
      expect([...once].sort(), `seed ${seed} run ${run}`).toEqual([...plain].sort())
      // The same documents walked whole afterwards (as a payload's walk is, to place a witness) find what a fresh walk finds:
      // nothing the settled calls kept for these documents (pairs proven equal, recorded changes) hides a change.
      const after = kept(diffComponents(docs, order, dialect, undefined, undefined, same))
      expect([...after].sort(), `seed ${seed} run ${run}, walked again`).toEqual([...plain].sort())
      compared++
      if (plain.size > 0) changed++
    }
    expect(compared).toBe(60)
    expect(changed).toBeGreaterThan(30)
  })

  it('a component naming a changed one is settled with its effect, and a later whole walk of the same documents still finds the change', () => {
    const ref = refTo
    const schemas = (minimum: number): Record<string, Schema> => ({
      Money: { type: 'object', properties: { amount: { type: 'integer', minimum } } },
      Order: { type: 'object', properties: { total: ref('Money') } },
      Request: { type: 'object', properties: { order: ref('Order') } },
    })
    const docs = { old: { components: { schemas: schemas(0) } }, new: { components: { schemas: schemas(5) } } }
    const same = { old: cloneJson(docs.old), new: cloneJson(docs.new) }
    const settled = new SettledComparisons()
    diffComponents(docs, ['Money', 'Order'], 'openapi-3.0', settled, undefined, same)
    // Order's own comparison took Money's effect (it was settled as no change, and then proven equal for the documents).
    expect([...settled.effects].map(([key, { effect }]) => [key.replace(/.*#/, ''), effect])).toEqual([
      ['/components/schemas/Money', 'narrows'],
      ['/components/schemas/Order', 'narrows'],
    ])
    const walked = diffComponents(docs, ['Request'], 'openapi-3.0', undefined, undefined, same)
    expect(walked.map((c) => [c.rule, c.new?.pointer, c.effect])).toEqual([
      ['schema-minimum-increased', '/components/schemas/Money/properties/amount/minimum', 'narrows'],
    ])
  })

  it('compares a chain of n components in pairs linear in n (each call takes the next link’s effect)', () => {
    for (const n of [400, 1_600]) {
      const chain = (last: Schema): Record<string, Schema> =>
        Object.fromEntries(Array.from({ length: n }, (_, i) => [`C${i}`, { type: 'object', properties: { next: i + 1 < n ? refTo(`C${i + 1}`) : last } }]))
      const docs = { old: { components: { schemas: chain({ type: 'string' }) } }, new: { components: { schemas: chain({ type: 'integer' }) } } }
      const tally = { pairs: 0 }
      const changes = diffComponents(docs, dependenciesFirst(n), 'openapi-3.0', new SettledComparisons(), tally)
      expect(changes.map((c) => [c.rule, c.new?.pointer, c.effect])).toEqual([
        ['schema-type-changed', `/components/schemas/C${n - 1}/properties/next/type`, 'both'],
      ])
      expect(tally.pairs).toBeLessThanOrEqual(3 * n)
    }
  })
})

describe('the formats on a chain of components whose last link changed', () => {
  it('Benzene, 1,600 links: one finding, at the link, for the topic reaching it', async () => {
    const n = 1_600
    const doc = (last: Schema) => ({
      openapi: '3.0.1',
      info: { title: 'chain', description: '', version: '' },
      requests: [{ topic: 'chain:go', request: refTo('S0'), response: refTo('S0') }],
      events: [],
      components: {
        schemas: Object.fromEntries(
          Array.from({ length: n }, (_, i) => [`S${i}`, { type: 'object', properties: { next: i + 1 < n ? refTo(`S${i + 1}`) : last } }]),
        ),
      },
    })
    writeFileSync(join(dir, 'old.spec.json'), JSON.stringify(doc({ type: 'string' })))
    writeFileSync(join(dir, 'new.spec.json'), JSON.stringify(doc({ type: 'integer' })))
    const findings = (await diffFiles(join(dir, 'old.spec.json'), join(dir, 'new.spec.json'))).filter((f) => f.rule.startsWith('schema-'))
    expect(findings.map((f) => [f.rule, f.level, f.new?.pointer, f.audiences.map((a) => `${a.kind}:${a.name}`)])).toEqual([
      ['schema-type-changed', 'breaking', `/components/schemas/S${n - 1}/properties/next/type`, ['client:chain:go', 'service:chain:go']],
    ])
  })

  it('Benzene, 2,000 components each an allOf of the next (compared in a mode no call settles): bounded, the rest one unknown change', async () => {
    const n = 2_000
    const doc = (last: Schema) => ({
      openapi: '3.0.1',
      info: { title: 'chain', description: '', version: '' },
      // And ten topics whose own payloads (edited too) name the chain's head: they count against the same bound.
      requests: [
        { topic: 'chain:go', request: refTo('S0'), response: refTo('S0') },
        ...Array.from({ length: 10 }, (_, j) => ({
          topic: `inline:t${j}`,
          request: { type: 'object', properties: { head: refTo('S0'), [`p${last.type}`]: { type: 'string' } } },
          response: { type: 'string' },
        })),
      ],
      events: [],
      components: {
        schemas: Object.fromEntries(
          Array.from({ length: n }, (_, i) => [
            `S${i}`,
            i + 1 < n
              ? { allOf: [refTo(`S${i + 1}`), { type: 'object', properties: { [`p${i}`]: { type: 'string' } } }] }
              : { type: 'object', properties: { last } },
          ]),
        ),
      },
    })
    writeFileSync(join(dir, 'old-allof.spec.json'), JSON.stringify(doc({ type: 'string' })))
    writeFileSync(join(dir, 'new-allof.spec.json'), JSON.stringify(doc({ type: 'integer' })))
    const findings = (await diffFiles(join(dir, 'old-allof.spec.json'), join(dir, 'new-allof.spec.json'))).filter((f) => f.rule.startsWith('schema-'))
    // The components a component names are compared first: the changed link is among those compared.
    // Past the bound, each inline payload is one unknown change too (the rest of the components one).
    const payloads = findings.filter((f) => f.rule === 'schema-not-compared' && f.message.startsWith('The request payload of'))
    expect(payloads.length).toBe(10)
    for (const f of payloads)
      expect(f.message).toMatch(/^The request payload of "inline:t\d": Not compared: comparing this document's schemas stopped at its bound/)
    expect(
      findings
        .filter((f) => !payloads.includes(f))
        .map((f) => [f.rule, f.level])
        .sort(),
    ).toEqual([
      ['schema-not-compared', 'warning'],
      ['schema-type-changed', 'breaking'],
    ])
    const skipped = findings.find((f) => f.rule === 'schema-not-compared' && !payloads.includes(f))!
    expect(skipped.message).toMatch(
      /^Component schema "S\d+": Not compared, nor [\d,]+ others \("S\d+", "S\d+", "S\d+" and [\d,]+ more\): comparing this document's components stopped at its bound \([\d,]+ pairs of schema nodes/,
    )
    expect(skipped.audiences.map((a) => `${a.kind}:${a.name}`)).toContain('client:chain:go')
  })

  it('a realistic document stays far inside that bound (every request component changed, or the shared ones)', async () => {
    writeFileSync(join(dir, 'bench-a.spec.json'), benzeneDocument(300, 0))
    writeFileSync(join(dir, 'bench-b.spec.json'), benzeneDocument(300, 1))
    const findings = await diffFiles(join(dir, 'bench-a.spec.json'), join(dir, 'bench-b.spec.json'))
    expect(findings.filter((f) => f.rule === 'schema-not-compared')).toEqual([])
    expect(findings.filter((f) => f.rule.startsWith('schema-')).length).toBeGreaterThanOrEqual(300)
  })

  it('Benzene, 300 topics whose own payloads name one tree of 100 components, every component changed: each change once, with every topic', async () => {
    // The payloads are compared after the components and take their effects (probe: 1,000 topics on
    // 400 components took 107 s and 1.96 GB, each payload walking the whole tree; now about 3 s).
    const tree = (maxLength: number) => {
      const schemas: Record<string, Schema> = { Envelope: { type: 'object', properties: { meta: refTo('T0') } } }
      for (let i = 0; i < 100; i++) {
        const properties: Schema = { name: { type: 'string', maxLength } }
        for (let k = 1; k <= 4; k++) if (4 * i + k < 100) properties[`c${k}`] = refTo(`T${4 * i + k}`)
        schemas[`T${i}`] = { type: 'object', properties }
      }
      return {
        openapi: '3.0.1',
        info: { title: 'tree', description: '', version: '' },
        requests: Array.from({ length: 300 }, (_, j) => ({
          topic: `t:${j}`,
          request: { type: 'object', properties: { [`f${j}`]: { type: 'integer' }, data: refTo('Envelope') } },
          response: { type: 'string' },
        })),
        events: [],
        components: { schemas },
      }
    }
    writeFileSync(join(dir, 'old-tree.spec.json'), JSON.stringify(tree(100)))
    writeFileSync(join(dir, 'new-tree.spec.json'), JSON.stringify(tree(50)))
    const findings = (await diffFiles(join(dir, 'old-tree.spec.json'), join(dir, 'new-tree.spec.json'))).filter((f) => f.rule.startsWith('schema-'))
    expect(findings).toHaveLength(100)
    for (const f of findings) expect([f.rule, f.level, f.audiences.length]).toEqual(['schema-max-length-decreased', 'breaking', 300])
  })

  it('NATS: past the bound on a diff’s schema comparisons, a message’s schemas are one unknown change, not compared', () => {
    const doc = { channels: { c: { messages: { m: { payload: { type: 'string' } } } } } }
    const f = new Findings({ doc: { value: doc } } as never, { doc: { value: doc } } as never)
    const bound = f.schemaPairBound()
    expect(bound).toBe(documentPairBound(countMembers(doc, doc), 16))
    const at = { file: '/o.yaml', pointer: '/channels/c/messages/m/payload' }
    let asked = 0
    const compare = (options: SchemaDiffOptions) => {
      asked++
      options.tally!.pairs += bound
      return []
    }
    expect(f.compareSchemas(compare, at, at)).toEqual([])
    const [skipped] = f.compareSchemas(compare, at, at)
    expect([asked, skipped!.rule, skipped!.effect, skipped!.old, skipped!.message]).toEqual([
      1,
      'schema-not-compared',
      'unknown',
      at,
      `Not compared: this diff's schema comparisons stopped at their bound (${bound.toLocaleString('en-US')} pairs of schema nodes, from the documents' size); whether the accepted values changed cannot be proven, and an unknown schema implication is not assumed safe.`,
    ])
  })

  it('NATS, 400 channels whose own payloads name one tree of 400 components, one leaf changed: every message compared', async () => {
    // An ordinary shape, only large: the bound is for hostile documents (a first bound left 89 of these 400 not compared).
    const doc = (maxLength: number) => {
      const schemas: Record<string, Schema> = { Envelope: { type: 'object', properties: { meta: refTo('T0') } } }
      for (let i = 0; i < 400; i++) {
        const properties: Schema = { name: { type: 'string', maxLength: i === 399 ? maxLength : 100 }, n: { type: 'integer' } }
        for (let k = 1; k <= 4; k++) if (4 * i + k < 400) properties[`c${k}`] = refTo(`T${4 * i + k}`)
        schemas[`T${i}`] = { type: 'object', properties }
      }
      const channels: Record<string, unknown> = {}
      const operations: Record<string, unknown> = {}
      for (let j = 0; j < 400; j++) {
        channels[`c${j}`] = {
          address: `probe.c${j}`,
          messages: { m: { payload: { type: 'object', properties: { [`f${j}`]: { type: 'integer' }, data: refTo('Envelope') } } } },
        }
        operations[`pub${j}`] = { action: 'send', channel: { $ref: `#/channels/c${j}` } }
      }
      const profile = {
        version: '0.2.0-draft',
        contract: 'probe',
        deployment: { binding: 'probe', minimumServerVersion: '2.11.0' },
        channels: Object.fromEntries(Object.keys(channels).map((c) => [c, {}])),
        operations: Object.fromEntries(Object.keys(operations).map((o) => [o, { publish: { api: 'core', confirmation: 'none' } }])),
      }
      return JSON.stringify({
        asyncapi: '3.1.0',
        info: { title: 'probe', version: '1.0.0' },
        'x-nats-contract': profile,
        channels,
        operations,
        components: { schemas },
      })
    }
    writeFileSync(join(dir, 'old-tree.asyncapi.yaml'), doc(100))
    writeFileSync(join(dir, 'new-tree.asyncapi.yaml'), doc(50))
    const result = await diffContracts({ file: join(dir, 'old-tree.asyncapi.yaml') }, { file: join(dir, 'new-tree.asyncapi.yaml') }, { formats, loadDiffer })
    const rules = result.findings.filter((f) => f.rule.startsWith('schema-')).map((f) => `${f.rule} ${f.level}`)
    expect([rules.length, new Set(rules)]).toEqual([400, new Set(['schema-max-length-decreased breaking'])])
  })

  it('NATS, 8,000 links: the change is found and proven, not an unknown one where a witness search overflowed', async () => {
    const n = 8_000
    const doc = (last: string) =>
      [
        miniNatsDocument({ message: ["        payload: { $ref: '#/components/schemas/S0' }"] }).trimEnd(),
        'components:',
        '  schemas:',
        ...Array.from(
          { length: n },
          (_, i) => `    S${i}: { type: object, properties: { next: ${i + 1 < n ? `{ $ref: '#/components/schemas/S${i + 1}' }` : last} } }`,
        ),
        '',
      ].join('\n')
    writeFileSync(join(dir, 'old.asyncapi.yaml'), doc('{ type: string }'))
    writeFileSync(join(dir, 'new.asyncapi.yaml'), doc('{ type: integer }'))
    const result = await diffContracts({ file: join(dir, 'old.asyncapi.yaml') }, { file: join(dir, 'new.asyncapi.yaml') }, { formats, loadDiffer })
    const schema = result.findings.filter((f) => f.rule.startsWith('schema-'))
    expect(schema.map((f) => [f.rule, f.level, f.new?.pointer])).toEqual([
      ['schema-type-changed', 'breaking', `/components/schemas/S${n - 1}/properties/next/type`],
    ])
  })
})
