/**
 * The bound on core NATS handlers (src/runtime/nats/core-handlers.ts), on messages made by hand:
 * what runs at once, what waits and in which order, what is dropped and why (a count or the bytes
 * held), that a burst to handlers that keep finishing is never dropped, and that a reporter that
 * throws frees its place all the same. The client's `subscribe` and the executor's responder are
 * tested on it against nats-server (test/nats-client, test/executor-peer-bounds).
 */
import { describe, expect, it } from 'vitest'
import type { Msg } from '@nats-io/nats-core'
import { CoreHandlers, OVERFLOW, heldSize, type CoreHandlerBounds, type DropReason } from '../src/runtime/nats/core-handlers.js'

/** A received message with `bytes` of payload (what heldSize reads; nothing else is). */
function message(subject: string, bytes = 0): Msg {
  return { subject, reply: '', data: new Uint8Array(bytes), headers: undefined } as unknown as Msg
}

const turn = () => new Promise((resolve) => setTimeout(resolve, 0))
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await turn()
}

/** Handlers that wait for `release`; what started, what was dropped, the most running at once. */
function stalled(bounds: CoreHandlerBounds) {
  let open!: () => void
  const released = new Promise<void>((resolve) => (open = resolve))
  const started: string[] = []
  const dropped: Array<[string, DropReason]> = []
  let running = 0
  let most = 0
  const handlers = new CoreHandlers<string>(
    async (item) => {
      started.push(item)
      most = Math.max(most, ++running)
      await released
      running--
    },
    bounds,
    () => undefined,
    (msg, reason) => dropped.push([msg.subject, reason]),
  )
  return { handlers, started, dropped, release: open, most: () => most }
}

describe('core handlers', () => {
  it('runs at most maxHandlers at once, holds maxWaiting in arrival order, and drops the rest on the next turn when none finished', async () => {
    const s = stalled({ maxHandlers: 2, maxWaiting: 3, maxWaitingBytes: 1e9 })
    for (let i = 0; i < 10; i++) s.handlers.offer(`m${i}`, message(`m${i}`))
    // In the turn they arrived: two run, three wait, five are still being decided.
    expect(s.started).toEqual(['m0', 'm1'])
    expect(s.dropped).toEqual([])
    await turns(2)
    expect(s.dropped).toEqual(['m5', 'm6', 'm7', 'm8', 'm9'].map((m) => [m, 'count']))
    s.release()
    await turns(2)
    expect(s.started).toEqual(['m0', 'm1', 'm2', 'm3', 'm4'])
    expect(s.most()).toBe(2)
  })

  it('holds at most maxWaitingBytes: a message that would pass it is dropped at once, and the bytes come back as messages leave', async () => {
    const size = heldSize(message('a', 100))
    expect(size).toBe(101)
    const s = stalled({ maxHandlers: 1, maxWaiting: 100, maxWaitingBytes: 2 * size })
    for (let i = 0; i < 5; i++) s.handlers.offer(`m${i}`, message('a', 100))
    // One runs (it holds no place in the room), two fit in the bytes, the other two are dropped in the same turn.
    expect(s.started).toEqual(['m0'])
    expect(s.dropped).toEqual([
      ['a', 'bytes'],
      ['a', 'bytes'],
    ])
    s.release()
    await turns(2)
    expect(s.started).toEqual(['m0', 'm1', 'm2'])
    // Everything left: the whole room is free again.
    s.handlers.offer('n0', message('a', 100))
    s.handlers.offer('n1', message('a', 100))
    s.handlers.offer('n2', message('a', 100))
    await turns(2)
    expect(s.started).toEqual(['m0', 'm1', 'm2', 'n0', 'n1', 'n2'])
    expect(s.dropped).toHaveLength(2)
  })

  it('counts headers, subject and reply subject in the bytes a message holds', () => {
    const headers = new Map([['x-pad', ['p'.repeat(50), 'q']]])
    const msg = { subject: 'abc', reply: '_INBOX.x', data: new Uint8Array(10), headers } as unknown as Msg
    expect(heldSize(msg)).toBe(10 + 3 + 8 + (5 + 50 + 4) + (5 + 1 + 4))
  })

  it('a burst to handlers that keep finishing is never dropped, however small the room (synchronous and asynchronous handlers)', async () => {
    for (const asynchronous of [false, true]) {
      const handled: number[] = []
      const dropped: string[] = []
      const handlers = new CoreHandlers<number>(
        (n) => {
          if (!asynchronous) return void handled.push(n)
          return turn().then(() => void handled.push(n))
        },
        { maxHandlers: 1, maxWaiting: 0, maxWaitingBytes: 1e9 },
        () => undefined,
        (msg) => dropped.push(msg.subject),
      )
      for (let i = 0; i < 200; i++) handlers.offer(i, message(`m${i}`))
      for (let i = 0; i < 1000 && handled.length + dropped.length < 200; i++) await turn()
      expect({ asynchronous, dropped }).toEqual({ asynchronous, dropped: [] })
      expect(handled).toEqual(Array.from({ length: 200 }, (_, i) => i))
    }
  })

  it('past OVERFLOW messages being decided, the next is dropped at once', () => {
    const s = stalled({ maxHandlers: 1, maxWaiting: 0, maxWaitingBytes: 1e12 })
    for (let i = 0; i < OVERFLOW + 2; i++) s.handlers.offer(`m${i}`, message('a'))
    expect(s.dropped).toEqual([['a', 'count']])
    s.release()
  })

  it('stop(): nothing more starts; what waited or was being decided is told dropped (closed) in arrival order; later offers are ignored', async () => {
    const s = stalled({ maxHandlers: 1, maxWaiting: 2, maxWaitingBytes: 1e9 })
    for (let i = 0; i < 5; i++) s.handlers.offer(`m${i}`, message(`m${i}`))
    s.handlers.stop()
    s.handlers.offer('late', message('late'))
    s.release()
    await turns(3)
    expect(s.started).toEqual(['m0'])
    expect(s.dropped).toEqual(['m1', 'm2', 'm3', 'm4'].map((m) => [m, 'closed']))
  })

  it('a handler that throws or rejects, and a reporter that throws, free their place all the same', async () => {
    const handled: number[] = []
    const handlers = new CoreHandlers<number>(
      (n) => {
        if (n === 0) throw new Error('sync')
        if (n === 1) return Promise.reject(new Error('async'))
        handled.push(n)
      },
      { maxHandlers: 1, maxWaiting: 0, maxWaitingBytes: 0 },
      () => {
        throw new Error('the failure reporter throws')
      },
      () => {
        throw new Error('the drop reporter throws')
      },
    )
    handlers.offer(0, message('a'))
    handlers.offer(1, message('a'))
    // The rejected handler holds its place until its promise settles: this one is dropped (no room, no bytes), its reporter throws.
    handlers.offer(2, message('a'))
    await turns(2)
    handlers.offer(3, message('a'))
    expect(handled).toEqual([3])
  })
})
