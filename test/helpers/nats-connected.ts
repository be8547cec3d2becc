/**
 * One nats-server (JetStream on) and one connection to it for a describe block: `beforeAll` starts
 * both, `afterAll` closes the connection and stops the server. Read `server` and `nc` inside tests
 * (they are set once `beforeAll` has run).
 */
import { connect } from '@nats-io/transport-node'
import type { NatsConnection } from '@nats-io/nats-core'
import { afterAll, beforeAll } from 'vitest'
import { startNatsServer, type NatsServer } from './nats-server.js'

export interface Connected {
  readonly server: NatsServer
  readonly nc: NatsConnection
}

export function connectedNatsServer(): Connected {
  let server: NatsServer | undefined
  let nc: NatsConnection | undefined
  beforeAll(async () => {
    server = await startNatsServer()
    nc = await connect({ servers: server.url })
  }, 60_000)
  afterAll(async () => {
    await nc?.close()
    await server?.stop()
  })
  return {
    get server() {
      if (!server) throw new Error('the nats-server is not started yet (read it inside a test)')
      return server
    },
    get nc() {
      if (!nc) throw new Error('the connection is not open yet (read it inside a test)')
      return nc
    },
  }
}

/** Resolves once `count()` reaches `target`, or after `ms` whatever it is (a bounded wait, not a timing assertion). */
export function reached(count: () => number, target: number, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const started = Date.now()
    const poll = () => (count() >= target || Date.now() - started > ms ? resolve() : setTimeout(poll, 20))
    poll()
  })
}
