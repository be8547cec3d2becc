/**
 * A second outside pass on `contracts diff` (NATS): a message removed from or added to a channel,
 * or to an operation's list, breaks nobody when the channel's other messages accept its payloads
 * and headers (a channel carries their union), breaks with a witness when a value it accepts is
 * accepted by no other message (a payload, headers, or a pair of them no other message takes
 * together), and is a warning when neither is proven; a renamed channel's
 * own terms (publisher identity, parameter enums, content types) are compared as a kept one's; and
 * a token type redefined as an equal language is the info the catalogue names.
 */
import { describe, expect, it } from 'vitest'
import { schemaAccepts } from '../src/core/diff/schema-diff.js'
import type { DiffFinding } from '../src/core/diff/types.js'
import { natsChannelDocument as document } from './helpers/nats-mini.js'
import { diffNatsTexts } from './helpers/nats-diff-texts.js'

const diff = async (old: string, next: string): Promise<DiffFinding[]> => (await diffNatsTexts('nats-diff-message-cover', old, next)).findings

const only = (findings: DiffFinding[], rule: string) => findings.filter((f) => f.rule === rule)
const kinds = (f: DiffFinding) => [...new Set(f.audiences.map((a) => a.kind))].sort()

const OBJECT = '{ payload: { type: object } }'
const WITH_ID = '{ payload: { type: object, required: [id] } }'
const STRING = '{ payload: { type: string } }'
const INTEGER = '{ payload: { type: integer } }'

describe('a message removed from or added to a channel', () => {
  it('a key renamed over an identical payload: both info, each naming the message that carries it', async () => {
    const findings = await diff(document({ m: OBJECT }), document({ placed: OBJECT }))
    expect(findings.map((f) => [f.rule, f.level])).toEqual(
      expect.arrayContaining([
        ['message-removed', 'info'],
        ['message-added', 'info'],
      ]),
    )
    expect(findings.every((f) => f.level === 'info' && f.audiences.length === 0)).toBe(true)
    expect(only(findings, 'message-removed')[0]!.data).toEqual({ carriedBy: { payload: 'placed', headers: 'placed' } })
  })

  it('a message whose payloads another accepts removed, or added: info both ways', async () => {
    const two = document({ m: OBJECT, m2: WITH_ID })
    const one = document({ m: OBJECT })
    expect((await diff(two, one)).map((f) => [f.rule, f.level])).toEqual([['message-removed', 'info']])
    expect((await diff(one, two)).map((f) => [f.rule, f.level])).toEqual([['message-added', 'info']])
  })

  it('a message no other accepts removed: breaking for its publishers, with a payload every remaining message refuses', async () => {
    const [finding] = only(await diff(document({ m: INTEGER, s: STRING }), document({ s: STRING })), 'message-removed')
    expect([finding!.level, kinds(finding!)]).toEqual(['breaking', ['publisher']])
    const witness = finding!.data!.witness
    expect(finding!.data!.member).toBe('payload')
    // The witness, checked apart: the old message accepts it and the remaining one refuses it.
    const side = (schema: unknown) => ({ file: 'x', document: { s: schema }, pointer: '/s', resolve: () => undefined })
    expect([schemaAccepts(side({ type: 'integer' }), witness), schemaAccepts(side({ type: 'string' }), witness)]).toEqual([true, false])
  })

  it('a message the old ones never accepted added: breaking for subscribers, with a witness', async () => {
    const [finding] = only(await diff(document({ s: STRING }), document({ s: STRING, m: INTEGER })), 'message-added')
    expect([finding!.level, kinds(finding!)]).toEqual(['breaking', ['subscriber']])
    expect(typeof finding!.data!.witness).toBe('number')
  })

  it('headers count apart from payloads: payloads carried but headers another message refuses is a break, with the headers as witness', async () => {
    const open = '{ headers: { type: object }, payload: { type: object } }'
    const strict = '{ headers: { type: object, required: [x-b] }, payload: { type: object } }'
    const [finding] = only(await diff(document({ m: open, n: strict }), document({ n: strict })), 'message-removed')
    expect([finding!.level, finding!.data!.member, finding!.data!.witness]).toEqual(['breaking', 'headers', {}])
    // The same headers on both: carried.
    const [kept] = only(await diff(document({ m: open, n: open }), document({ n: open })), 'message-removed')
    expect(kept!.level).toBe('info')
    // The payload carried by two messages only together (not proven either way), the headers by none: the headers' witness decides.
    const either = `{ headers: { type: object }, payload: { type: [string, integer] } }`
    const s = `{ headers: { type: object, required: [x-b] }, payload: { type: string } }`
    const i = `{ headers: { type: object, required: [x-b] }, payload: { type: integer } }`
    const [headed] = only(await diff(document({ m: either, s, i }), document({ s, i })), 'message-removed')
    expect([headed!.level, headed!.data!.member]).toEqual(['breaking', 'headers'])
  })

  it('payload carried by one message and headers by another: breaking, with a payload and headers that no message takes together (the client checks headers with the payload where headers schemas differ)', async () => {
    // m: any object, any headers. x takes any object but requires header x; y takes any headers but
    // only strings: m's object payload with no headers is taken by neither after m is removed.
    const m = '{ headers: { type: object }, payload: { type: object } }'
    const x = '{ headers: { type: object, required: [x] }, payload: { type: object } }'
    const y = '{ headers: { type: object }, payload: { type: string } }'
    const [finding] = only(await diff(document({ m, x, y }), document({ x, y })), 'message-removed')
    expect([finding!.level, kinds(finding!), finding!.data!.member]).toEqual(['breaking', ['publisher'], 'message'])
    expect(finding!.message).toMatch(/its payload and headers together in data\.witness is accepted by no message now/)
    // The pair, checked apart: m takes both; x refuses the headers, y the payload.
    const { payload, headers } = finding!.data!.witness as { payload: unknown; headers: unknown }
    const side = (schema: unknown) => ({ file: 'x', document: { s: schema }, pointer: '/s', resolve: () => undefined })
    const object = side({ type: 'object' })
    expect([schemaAccepts(object, payload), schemaAccepts(object, headers)]).toEqual([true, true])
    expect([schemaAccepts(side({ type: 'object', required: ['x'] }), headers), schemaAccepts(side({ type: 'string' }), payload)]).toEqual([false, false])
    // Added the other way, the same pair is what old subscribers never met.
    const [added] = only(await diff(document({ x, y }), document({ m, x, y })), 'message-added')
    expect([added!.level, kinds(added!), added!.data!.member]).toEqual(['breaking', ['subscriber'], 'message'])
    // One message that carries both (x loses its required header): info, naming it for both.
    const x2 = '{ headers: { type: object }, payload: { type: object } }'
    const [kept] = only(await diff(document({ m, x: x2, y }), document({ x: x2, y })), 'message-removed')
    expect([kept!.level, kept!.data]).toEqual(['info', { carriedBy: { payload: 'x', headers: 'x' } }])
    // A carrier of both that is not the nearest one (x, next to m, takes only the payload; z, after y, takes both): still found, info.
    const z = '{ headers: { type: object }, payload: { type: object } }'
    const [far] = only(await diff(document({ m, x, y, z }), document({ x, y, z })), 'message-removed')
    expect([far!.level, far!.data]).toEqual(['info', { carriedBy: { payload: 'z', headers: 'z' } }])
  })

  it('a message added whose payload differs by a const tag: breaking for subscribers, as its removal is for publishers (the witness is sought from the added message’s side too)', async () => {
    const kind = (k: string, headers = '') =>
      `{ ${headers}payload: { type: object, required: [kind], properties: { kind: { const: ${k} }, a: { type: string } } } }`
    const [added] = only(await diff(document({ m: kind('a') }), document({ m: kind('a'), n: kind('b') })), 'message-added')
    expect([added!.level, kinds(added!), added!.data!.member, added!.data!.witness]).toEqual(['breaking', ['subscriber'], 'payload', { kind: 'b' }])
    // With headers: a payload of one old message and headers of another, which no old message took together.
    const x = 'headers: { type: object, required: [x] }, '
    const y = 'headers: { type: object, required: [y] }, '
    const [paired] = only(
      await diff(document({ m1: kind('a', x), m2: kind('b', y) }), document({ m1: kind('a', x), m2: kind('b', y), m3: kind('a', y) })),
      'message-added',
    )
    expect([paired!.level, paired!.data!.member]).toEqual(['breaking', 'message'])
  })

  it('a message carried only by the others together: a warning that says it was not proven', async () => {
    const old = document({ m: '{ payload: { type: [string, integer] } }', s: STRING, i: INTEGER })
    const [finding] = only(await diff(old, document({ s: STRING, i: INTEGER })), 'message-removed')
    expect(finding!.level).toBe('warning')
    expect(finding!.message).toMatch(/could not be proven/)
  })

  it('an operation that no longer lists a message its other messages carry: info; one they do not: breaking', async () => {
    const ops = (listed: string[]) => [
      "  pub: { action: send, channel: { $ref: '#/channels/c' } }",
      `  sub: { action: receive, channel: { $ref: '#/channels/c' }, messages: [${listed.map((m) => `{ $ref: '#/channels/c/messages/${m}' }`).join(', ')}] }`,
    ]
    const messages = { m: OBJECT, m2: WITH_ID, s: STRING }
    const covered = only(await diff(document(messages, { ops: ops(['m', 'm2']) }), document(messages, { ops: ops(['m']) })), 'operation-message-removed')
    expect(covered.map((f) => [f.level, f.audiences.length])).toEqual([['info', 0]])
    const lost = only(await diff(document(messages, { ops: ops(['m', 's']) }), document(messages, { ops: ops(['m']) })), 'operation-message-removed')
    expect(lost.map((f) => f.level)).toEqual(['breaking'])
    expect(lost[0]!.data!.witness).toEqual(expect.any(String))
  })
})

describe('a renamed channel', () => {
  it('has its publisher identity, parameter enums and content types compared as under one id', async () => {
    const old = document({ m: '{ contentType: application/json, payload: { type: object } }' })
    const edits = {
      terms: 'publisherIdentity: { kind: subject-permission, peerParameter: peer }',
      parameters: '{ region: {}, peer: { enum: [a] } }',
    }
    const next = (channel: string) => document({ m: '{ contentType: application/xml, payload: { type: object } }' }, { channel, ...edits })
    const rules = (findings: DiffFinding[]) =>
      findings
        .filter((f) => f.level !== 'info')
        .map((f) => [f.rule, f.level])
        .sort()
    const kept = rules(await diff(old, next('c')))
    expect(kept).toEqual([
      ['channel-parameter-enum-changed', 'warning'],
      ['channel-publisher-identity-added', 'breaking'],
      ['message-content-type-changed', 'warning'],
    ])
    const renamed = await diff(old, next('d'))
    expect(rules(renamed)).toEqual(kept)
    expect(only(renamed, 'channel-renamed')).toHaveLength(1)
  })
})

describe('a token type redefined', () => {
  it('as an equal language: subject-spelling-changed (info); as another one: the subject rules', async () => {
    const old = document({ m: OBJECT }, { region: '{ kind: enum, values: [a, b, c, d, e, f] }' })
    const equal = document({ m: OBJECT }, { region: "{ kind: token, alphabet: hex, first: letter, minLength: 1, maxLength: 1, prefix: '' }" })
    expect((await diff(old, equal)).map((f) => [f.rule, f.level])).toEqual([['subject-spelling-changed', 'info']])
    const wider = document({ m: OBJECT }, { region: "{ kind: token, alphabet: hex, first: any, minLength: 1, maxLength: 1, prefix: '' }" })
    expect((await diff(old, wider)).map((f) => [f.rule, f.level])).toEqual([['subject-widened', 'breaking']])
    // The same definition written in another order of its values: no finding at all.
    expect(await diff(old, document({ m: OBJECT }, { region: '{ kind: enum, values: [f, e, d, c, b, a] }' }))).toEqual([])
  })
})
