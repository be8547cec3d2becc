/**
 * Hostile input families, each sized by `n`: the worst cases found for each check (issue: a hostile
 * contract cannot hurt the app, the build or the machine). `bench/complexity.ts` times each at n
 * and 10n; `test/hostile-input.test.ts` compiles each at a telling size and asserts the verdict and
 * that it finishes. Every generator returns the text of one contract file.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { stringify } from 'yaml'

interface NatsChannel {
  id: string
  address: string
  parameters: Record<string, string>
}

/** A NATS application document around `channels`, with one core publish per channel. */
export function natsDocument(
  tokenTypes: Record<string, unknown>,
  channels: readonly NatsChannel[],
  extra: { operations?: Record<string, unknown>; streams?: Record<string, unknown> } = {},
): string {
  const profileChannels: Record<string, unknown> = {}
  const standardChannels: Record<string, unknown> = {}
  const profileOperations: Record<string, unknown> = {}
  const standardOperations: Record<string, unknown> = {}
  for (const c of channels) {
    profileChannels[c.id] = { parameters: c.parameters }
    standardChannels[c.id] = {
      address: c.address,
      parameters: Object.fromEntries(Object.keys(c.parameters).map((p) => [p, {}])),
      messages: { m: { $ref: '#/components/messages/M' } },
    }
    standardOperations[`send-${c.id}`] = { action: 'send', channel: { $ref: `#/channels/${c.id}` } }
    profileOperations[`send-${c.id}`] = { publish: { api: 'core', confirmation: 'none' } }
  }
  Object.assign(profileOperations, extra.operations ?? {})
  for (const id of Object.keys(extra.operations ?? {})) standardOperations[id] = { action: 'send', channel: { $ref: `#/channels/${channels[0]!.id}` } }
  return stringify({
    asyncapi: '3.1.0',
    info: { title: 'Hostile', version: '1.0.0' },
    'x-nats-contract': {
      version: '0.2.0-draft',
      contract: 'hostile',
      deployment: { binding: 'hostile-prod', minimumServerVersion: '2.11.0' },
      tokenTypes,
      channels: profileChannels,
      operations: profileOperations,
      ...(extra.streams ? { streams: extra.streams } : {}),
    },
    channels: standardChannels,
    operations: standardOperations,
    components: { messages: { M: { payload: { type: 'object' } } } },
  })
}

const STREAM = (subjects: string[]) => ({
  authority: 'contract',
  config: {
    name: 'S',
    subjects,
    retention: 'limits',
    storage: 'file',
    num_replicas: 1,
    max_age: 86400000000000,
    max_msgs: 1000,
    max_bytes: 1048576,
    discard: 'new',
    duplicate_window: 60000000000,
  },
})

/**
 * A JetStream publish on a channel of `n` one-hex-character parameters, to a stream whose
 * subjects are `s.*.*...`: deciding the cover by enumeration is 16^n subjects.
 */
export function coverBomb(n: number): string {
  const params = Array.from({ length: n }, (_, i) => `p${i}`)
  const channel = { id: 'c', address: ['s', ...params.map((p) => `{${p}}`)].join('.'), parameters: Object.fromEntries(params.map((p) => [p, 'hex1'])) }
  return natsDocument({ hex1: { kind: 'token', alphabet: 'hex', first: 'any', minLength: 1, maxLength: 1, prefix: '' } }, [channel], {
    operations: { publish: { publish: { api: 'jetstream', confirmation: 'stream-ack', stream: 'all' } } },
    streams: { all: STREAM([['s', ...params.map(() => '*')].join('.')]) },
  })
}

const ANY_TOKEN = { kind: 'token', alphabet: 'lower', first: 'letter', minLength: 1, maxLength: 16, prefix: '' }

/** `n` channels that all share subjects: one overlap diagnostic per channel (capped), never one per pair. */
export function overlapAll(n: number): string {
  return natsDocument(
    { any: ANY_TOKEN },
    Array.from({ length: n }, (_, i) => ({ id: `c${i}`, address: `svc.{a}.x`, parameters: { a: 'any' } })),
  )
}

/** `n` disjoint channels that share their first and last tokens (`svc.{a}.m<i>.{b}`): one index bucket before. */
export function sharedBucket(n: number): string {
  return natsDocument(
    { any: ANY_TOKEN },
    Array.from({ length: n }, (_, i) => ({ id: `c${i}`, address: `svc.{a}.m${i}.{b}`, parameters: { a: 'any', b: 'any' } })),
  )
}

/** Two channels whose parameters are disjoint enums of `n` values each: pairwise comparison was n^2. */
export function enumPair(n: number): string {
  const values = (tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`)
  return natsDocument({ left: { kind: 'enum', values: values('l') }, right: { kind: 'enum', values: values('r') } }, [
    { id: 'left', address: 'x.{v}', parameters: { v: 'left' } },
    { id: 'right', address: 'x.{v}', parameters: { v: 'right' } },
  ])
}

/** A NATS document whose `info` carries a flow mapping of `n` members on one line. */
export function longFlowLine(n: number): string {
  const base = natsDocument({ any: ANY_TOKEN }, [{ id: 'c', address: 'svc.{a}', parameters: { a: 'any' } }])
  const members = Array.from({ length: n }, (_, i) => `k${i}: v${i}`).join(', ')
  return base.replace('info:\n', `info:\n  x-wide: { ${members} }\n`)
}

/** A JSON contract nested `n` arrays deep: refused at the depth limit, read no further. */
export function deepJson(n: number): string {
  return '['.repeat(n) + ']'.repeat(n)
}

/**
 * A NATS document carrying a billion-laughs alias bomb of `n` levels (each level nine aliases of the
 * one below): refused at the alias limit, never expanded.
 */
export function aliasBomb(n: number): string {
  const base = natsDocument({ any: ANY_TOKEN }, [{ id: 'c', address: 'svc.{a}', parameters: { a: 'any' } }])
  const levels = ['  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]']
  for (let i = 1; i < n; i++) levels.push(`  l${i}: &l${i} [${Array.from({ length: 9 }, () => `*l${i - 1}`).join(', ')}]`)
  return base.replace('info:\n', `x-bomb:\n${levels.join('\n')}\ninfo:\n`)
}

/** A Benzene document with `n` requests whose topic is empty: one diagnostic each, capped. */
export function emptyTopics(n: number): string {
  return JSON.stringify({
    openapi: '3.0.1',
    info: { title: 'empty', version: '' },
    requests: Array.from({ length: n }, () => ({ topic: '' })),
    events: [],
    components: { schemas: {} },
  })
}

/**
 * A Benzene document whose schemas form a chain of `n` (`S0 -> S1 -> ... ` by `$ref`, or by `allOf`),
 * with `topics` requests, request `i` starting the chain at `S<i>`: closure walks were recursive,
 * and each topic's validator listed its whole tail (quadratic output).
 */
export function schemaChain(n: number, via: '$ref' | 'allOf', topics = 1): string {
  const schemas: Record<string, unknown> = {}
  for (let i = 0; i < n; i++) {
    const next = i + 1 < n ? { $ref: `#/components/schemas/S${i + 1}` } : { type: 'string' }
    schemas[`S${i}`] = via === '$ref' ? { type: 'object', properties: { next } } : { allOf: [next] }
  }
  const requests = Array.from({ length: topics }, (_, i) => ({
    topic: `chain:t${i}`,
    request: { $ref: `#/components/schemas/S${Math.min(i, n - 1)}` },
    response: { type: 'string' },
  }))
  return JSON.stringify({ openapi: '3.0.1', info: { title: 'chain', version: '' }, requests, events: [], components: { schemas } })
}

/**
 * fixtures/dasp's selection, copied into `dir`, with `n` dependencies (none defined) on its
 * proof-of-authority definition. Returns the selection's path.
 */
export function daspManyDependencies(dir: string, n: number): string {
  const fixtures = join(import.meta.dirname, '../fixtures/dasp')
  cpSync(join(fixtures, 'extensions'), join(dir, 'extensions'), { recursive: true })
  cpSync(join(fixtures, 'pins'), join(dir, 'pins'), { recursive: true })
  cpSync(join(fixtures, 'counter.dasp.json'), join(dir, 'counter.dasp.json'))
  const file = join(dir, 'extensions/proof-of-authority.dasp-ext.json')
  const definition = JSON.parse(readFileSync(file, 'utf8'))
  definition.dependencies = Array.from({ length: n }, (_, i) => ({ uri: `https://example.com/dasp/contracts/dep-${i}`, version: 'draft-01' }))
  writeFileSync(file, JSON.stringify(definition, null, 2))
  return join(dir, 'counter.dasp.json')
}

/**
 * A DASP selection requesting one extension whose required dependencies run through `n`
 * definitions and back to it: a search from every requested extension that copied its path at
 * each step was quadratic in the chain. Returns the selection's path.
 */
export function daspDependencyChain(dir: string, n: number): string {
  const selection = daspManyDependencies(dir, 0)
  const template = JSON.parse(readFileSync(join(dir, 'extensions/proof-of-authority.dasp-ext.json'), 'utf8'))
  const uri = (i: number) => `https://example.com/dasp/contracts/chain-${i}`
  const files: string[] = []
  for (let i = 0; i < n; i++) {
    const definition = {
      ...template,
      identity: { uri: uri(i), version: 'draft-01' },
      dependencies: [{ uri: uri((i + 1) % n), version: 'draft-01', scope: 'session' }],
    }
    delete definition.content
    writeFileSync(join(dir, `extensions/chain-${i}.dasp-ext.json`), JSON.stringify(definition))
    files.push(`extensions/chain-${i}.dasp-ext.json`)
  }
  const s = JSON.parse(readFileSync(selection, 'utf8'))
  s.definitions.push(...files)
  s.extensions.push({ uri: uri(0), version: 'draft-01', scope: 'session', settings: {} })
  writeFileSync(selection, JSON.stringify(s, null, 2))
  return selection
}
