import type { CompletionPolicy, ExecutorEvent, ExecutorPolicy, RetryPolicy } from '../../src/runtime/nats/executor/events.js'

/** A policy with the defaults of the tests: quorum 2 of 3 peers, deadline 1000 ms, detach, decision. */
export function policy(
  overrides: { dispatch?: ExecutorPolicy['dispatch']; completion?: Partial<CompletionPolicy>; retry?: Partial<RetryPolicy> } = {},
): ExecutorPolicy {
  return {
    dispatch: overrides.dispatch ?? 'independent',
    completion: {
      mode: 'quorum',
      unit: 'distinct-peers',
      quorum: { count: 2 },
      deadlineMs: 1000,
      onTimeout: 'fail',
      onImpossible: 'fail',
      lateResults: 'discard',
      remaining: 'detach',
      waitFor: 'decision',
      cancelTimeoutMs: 0,
      ...overrides.completion,
    },
    retry: { maxAttempts: 1, retryBackoffMs: 0, settlementGraceMs: 100, ...overrides.retry },
  }
}

/** Admission of one branch per peer (branch id = peer id), fence 0, at time 0. */
export function admitted(peers: readonly string[], atMs = 0, eligible: readonly string[] = []): ExecutorEvent {
  return { kind: 'admitted', atMs, branches: peers.map((p) => ({ branchId: p, peerId: p, fence: 0 })), eligible }
}

export function result(atMs: number, peer: string, success: boolean, attempt = 1, fence = 0, branchId = peer): ExecutorEvent {
  return { kind: 'result', atMs, branchId, peerId: peer, attempt, fence, success, verified: true }
}
