/**
 * The executor's per-operation records are made with `new` rather than as literals (so V8 never
 * allocates them old: `src/runtime/nats/executor/born-young.ts`). They must stay the same values:
 * the same members in the same order (what `JSON.stringify` writes and a log replays), frozen where
 * the literals were, no member an absent one would not have had.
 */
import { describe, expect, it } from 'vitest'
import { simulate, type ExecutorEvent } from '../src/runtime/nats/executor/events.js'
import { AdmittedEvent, AudienceRecord, OutcomeRecord, PublicationRecord, ResultEvent } from '../src/runtime/nats/executor/born-young.js'
import { answerRecord } from '../src/runtime/nats/executor/answer-record.js'
import { admitted, policy, result } from './helpers/executor-policy.js'

const json = (value: unknown) => JSON.stringify(value)
/** Quorum 2 of two peers, both approving: admitted and decided. */
const decided = () => simulate(policy(), [admitted(['a', 'b']), result(1, 'a', true), result(2, 'b', true)])

describe('executor records made with new are the values the literals were', () => {
  it('the live executor events write the members of the log events, in order', () => {
    const branches = ['a', 'b'].map((p) => ({ branchId: p, peerId: p, fence: 0 }))
    expect(json(new AdmittedEvent(5, branches, []))).toBe(json({ kind: 'admitted', atMs: 5, branches, eligible: [] }))
    expect(json(new ResultEvent(7, 'a', 'a', 1, 0, true, false))).toBe(
      json({ kind: 'result', atMs: 7, branchId: 'a', peerId: 'a', attempt: 1, fence: 0, success: true, verified: false }),
    )
    // Replayed like the literal events: the same state.
    const live: ExecutorEvent[] = [
      new AdmittedEvent(0, branches, []),
      new ResultEvent(1, 'a', 'a', 1, 0, true, true),
      new ResultEvent(2, 'b', 'b', 1, 0, true, true),
    ]
    expect(simulate(policy(), live).decision?.outcome).toBe('success')
    expect(json(simulate(policy(), live))).toBe(json(decided()))
  })

  it('a publication has an error member only when it failed; an outcome an output only when one was given', () => {
    expect(json(new PublicationRecord('a', 1, true))).toBe(json({ branchId: 'a', attempt: 1, ok: true }))
    expect('error' in new PublicationRecord('a', 1, true)).toBe(false)
    expect(json(new PublicationRecord('a', 2, false, 'down'))).toBe(json({ branchId: 'a', attempt: 2, ok: false, error: 'down' }))
    const state = decided()
    const audience = new AudienceRecord('r', 'p', ['a'])
    expect(json(audience)).toBe(json({ revision: 'r', policyRevision: 'p', peers: ['a'] }))
    const without = new OutcomeRecord('op1', state.decision!, state, audience, [], undefined)
    expect('output' in without).toBe(false)
    expect(Object.keys(without)).toEqual(['operationId', 'decision', 'state', 'audience', 'publications'])
    expect(Object.keys(new OutcomeRecord('op1', state.decision!, state, audience, [], { n: 1 }))).toEqual([
      'operationId',
      'decision',
      'state',
      'audience',
      'publications',
      'output',
    ])
  })

  it("the core's state, admission, branches, votes and decision keep their members' order and are frozen", () => {
    const state = decided()
    expect(Object.keys(state)).toEqual(['admission', 'nowMs', 'branches', 'votes', 'decision', 'settledAtMs', 'returnsAtMs', 'refused', 'refusalsOmitted'])
    expect(Object.keys(state.admission)).toEqual(['status', 'atMs', 'deadlineMs', 'admittedUnits', 'threshold'])
    expect(Object.keys(state.branches[0]!)).toEqual([
      'branchId',
      'admittedPeerId',
      'peerId',
      'status',
      'attempt',
      'fence',
      'retryAtMs',
      'terminalAtMs',
      'cancel',
      'cancelRequestedAtMs',
    ])
    expect(Object.keys(state.votes[0]!)).toEqual(['branchId', 'peerId', 'attempt', 'fence', 'success', 'atMs'])
    expect(Object.keys(state.decision!)).toEqual(['outcome', 'reason', 'atMs', 'votes', 'successUnits'])
    for (const frozen of [state, state.admission, state.branches, state.branches[0], state.votes, state.votes[0], state.decision, state.decision!.votes])
      expect(Object.isFrozen(frozen)).toBe(true)
  })

  it("an answer record lists its publications only when they were not the peers' first attempts", () => {
    const state = decided()
    const usual = answerRecord(state.decision!, 2, 'r', ['a'], [new PublicationRecord('a', 1, true)], undefined)
    expect(usual.publications).toBeUndefined()
    expect(usual.output).toBeUndefined()
    const failed = answerRecord(state.decision!, 2, 'r', ['a'], [new PublicationRecord('a', 1, false, 'down')], 'out')
    expect(failed.publications).toEqual([{ branchId: 'a', attempt: 1, ok: false, error: 'down' }])
    expect(failed.output).toBe('out')
  })
})
