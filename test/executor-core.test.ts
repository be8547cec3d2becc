import { describe, expect, it } from 'vitest'
import { simulate, type ExecutorEvent } from '../src/runtime/nats/executor/events.js'
import { admitted, policy, result } from './helpers/executor-policy.js'
import { answerRecord, answeredPublications, answeredState, keepLog } from '../src/runtime/nats/executor/answer-record.js'

const statuses = (events: readonly ExecutorEvent[], p = policy()) => simulate(p, events).branches.map((b) => b.status)

describe('executor core: admission', () => {
  it('refuses an empty audience, duplicate branches and an impossible threshold', () => {
    expect(simulate(policy(), [admitted([])]).admission).toEqual({ status: 'refused', reason: 'empty-audience' })
    const dup: ExecutorEvent = {
      kind: 'admitted',
      atMs: 0,
      eligible: [],
      branches: [
        { branchId: 'x', peerId: 'a', fence: 0 },
        { branchId: 'x', peerId: 'b', fence: 0 },
      ],
    }
    expect(simulate(policy(), [dup]).admission).toEqual({ status: 'refused', reason: 'invalid-admission' })
    expect(simulate(policy({ completion: { quorum: { count: 4 } } }), [admitted(['a', 'b', 'c'])]).admission).toEqual({
      status: 'refused',
      reason: 'impossible-threshold',
    })
    const refused = simulate(policy(), [admitted([]), result(1, 'a', true)])
    expect(refused.refused).toEqual([{ index: 1, reason: 'before-admission' }])
    expect(refused.decision).toBeNull()
  })

  it('freezes units and computes the fractional threshold by the formula, the deadline from admission', () => {
    const s = simulate(policy({ completion: { quorum: { fraction: { numerator: 2, denominator: 3 } } } }), [admitted(['a', 'b', 'c', 'd', 'e'], 50)])
    expect(s.admission).toEqual({ status: 'admitted', atMs: 50, deadlineMs: 1050, admittedUnits: 5, threshold: 4 })
    const twoBranchesOnePeer: ExecutorEvent = {
      kind: 'admitted',
      atMs: 0,
      eligible: [],
      branches: [
        { branchId: 'x', peerId: 'a', fence: 0 },
        { branchId: 'y', peerId: 'a', fence: 0 },
      ],
    }
    const peers = simulate(policy({ completion: { mode: 'first-success' } }), [twoBranchesOnePeer])
    expect(peers.admission).toMatchObject({ admittedUnits: 1, threshold: 1 })
    const branches = simulate(policy({ completion: { mode: 'all-successful', unit: 'distinct-branches' } }), [twoBranchesOnePeer])
    expect(branches.admission).toMatchObject({ admittedUnits: 2, threshold: 2 })
  })
})

describe('executor core: completion', () => {
  it('quorum decides early and the decision never changes; later results stay facts', () => {
    const s = simulate(policy(), [admitted(['a', 'b', 'c']), result(10, 'a', true), result(20, 'b', true), result(30, 'c', false)])
    expect(s.decision).toMatchObject({ outcome: 'success', reason: 'threshold', atMs: 20, successUnits: 2 })
    expect(s.decision?.votes.map((v) => v.branchId)).toEqual(['a', 'b'])
    expect(s.votes).toHaveLength(3)
    expect(s.branches.map((b) => b.status)).toEqual(['succeeded', 'succeeded', 'unsuccessful'])
    expect(s.settledAtMs).toBe(30)
    expect(s.returnsAtMs).toBe(20)
  })

  it('quorum fails as soon as the threshold is out of reach', () => {
    const s = simulate(policy(), [admitted(['a', 'b', 'c']), result(10, 'a', false), result(20, 'b', false)])
    expect(s.decision).toMatchObject({ outcome: 'failure', reason: 'impossible', atMs: 20 })
  })

  it('first-success, all-successful and all-terminal', () => {
    const first = simulate(policy({ completion: { mode: 'first-success' } }), [admitted(['a', 'b']), result(5, 'b', false), result(6, 'a', true)])
    expect(first.decision).toMatchObject({ outcome: 'success', atMs: 6 })
    const all = simulate(policy({ completion: { mode: 'all-successful' } }), [admitted(['a', 'b']), result(5, 'b', false)])
    expect(all.decision).toMatchObject({ outcome: 'failure', reason: 'impossible', atMs: 5 })
    const allOk = simulate(policy({ completion: { mode: 'all-successful' } }), [admitted(['a', 'b']), result(5, 'b', true), result(7, 'a', true)])
    expect(allOk.decision).toMatchObject({ outcome: 'success', reason: 'threshold', atMs: 7 })
    const terminal = simulate(policy({ completion: { mode: 'all-terminal' } }), [admitted(['a', 'b']), result(5, 'b', false)])
    expect(terminal.decision).toBeNull()
    const terminal2 = simulate(policy({ completion: { mode: 'all-terminal' } }), [admitted(['a', 'b']), result(5, 'b', false), result(9, 'a', false)])
    expect(terminal2.decision).toMatchObject({ outcome: 'success', reason: 'settled', atMs: 9 })
  })

  it('completion none decides at admission and refuses everything after', () => {
    const s = simulate(policy({ completion: { mode: 'none' } }), [admitted(['a']), result(1, 'a', true)])
    expect(s.decision).toMatchObject({ outcome: 'success', reason: 'no-completion', atMs: 0 })
    expect(s.branches[0]!.status).toBe('dispatched')
    expect(s.refused).toEqual([{ index: 1, reason: 'no-completion' }])
  })

  it('times out at the deadline (fail or partial), discards late results, and marks survivors indeterminate after the grace', () => {
    const events = [admitted(['a', 'b', 'c']), result(10, 'a', true), result(1000, 'b', true), { kind: 'tick', atMs: 1100 } as const]
    const fail = simulate(policy(), events)
    expect(fail.decision).toMatchObject({ outcome: 'failure', reason: 'timeout', atMs: 1000, successUnits: 1 })
    expect(fail.refused).toEqual([{ index: 2, reason: 'late' }])
    expect(fail.branches.map((b) => b.status)).toEqual(['succeeded', 'indeterminate', 'indeterminate'])
    expect(fail.settledAtMs).toBe(1100)
    const partial = simulate(policy({ completion: { onTimeout: 'partial', waitFor: 'settled' } }), events)
    expect(partial.decision).toMatchObject({ outcome: 'partial', reason: 'timeout' })
    expect(partial.returnsAtMs).toBe(1100)
  })

  it('refuses results by correlation: unknown branch, unverified, wrong peer, stale attempt and fence, terminal branch', () => {
    const s = simulate(policy({ completion: { quorum: { count: 3 } } }), [
      admitted(['a', 'b', 'c']),
      result(1, 'z', true),
      { kind: 'result', atMs: 2, branchId: 'a', peerId: 'a', attempt: 1, fence: 0, success: true, verified: false },
      result(3, 'b', true, 1, 0, 'a'),
      result(4, 'a', true, 2, 0),
      result(5, 'a', true, 1, 7),
      result(6, 'a', true),
      result(7, 'a', true),
    ])
    expect(s.refused.map((r) => r.reason)).toEqual(['unknown-branch', 'unverified', 'wrong-peer', 'stale-attempt', 'stale-fence', 'not-open'])
    expect(s.votes).toHaveLength(1)
  })
})

describe('executor core: retries and fences', () => {
  const retrying = policy({ retry: { maxAttempts: 3, retryBackoffMs: 100 } })

  it('retries after a committed failure: backoff, attempt and fence incremented, the earlier attempt never votes', () => {
    const s = simulate(retrying, [
      admitted(['a', 'b', 'c']),
      { kind: 'failed', atMs: 10, branchId: 'a', attempt: 1, fence: 0, retryable: true },
      result(50, 'a', true),
      result(110, 'a', true),
      result(120, 'a', true, 2, 1),
    ])
    expect(s.refused.map((r) => r.reason)).toEqual(['not-open', 'stale-attempt'])
    expect(s.branches[0]).toMatchObject({ status: 'succeeded', attempt: 2, fence: 1 })
    expect(s.votes).toEqual([{ branchId: 'a', peerId: 'a', attempt: 2, fence: 1, success: true, atMs: 120 }])
  })

  it('stops at the budget, at a non-retryable failure and when the backoff passes the deadline', () => {
    const budget = simulate(policy({ retry: { maxAttempts: 2, retryBackoffMs: 0 } }), [
      admitted(['a', 'b', 'c']),
      { kind: 'failed', atMs: 10, branchId: 'a', attempt: 1, fence: 0, retryable: true },
      { kind: 'lease-expired', atMs: 20, branchId: 'a', attempt: 2, fence: 1 },
    ])
    expect(budget.branches[0]).toMatchObject({ status: 'failed', attempt: 2, terminalAtMs: 20 })
    expect(statuses([admitted(['a', 'b', 'c']), { kind: 'failed', atMs: 10, branchId: 'a', attempt: 1, fence: 0, retryable: false }], retrying)[0]).toBe(
      'failed',
    )
    expect(statuses([admitted(['a', 'b', 'c']), { kind: 'failed', atMs: 900, branchId: 'a', attempt: 1, fence: 0, retryable: true }], retrying)[0]).toBe(
      'failed',
    )
  })

  it('a higher claim raises the fence; the holder of the lower fence can no longer admit a result', () => {
    const s = simulate(retrying, [
      admitted(['a', 'b', 'c']),
      { kind: 'claimed', atMs: 5, branchId: 'a', peerId: 'a', fence: 40 },
      { kind: 'claimed', atMs: 6, branchId: 'a', peerId: 'a', fence: 40 },
      { kind: 'claimed', atMs: 7, branchId: 'a', peerId: 'b', fence: 41 },
      result(8, 'a', true),
      result(9, 'a', true, 1, 40),
    ])
    expect(s.refused.map((r) => r.reason)).toEqual(['stale-fence', 'wrong-peer', 'stale-fence'])
    expect(s.branches[0]).toMatchObject({ status: 'succeeded', fence: 40 })
  })

  it('one-eligible reassigns to the next peer in lexicographic order after a lease expiry; the stalled peer is refused', () => {
    const p = policy({ dispatch: 'one-eligible', completion: { mode: 'first-success', unit: 'distinct-branches' }, retry: { maxAttempts: 3 } })
    const s = simulate(p, [
      { kind: 'admitted', atMs: 0, branches: [{ branchId: 'br', peerId: 'a', fence: 3 }], eligible: ['a', 'b', 'c'] },
      { kind: 'revoked', atMs: 1, peerId: 'b' },
      { kind: 'lease-expired', atMs: 100, branchId: 'br', attempt: 1, fence: 3 },
      result(150, 'a', true, 1, 3, 'br'),
      result(160, 'c', true, 2, 4, 'br'),
    ])
    expect(s.refused.map((r) => r.reason)).toEqual(['wrong-peer'])
    expect(s.branches[0]).toMatchObject({ peerId: 'c', admittedPeerId: 'a', attempt: 2, fence: 4, status: 'succeeded' })
    expect(s.decision).toMatchObject({ outcome: 'success', atMs: 160 })
  })

  it('starts no attempt after the decision', () => {
    const s = simulate(retrying, [
      admitted(['a', 'b', 'c']),
      { kind: 'failed', atMs: 10, branchId: 'c', attempt: 1, fence: 0, retryable: true },
      result(20, 'a', true),
      result(30, 'b', true),
    ])
    expect(s.branches[2]).toMatchObject({ status: 'failed', attempt: 1, terminalAtMs: 30 })
  })
})

describe('executor core: cancellation, revocation, loss', () => {
  const coop = policy({ completion: { remaining: 'cooperative', cancelTimeoutMs: 50, waitFor: 'settled' }, retry: { settlementGraceMs: 200 } })

  it('cooperative: the decision sends cancel requests; stopped, already-completed, timed out, settled after the grace', () => {
    const s = simulate(coop, [
      admitted(['a', 'b', 'c', 'd', 'e']),
      result(10, 'a', true),
      result(20, 'b', true),
      { kind: 'cancel-answered', atMs: 30, branchId: 'c', attempt: 1, fence: 0, reply: 'stopped' },
      { kind: 'cancel-answered', atMs: 31, branchId: 'd', attempt: 1, fence: 9, reply: 'stopped' },
      { kind: 'cancel-answered', atMs: 32, branchId: 'd', attempt: 1, fence: 0, reply: 'already-completed' },
      result(40, 'd', false),
      { kind: 'cancel-answered', atMs: 80, branchId: 'e', attempt: 1, fence: 0, reply: 'stopped' },
      { kind: 'cancel-answered', atMs: 81, branchId: 'a', attempt: 1, fence: 0, reply: 'stopped' },
      { kind: 'tick', atMs: 500 },
    ])
    expect(s.decision).toMatchObject({ outcome: 'success', atMs: 20 })
    expect(s.refused.map((r) => r.reason)).toEqual(['stale-fence', 'not-requested', 'not-requested'])
    expect(s.branches.map((b) => [b.status, b.cancel])).toEqual([
      ['succeeded', 'none'],
      ['succeeded', 'none'],
      ['stopped', 'stopped'],
      ['unsuccessful', 'already-completed'],
      ['indeterminate', 'timed-out'],
    ])
    expect(s.settledAtMs).toBe(220)
    expect(s.returnsAtMs).toBe(220)
  })

  it('an invoker cancel decides cancelled once; a second is refused', () => {
    const s = simulate(coop, [admitted(['a', 'b']), { kind: 'cancel', atMs: 5 }, { kind: 'cancel', atMs: 6 }, result(7, 'a', true)])
    expect(s.decision).toMatchObject({ outcome: 'cancelled', reason: 'cancelled', atMs: 5 })
    expect(s.refused.map((r) => r.reason)).toEqual(['decided'])
    expect(s.branches[0]).toMatchObject({ status: 'succeeded', cancel: 'requested' })
  })

  it('revocation turns open branches terminal-revoked and keeps accepted results', () => {
    const s = simulate(policy({ completion: { mode: 'all-terminal' } }), [
      admitted(['a', 'b']),
      result(5, 'a', true),
      { kind: 'revoked', atMs: 6, peerId: 'a' },
      { kind: 'revoked', atMs: 7, peerId: 'b' },
    ])
    expect(s.branches.map((b) => b.status)).toEqual(['succeeded', 'revoked'])
    expect(s.decision).toMatchObject({ outcome: 'success', reason: 'settled', atMs: 7 })
  })

  it('a memory executor lost mid-interaction reports indeterminate and refuses what follows', () => {
    const s = simulate(policy(), [admitted(['a', 'b', 'c']), result(5, 'a', true), { kind: 'lost', atMs: 6 }, result(7, 'b', true)])
    expect(s.decision).toMatchObject({ outcome: 'indeterminate', reason: 'lost', atMs: 6 })
    expect(s.branches.map((b) => b.status)).toEqual(['succeeded', 'indeterminate', 'indeterminate'])
    expect(s.refused).toEqual([{ index: 3, reason: 'after-loss' }])
  })
})

describe('executor: the idempotency record of an answered invocation', () => {
  const peers = ['a', 'b', 'c']
  const published = peers.map((branchId) => ({ branchId, attempt: 1, ok: true }))
  const answered = (log: readonly ExecutorEvent[]) => {
    const state = simulate(policy(), log)
    return { state, record: answerRecord(state.decision!, log.length, 'r1', peers, published, undefined) }
  }

  it('keeps the usual log (one branch per peer, then the votes) as its admission time and rebuilds the same state', () => {
    const log = [admitted(peers, 5), result(7, 'b', true), result(9, 'a', true)]
    const { state, record } = answered(log)
    expect(answeredState(policy(), record, () => log)).toEqual(state)
    keepLog(record, log)
    expect(record.log).toBeUndefined()
    expect(record.admittedAtMs).toBe(5)
    expect(answeredState(policy(), record, undefined)).toEqual(state)
    expect(answeredPublications(record)).toEqual(published)
  })

  it('keeps any other log as it was: a refused result, an unverified one, a clock that stood still', () => {
    const unverified: ExecutorEvent = { ...result(8, 'c', true), verified: false }
    for (const log of [
      [admitted(peers, 5), result(6, 'x', true), result(7, 'b', true), result(9, 'a', true)],
      [admitted(peers, 5), unverified, result(7, 'b', true), result(9, 'a', true)],
      [admitted(peers, 5), result(3, 'b', true), result(9, 'a', true)],
    ]) {
      const { state, record } = answered(log)
      keepLog(record, log)
      expect(record.log).toEqual(log)
      expect(answeredState(policy(), record, undefined)).toEqual(state)
    }
  })
})
