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
    expect(kinds(finding!)).toEqual(expect.arrayContaining(['deployment:orders', 'publisher:placed:pub', 'subscriber:placed:sub']))
  })

  it('subjects captured only by the new patterns together: a warning (not proven either way)', async () => {
    const [finding] = (await diff(document('[orders.>]'), document('[orders.*, orders.*.>]'))).filter((f) => f.rule === 'nats-stream-subjects-narrowed')
    expect(finding!.level).toBe('warning')
    expect(finding!.data!.witness).toBeUndefined()
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
