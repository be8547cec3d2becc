/**
 * `unplugin-contracts/runtime/nats/client`: a generated NATS contract module bound to a nats.js v3
 * connection. Each operation gets only what its profile entry allows (a core publish, a JetStream
 * publish with stream acknowledgment, a request with the contract's timeout, a core subscription,
 * a durable pull consumer), subjects are rendered and parsed through the channel's checked subject,
 * and payloads are validated against the channel's messages on the way out and on the way in.
 * The connection (and with it server URLs and credentials) is the application's: nothing here
 * chooses where messages go beyond the contract's subjects.
 */
import { createInbox, type Msg, type MsgHdrs, type NatsConnection, type Subscription } from '@nats-io/nats-core'
import { AckPolicy, jetstream, type Consumer, type JetStreamClient, type JsMsg, type PubAck } from '@nats-io/jetstream'
import type { Channel } from '../subjects.js'
import type { NativeDescriptor, OperationDescriptor } from '../index.js'
import { check, type Validator } from '../../shared/validation.js'
import { parsedDataProblem, wireJson } from '../../shared/wire-json.js'
import { errorText } from '../../shared/error-text.js'
import type { ResultError } from '../../shared/result.js'
import { compareVersions } from '../../shared/semver.js'
import { headersOfMessage, takesAnyHeaders, type MessageValidators } from '../message-headers.js'
import { reservedNamesOf } from '../reserved-headers.js'
import { HeldMessages, consumerAckWaitMs } from '../held-messages.js'
import { CoreHandlers, DEFAULT_CORE_HANDLER_BOUNDS } from '../core-handlers.js'
import {
  headerObject,
  headersFor,
  isMsgHdrs,
  msgHdrsFrom,
  receivedHeaders,
  sentAsGiven as headerSentAsGiven,
  UNREADABLE_HEADERS,
  unreadableHeadersErrors,
  type HeaderObject,
} from './headers.js'

/** What a generated NATS module provides that the client reads. */
export interface ContractModule {
  readonly contract: { readonly id: string; readonly version: string; readonly deployment?: { readonly minimumServerVersion: string } }
  readonly channels: { readonly [id: string]: Channel<any, any, any> }
  readonly operations: { readonly [id: string]: OperationDescriptor }
  readonly streams: { readonly [key: string]: NativeDescriptor }
  readonly consumers: { readonly [key: string]: NativeDescriptor }
}

type Ops<M extends ContractModule> = M['operations']
type ChannelOf<M extends ContractModule, K extends keyof Ops<M>> = M['channels'][Ops<M>[K]['channel'] & keyof M['channels']]
export type ParamsOf<C> = C extends Channel<infer P, any, any> ? P : never
export type PayloadOf<C> = C extends Channel<any, any, infer T> ? T : never
export type FiltersOf<C> = C extends Channel<any, infer F, any> ? F : never
/** The headers a channel's messages carry, as their `headers` schema types them (`unknown`: no schema, any headers). */
export type HeadersOf<C> = C extends Channel<any, any, any, infer H> ? H : unknown
/**
 * Headers as their validator reads them, typed by a headers schema `H`: a plain object whose values
 * are strings, names exact (nats.js v3 compares them case-sensitively); names starting with `Nats-`
 * are the protocol's and JetStream's own, checked only where the schema names them, so any schema
 * lets the others through.
 */
export type CheckedHeaders<H> = HeaderMap<H> & { readonly [name: `Nats-${string}`]: string }
/** The object members of a headers type, each value a string (what a header value is); `H` a union when the messages are several. */
type HeaderMap<H> = H extends readonly unknown[] ? never : H extends object ? { readonly [K in keyof H]: H[K] & string } : never
/**
 * The checked headers of a received message (`headerValues`): as `HeaderMap`, but a name an open
 * schema does not declare (its index signature) may be absent, `string | undefined`, as a declared
 * optional one is (a sent one is a string when given).
 */
type ReceivedHeaderMap<H> = H extends readonly unknown[]
  ? never
  : H extends object
    ? { readonly [K in keyof H]: string extends K ? (H[K] & string) | undefined : H[K] & string }
    : never
/**
 * What a send may give as headers: with a headers schema, the plain object it describes (exactly
 * what its validator accepts: nats.js MsgHdrs cannot be typed, so it is taken at run time only);
 * without one, any plain object of strings or MsgHdrs.
 */
export type OutgoingHeadersOf<C> = unknown extends HeadersOf<C> ? OutgoingHeaders : CheckedHeaders<HeadersOf<C>>
/**
 * The headers type of what an operation carries: the messages it lists (`operation.messages`, typed
 * on its descriptor) when it lists fewer than all of its channel's, else its channel's (`unknown`:
 * a message has no headers schema, and no headers are checked).
 */
export type OperationHeadersOf<M extends ContractModule, K extends keyof Ops<M>> = Ops<M>[K] extends { readonly messages: readonly string[] }
  ? Ops<M>[K] extends { readonly __headers?: { readonly type: infer H } }
    ? H
    : unknown
  : HeadersOf<ChannelOf<M, K>>
/** What a send may give as headers for a headers schema typed `X` (see `OutgoingHeadersOf`; `unknown`: no schema). */
type OutgoingOf<X> = unknown extends X ? OutgoingHeaders : CheckedHeaders<X>
/** `X` with `Nats-Msg-Id` optional: a JetStream send's `msgID` travels as that header and counts as it. */
type MsgIdOptional<X> = X extends object ? { [N in keyof X as N extends 'Nats-Msg-Id' ? never : N]: X[N] } & { readonly 'Nats-Msg-Id'?: string } : X
/** An options member `headers`: required when the headers type requires a header (no plain object without one passes the validator). */
type HeadersMember<H> = Record<never, never> extends H ? { readonly headers?: H } : { readonly headers: H }
/**
 * A send's options argument for a headers schema typed `X`: required when the schema requires a
 * header, optional otherwise. A core publish and a request take headers only (a core publish's
 * `msgID` or `timeoutMs` is refused: they are a stream's); a JetStream publish also `msgID` and
 * `timeoutMs`, and its `msgID` stands for a required `Nats-Msg-Id` header (nats.js sends it as one).
 */
type OptionsArgument<Api, X> = Api extends 'jetstream'
  ? Record<never, never> extends OutgoingOf<X>
    ? [options?: JetStreamOptions & { readonly msgID?: string; readonly headers?: OutgoingOf<X> }]
    : [
        options: JetStreamOptions &
          ({ readonly msgID?: undefined; readonly headers: OutgoingOf<X> } | ({ readonly msgID: string } & HeadersMember<OutgoingOf<MsgIdOptional<X>>>)),
      ]
  : Record<never, never> extends OutgoingOf<X>
    ? [options?: NoStreamOptions & { readonly headers?: OutgoingOf<X> }]
    : [options: NoStreamOptions & { readonly headers: OutgoingOf<X> }]
/** A core publish's or a request's `msgID` and `timeoutMs`: left out (given as `undefined`, they are left out too). */
type NoStreamOptions = { readonly msgID?: undefined; readonly timeoutMs?: undefined }
/** A JetStream publish's options beside `headers` and `msgID`. */
type JetStreamOptions = { readonly timeoutMs?: number }
/** `jetstream` for a JetStream publish, `core` for a core publish or a request. */
type SendApi<M extends ContractModule, K extends keyof Ops<M>> = Ops<M>[K] extends { readonly api: 'jetstream' } ? 'jetstream' : 'core'
/**
 * Each message's payload and headers types, paired, where a channel's messages are checked message
 * by message (their headers schemas differ, or some have none: `validateByMessage`); `never` for any
 * other channel, whose payload and headers are checked apart.
 */
export type MessagesOf<C> = C extends Channel<any, any, any, any, infer S> ? (unknown extends S ? never : S) : never
/** An operation's paired messages (see `MessagesOf`): those it lists (typed on its descriptor) when it lists fewer than all of its channel's, else its channel's. */
type OperationMessagesOf<M extends ContractModule, K extends keyof Ops<M>> = Ops<M>[K] extends { readonly messages: readonly string[] }
  ? Ops<M>[K] extends { readonly __messages?: { readonly type: infer S } }
    ? unknown extends S
      ? never
      : S
    : never
  : MessagesOf<ChannelOf<M, K>>
/**
 * A send's payload and options arguments: the payload the operation carries and the headers its
 * schema describes; where its messages are checked message by message, one pair per message, so a
 * payload goes with the headers of a message that takes it (what `validateByMessage` checks).
 */
type SendArguments<M extends ContractModule, K extends keyof Ops<M>> = [OperationMessagesOf<M, K>] extends [never]
  ? [payload: OperationPayloadOf<M, K>, ...options: OptionsArgument<SendApi<M, K>, OperationHeadersOf<M, K>>]
  : PairedSendArguments<OperationMessagesOf<M, K>, SendApi<M, K>>
type PairedSendArguments<S, Api> = S extends { readonly payload: infer T; readonly headers: infer X }
  ? [payload: T, ...options: OptionsArgument<Api, X>]
  : never
/**
 * A received message of paired messages `S` (see `MessagesOf`): its payload with its own message's
 * checked headers; `headerValues` only where the set's headers are checked as a whole (`H`, each
 * message having a headers schema), as the client gives them.
 */
type PairedReceived<P, S, H> = S extends { readonly payload: infer T; readonly headers: infer HS }
  ? ReceivedMessage<P, T> & (unknown extends H ? HeaderValues<unknown> : HeaderValues<HS>)
  : never
/** What a subscribe, consume or fetch handler gets of an operation's messages (see `PairedReceived`). */
type ReceivedOf<M extends ContractModule, K extends keyof Ops<M>> = [OperationMessagesOf<M, K>] extends [never]
  ? Received<ParamsOf<ChannelOf<M, K>>, OperationPayloadOf<M, K>, OperationHeadersOf<M, K>>
  : PairedReceived<ParamsOf<ChannelOf<M, K>>, OperationMessagesOf<M, K>, OperationHeadersOf<M, K>>
type ConsumedOf<M extends ContractModule, K extends keyof Ops<M>> = ReceivedOf<M, K> & ConsumedMessage
/**
 * The payload an operation carries: the messages it lists (`operation.messages`, typed on its
 * descriptor) when it lists fewer than all of its channel's, else any message of its channel.
 */
export type OperationPayloadOf<M extends ContractModule, K extends keyof Ops<M>> = Ops<M>[K] extends { readonly messages: readonly string[] }
  ? Ops<M>[K] extends { readonly __payload?: { readonly type: infer T } }
    ? T
    : never
  : PayloadOf<ChannelOf<M, K>>
type Where<M extends ContractModule, Shape> = { [K in keyof Ops<M>]: Ops<M>[K] extends Shape ? K : never }[keyof Ops<M>] & string

/** Sends without a reply: core publishes and JetStream publishes. */
export type PublishOperation<M extends ContractModule> = Exclude<Where<M, { readonly action: 'send' }>, RequestOperation<M>>
export type RequestOperation<M extends ContractModule> = Where<M, { readonly action: 'send'; readonly requestReply: object }>
export type SubscribeOperation<M extends ContractModule> = Where<M, { readonly action: 'receive'; readonly api: 'core' }>
export type ConsumeOperation<M extends ContractModule> = Where<M, { readonly action: 'receive'; readonly api: 'jetstream' }>

type PublishResult<M extends ContractModule, K extends keyof Ops<M>> = Ops<M>[K] extends { readonly api: 'jetstream' } ? Promise<PubAck> : void
type ReplyPayload<M extends ContractModule, K extends keyof Ops<M>> = Ops<M>[K] extends { readonly requestReply: { readonly replyChannel: infer R } }
  ? PayloadOf<M['channels'][R & keyof M['channels']]>
  : unknown
type ReplyHeaders<M extends ContractModule, K extends keyof Ops<M>> = Ops<M>[K] extends { readonly requestReply: { readonly replyChannel: infer R } }
  ? HeadersOf<M['channels'][R & keyof M['channels']]>
  : unknown
type ReplyMessages<M extends ContractModule, K extends keyof Ops<M>> = Ops<M>[K] extends { readonly requestReply: { readonly replyChannel: infer R } }
  ? MessagesOf<M['channels'][R & keyof M['channels']]>
  : never
/** A request's result: where the reply channel's messages are checked message by message, one `ok` result per message (see `PairedReceived`). */
type RequestResultOf<M extends ContractModule, K extends keyof Ops<M>> = [ReplyMessages<M, K>] extends [never]
  ? RequestResult<ReplyPayload<M, K>, ReplyHeaders<M, K>>
  : PairedRequestResult<ReplyMessages<M, K>, ReplyHeaders<M, K>>
type PairedRequestResult<S, H> =
  | (S extends { readonly payload: infer T; readonly headers: infer HS }
      ? { readonly ok: true; readonly payload: T; readonly msg: Msg } & (unknown extends H ? HeaderValues<unknown> : HeaderValues<HS>)
      : never)
  | RequestFailure

export type ContractClientErrorCode =
  | 'SERVER_TOO_OLD'
  | 'OPERATION_NOT_ALLOWED'
  | 'INVALID_PAYLOAD'
  | 'INVALID_HEADERS'
  | 'UNDECODABLE_PAYLOAD'
  | 'OUT_OF_CONTRACT_SUBJECT'
  | 'HANDLER_FAILED'
  | 'HANDLERS_BUSY'
  | 'PAYLOAD_TOO_LARGE'
  | 'PUBLISH_REFUSED'

export class ContractClientError extends Error {
  override readonly name = 'ContractClientError'
  constructor(
    readonly code: ContractClientErrorCode,
    message: string,
    readonly errors: readonly ResultError[] = [],
    /** The received message, for errors about one. */
    readonly msg?: Msg | JsMsg,
  ) {
    super(message)
  }
}

export interface BindOptions {
  /**
   * Accept a server older than the contract's `minimumServerVersion`: for development servers only.
   * Without it, binding to such a server throws `SERVER_TOO_OLD`.
   */
  readonly allowOlderServer?: boolean
}

/** Headers a message is sent with: a plain object of string values, or nats.js MsgHdrs. */
export type OutgoingHeaders = Readonly<Record<string, string>> | MsgHdrs

export interface PublishOptions<H = OutgoingHeaders> {
  /** Checked against the message's `headers` schema, when it has one, before anything is sent (`INVALID_HEADERS`). */
  readonly headers?: H
  /** JetStream only: the message id the stream de-duplicates on within its `duplicate_window`. */
  readonly msgID?: string
  /** JetStream only: how long to wait for the stream's acknowledgment (nats.js default otherwise). */
  readonly timeoutMs?: number
}

/** A request's options. */
export interface RequestOptions<H = OutgoingHeaders> {
  /** Checked against the message's `headers` schema, when it has one, before anything is sent (`INVALID_HEADERS`). */
  readonly headers?: H
}

/**
 * The checked headers of a received message whose headers schema is `H`: `headerValues`, the plain
 * object its validator accepted (one string per name; of the `Nats-` names, only those the schema
 * names, as its type says). None when the message has no headers schema (`unknown`): nothing is
 * read then.
 */
export type HeaderValues<H> = unknown extends H ? { readonly headerValues?: undefined } : { readonly headerValues: ReceivedHeaderMap<H> }

export type RequestResult<T, H = unknown> = ({ readonly ok: true; readonly payload: T; readonly msg: Msg } & HeaderValues<H>) | RequestFailure

/** A request that got no valid response. */
export type RequestFailure =
  | { readonly ok: false; readonly reason: 'no-responders' | 'timeout' }
  | { readonly ok: false; readonly reason: 'invalid-response'; readonly errors: readonly ResultError[]; readonly msg: Msg }

/** A received message as a handler gets it: its subject, parameters, payload, nats.js headers and, with a headers schema, the checked headers. */
export type Received<P, T, H = unknown> = ReceivedMessage<P, T> & HeaderValues<H>

export interface ReceivedMessage<P, T> {
  readonly subject: string
  readonly params: P
  readonly payload: T
  /** The message's nats.js headers as they arrived (with a headers schema, `headerValues` is what was checked). */
  readonly headers?: MsgHdrs
}

/** A JetStream message as a consume or fetch handler gets it. */
export type Consumed<P, T, H = unknown> = Received<P, T, H> & ConsumedMessage

export interface ConsumedMessage {
  /** How many times this message has been delivered (1 on the first delivery). */
  readonly deliveryCount: number
  ack(): void
  /** Redeliver, after `delayMs` when given. */
  nak(delayMs?: number): void
  /** Never redeliver. */
  term(reason?: string): void
  /** Still working on it: resets the ack wait. */
  working(): void
  readonly msg: JsMsg
}

export interface SubscribeOptions<F extends string, P> {
  /** A named filter of the channel instead of its whole subject language. */
  readonly filter?: F
  /** Values for the filter's placeholders (the others stay wildcards). */
  readonly filterParams?: Partial<P>
  /** Messages the handler never sees (out-of-contract subjects, invalid payloads, messages dropped while busy) and handler failures. */
  readonly onError?: (error: ContractClientError) => void
  /**
   * At most this many handlers run at once (an integer of at least 1; default 64). A message that
   * arrives while that many run waits its turn in arrival order, up to `maxWaiting` messages; those
   * past it are taken on the next turns of the event loop as places free up, and dropped and
   * reported (`HANDLERS_BUSY`) on a turn when no handler finished: a core subscription is at most
   * once, and a publisher faster than its handlers would otherwise hold this process's memory
   * without bound. A handler that returns no promise is done when it returns.
   */
  readonly maxHandlers?: number
  /** Messages held while `maxHandlers` handlers run (an integer of at least 0; default 1,024). */
  readonly maxWaiting?: number
  /**
   * Bytes of the messages held while `maxHandlers` handlers run, as they travelled (subject, reply
   * subject, header block and payload; an integer of at least 0; default 64 MiB). A message that would take the messages held
   * past it is dropped and reported (`HANDLERS_BUSY`) at once: a payload that is valid may still be
   * large (JSON allows any amount of whitespace, headers any number of fields), so a count of
   * messages alone bounds the memory held only by the server's largest payload times that count.
   */
  readonly maxWaitingBytes?: number
}

/** Messages a core subscription holds while its handlers are busy, unless `maxWaiting` says otherwise. */
export const DEFAULT_MAX_WAITING = DEFAULT_CORE_HANDLER_BOUNDS.maxWaiting
/** Bytes a core subscription holds while its handlers are busy, unless `maxWaitingBytes` says otherwise. */
export const DEFAULT_MAX_WAITING_BYTES = DEFAULT_CORE_HANDLER_BOUNDS.maxWaitingBytes

export interface ConsumeOptions {
  /** Messages that fail the contract are terminated (they can never become valid) and reported here. */
  readonly onError?: (error: ContractClientError) => void
  /** The consumer's buffer, in messages (an integer of at least 1; nats.js default otherwise: 100). */
  readonly maxMessages?: number
  /**
   * How long each pull waits on the server, in milliseconds: at least 1,000 (nats.js's least; default
   * 30 s). The server sends a heartbeat every half of it; two missed heartbeats make the consumer
   * pull again. On a cluster a pull is lost when the consumer's leader changes, so this bounds how
   * long consumption stalls then.
   */
  readonly expiresMs?: number
  /**
   * `consume` only: at most this many handlers run at once (an integer of at least 1; default 64).
   * A message delivered while that many run waits its turn in delivery order, marked in progress
   * (`working`) each third of the consumer's ack wait so the wait does not make the server deliver
   * it again; a running handler is not marked, so one that outlasts the ack wait without acknowledging
   * sees its message delivered again, as without a bound. How many wait is bounded by the server:
   * it delivers no more than the consumer's `max_ack_pending` unacknowledged.
   */
  readonly maxHandlers?: number
}

/** A `fetch`'s options: how many messages at most, how long the pull waits (at least 1,000 ms; default 30 s), and where refused messages are reported. */
export interface FetchOptions {
  readonly batch: number
  readonly expiresMs?: number
  readonly onError?: (error: ContractClientError) => void
}

/** Handlers `consume` runs at once unless `maxHandlers` says otherwise. */
export const DEFAULT_MAX_HANDLERS = DEFAULT_CORE_HANDLER_BOUNDS.maxHandlers
/** The ack wait assumed when the consumer's own cannot be read (JetStream's default). */
const DEFAULT_ACK_WAIT_MS = 30_000

const encoder = /* @__PURE__ */ new TextEncoder()
/** A peer's bytes as text, strictly (utf8.ts): not UTF-8, or a byte order mark first, is not JSON. */
const decoder = strictUtf8

/** The subscription subject of a whole channel: each placeholder a `*` wildcard. */
function channelWildcard(channel: Channel<unknown>): string {
  return channel
    .address!.split('.')
    .map((t) => (t.startsWith('{') ? '*' : t))
    .join('.')
}

/** Binds a generated module to a connection, after checking the server against the contract's minimum version. */
export function bindContract<M extends ContractModule>(module: M, nc: NatsConnection, options: BindOptions = {}): ContractClient<M> {
  checkServerVersion(module, nc, options)
  return new ContractClient(module, nc)
}

/** Throws `SERVER_TOO_OLD` when the connected server precedes the contract's `minimumServerVersion` (SemVer), unless allowed. */
export function checkServerVersion(module: ContractModule, nc: NatsConnection, options: BindOptions = {}): void {
  const minimum = module.contract.deployment?.minimumServerVersion
  const version = nc.info?.version
  if (minimum !== undefined && !options.allowOlderServer) {
    const order = version === undefined ? undefined : compareVersions(version, minimum)
    if (order === undefined || order < 0)
      throw new ContractClientError(
        'SERVER_TOO_OLD',
        `Contract ${module.contract.id} ${module.contract.version} needs nats-server ${minimum} or later; the server is ${version ?? 'of unknown version'}. Pass { allowOlderServer: true } for a development server.`,
      )
  }
}

/** A publish's options when it is given none: one object, not one per message. */
const NO_PUBLISH_OPTIONS: PublishOptions<never> = /* @__PURE__ */ Object.freeze({})

export class ContractClient<M extends ContractModule> {
  private js?: JetStreamClient

  constructor(
    readonly module: M,
    readonly nc: NatsConnection,
  ) {}

  /**
   * A core publish, or a JetStream publish with stream acknowledgment (the PubAck), as the operation
   * says. `options` (and its `headers`) is required when the message's headers schema requires a header.
   */
  publish<K extends PublishOperation<M>>(operation: K, params: ParamsOf<ChannelOf<M, K>>, ...message: SendArguments<M, K>): PublishResult<M, K>
  // One implementation signature: the declared one above is what callers see. Its payload and
  // options are a list here: the declared arguments pair each message's payload with its headers (a
  // union of argument lists, which TypeScript relates to no fixed parameters); the validators check
  // what they are.
  publish<K extends PublishOperation<M>>(operation: K, params: ParamsOf<ChannelOf<M, K>>, ...message: unknown[]): PublishResult<M, K> {
    const payload = message[0]
    const options: PublishOptions = message[1] === undefined ? NO_PUBLISH_OPTIONS : readOptions<PublishOptions>('publish', message[1], PUBLISH_KEYS)
    const op = this.operation(operation, 'send')
    if (op.requestReply) throw this.notAllowed(op, 'is a request (use request)')
    const { subject, data, headers } = this.outgoing(op, params, payload, options.headers, options.msgID)
    if (op.api === 'core') {
      if (options.msgID !== undefined) throw this.notAllowed(op, 'is a core publish: msgID de-duplication is a JetStream stream feature')
      // A wait for a stream's acknowledgment, which a core publish never gets: refused, not ignored.
      if (options.timeoutMs != null) throw this.notAllowed(op, "is a core publish: timeoutMs waits for a JetStream stream's acknowledgment")
      // No options object when there is nothing to say: nats.js then takes its shortest path.
      try {
        if (headers) this.nc.publish(subject, data, { headers })
        else this.nc.publish(subject, data)
      } catch (error) {
        throw tooLarge(error, op.id) ?? error
      }
      return undefined as PublishResult<M, K>
    }
    const stream = op.stream === undefined ? undefined : this.module.streams[op.stream]
    const streamName = stream?.config.name
    // The message id travels as the Nats-Msg-Id header: a string nats.js sends as given.
    if (options.msgID !== undefined && (typeof options.msgID !== 'string' || options.msgID === '' || !headerSentAsGiven(options.msgID)))
      throw new ContractClientError(
        'INVALID_HEADERS',
        `publish: msgID must be a non-empty string without a line break or white space at an end (nats.js sends no empty one), not ${describeValue(options.msgID)}.`,
        [{ path: '/Nats-Msg-Id', message: '/Nats-Msg-Id would not be sent as given', code: 'headerValue' }],
      )
    // The client expects the contract's stream (Nats-Expected-Stream, which nats.js writes over one given): another is refused, not replaced.
    const expected = headers?.has('Nats-Expected-Stream') ? headers.get('Nats-Expected-Stream') : undefined
    if (typeof streamName === 'string' && expected !== undefined && expected !== streamName)
      throw new ContractClientError(
        'INVALID_HEADERS',
        `publish: Nats-Expected-Stream ${JSON.stringify(expected)} is not the stream the contract names for ${JSON.stringify(op.id)} (${JSON.stringify(streamName)}), which the client expects.`,
        [{ path: '/Nats-Expected-Stream', message: `/Nats-Expected-Stream must be the contract's stream ${JSON.stringify(streamName)}`, code: 'headerValue' }],
      )
    const timeout = options.timeoutMs == null ? undefined : waitBound('publish', 'timeoutMs', options.timeoutMs)
    return this.jetstream()
      .publish(subject, data, {
        ...(options.msgID !== undefined ? { msgID: options.msgID } : {}),
        ...(headers ? { headers } : {}),
        ...(timeout !== undefined ? { timeout } : {}),
        // The contract names the stream that captures this subject: an ack from any other is an error.
        ...(typeof streamName === 'string' ? { expect: { streamName } } : {}),
      })
      .catch((error: unknown) => {
        throw tooLarge(error, op.id) ?? streamRefused(error, op.id) ?? error
      }) as PublishResult<M, K>
  }

  /**
   * A request on the native inbox: the first response, validated against the reply channel, within
   * the contract's timeout. `options` (and its `headers`) is required when the request message's
   * headers schema requires a header; with a reply headers schema, the result carries `headerValues`.
   */
  request<K extends RequestOperation<M>>(operation: K, params: ParamsOf<ChannelOf<M, K>>, ...message: SendArguments<M, K>): Promise<RequestResultOf<M, K>>
  async request<K extends RequestOperation<M>>(operation: K, params: ParamsOf<ChannelOf<M, K>>, ...message: unknown[]): Promise<RequestResultOf<M, K>> {
    const payload = message[0]
    // A request's options as a publish's: their msgID and timeoutMs are refused below, not ignored.
    const options: PublishOptions = message[1] === undefined ? NO_PUBLISH_OPTIONS : readOptions<PublishOptions>('request', message[1], PUBLISH_KEYS)
    const op = this.operation(operation, 'send')
    if (!op.requestReply) throw this.notAllowed(op, 'has no requestReply')
    // A JetStream publish's options, which a request never reads (its wait is the contract's timeoutMs): refused, not ignored.
    const stray = options.msgID !== undefined ? 'msgID' : options.timeoutMs != null ? 'timeoutMs' : undefined
    if (stray !== undefined)
      throw this.notAllowed(op, `is a request: ${stray} is a JetStream publish's option (the wait is the contract's requestReply timeoutMs)`)
    const { subject, data, headers } = this.outgoing(op, params, payload, options.headers)
    const msg = await firstResponse(this.nc, subject, data, op.requestReply.timeoutMs, headers)
    if (msg === 'no-responders' || msg === 'timeout') return { ok: false, reason: msg }
    // "Invalid first responses fail the RPC": decoded and validated against the reply channel.
    const reply = op.requestReply.replyChannel === undefined ? undefined : this.module.channels[op.requestReply.replyChannel]
    const decoded = decode(msg.data)
    if (decoded === UNDECODABLE) return { ok: false, reason: 'invalid-response', errors: [{ path: '', message: UNDECODABLE_MESSAGE }], msg }
    const problems = decoded instanceof NotJsonData ? [decoded.error] : check(reply?.validatePayload, decoded)
    if (problems) return { ok: false, reason: 'invalid-response', errors: problems, msg }
    // The reply message's headers schema, as its payload's: a first response without them is not the contract's.
    if (!reply?.validateHeaders && !reply?.validateByMessage) return { ok: true, payload: decoded as ReplyPayload<M, K>, msg } as RequestResultOf<M, K>
    const checked = checkedHeaders(reply.validateHeaders, reply.validateByMessage, decoded, receivedHeaders(msg))
    if (!checked.ok) return { ok: false, reason: 'invalid-response', errors: checked.errors, msg }
    if (!reply.validateHeaders) return { ok: true, payload: decoded as ReplyPayload<M, K>, msg } as RequestResultOf<M, K>
    // `headerValues` is typed by the reply's headers schema, which is what `validateHeaders` checked.
    return { ok: true, payload: decoded, msg, headerValues: checked.value } as unknown as RequestResultOf<M, K>
  }

  /** A core subscription on the operation's channel (or one of its filters), in the binding's queue group when it has one. */
  subscribe<K extends SubscribeOperation<M>>(
    operation: K,
    handler: (message: ReceivedOf<M, K>, msg: Msg) => void | Promise<void>,
    given: SubscribeOptions<FiltersOf<ChannelOf<M, K>>, ParamsOf<ChannelOf<M, K>>> = {},
  ): Subscription {
    const options = readOptions<SubscribeOptions<FiltersOf<ChannelOf<M, K>>, ParamsOf<ChannelOf<M, K>>>>('subscribe', given, SUBSCRIBE_KEYS)
    const op = this.operation(operation, 'receive')
    if (op.api !== 'core') throw this.notAllowed(op, 'is a JetStream consumer (use consume or fetch)')
    const channel = this.channel(op)
    const filters = channel.filters as Record<string, { template: string; render(p: unknown): string; matches(subject: string): boolean }>
    if (options.filter !== undefined && !Object.hasOwn(filters, options.filter)) throw this.notAllowed(op, `has no filter ${JSON.stringify(options.filter)}`)
    const filter = options.filter === undefined ? undefined : filters[options.filter]!
    // Values with no filter to fill would be dropped, and the whole channel subscribed to: refused.
    if (filter === undefined && options.filterParams !== undefined)
      throw this.notAllowed(op, 'takes filterParams only with the filter whose placeholders they fill')
    // A placeholder left out is a wildcard (Filter.render).
    const subject = filter !== undefined ? filter.render(options.filterParams ?? {}) : channelWildcard(channel)
    // Only a placeholder left out (a `*` the template does not have) can bring a subject the filter does not deliver.
    const wildcards = (text: string) => text.split('.').filter((token) => token === '*').length
    const unfiltered = filter !== undefined && wildcards(subject) > wildcards(filter.template)
    // A bound left out or `null` is the default (as for every optional bound of the client).
    const limit = bound('subscribe', 'maxHandlers', options.maxHandlers ?? DEFAULT_MAX_HANDLERS, 1)
    const room = bound('subscribe', 'maxWaiting', options.maxWaiting ?? DEFAULT_MAX_WAITING, 0)
    const roomBytes = bound('subscribe', 'maxWaitingBytes', options.maxWaitingBytes ?? DEFAULT_MAX_WAITING_BYTES, 0)
    const report = reporter(options.onError)
    type Message = ReceivedOf<M, K>
    const handlers = new CoreHandlers<Message>(
      handler,
      { maxHandlers: limit, maxWaiting: room, maxWaitingBytes: roomBytes },
      (e, msg) => report(handlerFailed(e, msg)),
      (msg, reason, heldBytes) =>
        report(
          new ContractClientError(
            'HANDLERS_BUSY',
            reason === 'closed'
              ? `Dropped a message on ${JSON.stringify(msg.subject)}: the subscription closed while it waited for one of ${limit} handlers (maxHandlers).`
              : reason === 'bytes'
                ? `Dropped a message on ${JSON.stringify(msg.subject)}: ${limit} handlers running and ${heldBytes} bytes of messages held, at most ${roomBytes} (maxHandlers, maxWaitingBytes).`
                : `Dropped a message on ${JSON.stringify(msg.subject)}: ${limit} handlers running and ${room} messages waiting (maxHandlers, maxWaiting).`,
            [],
            msg,
          ),
        ),
    )
    const sub = this.nc.subscribe(subject, {
      ...(op.queue !== undefined ? { queue: op.queue } : {}),
      callback: (error, msg) => {
        if (error) return report(new ContractClientError('HANDLER_FAILED', error.message))
        // A placeholder the filter names twice, left out, is two wildcards: a subject with two values
        // there reaches the subscription and is not the filter's (not an error: not asked for).
        if (unfiltered && !filter.matches(msg.subject)) return
        const received = incoming(channel, msg, op)
        if (received instanceof ContractClientError) return report(received)
        handlers.offer(received as Message, msg)
      },
    })
    // Once the subscription is closed (`unsubscribe()`, the connection's `close()`), nats.js calls
    // back no more, and neither does this: the messages still waiting for a place are let go and
    // reported (a shutdown that unsubscribes, then closes what the handlers use, would otherwise
    // see up to maxWaiting handlers start after it). A `drain()` (of the subscription or the
    // connection) lets what was received be handled.
    void sub.closed.then(
      () => {
        if (!sub.isDraining()) handlers.stop()
      },
      () => handlers.stop(),
    )
    return sub
  }

  /**
   * Durable pull consumption on the operation's contract consumer, with explicit acknowledgment.
   * A message the handler leaves unacknowledged is redelivered after the consumer's ack wait; a
   * handler that throws has its message nak-ed; a message outside the contract is terminated.
   */
  async consume<K extends ConsumeOperation<M>>(
    operation: K,
    handler: (message: ConsumedOf<M, K>) => void | Promise<void>,
    given: ConsumeOptions = {},
  ): Promise<{ stop(): Promise<void> }> {
    const options = readOptions<ConsumeOptions>('consume', given, CONSUME_KEYS)
    const op = this.operation(operation, 'receive')
    const limit = bound('consume', 'maxHandlers', options.maxHandlers ?? DEFAULT_MAX_HANDLERS, 1)
    // nats.js reads a buffer of 0 or NaN as its default of 100 and passes a negative or fractional one on: refused, as fetch's batch.
    // Left out or `null`: nats.js's defaults.
    const maxMessages = options.maxMessages == null ? undefined : bound('consume', 'maxMessages', options.maxMessages, 1)
    const expires = options.expiresMs == null ? undefined : pullExpiry('consume', options.expiresMs)
    const { channel, stream, durable } = this.consumerOf(op)
    const consumer = await this.contractConsumer(op, stream, durable)
    const report = reporter(options.onError)
    type Message = ConsumedOf<M, K>
    // The messages checked against the contract, by message, until their handler runs.
    const checked = new WeakMap<JsMsg, Message>()
    const handle = (msg: JsMsg): void | Promise<void> => {
      try {
        const result = handler(checked.get(msg)!)
        if (result instanceof Promise)
          return result.catch((e: unknown) => {
            msg.nak()
            report(handlerFailed(e, msg))
          })
      } catch (e) {
        msg.nak()
        report(handlerFailed(e, msg))
      }
    }
    // At most `limit` handlers at once, in delivery order; the messages waiting their turn are marked
    // in progress each third of the consumer's ack wait, the ones being handled are not.
    const held = new HeldMessages(handle, limit, { markHandling: false })
    const ackWaitMs = (await consumerAckWaitMs(consumer)) ?? DEFAULT_ACK_WAIT_MS
    const keepAlive = setInterval(() => held.working(), Math.max(50, ackWaitMs / 3))
    keepAlive.unref?.()
    const messages = await consumer.consume({
      ...(maxMessages !== undefined ? { max_messages: maxMessages } : {}),
      ...(expires !== undefined ? { expires } : {}),
      callback: (msg: JsMsg) => {
        const consumed = consumedOf(channel, msg, op)
        if (consumed instanceof ContractClientError) {
          // No reason string: nats-server before 2.10 does not read `+TERM <reason>` as a term.
          msg.term()
          return report(consumed)
        }
        checked.set(msg, consumed as Message)
        // After stop(), what a closing pull still brings is not taken: left unacknowledged, as the waiting ones.
        held.add(msg)
      },
    })
    return {
      stop: async () => {
        clearInterval(keepAlive)
        // The waiting messages are left unacknowledged (no longer marked): the server delivers them
        // again after the ack wait. A nak would hand them back sooner, but while the pull is still
        // open the server delivered them straight back into it, and after it is closed into a pull
        // it may still hold: each such delivery was lost and spent one of the consumer's max_deliver.
        held.stop()
        await messages.close()
      },
    }
  }

  /** Up to `batch` messages of the operation's contract consumer, waiting at most `expiresMs`; messages outside the contract are terminated and reported. */
  async fetch<K extends ConsumeOperation<M>>(operation: K, given: FetchOptions): Promise<Array<ConsumedOf<M, K>>> {
    const options = readOptions<FetchOptions>('fetch', given, FETCH_KEYS)
    const op = this.operation(operation, 'receive')
    const { channel, stream, durable } = this.consumerOf(op)
    const consumer = await this.contractConsumer(op, stream, durable)
    const out: Array<ConsumedOf<M, K>> = []
    // nats.js reads a batch of 0 or NaN as its default of 100: a bound that is no bound is refused.
    const batch = bound('fetch', 'batch', options.batch, 1)
    const expires = options.expiresMs == null ? undefined : pullExpiry('fetch', options.expiresMs)
    const messages = await consumer.fetch({ max_messages: batch, ...(expires !== undefined ? { expires } : {}) })
    for await (const msg of messages) {
      const consumed = consumedOf(channel, msg, op)
      if (consumed instanceof ContractClientError) {
        msg.term()
        reporter(options.onError)(consumed)
      } else out.push(consumed as ConsumedOf<M, K>)
    }
    return out
  }

  /**
   * The operation's contract consumer as the server has it: refused when it does not acknowledge
   * explicitly, as the profile requires of a contract consumer (with `none` a message counts as
   * acknowledged once delivered, with `all` one acknowledgment covers every earlier message: a
   * handler that fails, or a process that stops, would lose them). nats.js refuses a push consumer
   * itself, and reads the consumer's settings to make it (read again here from that copy).
   */
  private async contractConsumer(op: OperationDescriptor, stream: string, durable: string): Promise<Consumer> {
    const consumer = await this.jetstream().consumers.get(stream, durable)
    const policy = (await consumer.info(true).catch(() => undefined))?.config.ack_policy
    if (policy !== undefined && policy !== AckPolicy.Explicit)
      throw this.notAllowed(
        op,
        `reads consumer ${JSON.stringify(durable)}, which the server has acknowledging ${JSON.stringify(policy)}, not explicitly as its contract says (provision it again)`,
      )
    return consumer
  }

  private jetstream(): JetStreamClient {
    return (this.js ??= jetstream(this.nc))
  }

  /** Operations already looked up and checked, by action and id: a publish per message pays one Map lookup. */
  private readonly checked = new Map<string, OperationDescriptor>()

  private operation(id: string, action: 'send' | 'receive'): OperationDescriptor {
    const key = action === 'send' ? id : `\u0000${id}`
    const known = this.checked.get(key)
    if (known) return known
    const op = this.lookup(id, action)
    this.checked.set(key, op)
    return op
  }

  private lookup(id: string, action: 'send' | 'receive'): OperationDescriptor {
    const op = Object.hasOwn(this.module.operations, id) ? this.module.operations[id] : undefined
    if (!op) throw new ContractClientError('OPERATION_NOT_ALLOWED', `Contract ${this.module.contract.id} has no operation ${JSON.stringify(id)}.`)
    if (op.action !== action) throw this.notAllowed(op, `is a ${op.action} operation`)
    return op
  }

  private notAllowed(op: OperationDescriptor, why: string): ContractClientError {
    return new ContractClientError('OPERATION_NOT_ALLOWED', `Operation ${JSON.stringify(op.id)} of contract ${this.module.contract.id} ${why}.`)
  }

  private channel(op: OperationDescriptor): Channel<unknown> & { subject: NonNullable<Channel<unknown>['subject']> } {
    const channel = Object.hasOwn(this.module.channels, op.channel) ? this.module.channels[op.channel] : undefined
    if (!channel?.subject) throw this.notAllowed(op, 'has no addressed channel')
    return channel as Channel<unknown> & { subject: NonNullable<Channel<unknown>['subject']> }
  }

  /** The checked subject and the validated, encoded payload of an outgoing message. */
  private outgoing(
    op: OperationDescriptor,
    params: unknown,
    payload: unknown,
    headers: OutgoingHeaders | undefined,
    msgID?: unknown,
  ): { subject: string; data: Uint8Array; channel: Channel<unknown>; headers: MsgHdrs | undefined } {
    const channel = this.channel(op)
    const subject = channel.subject.render(params)
    // Serialized once; the value that text parses to is what is validated, and that text is sent.
    const wire = wireJson(payload)
    if (!wire.ok)
      throw new ContractClientError('INVALID_PAYLOAD', `The payload of ${JSON.stringify(op.id)} is not JSON data: ${wire.message}.`, [
        { path: wire.path, message: wire.message, code: 'json' },
      ])
    // An operation listing some of its channel's messages sends those only (`operation.messages`).
    const problems = check(op.validatePayload ?? channel.validatePayload, wire.value)
    if (problems)
      throw new ContractClientError(
        'INVALID_PAYLOAD',
        `The payload of ${JSON.stringify(op.id)} breaks ${op.messages ? `the messages it lists (${op.messages.join(', ')}) of channel ${JSON.stringify(channel.id)}` : `channel ${JSON.stringify(channel.id)}'s messages`}.`,
        problems,
      )
    // Headers given are read once and must travel as given (a schema or not); then the message's
    // headers schema, when it has one, checks them before anything is sent.
    const validateHeaders = op.validateHeaders ?? channel.validateHeaders
    const byMessage = byMessageOf(op, channel)
    if (headers === undefined) {
      const checked = validateHeaders || byMessage ? checkedHeaders(validateHeaders, byMessage, wire.value, undefined, msgID) : undefined
      if (checked && !checked.ok) throw this.invalidHeaders(op, channel, checked.errors)
      return { subject, data: encoder.encode(wire.text), channel, headers: undefined }
    }
    // nats.js's own headers, with no schema to hold them to: nats.js checked each as it was set.
    if (!validateHeaders && isMsgHdrs(headers) && (!byMessage || takesAnyHeaders(byMessage, wire.value)))
      return { subject, data: encoder.encode(wire.text), channel, headers }
    const read = withMessageId(headerObject(headers), msgID)
    if (!read.ok) throw this.invalidHeaders(op, channel, read.errors)
    const held = heldHeaders(validateHeaders, byMessage, wire.value, read)
    if (!held.ok) throw this.invalidHeaders(op, channel, held.errors)
    // A plain object is sent as it was read; nats.js MsgHdrs as they are (nats.js wrote them).
    return { subject, data: encoder.encode(wire.text), channel, headers: read.sent ? msgHdrsFrom(read.sent) : (headers as MsgHdrs) }
  }

  private invalidHeaders(op: OperationDescriptor, channel: Channel<unknown>, errors: ResultError[]): ContractClientError {
    return new ContractClientError('INVALID_HEADERS', `The headers of ${JSON.stringify(op.id)} break channel ${JSON.stringify(channel.id)}'s messages.`, errors)
  }

  private consumerOf(op: OperationDescriptor): {
    channel: Channel<unknown> & { subject: NonNullable<Channel<unknown>['subject']> }
    stream: string
    durable: string
  } {
    if (op.api !== 'jetstream' || op.consumer === undefined) throw this.notAllowed(op, 'is a core subscription (use subscribe)')
    const consumer = Object.hasOwn(this.module.consumers, op.consumer) ? this.module.consumers[op.consumer] : undefined
    const stream = consumer?.stream !== undefined && Object.hasOwn(this.module.streams, consumer.stream) ? this.module.streams[consumer.stream] : undefined
    const durable = consumer?.config.durable_name
    const streamName = stream?.config.name
    if (typeof durable !== 'string' || typeof streamName !== 'string')
      throw this.notAllowed(op, `has no durable consumer and stream named in its contract (consumer ${JSON.stringify(op.consumer)})`)
    return { channel: this.channel(op), stream: streamName, durable }
  }
}

/**
 * The first response to a request on an inbox of its own, within `timeoutMs`, or why there is none
 * (the server's 503 status: no responders). Not nats.js's `request`: it reads a reply's headers to
 * tell that status, and nats.js throws decoding headers it would not write (a peer writing the
 * protocol itself can send them), out of its parser, which closes the connection's reader. Here
 * they are read under a guard and such a reply is an answer like any other.
 */
function firstResponse(
  nc: NatsConnection,
  subject: string,
  data: Uint8Array | string,
  timeoutMs: number,
  headers: MsgHdrs | undefined,
): Promise<Msg | 'no-responders' | 'timeout'> {
  const inbox = createInbox((nc as { options?: { inboxPrefix?: string } }).options?.inboxPrefix)
  return new Promise((resolve, reject) => {
    const sub = nc.subscribe(inbox, {
      max: 1,
      callback: (error, msg) => {
        clearTimeout(timer)
        // The server refused the subscription (permissions): an error, as nats.js's request gives it.
        if (error) return void reject(error)
        const status = msg.data.length === 0 ? receivedHeaders(msg) : undefined
        resolve(status !== undefined && status !== UNREADABLE_HEADERS && status.code === 503 ? 'no-responders' : msg)
      },
    })
    const timer = setTimeout(() => {
      sub.unsubscribe()
      resolve('timeout')
    }, timeoutMs)
    try {
      nc.publish(subject, data, { reply: inbox, ...(headers ? { headers } : {}) })
    } catch (error) {
      clearTimeout(timer)
      sub.unsubscribe()
      reject(tooLarge(error, subject) ?? (error instanceof Error ? error : new Error(errorText(error))))
    }
  })
}

/**
 * A JetStream publish the server refused (nats.js's JetStreamApiError: a `Nats-Expected-Last-Sequence`
 * that is not the stream's, a stream full with `discard: new`, a message past its `max_msg_size`):
 * `PUBLISH_REFUSED` with the server's error code and words, the nats.js error as its `cause`.
 */
function streamRefused(error: unknown, what: string): ContractClientError | undefined {
  if (!(error instanceof Error) || error.name !== 'JetStreamApiError') return undefined
  const code = (error as { code?: unknown }).code
  const refused = new ContractClientError(
    'PUBLISH_REFUSED',
    `${what}: the stream refused the message (JetStream error ${typeof code === 'number' ? code : 'without a code'}: ${error.message}); it was not stored.`,
  )
  Object.defineProperty(refused, 'cause', { value: error, configurable: true, writable: true })
  return refused
}

/**
 * nats.js's refusal of a message past the server's `max_payload` (headers and payload together),
 * as the client's own error with a code, or undefined for any other error. nats.js throws an
 * `InvalidArgumentError` naming `max_payload`; the connection stays up.
 */
function tooLarge(error: unknown, what: string): ContractClientError | undefined {
  const { name, message } = (typeof error === 'object' && error !== null ? error : {}) as { name?: unknown; message?: unknown }
  if (name !== 'InvalidArgumentError' || typeof message !== 'string' || !message.includes('max_payload')) return undefined
  return new ContractClientError(
    'PAYLOAD_TOO_LARGE',
    `${what}: the message is larger than the server's max_payload (headers and payload together); nothing was sent.`,
  )
}

/** `headers` (given or received; none reads as no header at all) as the plain object `validate` accepted (frozen), or why it does not. */
function checkedHeaders(
  validate: Validator | undefined,
  byMessage: readonly MessageValidators[] | undefined,
  payload: unknown,
  headers: unknown,
  msgID?: unknown,
): HeaderObject {
  const read = withMessageId(headerObject(headers), msgID)
  // Headers no schema could read (a name given twice) are still a message's that takes any.
  if (!read.ok) return !validate && byMessage && takesAnyHeaders(byMessage, payload) ? { ok: true, value: Object.freeze(Object.create(null)) } : read
  const held = heldHeaders(validate, byMessage, payload, read)
  return held.ok ? { ok: true, value: Object.freeze(held.value) } : held
}

/** A JetStream send's `msgID`, which nats.js sends as the `Nats-Msg-Id` header (over one given): what a schema naming it checks. */
function withMessageId(read: HeaderObject, msgID: unknown): HeaderObject {
  if (!read.ok || typeof msgID !== 'string') return read
  // Both given and not the same: nats.js sends msgID, so the header's value would be neither checked nor sent.
  const given = read.reserved?.['Nats-Msg-Id']
  if (given !== undefined && given !== msgID)
    return { ok: false, errors: [{ path: '/Nats-Msg-Id', message: '/Nats-Msg-Id differs from msgID, which nats.js sends in its place', code: 'headerValue' }] }
  return { ...read, reserved: Object.assign(Object.create(null) as Record<string, string | ResultError>, read.reserved, { 'Nats-Msg-Id': msgID }) }
}

/**
 * Headers read by `headerObject` held to a message's schemas: where the set's headers schemas
 * differ from message to message, the schema of the message its payload is (message-headers.ts:
 * which implies the set's own check), else the set's. What passes is what that schema checked (the
 * `Nats-` names it names among them: reserved-headers.ts), or the problems.
 */
function heldHeaders(
  validate: Validator | undefined,
  byMessage: readonly MessageValidators[] | undefined,
  payload: unknown,
  read: Extract<HeaderObject, { ok: true }>,
): HeaderObject {
  const checkHeaders = (v: Validator): ResultError[] | undefined => {
    const view = headersFor(read, reservedNamesOf(v))
    return view.ok ? check(v, view.value) : view.errors
  }
  let checkedBy = validate
  if (byMessage) {
    const matched = headersOfMessage(byMessage, payload, checkHeaders)
    if (!matched.ok) return matched
    checkedBy = matched.validate
  } else if (validate) {
    const problems = checkHeaders(validate)
    if (problems) return { ok: false, errors: problems }
  }
  return checkedBy ? headersFor(read, reservedNamesOf(checkedBy)) : read
}

/** The per-message validators that hold for `op`: its own when it lists messages (none: its listed messages agree), else its channel's. */
const byMessageOf = (op: OperationDescriptor, channel: Channel<unknown>) => (op.messages ? op.validateByMessage : channel.validateByMessage)

/** What `decode` answers for data that is not JSON text: a value no `JSON.parse` returns. */
const UNDECODABLE: unique symbol = /* @__PURE__ */ Symbol('undecodable')
const UNDECODABLE_MESSAGE = 'the payload is not JSON'

/** JSON text whose value JSON cannot carry (`1e400` reads as Infinity): the place and what is wrong there. */
class NotJsonData {
  constructor(readonly error: ResultError) {}
}

/**
 * The JSON value of a message's data, UNDECODABLE, or NotJsonData for text with a number no double
 * holds (as a Benzene response is refused, and a payload this client sends: nothing read here is
 * what no peer could have validated). The value is walked only when the text has such a number's
 * form; nothing else is allocated per message.
 */
function decode(data: Uint8Array): unknown {
  let text: string
  let value: unknown
  try {
    text = decoder.decode(data)
    value = JSON.parse(text) as unknown
  } catch {
    return UNDECODABLE
  }
  const problem = parsedDataProblem(text, value)
  return problem ? new NotJsonData({ path: problem.path, message: problem.message, code: 'json' }) : value
}

/** A received message checked against the channel: parsed parameters and a valid payload, or why not. */
function incoming(
  channel: Channel<unknown> & { subject: NonNullable<Channel<unknown>['subject']> },
  msg: Msg | JsMsg,
  op: OperationDescriptor,
): (ReceivedMessage<unknown, unknown> & { readonly headerValues?: Readonly<Record<string, string>> }) | ContractClientError {
  const params = channel.subject.tryParse(msg.subject)
  if (params === undefined)
    return new ContractClientError(
      'OUT_OF_CONTRACT_SUBJECT',
      `${JSON.stringify(msg.subject)} is not a subject of channel ${JSON.stringify(channel.id)}.`,
      [],
      msg,
    )
  const decoded = decode(msg.data)
  if (decoded === UNDECODABLE)
    return new ContractClientError('UNDECODABLE_PAYLOAD', `A message on ${JSON.stringify(msg.subject)}: ${UNDECODABLE_MESSAGE}.`, [], msg)
  // A receive operation listing some of its channel's messages receives those only.
  const problems = decoded instanceof NotJsonData ? [decoded.error] : check(op.validatePayload ?? channel.validatePayload, decoded)
  if (problems)
    return new ContractClientError(
      'INVALID_PAYLOAD',
      `A message on ${JSON.stringify(msg.subject)} breaks ${op.messages ? `the messages operation ${JSON.stringify(op.id)} lists (${op.messages.join(', ')}) of channel ${JSON.stringify(channel.id)}` : `channel ${JSON.stringify(channel.id)}'s messages`}.`,
      problems,
      msg,
    )
  // Decoded by nats.js on first read, which throws on a name or value it would not write.
  const headers = receivedHeaders(msg)
  if (headers === UNREADABLE_HEADERS)
    return new ContractClientError(
      'INVALID_HEADERS',
      `A message on ${JSON.stringify(msg.subject)} has headers nats.js cannot read.`,
      unreadableHeadersErrors(),
      msg,
    )
  // A channel whose messages have a headers schema: the headers are held to it like the payload.
  const validateHeaders = op.validateHeaders ?? channel.validateHeaders
  const byMessage = byMessageOf(op, channel)
  const checked = validateHeaders || byMessage ? checkedHeaders(validateHeaders, byMessage, decoded, headers) : undefined
  if (checked && !checked.ok)
    return new ContractClientError(
      'INVALID_HEADERS',
      `A message on ${JSON.stringify(msg.subject)} has headers that break channel ${JSON.stringify(channel.id)}'s messages.`,
      checked.errors,
      msg,
    )
  const received: { subject: string; params: unknown; payload: unknown; headers?: MsgHdrs; headerValues?: Readonly<Record<string, string>> } = {
    subject: msg.subject,
    params,
    payload: decoded,
  }
  if (headers) received.headers = headers
  // What was checked, typed by the schema (the handler's `headerValues`); none without a schema.
  if (checked && validateHeaders) received.headerValues = checked.value
  return received
}

function consumedOf(
  channel: Channel<unknown> & { subject: NonNullable<Channel<unknown>['subject']> },
  msg: JsMsg,
  op: OperationDescriptor,
): (ReceivedMessage<unknown, unknown> & ConsumedMessage) | ContractClientError {
  const received = incoming(channel, msg, op)
  if (received instanceof ContractClientError) return received
  return {
    ...received,
    deliveryCount: msg.info.deliveryCount,
    ack: () => msg.ack(),
    nak: (delayMs?: number) => msg.nak(delayMs),
    term: (reason?: string) => msg.term(reason),
    working: () => msg.working(),
    msg,
  }
}

/**
 * `onError`, whose exception goes nowhere: thrown inside nats.js's callbacks it stopped the
 * connection's protocol reader (subscribe: nothing more arrived on any subscription) or the
 * consumer's pulls (consume), and from a handler's rejected promise it was an unhandled rejection.
 */
function reporter(onError: ((error: ContractClientError) => void) | undefined): (error: ContractClientError) => void {
  if (onError === undefined) return () => undefined
  return (error) => {
    try {
      onError(error)
    } catch {
      // Ignored (docs/nats.md): an error handler that fails has no one left to tell.
    }
  }
}

/** The longest wait Node's timers keep (longer ones fire after 1 ms). */
const LONGEST_WAIT_MS = 2 ** 31 - 1

/**
 * A wait in milliseconds nats.js can keep: a fraction rounded up, `Infinity` (or anything past
 * 2^31 - 1 ms) the longest a timer holds (nats.js gave `Infinity` to a timer that fired at once: the
 * publish failed although the stream stored it); `OPERATION_NOT_ALLOWED` for a value that is no wait.
 */
function waitBound(method: string, option: string, value: unknown): number {
  if (typeof value === 'number' && value >= 1) return Math.min(Math.ceil(value), LONGEST_WAIT_MS)
  throw new ContractClientError('OPERATION_NOT_ALLOWED', `${method}: ${option} must be a number of milliseconds of at least 1, not ${describeValue(value)}.`)
}

/** nats.js's least pull expiry: it throws its own error for a shorter one (an InvalidArgumentError, not the client's). */
const LEAST_PULL_EXPIRY_MS = 1000

/** A pull's expiry (`expiresMs` of consume and fetch): a wait (see waitBound) of at least nats.js's least. */
function pullExpiry(method: string, value: unknown): number {
  if (typeof value === 'number' && value >= LEAST_PULL_EXPIRY_MS) return waitBound(method, 'expiresMs', value)
  throw new ContractClientError(
    'OPERATION_NOT_ALLOWED',
    `${method}: expiresMs must be a number of milliseconds of at least ${LEAST_PULL_EXPIRY_MS} (nats.js's least pull expiry), not ${describeValue(value)}.`,
  )
}

/**
 * A method's options as read once: `keys` copied from `options` into a plain object (left out or
 * `null`: none). An options object whose reading throws (a getter, a Proxy's trap) or that is no
 * object is `OPERATION_NOT_ALLOWED`, never the getter's own error; read once, a getter cannot give
 * the check one value and the send another.
 */
function readOptions<T extends object>(method: string, options: unknown, keys: readonly (keyof T & string)[]): Partial<T> {
  if (options === undefined || options === null) return {}
  if (typeof options !== 'object')
    throw new ContractClientError('OPERATION_NOT_ALLOWED', `${method}: options must be an object, not ${describeValue(options)}.`)
  const read: Partial<T> = {}
  try {
    for (const key of keys) {
      const value = (options as Record<string, unknown>)[key]
      if (value !== undefined) (read as Record<string, unknown>)[key] = value
    }
  } catch (error) {
    throw new ContractClientError('OPERATION_NOT_ALLOWED', `${method}: options cannot be read: ${errorText(error)}.`)
  }
  return read
}
const PUBLISH_KEYS = ['headers', 'msgID', 'timeoutMs'] as const
const SUBSCRIBE_KEYS = ['filter', 'filterParams', 'onError', 'maxHandlers', 'maxWaiting', 'maxWaitingBytes'] as const
const CONSUME_KEYS = ['onError', 'maxMessages', 'expiresMs', 'maxHandlers'] as const
const FETCH_KEYS = ['batch', 'expiresMs', 'onError'] as const

/** A value as an error message shows it (any value; never a throw). */
const describeValue = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value) : errorText(value))

/** `value` when it is an integer of at least `least`; `OPERATION_NOT_ALLOWED` otherwise (a bound that is no bound). */
function bound(method: string, option: string, value: unknown, least: number): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= least) return value
  throw new ContractClientError('OPERATION_NOT_ALLOWED', `${method}: ${option} must be an integer of at least ${least}, not ${describeValue(value)}.`)
}

function handlerFailed(error: unknown, msg: Msg | JsMsg): ContractClientError {
  return new ContractClientError('HANDLER_FAILED', `The handler failed on ${JSON.stringify(msg.subject)}: ${errorText(error)}`, [], msg)
}

export {
  answerText,
  provision,
  type FieldDifference,
  type OwnerMark,
  type PlannedResource,
  type ProvisionOptions,
  type ProvisionResult,
  type ServerAnswer,
} from './provision.js'
import { strictUtf8 } from '../../shared/utf8.js'
