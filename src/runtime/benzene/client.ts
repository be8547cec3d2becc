import { errorText } from '../shared/error-text.js'
import { fail, toResult, type FailureResult, type Result, type ResultError } from '../shared/result.js'
import type { MessageHeaders, MessageSender } from './sender.js'
import { check, type Validator } from '../shared/validation.js'
import { jsonDataProblem, wireJson } from '../shared/wire-json.js'

/** A generated topic client: frozen, with its identity, contract hash and a typed call. */
export interface TopicClient<Topic extends string, Version extends string | undefined, Request, Response> {
  readonly topic: Topic
  /** The handler version; absent for an unversioned topic. */
  readonly version: Version
  /** Hash of this topic's topic-scoped projection (Benzene Contract Document §5.3, 6). */
  readonly contractHash: `sha256:${string}`
  /** Component schemas this topic's request and response reach, sorted. */
  readonly components: readonly string[]
  /**
   * Sends `request` through `sender`. An invalid request is never sent: it resolves to a
   * `validation-error` failure with one error per violation. A successful response that breaks the
   * contract resolves to an `unexpected-error` failure that keeps the raw payload. A success may
   * carry no payload at all (`payload` is then `undefined`): over HTTP, `updated` and `deleted` are a
   * 204, which has no body, and an envelope's body may be absent with any status. Never rejects:
   * a sender that throws or returns something that is not a result gives `unexpected-error`.
   * Versioned topics send the `benzene-version` header.
   */
  send(sender: MessageSender, request: Request, headers?: MessageHeaders): Promise<Result<Response | undefined>>
}

export interface TopicValidators {
  request?: Validator
  response?: Validator
}

export function createTopicClient<T extends string, V extends string | undefined, Req, Res>(
  topic: T,
  version: V,
  contractHash: `sha256:${string}`,
  components: readonly string[],
  validators: TopicValidators = {},
): TopicClient<T, V, Req, Res> {
  const client = {
    topic,
    ...(version === undefined ? {} : { version }),
    contractHash,
    components: Object.freeze([...components]),
    send: topicSend<Res>(topic, version, validators),
  }
  return Object.freeze(client) as TopicClient<T, V, Req, Res>
}

/** A client's `send`: the request checked and sent as the JSON it will be, a successful response checked. */
export function topicSend<Res>(
  topic: string,
  version: string | undefined,
  validators: TopicValidators,
): (sender: MessageSender, request: unknown, headers?: MessageHeaders) => Promise<Result<Res | undefined>> {
  return async (sender, request, headers) => {
    const wire = checkedWire(validators.request, request)
    if (!wire.ok) return wire.failure
    const result = await sendChecked<Res | undefined>(sender, topic, version, wire.value, headers)
    // No payload is no body: nothing to validate, and the type says it may be absent.
    if (!result.isSuccessful || result.payload === undefined) return result
    const broken = checkedResponse(validators.response, result.payload)
    if (broken)
      return fail(
        'unexpected-error',
        broken.map((e) => ({ ...e, message: `response ${e.message}`, code: `response:${e.code}` })),
        result.payload,
      )
    return result
  }
}

/**
 * A response payload's violations: first whether it is JSON data at all (an HTTP answer always is;
 * an in-process sender may answer anything: a cycle, a getter that throws, an array of 2^32 - 1
 * holes the validator would visit one by one), then the validator's. Never throws.
 */
function checkedResponse(validator: Validator | undefined, payload: unknown): ResultError[] | undefined {
  if (!validator) return undefined
  const problem = jsonDataProblem(payload)
  return problem ? [{ message: problem.message, path: problem.path, code: 'json' }] : check(validator, payload)
}

/**
 * A message as the JSON it will be, validated: the value parsed back from its one serialization,
 * handed to the sender so that its own `JSON.stringify` writes exactly what was validated (NaN,
 * array holes, Dates and `toJSON` refused rather than rewritten). `undefined` (no request) stays
 * as it is. Never throws.
 */
export function checkedWire(validator: Validator | undefined, message: unknown): { ok: true; value: unknown } | { ok: false; failure: FailureResult } {
  let value: unknown
  if (message !== undefined) {
    const json = wireJson(message)
    if (!json.ok) return { ok: false, failure: fail('validation-error', [{ message: json.message, path: json.path, code: 'json' }]) }
    value = json.value
  }
  const invalid = check(validator, value)
  return invalid ? { ok: false, failure: fail('validation-error', invalid) } : { ok: true, value }
}

/** One send through user code: the version header added, anything but a proper result turned into a failure. */
export async function sendChecked<R>(
  sender: MessageSender,
  topic: string,
  version: string | undefined,
  payload: unknown,
  headers?: MessageHeaders,
): Promise<Result<R>> {
  const sent = version === undefined ? headers : { ...headers, 'benzene-version': version }
  try {
    return toResult<R>(await sender.send(topic, payload, sent))
  } catch (error) {
    return fail('unexpected-error', [`The message sender failed: ${errorText(error)}`])
  }
}

/** The module's `topics` and `events` exports: a frozen map with no prototype, so no topic id can reach one. */
export function createTopicMap<M>(entries: ReadonlyArray<readonly [string, unknown]>): M {
  const map = Object.create(null) as Record<string, unknown>
  for (const [key, client] of entries) Object.defineProperty(map, key, { value: client, enumerable: true })
  return Object.freeze(map) as M
}
