/**
 * The stream rules on a document whose subscriber reads a consumer of the stream (an outside pass):
 * a subject the old stream captured and the new one does not is a proven loss (breaking, with the
 * subject as witness), where subjects captured only by the new patterns together stay a warning; and
 * a change that loses stored messages names the subscribers reading the stream's consumers, not
 * only its publishers; a consumer filter widened past its subscriber's channel is a warning for it.
 */
import { describe, expect, it } from 'vitest'
import type { DiffFinding } from '../src/core/diff/types.js'
import { miniNatsDocument } from './helpers/nats-mini.js'
import { diffNatsTexts } from './helpers/nats-diff-texts.js'

/** A publisher on stream `orders` and a subscriber on its consumer `billing`; `subjects` and `maxAge` as the stream's, `filter` the consumer's. */
const document = (subjects: string, maxAge = '86400000000000', filter = 'orders.*.placed') =>
  miniNatsDocument({
    profile: [
      '  operations:',
      '    pub: { publish: { api: jetstream, confirmation: stream-ack, stream: orders } }',
      '    sub: { subscribe: { api: jetstream, consumer: billing } }',
      '  streams:',
      '    orders:',
      '      authority: contract',
      `      config: { name: ORDERS, subjects: ${subjects}, retention: limits, storage: file, num_replicas: 3,`,
      `                max_age: ${maxAge}, max_msgs: 1000000, max_bytes: 1073741824, discard: new, duplicate_window: 120000000000 }`,
      '  consumers:',
      '    billing:',
      '      stream: orders',
      '      authority: contract',
      `      config: { durable_name: billing, filter_subject: ${filter}, ack_policy: explicit, deliver_policy: all,`,
      '                ack_wait: 30000000000, max_deliver: 5, max_ack_pending: 100, replay_policy: instant }',
    ],
  })

const diff = async (old: string, next: string): Promise<DiffFinding[]> => (await diffNatsTexts('nats-diff-streams', old, next)).findings

const kinds = (f: DiffFinding) => f.audiences.map((a) => `${a.kind}:${a.name ?? ''}`)

/**
 * `document` with a second channel `shipped` (`orders.{region}.shipped`), a Core publisher `ship` of
 * it (a publication the stream captures though its publisher waits for no acknowledgment) and a
 * subscriber `track` reading the stream's consumer `shipping` (filter `shippingFilter`).
 */
const withShipped = (subjects: string, shippingFilter = 'orders.*.shipped') =>
  document(subjects)
    .replace(
      '    placed: { parameters: { region: region } }\n',
      '    placed: { parameters: { region: region } }\n    shipped: { parameters: { region: region } }\n',
    )
    .replace(
      '    sub: { subscribe: { api: jetstream, consumer: billing } }\n',
      '    sub: { subscribe: { api: jetstream, consumer: billing } }\n    ship: { publish: { api: core, confirmation: none } }\n    track: { subscribe: { api: jetstream, consumer: shipping } }\n',
    )
    .replace(
      '\nchannels:\n',
      [
        '',
        '    shipping:',
        '      stream: orders',
        '      authority: contract',
        `      config: { durable_name: shipping, filter_subject: ${shippingFilter}, ack_policy: explicit, deliver_policy: all,`,
        '                ack_wait: 30000000000, max_deliver: 5, max_ack_pending: 100, replay_policy: instant }',
        'channels:',
        '',
      ].join('\n'),
    )
    .replace(
      '\noperations:\n',
      [
        '',
        '  shipped:',
        '    address: orders.{region}.shipped',
        '    parameters: { region: {} }',
        '    messages:',
        '      shipped:',
        '        payload: { type: integer }',
        'operations:',
        "  ship: { action: send, channel: { $ref: '#/channels/shipped' } }",
        "  track: { action: receive, channel: { $ref: '#/channels/shipped' } }",
        '',
      ].join('\n'),
    )

/** Each party of a narrowed stream with the subject that proves it (`data.parties`). */
const parties = (f: DiffFinding) =>
  (f.data!.parties as Array<{ kind: string; name: string; witness?: string }>).map((p) => `${p.kind}:${p.name}=${p.witness ?? '?'}`)

describe('stream subjects narrowed', () => {
  it.each([
    ['one pattern to a narrower one', '[orders.>]', '[orders.*.placed]', 'orders.x'],
    ['to a narrower prefix', '[orders.>, audit.>]', '[orders.>, audit.eu.>]', 'audit.x'],
    ['a token wildcard to a literal', '[orders.>, audit.*.log]', '[orders.>, audit.eu.log]', 'audit.x.log'],
    ['one of two patterns dropped', '[orders.*.placed, audit.>]', '[orders.*.placed]', 'audit.x'],
  ])('%s: breaking, with a subject no longer captured', async (_, before, after, witness) => {
    const [finding] = (await diff(document(before), document(after))).filter((f) => f.rule === 'nats-stream-subjects-narrowed')
    expect(finding!.level).toBe('breaking')
    expect(finding!.data!.witness).toBe(witness)
    expect(kinds(finding!)[0]).toBe('deployment:orders')
  })

  // An outside pass against nats-server: `orders.>` narrowed to `orders.*.placed` kept storing what
  // placeOrder published and billing read, and stopped storing the Core publisher's
  // `orders.eu.shipped`; the finding named the first two and not the third. (A stream-ack
  // publisher's channel, and a consumer's filter, are held inside the stream by the checker, so
  // those are never reached in a version that compiles: a Core publisher and a subscriber whose
  // consumer filters wider than the stream's subjects are.)
  it.each([
    [
      'one region of a channel dropped',
      '[orders.>]',
      '[orders.*.placed, orders.eu.shipped]',
      ['publisher:shipped:ship=orders.us.shipped', 'subscriber:shipped:track=orders.us.shipped'],
    ],
    ['subjects none of its channels has', '[orders.>, audit.>]', '[orders.>]', []],
    ['subjects of its channels kept', '[orders.*.placed, orders.*.shipped, audit.>]', '[orders.*.placed, orders.*.shipped]', []],
  ])('names the parties with a subject no longer captured, each with it: %s', async (_, before, after, expected) => {
    const [finding] = (await diff(withShipped(before), withShipped(after))).filter((f) => f.rule === 'nats-stream-subjects-narrowed')
    expect(finding!.level).toBe('breaking')
    expect(parties(finding!).sort()).toEqual([...expected].sort())
    expect(kinds(finding!).sort()).toEqual(['deployment:orders', ...expected.map((e) => e.split('=')[0]!)].sort())
    if (expected.length === 0) expect(finding!.message).toContain('no operation of this document publishes or reads such a subject')
    else expect(finding!.message).toContain(expected[0]!.split('=')[1]!)
  })

  it('a subscriber whose consumer filters only subjects still captured is not named; the publisher of the others is', async () => {
    const [finding] = (
      await diff(withShipped('[orders.>]', 'orders.eu.shipped'), withShipped('[orders.*.placed, orders.eu.shipped]', 'orders.eu.shipped'))
    ).filter((f) => f.rule === 'nats-stream-subjects-narrowed')
    expect(parties(finding!)).toEqual(['publisher:shipped:ship=orders.us.shipped'])
  })

  it('subjects captured only by the new patterns together: a warning (not proven either way), no party', async () => {
    const [finding] = (await diff(withShipped('[orders.>]'), withShipped('[orders.*, orders.*.>]'))).filter((f) => f.rule === 'nats-stream-subjects-narrowed')
    expect(finding!.level).toBe('warning')
    expect(finding!.data!.witness).toBeUndefined()
    expect(finding!.data!.parties).toEqual([])
    expect(kinds(finding!)).toEqual(['deployment:orders'])
  })
})

describe('a stream change that loses stored messages', () => {
  it('names the subscriber reading its consumer, as well as its publisher', async () => {
    const findings = await diff(document('[orders.>]'), document('[orders.>]', '3600000000000'))
    const [limit] = findings.filter((f) => f.rule === 'nats-stream-limit-changed')
    expect(limit!.level).toBe('breaking')
    expect(kinds(limit!)).toEqual(expect.arrayContaining(['deployment:orders', 'publisher:placed:pub', 'subscriber:placed:sub']))
  })
})

describe('the publishers of a stream', () => {
  // An outside pass against nats-server: a Core publication the stream captures is stored in it like
  // a stream-ack one, and lost with it.
  it('are every publisher of a channel it captures, Core ones included; not one whose subjects it does not capture', async () => {
    const reduced = (
      await diff(
        withShipped('[orders.*.placed, orders.eu.shipped]'),
        withShipped('[orders.*.placed, orders.eu.shipped]').replace('max_age: 86400000000000', 'max_age: 3600000000000'),
      )
    ).filter((f) => f.rule === 'nats-stream-limit-changed')
    expect(kinds(reduced[0]!).sort()).toEqual([
      'deployment:orders',
      'publisher:placed:pub',
      'publisher:shipped:ship',
      'subscriber:placed:sub',
      'subscriber:shipped:track',
    ])
    // Without the reader of shipped subjects, a stream that captures none of them.
    const elsewhere = withShipped('[orders.*.placed]')
      .replace(/\n {4}track: .*/, '')
      .replace(/\n {2}track: .*/, '')
      .replace(/\n {4}shipping:\n(.*\n){4}/, '\n')
    const removed = (await diff(elsewhere, elsewhere.replace('max_age: 86400000000000', 'max_age: 3600000000000'))).filter(
      (f) => f.rule === 'nats-stream-limit-changed',
    )
    expect(kinds(removed[0]!).sort()).toEqual(['deployment:orders', 'publisher:placed:pub', 'subscriber:placed:sub'])
  })

  it('discard to "new" names the Core publishers of what the stream captures too (their publications are no longer stored once it is full)', async () => {
    const withDiscard = (discard: string) => withShipped('[orders.>]').replace('discard: new', `discard: ${discard}`)
    const [toNew] = (await diff(withDiscard('old'), withDiscard('new'))).filter((f) => f.rule === 'nats-stream-discard-changed')
    expect(kinds(toNew!).sort()).toEqual(['publisher:placed:pub', 'publisher:shipped:ship'])
  })
})

describe('a consumer filter widened', () => {
  it('past the channel its subscriber parses: a warning naming the subscriber (it may be handed subjects it refuses)', async () => {
    const [finding] = (await diff(document('[orders.>]'), document('[orders.>]', undefined, 'orders.>'))).filter(
      (f) => f.rule === 'nats-consumer-filter-changed',
    )
    expect(finding!.level).toBe('warning')
    expect(kinds(finding!)).toEqual(['deployment:billing', 'subscriber:placed:sub'])
  })

  it('within the channel: info', async () => {
    const [finding] = (await diff(document('[orders.>]', undefined, 'orders.eu.placed'), document('[orders.>]'))).filter(
      (f) => f.rule === 'nats-consumer-filter-changed',
    )
    expect(finding!.level).toBe('info')
    expect(finding!.audiences).toEqual([])
  })
})

describe('the discard policy', () => {
  // As nats-server does (an outside pass against it): to "new" a full stream refuses the next
  // publication and keeps everything stored; to "old" it evicts the oldest stored message.
  it('to "new": breaking for the publishers alone (nothing stored is lost); to "old": for the deployment and the subscribers', async () => {
    const withDiscard = (discard: string) => document('[orders.>]').replace('discard: new', `discard: ${discard}`)
    const [toNew] = (await diff(withDiscard('old'), withDiscard('new'))).filter((f) => f.rule === 'nats-stream-discard-changed')
    expect([toNew!.level, kinds(toNew!)]).toEqual(['breaking', ['publisher:placed:pub']])
    const [toOld] = (await diff(withDiscard('new'), withDiscard('old'))).filter((f) => f.rule === 'nats-stream-discard-changed')
    expect([toOld!.level, kinds(toOld!)]).toEqual(['breaking', ['deployment:orders', 'subscriber:placed:sub']])
  })
})
