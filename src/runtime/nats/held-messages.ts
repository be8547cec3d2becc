/**
 * The JetStream messages a consumption holds while at most `inFlight` of them are handled: taken
 * from nats.js as they are delivered, handed over by key in the order they came (keys take turns),
 * and marked in progress (`working`) on each call of `working()`, so that waiting never makes the
 * server deliver one again. Shared by the contract client's `consume` (every message its own key;
 * a running handler not marked) and the interaction executor's paced consumptions (results keyed by
 * operation; every held message marked). What is held is bounded by the server: it delivers no more
 * than the consumer's `max_ack_pending` unacknowledged.
 */
import type { Consumer, JsMsg } from '@nats-io/jetstream'

export interface HeldOptions {
  /** Messages of one key are handled one after another and take one place between them; undefined: each message its own key. */
  readonly keyOf?: (msg: JsMsg) => string | undefined
  /** Whether `working()` marks the messages being handled too, or only the ones waiting. */
  readonly markHandling: boolean
}

export class HeldMessages {
  private readonly waiting = new Map<string | JsMsg, JsMsg[]>()
  private readonly ready: Array<string | JsMsg> = []
  private readonly handling = new Set<JsMsg>()
  private stopped = false

  /** `handle` is done when it returns, or when the promise it returns settles. */
  constructor(
    private readonly handle: (msg: JsMsg) => void | Promise<void>,
    private readonly inFlight: number,
    private readonly options: HeldOptions,
  ) {}

  add(msg: JsMsg): void {
    if (this.stopped) return
    const key = this.options.keyOf?.(msg) ?? msg
    const queue = this.waiting.get(key)
    if (queue) return void queue.push(msg) // its key is being handled or waiting its turn
    this.waiting.set(key, [msg])
    this.ready.push(key)
    this.next()
  }

  /** The messages held marked in progress: the waiting ones, and the ones being handled when `markHandling`. */
  working(): void {
    for (const queue of this.waiting.values()) for (const msg of queue) msg.working()
    if (this.options.markHandling) for (const msg of this.handling) msg.working()
  }

  /** Takes nothing more and starts no handler; the waiting messages are let go (unacknowledged). */
  stop(): void {
    this.stopped = true
    this.waiting.clear()
    this.ready.length = 0
  }

  private next(): void {
    while (!this.stopped && this.handling.size < this.inFlight && this.ready.length > 0) {
      const key = this.ready.shift()!
      const queue = this.waiting.get(key)!
      const msg = queue.shift()!
      this.handling.add(msg)
      let done: void | Promise<void>
      try {
        done = this.handle(msg)
      } catch {
        done = undefined
      }
      // A handler done when it returns frees its place within this loop (no recursion: a run of
      // such handlers is a loop, not a stack); a promise frees it when it settles.
      if (done instanceof Promise)
        void done
          .catch(() => undefined)
          .finally(() => {
            this.finish(key, queue, msg)
            this.next()
          })
      else this.finish(key, queue, msg)
    }
  }

  /** `msg` handled: its place freed, its key's next message (if any) in line after the keys already waiting. */
  private finish(key: string | JsMsg, queue: JsMsg[], msg: JsMsg): void {
    this.handling.delete(msg)
    if (this.stopped) return
    if (queue.length > 0) this.ready.push(key)
    else this.waiting.delete(key)
  }
}

/** The consumer's ack wait in milliseconds, from what nats.js knows of it (no request); undefined when it cannot tell. */
export async function consumerAckWaitMs(consumer: Consumer): Promise<number | undefined> {
  const info = await consumer.info(true).catch(() => undefined)
  const wait = info?.config.ack_wait
  return typeof wait === 'number' && wait > 0 ? wait / 1e6 : undefined
}
