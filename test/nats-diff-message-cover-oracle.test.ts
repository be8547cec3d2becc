/**
 * The oracle for a message removed from a channel (docs/nats.md, "What it compares": a channel
 * carries the union of its messages' payloads): random channels of two to four messages whose
 * payloads are a type or a short enum over a small domain of values, one message removed (and, the
 * other way, added), and the level of `message-removed` (`message-added`) held to brute force over
 * the domain: `info` only when every value the message accepts is accepted by one of the others,
 * `breaking` only when one is not (and its witness is such a value), `warning` either way (how
 * often is printed). The domain has a value of
 * each JSON type besides those the enums list, so a verdict over it is the verdict over all values
 * for schemas of this shape. Written from the docs, apart from message-cover.ts.
 */
import fc from 'fast-check'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { diffContracts } from '../src/core/diff/runner.js'
import type { DiffFinding } from '../src/core/diff/types.js'
import { loadDiffer } from '../src/formats/diffs.js'
import { formats } from '../src/formats/index.js'
import { natsChannelDocument } from './helpers/nats-mini.js'
import { testFolder } from './helpers/temp-folder.js'

type Payload = { type: string } | { enum: unknown[] }

/** Values the enums draw from, and one value of each type they do not list. */
const LISTED: unknown[] = ['a', 'b', 1, 2, true, null]
const DOMAIN: unknown[] = [...LISTED, 'other', 7, 0.5, false, [], {}]
const TYPES = ['string', 'integer', 'number', 'boolean', 'null', 'object', 'array']

/** The oracle's reading of JSON Schema for these shapes (not the engine's). */
function accepts(payload: Payload, value: unknown): boolean {
  if ('enum' in payload) return payload.enum.some((item) => item === value)
  switch (payload.type) {
    case 'string':
      return typeof value === 'string'
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value)
    case 'number':
      return typeof value === 'number'
    case 'boolean':
      return typeof value === 'boolean'
    case 'null':
      return value === null
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value)
    default:
      return Array.isArray(value)
  }
}

const payload: fc.Arbitrary<Payload> = fc.oneof(
  fc.constantFrom(...TYPES).map((type) => ({ type })),
  fc.uniqueArray(fc.constantFrom(...LISTED), { minLength: 1, maxLength: 3 }).map((values) => ({ enum: values })),
)

/** The channel document of `messages`, each `{ payload: <its schema> }` under its name. */
const document = (messages: Array<[string, Payload]>): string =>
  natsChannelDocument(Object.fromEntries(messages.map(([name, p]) => [name, `{ payload: ${JSON.stringify(p)} }`])))

/**
 * The diff of old.asyncapi.yaml and new.asyncapi.yaml in `dir` both ways: old to new removes the
 * message (`message-removed`), new to old adds it (`message-added`); each rule with its findings.
 */
async function bothWays(dir: string): Promise<Array<['message-removed' | 'message-added', DiffFinding[]]>> {
  const out: Array<['message-removed' | 'message-added', DiffFinding[]]> = []
  for (const [from, to, rule] of [
    ['old', 'new', 'message-removed'],
    ['new', 'old', 'message-added'],
  ] as const) {
    const result = await diffContracts({ file: join(dir, `${from}.asyncapi.yaml`) }, { file: join(dir, `${to}.asyncapi.yaml`) }, { formats, loadDiffer })
    expect(result.valid, JSON.stringify([result.old.diagnostics, result.new.diagnostics])).toBe(true)
    out.push([rule, result.findings.filter((f) => f.rule === rule)])
  }
  return out
}

describe('message-removed and message-added against brute force (property)', () => {
  it('info only when the other messages accept every value the message does; breaking only with such a value as witness', async () => {
    const dir = testFolder('nats-message-cover-oracle')
    const levels = { info: 0, warning: 0, breaking: 0 }
    await fc.assert(
      fc.asyncProperty(fc.array(payload, { minLength: 2, maxLength: 4 }), fc.nat(), async (messages, pick) => {
        const removed = pick % messages.length
        const left = messages.filter((_, i) => i !== removed)
        const named = messages.map((p, i) => [`m${i}`, p] as [string, Payload])
        writeFileSync(join(dir, 'old.asyncapi.yaml'), document(named))
        // The messages left keep their names: the removed one is the only name gone.
        writeFileSync(join(dir, 'new.asyncapi.yaml'), document(named.filter((_, i) => i !== removed)))
        const lost = DOMAIN.filter((v) => accepts(messages[removed]!, v) && !left.some((p) => accepts(p, v)))
        // Both ways: old to new removes the message, new to old adds it (its receivers meet `lost`).
        for (const [rule, findings] of await bothWays(dir)) {
          expect(findings.map((f) => (rule === 'message-removed' ? f.old : f.new)?.pointer)).toEqual([`/channels/c/messages/m${removed}`])
          const finding = findings[0]!
          levels[finding.level]++
          if (finding.level === 'info') expect(lost, JSON.stringify([rule, messages])).toEqual([])
          if (finding.level === 'breaking') {
            expect(lost.length, JSON.stringify([rule, messages])).toBeGreaterThan(0)
            const witness = finding.data!.witness
            expect(accepts(messages[removed]!, witness) && !left.some((p) => accepts(p, witness)), JSON.stringify([rule, messages, witness])).toBe(true)
          }
        }
      }),
      { numRuns: 30 },
    )
    console.log(`message-removed and message-added levels over 30 channels, both ways: ${JSON.stringify(levels)}`)
    // The proofs are not all left to warnings: most verdicts are decided.
    expect(levels.warning).toBeLessThan(30)
  })

  /**
   * Headers too: each message a payload as above and a headers schema or none (docs/nats.md,
   * "Messages": a message without one takes any headers; where the schemas differ the client checks
   * a message's headers with its payload, so a (payload, headers) pair passes when one message takes
   * both). Headers schemas are closed or open objects requiring some of two names; the headers domain
   * is every object of those names and one other. The oracle is over pairs, the client's reading.
   */
  it('with headers: info only when every (payload, headers) pair the message takes is taken whole by one other message; breaking only when one is taken by none', async () => {
    type Headers = { required: string[]; closed: boolean } | undefined
    // Headers are a map of names to strings: anything else is no headers any message takes.
    const headersAccept = (h: Headers, value: unknown): boolean =>
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value) &&
      Object.values(value).every((v) => typeof v === 'string') &&
      (h === undefined || (h.required.every((n) => Object.hasOwn(value, n)) && (!h.closed || Object.keys(value).every((n) => h.required.includes(n)))))
    // Every set of the two names and of one other (standing for any name a schema does not list).
    const HEADERS: Array<Record<string, string>> = [
      {},
      { h: '1' },
      { k: '1' },
      { h: '1', k: '1' },
      { x: '1' },
      { h: '1', x: '1' },
      { k: '1', x: '1' },
      { h: '1', k: '1', x: '1' },
    ]
    const headers: fc.Arbitrary<Headers> = fc.option(fc.record({ required: fc.subarray(['h', 'k']), closed: fc.boolean() }), { nil: undefined })
    const schemaText = (h: Headers) =>
      h === undefined
        ? ''
        : ` headers: { type: object${h.required.length > 0 ? `, required: [${h.required.join(', ')}]` : ''}${h.closed ? `, additionalProperties: false, properties: { ${h.required.map((n) => `${n}: { type: string }`).join(', ')} }` : ''} },`
    const headed = (messages: Array<[string, Payload, Headers]>): string =>
      natsChannelDocument(Object.fromEntries(messages.map(([name, p, h]) => [name, `{${schemaText(h)} payload: ${JSON.stringify(p)} }`])))
    const dir = testFolder('nats-message-cover-headers-oracle')
    const levels = { info: 0, warning: 0, breaking: 0 }
    const witnesses = { payload: 0, headers: 0, message: 0 }
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(payload, headers), { minLength: 2, maxLength: 4 }), fc.nat(), async (messages, pick) => {
        const removed = pick % messages.length
        const named = messages.map(([p, h], i) => [`m${i}`, p, h] as [string, Payload, Headers])
        writeFileSync(join(dir, 'old.asyncapi.yaml'), headed(named))
        writeFileSync(join(dir, 'new.asyncapi.yaml'), headed(named.filter((_, i) => i !== removed)))
        const [ownPayload, ownHeaders] = messages[removed]!
        const left = messages.filter((_, i) => i !== removed)
        const lost = DOMAIN.flatMap((v) => HEADERS.map((h) => [v, h] as const)).filter(
          ([v, h]) => accepts(ownPayload, v) && headersAccept(ownHeaders, h) && !left.some(([p, hs]) => accepts(p, v) && headersAccept(hs, h)),
        )
        for (const [rule, findings] of await bothWays(dir)) {
          const finding = findings[0]!
          levels[finding.level]++
          if (finding.level === 'info') expect(lost, JSON.stringify([rule, messages])).toEqual([])
          if (finding.level === 'breaking') {
            expect(lost.length, JSON.stringify([rule, messages])).toBeGreaterThan(0)
            // The witness, by the oracle's reading: the message takes it, and no other message takes
            // it (a payload, or headers) or takes both of it (a payload and headers together).
            const { member, witness } = finding.data as { member: 'payload' | 'headers' | 'message'; witness: unknown }
            const [p, h] = member === 'message' ? [(witness as { payload: unknown }).payload, (witness as { headers: unknown }).headers] : [witness, witness]
            const own = (member !== 'headers' ? accepts(ownPayload, p) : true) && (member !== 'payload' ? headersAccept(ownHeaders, h) : true)
            const taken = left.some(([lp, lh]) => (member !== 'headers' ? accepts(lp, p) : true) && (member !== 'payload' ? headersAccept(lh, h) : true))
            expect([own, taken], JSON.stringify([rule, messages, member, witness])).toEqual([true, false])
            witnesses[member]++
          }
        }
      }),
      {
        numRuns: 40,
        // First the case that was wrong (info): m0's payload carried by m2, its headers by m1, its
        // pair ('a', { h: '1' }) by neither. Then a carrier of both that is not the nearest message
        // (m1 takes m0's payloads only, m3 both), which was a warning.
        examples: [
          [
            [
              [{ type: 'string' }, undefined],
              [{ type: 'integer' }, undefined],
              [{ type: 'string' }, { required: [], closed: true }],
            ],
            0,
          ],
          [
            [
              [{ type: 'object' }, undefined],
              [{ type: 'object' }, { required: ['h'], closed: false }],
              [{ type: 'string' }, undefined],
              [{ type: 'object' }, undefined],
            ],
            0,
          ],
        ],
      },
    )
    console.log(
      `with headers, message-removed and message-added levels over 40 channels, both ways: ${JSON.stringify(levels)}; breaking witnesses by member: ${JSON.stringify(witnesses)}`,
    )
    // Pairs are proven too, not only single members.
    expect(witnesses.message).toBeGreaterThan(0)
    expect(levels.warning).toBeLessThan(80)
  })
})
