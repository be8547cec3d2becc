/**
 * `contracts diff` (NATS) reads a change inside one message of a channel that has several for the
 * channel as a whole (docs/nats.md, "What it compares"; src/formats/nats/diff/sibling-cover.ts): the
 * client takes a message when any message its operation carries takes it. An outside pass against
 * the generated clients on a real nats-server found, compared message by message alone, two messages
 * swapped, a sibling that takes any payload or any headers, and headers moved to the message that
 * now carries the payload, each reported as breaking with witnesses the channel still took on both
 * sides. Each case has its near case that still breaks, with the channel's own witness.
 */
import { describe, expect, it } from 'vitest'
import type { DiffFinding } from '../src/core/diff/types.js'
import { natsChannelDocument as document } from './helpers/nats-mini.js'
import { diffNatsTexts } from './helpers/nats-diff-texts.js'

const diff = async (old: string, next: string): Promise<DiffFinding[]> => (await diffNatsTexts('nats-diff-sibling-cover', old, next)).findings

/** A message whose payload is an object tagged `kind: <k>` (and `headers` when given). */
const kind = (k: string, headers?: string) =>
  `{ ${headers === undefined ? '' : `headers: ${headers}, `}payload: { type: object, required: [kind], properties: { kind: { const: ${k} }, a: { type: string } } } }`
const ANY = '{ payload: {} }'
const breaking = (findings: DiffFinding[]) => findings.filter((f) => f.level === 'breaking')
const kinds = (f: DiffFinding) => [...new Set(f.audiences.map((a) => a.kind))].sort()

describe('a change inside one message, read for the channel', () => {
  it('two messages swapped: nothing the channel takes changed, so nobody breaks', async () => {
    const findings = await diff(document({ m: kind('a'), n: kind('b') }), document({ m: kind('b'), n: kind('a') }))
    expect(findings.length).toBeGreaterThan(0)
    expect(breaking(findings)).toEqual([])
    for (const f of findings)
      expect([f.rule, f.level, f.message]).toEqual([f.rule, 'info', expect.stringMatching(/other messages still take what it took: nobody breaks/)])
  })

  it('a sibling that takes any payload, or any headers, carries what one message no longer takes', async () => {
    const required = (name: string) => `{ payload: { type: object, required: [${name}] } }`
    expect(breaking(await diff(document({ m: required('a'), any: ANY }), document({ m: required('b'), any: ANY })))).toEqual([])
    const headed = (name: string) => kind('a', `{ type: object, required: [${name}] }`)
    expect(breaking(await diff(document({ m: headed('x'), any: ANY }), document({ m: headed('y'), any: ANY })))).toEqual([])
  })

  it('headers moved with the payload to the other message: nobody breaks; headers moved away from it: its senders are still carried', async () => {
    const x = '{ type: object, required: [x] }'
    const moved = await diff(document({ m: kind('a', x), n: kind('b') }), document({ m: kind('b'), n: kind('a', x) }))
    expect(breaking(moved)).toEqual([])
    expect(moved.map((f) => f.rule)).toEqual(expect.arrayContaining(['message-headers-added', 'message-headers-removed']))
  })

  it('a value no message takes any more still breaks, with the channel’s witness', async () => {
    // m's tag a becomes c beside n (b): senders of a break (the channel no longer takes it), receivers meet c.
    const findings = await diff(document({ m: kind('a'), n: kind('b') }), document({ m: kind('c'), n: kind('b') }))
    const [change] = breaking(findings)
    expect([change!.rule, kinds(change!)]).toEqual(['schema-const-changed', ['publisher', 'subscriber']])
    expect((change!.data as { witness: { value: unknown } }).witness.value).toEqual({ kind: 'a' })
  })

  it('a receiver whose operation lists only the message is held to that message alone', async () => {
    const ops = [
      "  pub: { action: send, channel: { $ref: '#/channels/c' } }",
      "  sub: { action: receive, channel: { $ref: '#/channels/c' }, messages: [{ $ref: '#/channels/c/messages/m' }] }",
    ]
    const required = (name: string) => `{ payload: { type: object, required: [${name}] } }`
    const findings = await diff(document({ m: required('a'), any: ANY }, { ops }), document({ m: required('b'), any: ANY }, { ops }))
    // `sub` takes m only: its peers sending m's old payloads break; the send operation's subscribers take the whole channel.
    const publishers = breaking(findings).filter((f) => f.audiences.some((a) => a.kind === 'publisher'))
    expect(publishers.length).toBeGreaterThan(0)
    for (const f of publishers) expect(f.audiences).toEqual([{ kind: 'publisher', name: 'c:sub (peers)' }])
  })

  it('twenty messages each shifted to the next tag: only the tag that left and the one that came break', async () => {
    const names = Array.from({ length: 20 }, (_, i) => `m${String(i).padStart(2, '0')}`)
    const findings = await diff(
      document(Object.fromEntries(names.map((n, i) => [n, kind(`k${i}`)]))),
      document(Object.fromEntries(names.map((n, i) => [n, kind(`k${i + 1}`)]))),
    )
    const broken = breaking(findings).map((f) => [
      (f.data as { message: string }).message,
      kinds(f),
      (f.data as { witness?: { value: unknown } }).witness?.value,
    ])
    expect(broken).toEqual([
      ['m00', ['publisher'], { kind: 'k0' }],
      ['m19', ['subscriber'], { kind: 'k20' }],
    ])
  })

  it('a shared schema narrowed in 300 channels of three messages each: every message still breaks, its own witness standing (no sibling takes it), within the diff’s bounds', async () => {
    const channels = 300
    const doc = (required: string) => {
      const lines = [
        'asyncapi: 3.1.0',
        'info: { title: T, version: 1.0.0 }',
        'x-nats-contract:',
        '  version: 0.2.0-draft',
        '  contract: t',
        '  deployment: { binding: b, minimumServerVersion: 2.11.0 }',
        '  channels:',
        ...Array.from({ length: channels }, (_, i) => `    c${i}: {}`),
        '  operations:',
        ...Array.from({ length: channels }, (_, i) => `    p${i}: { publish: { api: core, confirmation: none } }`),
        'channels:',
      ]
      for (let i = 0; i < channels; i++) {
        lines.push(`  c${i}:`, `    address: app.c${i}`, '    messages:')
        for (const k of ['a', 'b', 'c'])
          lines.push(
            `      ${k}: { payload: { type: object, required: [kind, money], properties: { kind: { const: ${k} }, money: { $ref: '#/components/schemas/Money' } } } }`,
          )
      }
      lines.push('operations:', ...Array.from({ length: channels }, (_, i) => `  p${i}: { action: send, channel: { $ref: '#/channels/c${i}' } }`))
      lines.push(
        'components:',
        '  schemas:',
        `    Money: { type: object, required: [${required}], properties: { amount: { type: integer }, currency: { type: string } } }`,
        '',
      )
      return lines.join('\n')
    }
    const findings = await diff(doc('amount'), doc('amount, currency'))
    const byLevel = { info: 0, warning: 0, breaking: 0 }
    for (const f of findings) byLevel[f.level]++
    expect(byLevel).toEqual({ info: 0, warning: 0, breaking: channels * 3 })
  })
})

describe('a change both ways carries a witness for each direction', () => {
  it('a member retyped from string to integer: one payload the old version takes (publishers break), one the new takes (subscribers break), each checked by both versions', async () => {
    const payload = (type: string) => `{ payload: { type: object, required: [n], properties: { n: { type: ${type} } } } }`
    const findings = await diff(document({ m: payload('string') }), document({ m: payload('integer') }))
    const [retyped] = findings.filter((f) => f.rule === 'schema-type-changed')
    expect(retyped?.level).toBe('breaking')
    const witnesses = retyped!.data!.witnesses as Array<{ value: { n: unknown }; acceptedBy: 'old' | 'new' }>
    expect(witnesses.map((w) => w.acceptedBy)).toEqual(['old', 'new'])
    expect(retyped!.data!.witness).toEqual(witnesses[0])
    const accepts = { old: (v: { n: unknown }) => typeof v.n === 'string', new: (v: { n: unknown }) => Number.isInteger(v.n) }
    for (const w of witnesses) {
      expect(accepts[w.acceptedBy](w.value)).toBe(true)
      expect(accepts[w.acceptedBy === 'old' ? 'new' : 'old'](w.value)).toBe(false)
    }
  })
})
