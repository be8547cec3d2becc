/**
 * The durable rig's fixed names and test-sized timings, apart from the rig (which compiles the
 * contract): the SIGKILL child process imports only these, so it starts fast.
 */
import type { Interaction } from '../../src/runtime/nats/interactions.js'
import type { DurableBinding } from '../../src/runtime/nats/executor/durable/executor.js'

export const COURIERS = ['c-ann', 'c-bob', 'c-cat']
export const STREAM = 'COURIERS'

export const binding: DurableBinding = {
  requestStream: STREAM,
  resultStream: STREAM,
  stateBucket: 'exec_state',
  claimBucket: 'exec_claims',
  ackWaitMs: 1000,
}

export const shipmentInputs = { zone: 'eu', shipment: { shipmentId: '0123456789abcdef', address: '1 Quay Street' } }

/** The shipping offer with test-sized times: a 1.5 s lease renewed every 200 ms (a renewal may be late by 1.3 s on a loaded machine before the lease is lost), a 100 ms backoff, a 20 s deadline. */
export function quick(base: Interaction, completion: object = {}): Interaction {
  const b = base as Record<string, any>
  return {
    ...base,
    completion: { ...b['completion'], deadlineMs: 20_000, ...completion },
    delivery: {
      ...b['delivery'],
      retryBackoffMs: 100,
      settlementGraceMs: 300,
      ownership: { adapter: 'courierLease', leaseMs: 1500, renewEveryMs: 200, onLoss: 'retry' },
    },
  } as Interaction
}

/**
 * The shipping offer for a test that makes a fault (a server stopped, an election): `quick`'s
 * backoff with a 30 s lease renewed every 500 ms, longer than any fault a test makes (a 1.5 s lease
 * would be lost to it and the branch retried), and the deadline given (generous: no such test waits
 * for it).
 */
export function patient(base: Interaction, deadlineMs: number, completion: object = {}, lease: { leaseMs?: number; renewEveryMs?: number } = {}): Interaction {
  const b = quick(base, { deadlineMs, ...completion }) as unknown as Record<string, any>
  return {
    ...b,
    delivery: { ...b['delivery'], ownership: { ...b['delivery']['ownership'], leaseMs: 30_000, renewEveryMs: 500, ...lease } },
  } as unknown as Interaction
}

/**
 * The application's connection options for a cluster: the servers in the order given, quick
 * reconnects, and pings every 2 s (two unanswered: the server is taken for gone), so a client of a
 * frozen server moves to another within seconds, not nats.js's default minutes.
 */
export const clusterOptions = (servers: string[]) => ({
  servers,
  reconnectTimeWait: 100,
  maxReconnectAttempts: -1,
  timeout: 5000,
  noRandomize: true,
  pingInterval: 2000,
  maxPingOut: 2,
})
