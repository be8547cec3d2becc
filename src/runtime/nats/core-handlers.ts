/**
 * Handlers of core NATS messages, at most `maxHandlers` at once. Core delivery has no flow control:
 * a publisher faster than its handlers (or a flood from a hostile peer) would otherwise start as
 * many handlers as messages arrive and hold every one of them in memory. A message that arrives
 * while every place is taken waits its turn in arrival order, up to `maxWaiting` messages and
 * `maxWaitingBytes` bytes; what would pass those is dropped and reported (`dropped`), since core
 * delivery is at most once anyway. Shared by the contract client's `subscribe` and the interaction
 * executor's responder (memory state), which answer their own failures.
 *
 * nats.js hands over every message of one read of the connection in one go, before any async
 * handler's promise can settle: a handler already finished still holds its place then. So messages
 * past a full waiting room are judged on the event loop's next turns: taken in order as places and
 * room free up, for as long as handlers finish from one turn to the next; the rest are dropped on
 * a turn when none finished (every place held by a handler still running). At most OVERFLOW are
 * held so, within the same bytes.
 *
 * Cost: O(1) per message on the way in and out (the waiting room is a queue read from its head);
 * a message that runs at once reads no size and makes no allocation for the bound.
 */
import type { Msg } from '@nats-io/nats-core'

export interface CoreHandlerBounds {
  /** Handlers running at once (at least 1). */
  readonly maxHandlers: number
  /** Messages held while they all run (at least 0). */
  readonly maxWaiting: number
  /** Bytes of the messages held while they all run, as they travelled (`heldSize`; at least 0). */
  readonly maxWaitingBytes: number
}

/**
 * The bounds core handlers run under unless told otherwise: the client's `subscribe` defaults and
 * the executor's responder (memory state), as the durable responder runs at most 64 requests.
 */
export const DEFAULT_CORE_HANDLER_BOUNDS: CoreHandlerBounds = { maxHandlers: 64, maxWaiting: 1024, maxWaitingBytes: 64 * 1024 * 1024 }

/** Why a message was dropped: the waiting room's count, its bytes, or the handlers stopped (`stop()`) while it waited. */
export type DropReason = 'count' | 'bytes' | 'closed'

/** Messages held past a full waiting room until the handlers that settled meanwhile free their places. */
export const OVERFLOW = 16_384

/** A message waiting its turn: the handler's argument, the message and the bytes it holds. */
type Held<T> = [T, Msg, number]

export class CoreHandlers<T> {
  private running = 0
  /** Waiting for a place, in arrival order, read from `head` (shifting a long array is linear). */
  private waiting: Array<Held<T>> = []
  private head = 0
  private readonly overflow: Array<Held<T>> = []
  /** Bytes held by `waiting` and `overflow` together. */
  private heldBytes = 0
  private finished = 0
  private finishedBefore = 0
  private stopped = false

  /**
   * `handle` is done when it returns or when the promise it returns settles; what it throws or
   * rejects with goes to `failed`. `dropped` is told of each message dropped, with why and the
   * bytes held at that moment.
   */
  constructor(
    private readonly handle: (item: T, msg: Msg) => void | Promise<void>,
    private readonly bounds: CoreHandlerBounds,
    private readonly failed: (error: unknown, msg: Msg) => void,
    private readonly dropped: (msg: Msg, reason: DropReason, heldBytes: number) => void,
  ) {}

  /** Tells `failed` or `dropped`: what they throw is ignored (a place must be freed whatever they do). */
  private tell(report: () => void): void {
    try {
      report()
    } catch {
      // Ignored: see above.
    }
  }

  /**
   * Starts no handler any more: what waits (or is being decided) is let go unhandled, each told to
   * `dropped` (reason `closed`), in arrival order; what is offered later is ignored; running
   * handlers finish.
   */
  stop(): void {
    if (this.stopped) return
    this.stopped = true
    const left = [...this.waiting.slice(this.head), ...this.overflow]
    this.waiting = []
    this.head = 0
    this.overflow.length = 0
    this.heldBytes = 0
    for (const [, msg] of left) this.tell(() => this.dropped(msg, 'closed', 0))
  }

  /** Runs the handler on `item` now, later in arrival order, or drops the message. */
  offer(item: T, msg: Msg): void {
    if (this.stopped) return
    const { maxHandlers, maxWaiting, maxWaitingBytes } = this.bounds
    const waiting = this.waiting.length - this.head
    if (this.overflow.length === 0 && waiting === 0 && this.running < maxHandlers) return this.run(item, msg)
    const size = heldSize(msg)
    if (this.heldBytes + size > maxWaitingBytes) return this.tell(() => this.dropped(msg, 'bytes', this.heldBytes))
    if (this.overflow.length === 0 && waiting < maxWaiting) {
      this.heldBytes += size
      return this.admit([item, msg, size])
    }
    if (this.overflow.length >= OVERFLOW) return this.tell(() => this.dropped(msg, 'count', this.heldBytes))
    if (this.overflow.length === 0) {
      this.finishedBefore = this.finished
      setTimeout(this.judge, 0)
    }
    this.heldBytes += size
    this.overflow.push([item, msg, size])
  }

  private admit(held: Held<T>): void {
    if (this.running < this.bounds.maxHandlers) {
      this.heldBytes -= held[2]
      this.run(held[0], held[1])
    } else this.waiting.push(held)
  }

  private readonly judge = (): void => {
    const { maxHandlers, maxWaiting } = this.bounds
    let taken = 0
    while (taken < this.overflow.length && (this.running < maxHandlers || this.waiting.length - this.head < maxWaiting)) this.admit(this.overflow[taken++]!)
    this.overflow.splice(0, taken)
    if (this.overflow.length === 0) return
    if (this.finished !== this.finishedBefore) {
      this.finishedBefore = this.finished
      setTimeout(this.judge, 0)
      return
    }
    for (const [, msg, size] of this.overflow.splice(0)) {
      this.heldBytes -= size
      this.tell(() => this.dropped(msg, 'count', this.heldBytes))
    }
  }

  /** One closure for every message: a message that runs at once pays no allocation for the bound. */
  private readonly done = (): void => {
    this.running--
    this.finished++
    if (this.head === this.waiting.length) return
    const next = this.waiting[this.head]!
    this.waiting[this.head++] = undefined as never
    if (this.head === this.waiting.length) {
      this.waiting = []
      this.head = 0
    }
    this.heldBytes -= next[2]
    this.run(next[0], next[1])
  }

  private run(item: T, msg: Msg): void {
    this.running++
    try {
      const result = this.handle(item, msg)
      if (result instanceof Promise) {
        result.then(this.done, (e: unknown) => {
          this.tell(() => this.failed(e, msg))
          this.done()
        })
        return
      }
    } catch (e) {
      this.tell(() => this.failed(e, msg))
    }
    this.done()
  }
}

const encoder = /* @__PURE__ */ new TextEncoder()

/** The MSG/HMSG line's arguments as nats.js v3 keeps them on a received message (`MsgImpl._msg`). */
interface WireArguments {
  readonly subject?: Uint8Array
  readonly reply?: Uint8Array
  /** The bytes after the line: the header block and the payload. */
  readonly size?: number
}

/**
 * The bytes a received message holds as it travelled: its subject, reply subject, header block and
 * payload. Read from what nats.js kept of the protocol line (the sizes the server sent), since the
 * decoded headers say less: nats.js drops what it cannot read (a line without a colon, a status
 * description) and a string's length counts UTF-16 code units, not bytes. A message that keeps no
 * such line (another client's) is counted from its public parts, headers encoded again.
 */
export function heldSize(msg: Msg): number {
  const wire = (msg as unknown as { _msg?: WireArguments })._msg
  if (wire !== undefined && typeof wire === 'object' && Number.isSafeInteger(wire.size) && wire.size! >= msg.data.byteLength)
    return wire.size! + (wire.subject?.byteLength ?? encoder.encode(msg.subject).byteLength) + (wire.reply?.byteLength ?? 0)
  let size = msg.data.byteLength + encoder.encode(msg.subject).byteLength + encoder.encode(msg.reply ?? '').byteLength
  const headers = msg.headers
  if (headers) {
    const encode = (headers as { encode?: () => Uint8Array }).encode
    if (typeof encode === 'function') size += encode.call(headers).byteLength
    else for (const [name, values] of headers) for (const value of values) size += encoder.encode(`${name}: ${value}\r\n`).byteLength
  }
  return size
}
