/**
 * Headers held with the payload, against an oracle written from AsyncAPI 3.1.0 alone (Message
 * Object: a message's `headers` and `payload` describe one message; a message without `headers`
 * takes any): a message sent on a channel is the contract's exactly when some message of the
 * channel takes its payload and its headers, each judged by ajv. The client's verdict is what
 * `publish` does (refuses, or hands the message to the connection), for every set of two to four
 * messages drawn from a family whose payloads overlap and whose headers schemas differ or are absent,
 * one of them naming JetStream's `Nats-Msg-Id` (checked) beside other `Nats-` names (not its own).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Ajv from 'ajv'
import fc from 'fast-check'
import type { NatsConnection } from '@nats-io/nats-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { bindContract, ContractClientError, type ContractModule } from '../src/runtime/nats/client/index.js'
import { loadModule } from './helpers/load-module.js'

const runs = Number(process.env.PROPERTY_RUNS ?? 300)
const work = join(import.meta.dirname, '.tmp/nats-message-headers-oracle', String(process.pid))

/** The family: payloads that overlap (`n` in both `count` and `any`), headers none, required, or a pattern. */
const FAMILY = [
  { name: 'count', payload: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } }, headers: { type: 'object', required: ['a'] } },
  { name: 'any', payload: { type: 'object' } },
  {
    name: 'label',
    payload: { type: 'object', required: ['label'], properties: { label: { type: 'string' } } },
    headers: { type: 'object', properties: { b: { type: 'string', pattern: '^[0-9]+$' } }, additionalProperties: false },
  },
  {
    name: 'strict',
    payload: { type: 'object', required: ['n'], properties: { n: { type: 'integer', minimum: 10 } } },
    // JetStream's de-duplication id, named: checked; any other Nats- name is not the schema's, even closed.
    headers: { type: 'object', required: ['b', 'Nats-Msg-Id'], additionalProperties: false, properties: { b: {}, 'Nats-Msg-Id': { pattern: '^m' } } },
  },
] as const

const PAYLOADS = [{ n: 1 }, { n: 12 }, { label: 'x' }, { label: 'x', n: 20 }, { other: true }, {}]
const HEADERS: Array<Record<string, string> | undefined> = [
  undefined,
  { a: '1' },
  { b: '7' },
  { b: 'x' },
  { a: '1', b: '2' },
  { c: '3' },
  { b: '7', 'Nats-Msg-Id': 'm1' },
  { b: '7', 'Nats-Msg-Id': 'x1' },
  { b: '7', 'Nats-Msg-Id': 'm1', 'Nats-Expected-Stream': 'S' },
  { a: '1', 'Nats-Expected-Stream': 'S' },
]

/** Every set of two or more members of FAMILY, by their indexes. */
const SETS = Array.from({ length: 1 << FAMILY.length }, (_, bits) => FAMILY.flatMap((_, i) => ((bits >> i) & 1 ? [i] : []))).filter((s) => s.length >= 2)

function document(members: readonly number[]): string {
  const messages = members.map((i) => {
    const m = FAMILY[i]!
    return `      ${m.name}:\n${'headers' in m ? `        headers: ${JSON.stringify(m.headers)}\n` : ''}        payload: ${JSON.stringify(m.payload)}\n`
  })
  // queryBalance as a plain core publish (no reply), so that `publish` sends it.
  const edits: Array<[string, string]> = [
    ['      query:\n        payload: { type: object, properties: { account: { type: string } } }\n', messages.join('')],
    ['      requestReply: { routing: native-inbox, completion: first-response, timeoutMs: 1500 }\n', ''],
    ["    reply:\n      channel: { $ref: '#/channels/balanceReply' }\n", ''],
  ]
  let text = readFileSync(join(import.meta.dirname, '../fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8')
  for (const [from, to] of edits) {
    expect(text).toContain(from)
    text = text.replace(from, () => to)
  }
  return text
}

const ajv = new Ajv({ strict: false })
/**
 * Each message's judges. `Nats-` names are the protocol's and JetStream's own: a schema judges only
 * those it names (docs/nats.md, Headers), so the others are taken out of the headers it judges.
 */
const oracle = FAMILY.map((m) => {
  if (!('headers' in m)) return { payload: ajv.compile(m.payload), headers: undefined }
  const schema = m.headers as { properties?: object; required?: readonly string[] }
  const named = new Set([...Object.keys(schema.properties ?? {}), ...(schema.required ?? [])].filter((n) => n.startsWith('Nats-')))
  const judge = ajv.compile(m.headers)
  return {
    payload: ajv.compile(m.payload),
    headers: (h: Record<string, string>) => judge(Object.fromEntries(Object.entries(h).filter(([n]) => !n.startsWith('Nats-') || named.has(n)))),
  }
})
/** The contract's verdict: some message of the set takes both. */
const accepted = (members: readonly number[], payload: unknown, headers: Record<string, string> | undefined) =>
  members.some((i) => oracle[i]!.payload(payload) && (oracle[i]!.headers === undefined || oracle[i]!.headers!(headers ?? {})))

describe('headers held with the payload, against ajv on the contract’s messages (property)', () => {
  const modules = new Map<string, ContractModule>()
  beforeAll(async () => {
    mkdirSync(work, { recursive: true })
    for (const set of SETS) {
      const file = join(work, `set-${set.join('')}.asyncapi.yaml`)
      writeFileSync(file, document(set))
      const result = await compile(file)
      expect(result.diagnostics).toEqual([])
      modules.set(set.join(''), (await loadModule(result.code!, `headers-oracle-${set.join('')}`)) as unknown as ContractModule)
    }
  }, 120_000)

  it('publish sends exactly the messages some message of the channel takes, payload and headers together', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SETS), fc.constantFrom(...PAYLOADS), fc.constantFrom(...HEADERS), (set, payload, headers) => {
        let sent = 0
        const nc = { publish: () => void sent++ } as unknown as NatsConnection
        const client = bindContract(modules.get(set.join(''))!, nc, { allowOlderServer: true })
        let refused: string | undefined
        try {
          client.publish('queryBalance' as never, { account: 'acct_abc' } as never, payload as never, (headers ? { headers } : undefined) as never)
        } catch (error) {
          if (!(error instanceof ContractClientError)) throw error
          refused = error.code
        }
        const want = accepted(set, payload, headers)
        expect([set, payload, headers, refused === undefined && sent === 1]).toEqual([set, payload, headers, want])
        // A payload some message takes, refused: its headers are why.
        if (refused !== undefined && set.some((i) => oracle[i]!.payload(payload))) expect(refused).toBe('INVALID_HEADERS')
      }),
      { numRuns: runs },
    )
  })

  it('covers every set, payload and headers at least once (exhaustive)', () => {
    let disagreements = 0
    let accepts = 0
    for (const set of SETS)
      for (const payload of PAYLOADS)
        for (const headers of HEADERS) {
          let sent = 0
          const nc = { publish: () => void sent++ } as unknown as NatsConnection
          const client = bindContract(modules.get(set.join(''))!, nc, { allowOlderServer: true })
          try {
            client.publish('queryBalance' as never, { account: 'acct_abc' } as never, payload as never, (headers ? { headers } : undefined) as never)
          } catch (error) {
            if (!(error instanceof ContractClientError)) throw error
          }
          const want = accepted(set, payload, headers)
          if ((sent === 1) !== want) disagreements++
          if (want) accepts++
        }
    expect(disagreements).toBe(0)
    // Both verdicts occur: the family is not trivially all-accepted or all-refused.
    expect(accepts).toBeGreaterThan(0)
    expect(accepts).toBeLessThan(SETS.length * PAYLOADS.length * HEADERS.length)
  })
})
