/**
 * Hostile input families of the rules surface, timed at n and 10n by `bench/complexity.ts`: rules
 * that compared every pair of consumers (or every consumer with every subject of its stream), and
 * the credential scan over a large document. `test/nats-rules-indexed.test.ts` compiles the same
 * documents at the sizes of the issue.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse, stringify } from 'yaml'
import type { Family } from './family.js'
import { natsDocument } from './hostile.js'

const ANY_TOKEN = { kind: 'token', alphabet: 'lower', first: 'letter', minLength: 1, maxLength: 16, prefix: '' }

export const streamConfig = (retention: string, subjects: string[], name = 'JOBS') => ({
  authority: 'contract',
  config: {
    name,
    subjects,
    retention,
    storage: 'file',
    num_replicas: 1,
    max_age: 86400000000000,
    max_msgs: 1000,
    max_bytes: 1048576,
    discard: 'new',
    duplicate_window: 60000000000,
  },
})

export const consumerConfig = (i: number, filter: string, stream = 'jobs', deliver = 'all') => ({
  stream,
  authority: 'contract',
  config: {
    durable_name: `worker${i}`,
    filter_subject: filter,
    ack_policy: 'explicit',
    deliver_policy: deliver,
    ack_wait: 30000000000,
    max_deliver: 5,
    max_ack_pending: 1000,
    replay_policy: 'instant',
  },
})

/** A NATS document (one core channel `svc.{a}`) with the given streams and consumers in its profile. */
export function withNative(streams: Record<string, unknown>, consumers: Record<string, unknown>, operations: Record<string, unknown> = {}): string {
  const doc = parse(natsDocument({ any: ANY_TOKEN }, [{ id: 'c', address: 'svc.{a}', parameters: { a: 'any' } }], { streams, operations }))
  doc['x-nats-contract'].consumers = consumers
  return stringify(doc)
}
const withConsumers = (stream: unknown, consumers: Record<string, unknown>) => withNative({ jobs: stream }, consumers)

/**
 * `n` consumers of one stream, each filtering its own subject `jobs.<i>.>`: disjoint, so the
 * workqueue rule passes them all, and comparing every pair was n^2/2 (4,000: 11.8 s on a
 * workqueue stream against 1.2 s on a limits one; 10,000, 2.4 MB: 137 s).
 */
export function workqueueConsumers(n: number, retention: 'workqueue' | 'limits' = 'workqueue'): string {
  const consumers: Record<string, unknown> = {}
  for (let i = 0; i < n; i++) consumers[`worker${i}`] = consumerConfig(i, `jobs.w${i}.>`)
  return withConsumers(streamConfig(retention, ['jobs.>']), consumers)
}

/** `n` consumers whose filters all overlap (`jobs.>`): every consumer after the first is refused, once each. */
export function overlappingWorkqueueConsumers(n: number): string {
  const consumers: Record<string, unknown> = {}
  for (let i = 0; i < n; i++) consumers[`worker${i}`] = consumerConfig(i, i % 2 === 0 ? 'jobs.>' : `jobs.*.w${i}`)
  return withConsumers(streamConfig('workqueue', ['jobs.>']), consumers)
}

/**
 * A limits stream of `n` subjects (`jobs.s<i>`) and `n` consumers each filtering the last one:
 * checking every consumer against every subject of its stream (NATS_CONSUMER_OUTSIDE_STREAM) was n^2.
 */
export function consumersAgainstStreamSubjects(n: number): string {
  const subjects = Array.from({ length: n }, (_, i) => `jobs.s${i}`)
  const consumers: Record<string, unknown> = {}
  for (let i = 0; i < n; i++) consumers[`worker${i}`] = consumerConfig(i, `jobs.s${n - 1}`)
  return withConsumers(streamConfig('limits', subjects), consumers)
}

/**
 * `n` JetStream publishes of channel `svc.{a}` into one stream of `n + 1` subjects (`svc.s<i>` and
 * `svc.*`): each publish re-read the stream's subjects and decided the cover again (n^2).
 */
export function publishesIntoOneStream(n: number): string {
  const subjects = [...Array.from({ length: n }, (_, i) => `svc.s${i}`), 'svc.*']
  const operations: Record<string, unknown> = {}
  for (let i = 0; i < n; i++) operations[`publish${i}`] = { publish: { api: 'jetstream', confirmation: 'stream-ack', stream: 'jobs' } }
  return withNative({ jobs: streamConfig('limits', subjects) }, {}, operations)
}

/**
 * A NATS document whose `info.description` holds `n` lines of prose, each with escapes the
 * credential scan decodes (`\x41`, `\u0042`), written as one double-quoted scalar: the scan reads
 * the text and every decoded string once.
 */
export function longEscapedDescription(n: number): string {
  const base = natsDocument({ any: ANY_TOKEN }, [{ id: 'c', address: 'svc.{a}', parameters: { a: 'any' } }])
  const line = 'S\\x41MPLE text \\u0042 with SUAB escapes and a base32-ish run ABCDEFGHIJKLMNOP234567 '
  return base.replace('info:\n', `info:\n  description: "${line.repeat(n)}"\n`)
}

/**
 * A bundle of n contracts, each importing the next and the last the first: one import cycle
 * through every document, whose digests cannot all verify. The compile reads every document once
 * and names the cycle (NATS_IMPORT_CYCLE) in one walk of the import graph: O(documents + imports).
 */
function importCycle(n: number, dir: string): string {
  const entries: Array<{ path: string; sha256: string }> = []
  for (let i = 0; i < n; i++) {
    const next = (i + 1) % n
    const text = [
      'asyncapi: 3.1.0',
      `info: { title: D${i}, version: 1.0.0 }`,
      'x-nats-contract:',
      '  version: 0.2.0-draft',
      `  contract: d${i}`,
      '  deployment: { binding: b, minimumServerVersion: 2.11.0 }',
      '  imports:',
      `    next: { contract: d${next}, version: 1.0.0, path: d${next}/asyncapi.yaml, sha256: ${'0'.repeat(64)} }`,
      'channels: {}',
      '',
    ].join('\n')
    mkdirSync(join(dir, `d${i}`), { recursive: true })
    writeFileSync(join(dir, `d${i}`, 'asyncapi.yaml'), text)
    entries.push({ path: `d${i}/asyncapi.yaml`, sha256: createHash('sha256').update(text).digest('hex') })
  }
  writeFileSync(join(dir, 'bundle.lock.json'), JSON.stringify({ entries }))
  return join(dir, 'd0', 'asyncapi.yaml')
}

/**
 * A Benzene parent `P` with two children `A` and `B`, `A` with `n` children of its own, and `n`
 * schemas each listing `oneOf: [A, B]` (NSwag's children-only lists): each list is read as `P`'s
 * choice among A's and B's families (src/formats/benzene/inheritance.ts), n + 2 values each, about
 * n^2 branches in all, which BENZENE_DISCRIMINATOR_TOO_LARGE bounds at 100,000; at 10n = 300
 * (91,201 with P's own n + 2) it is generated whole, so the row is normalized per branch. (A list
 * naming the parent itself refers to the parent's choice instead and costs one branch.)
 */
export function familyAlternatives(n: number): string {
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
  const child = (parent: string, field: string) => ({ allOf: [ref(parent), { type: 'object', properties: { [field]: { type: 'integer' } } }] })
  const schemas: Record<string, unknown> = {
    P: { type: 'object', required: ['kind'], properties: { kind: { type: 'string' } }, discriminator: { propertyName: 'kind' } },
    A: child('P', 'a'),
    B: child('P', 'b'),
  }
  for (let i = 0; i < n; i++) {
    schemas[`A${i}`] = child('A', `f${i}`)
    schemas[`Body${i}`] = { type: 'object', properties: { item: { oneOf: [ref('A'), ref('B')] } } }
  }
  const requests = Array.from({ length: n }, (_, i) => ({ topic: `t:${i}`, request: ref(`Body${i}`), response: ref('P') }))
  return JSON.stringify({ openapi: '3.0.1', info: { title: 'families', version: '' }, requests, events: [], components: { schemas } })
}

/** The ledger fixture, edited where `from` stands once. */
const ledgerWith = (from: string, to: string): string => {
  const ledger = readFileSync(join(import.meta.dirname, '../fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8')
  if (ledger.split(from).length !== 2) throw new Error(`bench/hostile-rules.ts: the ledger fixture no longer has ${JSON.stringify(from)} once`)
  return ledger.replace(from, () => to)
}
const BALANCE_REPLY = '  balanceReply:\n    messages:\n      balance:\n        payload: { type: object, properties: { cents: { type: integer } } }\n'

/** One component channel referenced by `n` root channels (each a standard channel the rules resolve). */
export function channelsOnOneComponent(n: number): string {
  let channels = ''
  for (let i = 0; i < n; i++) channels += `  r${i}: { $ref: '#/components/channels/R' }\n`
  return ledgerWith(BALANCE_REPLY, BALANCE_REPLY + channels).replace(
    'components:\n',
    () => 'components:\n  channels:\n    R:\n      messages:\n        m: { payload: { type: string } }\n',
  )
}

/** A payload of `n` members, each with a distinct pattern led by `(?i)` (the options group .NET writes). */
export function caseInsensitivePatterns(n: number): string {
  const members = Array.from({ length: n }, (_, i) => `            p${i}: { type: string, pattern: '(?i)^x${i}[a-z]*$' }\n`).join('')
  return ledgerWith(
    '        payload: { type: object, properties: { cents: { type: integer } } }\n',
    `        payload:\n          type: object\n          properties:\n${members}`,
  )
}

const file = (name: string, text: string, dir: string) => {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

export const families: Family[] = [
  { name: 'workqueue consumers, disjoint filters', n: 400, make: (n, d) => file('c.asyncapi.yaml', workqueueConsumers(n), d) },
  { name: 'workqueue consumers, overlapping filters', n: 400, make: (n, d) => file('c.asyncapi.yaml', overlappingWorkqueueConsumers(n), d) },
  { name: 'consumers against stream subjects', n: 400, make: (n, d) => file('c.asyncapi.yaml', consumersAgainstStreamSubjects(n), d) },
  { name: 'JetStream publishes into one stream', n: 400, make: (n, d) => file('c.asyncapi.yaml', publishesIntoOneStream(n), d) },
  { name: 'credential scan, escaped description', n: 2000, make: (n, d) => file('c.asyncapi.yaml', longEscapedDescription(n), d) },
  { name: 'NATS import chain closed into one cycle', n: 40, make: importCycle },
  { name: 'root channels referencing one component channel', n: 500, make: (n, d) => file('c.asyncapi.yaml', channelsOnOneComponent(n), d) },
  { name: 'distinct (?i) patterns in one payload', n: 200, make: (n, d) => file('c.asyncapi.yaml', caseInsensitivePatterns(n), d) },
  {
    name: "Benzene parent's family listed as alternatives (per value)",
    n: 30,
    make: (n, d) => file('families.spec.json', familyAlternatives(n), d),
    work: (n) => n * n,
  },
]
