/** Which stream subjects retain a channel's wildcard pattern (the durable executor reads CancelResults from the stream only when one does). */
import { describe, expect, it } from 'vitest'
import { subjectCovers } from '../src/runtime/nats/executor/delivery/jetstream.js'

describe('subjectCovers', () => {
  it('a stream subject covers a pattern when every subject the pattern matches matches it', () => {
    expect(subjectCovers('payments.refunds.*.cancelled.*', 'payments.refunds.*.cancelled.*')).toBe(true)
    expect(subjectCovers('payments.>', 'payments.refunds.*.cancelled.*')).toBe(true)
    expect(subjectCovers('payments.refunds.*.*.*', 'payments.refunds.*.cancelled.*')).toBe(true)
    expect(subjectCovers('payments.refunds.*.vote.*', 'payments.refunds.*.cancelled.*')).toBe(false)
    expect(subjectCovers('payments.refunds.op1.cancelled.*', 'payments.refunds.*.cancelled.*')).toBe(false)
    expect(subjectCovers('payments.refunds.*.cancelled', 'payments.refunds.*.cancelled.*')).toBe(false)
    expect(subjectCovers('payments.refunds.*.cancelled.*.x', 'payments.refunds.*.cancelled.*')).toBe(false)
    expect(subjectCovers('payments.*', 'payments.>')).toBe(false)
    expect(subjectCovers('>', 'a')).toBe(true)
  })
})
