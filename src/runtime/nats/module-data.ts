/**
 * The compact data generated NATS modules carry, read here (issue 33: a module no larger than its
 * document). A module writes only what its document says: a channel's id, address, filters,
 * parameters and position; operations and native resources as tables. What every module would
 * repeat is held once, here: the descriptors' member names and constant values, a backlink's
 * pointer (derived from the id), the tokens of a filter that repeat its channel's address.
 *
 * The readers never throw on the data they are given (a member of the wrong kind reads as absent),
 * and what they return is frozen, member for member the descriptor a module used to spell out. A
 * channel's subject and filters are compiled when first read, not when the module is imported: an
 * application that imports `channels` pays for the channels it uses.
 */
import { sealedValidator } from '../shared/sealed-validator.js'
import type { Validator } from '../shared/validation.js'
import type { MessageValidators } from './message-headers.js'
import { headersValidator } from './reserved-headers.js'
import { escapeToken } from '../shared/json-pointer.js'
import { deepFreeze } from '../shared/deep-freeze.js'
import { createFilter, createSubject, templateTokens, type Channel, type Filter, type SourceLink, type Subject } from './subjects.js'
import type { TokenType } from './tokens.js'

const isArray = Array.isArray
const str = (value: unknown): string => (typeof value === 'string' ? value : '')
const num = (value: unknown): number => (typeof value === 'number' ? value : 0)

/**
 * A filter as a module writes it: a token equal to its channel's address's token at the same place
 * is left empty (`.*.>` beside `svc.{region}.{id}.x`), which no subject token ever is; a filter in
 * an array is written in full. Read back here against the address.
 */
export function filterTemplate(encoded: unknown, address: string | undefined): string {
  if (isArray(encoded)) return str(encoded[0])
  const text = str(encoded)
  if (address === undefined) return text
  const tokens = address.split('.')
  const parts = text.split('.')
  for (let i = 0; i < parts.length; i++) if (parts[i] === '' && i < tokens.length) parts[i] = tokens[i]!
  return parts.join('.')
}

/** A frozen map with no prototype, keyed by exact ids (values frozen as they are; the first of two entries of one key wins). */
function frozenMap<V>(entries: ReadonlyArray<readonly [string, V]>): Readonly<Record<string, V>> {
  const map = Object.create(null) as Record<string, V>
  for (const [key, value] of entries) if (!Object.hasOwn(map, key)) Object.defineProperty(map, key, { value, enumerable: true })
  return Object.freeze(map)
}

/**
 * A channel of a generated module: `channel(tokenTypes, file, id, address, line, column, filters,
 * parameters, validatePayload, validateHeaders, validateByMessage)`.
 *
 * - `address`: the subject template, or `0` for a reply channel without one;
 * - `filters`: `[name, template, ...]`, each template as `filterTemplate` reads it, or `0`;
 * - `parameters`: `0` when they are the address's placeholders, each of the token type of its own
 *   name; otherwise `[placeholder, token type name, ...]` in the order the descriptor lists them;
 * - `validatePayload`: `0` when only the headers are checked;
 * - `validateHeaders`: the validator, or `[validator, names]` with the `Nats-` names its schema
 *   names (reserved-headers.ts);
 * - `validateByMessage`: `[payload validator or 0, headers validator or 0]` for each message, when
 *   headers must be checked with the payload that tells which message they belong to (message-headers.ts);
 * - the backlink's pointer is `/channels/<id>`.
 */
export function channel<P, F extends string>(
  tokenTypes: Readonly<Record<string, TokenType>>,
  file: string,
  id: string,
  address: string | 0,
  line: number,
  column: number,
  filters: readonly unknown[] | 0,
  parameters: readonly unknown[] | 0,
  validatePayload?: Validator | 0,
  validateHeaders?: Validator | readonly unknown[] | 0,
  validateByMessage?: readonly unknown[],
): Channel<P, F> {
  const types = typeof tokenTypes === 'object' && tokenTypes !== null ? tokenTypes : {}
  const typeOf = (name: string): TokenType => (Object.hasOwn(types, name) ? types[name]! : (undefined as unknown as TokenType))
  const subjectText = typeof address === 'string' ? address : undefined
  const params = Object.create(Object.prototype) as Record<string, TokenType>
  const set = (name: string, type: TokenType) => Object.defineProperty(params, name, { value: type, enumerable: true, writable: true, configurable: true })
  if (isArray(parameters)) for (let i = 0; i + 1 < parameters.length; i += 2) set(str(parameters[i]), typeOf(str(parameters[i + 1])))
  else if (subjectText !== undefined) for (const name of placeholders(subjectText)) set(name, typeOf(name))
  const frozenParameters = Object.freeze(params)
  let subject: Subject<P & Record<string, string>> | undefined
  let compiledFilters: Readonly<Record<F, Filter<Partial<P>>>> | undefined
  const readFilters = () => {
    if (compiledFilters) return compiledFilters
    const out = Object.create(null) as Record<string, Filter<Partial<P>>>
    const list = isArray(filters) ? filters : []
    for (let i = 0; i + 1 < list.length; i += 2) {
      const text = filterTemplate(list[i + 1], subjectText)
      Object.defineProperty(out, str(list[i]), {
        value: createFilter<P & Record<string, string>>(text, templateTokens(text), frozenParameters),
        enumerable: true,
      })
    }
    return (compiledFilters = Object.freeze(out) as Readonly<Record<F, Filter<Partial<P>>>>)
  }
  // Members in the order a module's descriptor always had them; the subject and the filters are getters.
  const descriptor: Record<string, unknown> = { id: str(id), address: subjectText, parameters: frozenParameters }
  // (Data no compiler writes, a placeholder without a token type, has no subject: undefined, not a throw.)
  if (subjectText !== undefined)
    Object.defineProperty(descriptor, 'subject', {
      get: () => {
        if (subject === undefined)
          try {
            subject = createSubject<P & Record<string, string>>(subjectText, templateTokens(subjectText), frozenParameters)
          } catch {
            return undefined
          }
        return subject
      },
      enumerable: true,
    })
  Object.defineProperty(descriptor, 'filters', { get: readFilters, enumerable: true })
  // Sealed (their `errors` out of any importer's reach); ajv's standalone code gets a sealed caller.
  if (typeof validatePayload === 'function') descriptor.validatePayload = sealedValidator(validatePayload)
  const headers = headersValidator(validateHeaders, sealedValidator)
  if (headers) descriptor.validateHeaders = headers
  const byMessage = messageValidators(validateByMessage)
  if (byMessage) descriptor.validateByMessage = byMessage
  descriptor.source = Object.freeze({ file: str(file), pointer: `/channels/${escapeToken(str(id))}`, line: num(line), column: num(column) })
  return Object.freeze(descriptor) as unknown as Channel<P, F>
}

/** Each message's `[payload, headers]` validators, sealed, from a module's `[validator or 0, validator or 0]` list; undefined for anything else. */
function messageValidators(list: unknown): readonly MessageValidators[] | undefined {
  if (!isArray(list)) return undefined
  const sealed = (v: unknown) => (typeof v === 'function' ? sealedValidator(v as Validator) : undefined)
  const pairs: MessageValidators[] = []
  for (const pair of list) if (isArray(pair)) pairs.push(Object.freeze([sealed(pair[0]), headersValidator(pair[1], sealedValidator)] as const))
  return Object.freeze(pairs)
}

/** The distinct placeholders of a subject template, in code unit order (as a descriptor lists its parameters). */
function placeholders(template: string): string[] {
  const names: string[] = []
  for (const token of templateTokens(template)) if (typeof token !== 'string' && !names.includes(token.param)) names.push(token.param)
  return names.sort()
}

/** `channels`: each channel under its own id, in the order given. */
export function channelMap<M>(channels: ReadonlyArray<{ readonly id: string }>): M {
  return frozenMap((isArray(channels) ? channels : []).map((c) => [str(c?.id), c] as const)) as M
}

const ACTIONS = { s: 'send', r: 'receive' } as const
const KINDS = { p: 'publish', s: 'subscribe' } as const
const APIS = { c: 'core', j: 'jetstream' } as const
const CONFIRMATIONS = { n: 'none', s: 'stream-ack' } as const
const pick = <T>(table: Readonly<Record<string, T>>, key: string | undefined): T | undefined =>
  key !== undefined && Object.hasOwn(table, key) ? table[key] : undefined

/**
 * `operations`: a table of columns, one entry per operation in id order.
 *
 * - `ids`, `channels`: strings;
 * - `codes`: four letters an operation, its action (`s`end, `r`eceive), kind (`p`ublish,
 *   `s`ubscribe), api (`c`ore, `j`etstream) and confirmation (`n`one, `s`tream-ack, `-` absent);
 * - `targets`: the stream of a publish, the consumer of a subscribe, or `0`;
 * - `lines`: each backlink's line less the one before it; `columns`: each backlink's column;
 * - `more`: by index, what few operations have: `q` the queue group, `r` `[timeoutMs, replyChannel?]`
 *   of a request-reply, `m` the messages it lists;
 * - `validators`: by index, the validator of an operation that lists some of its channel's messages;
 *   `headerValidators` its headers validator, `byMessageValidators` its messages' pairs (as a channel's).
 *
 * The backlinks are `{ file, pointer: /operations/<id>, line, column }`.
 */
export function operationTable<M>(
  file: string,
  table: {
    readonly ids?: readonly string[]
    readonly codes?: string
    readonly channels?: readonly string[]
    readonly targets?: ReadonlyArray<string | 0>
    readonly lines?: readonly number[]
    readonly columns?: readonly number[]
    readonly more?: Readonly<Record<number, { readonly q?: string; readonly r?: readonly [number, string?]; readonly m?: readonly string[] }>>
  },
  validators?: Readonly<Record<number, Validator>> | 0,
  headerValidators?: Readonly<Record<number, Validator | readonly unknown[]>> | 0,
  byMessageValidators?: Readonly<Record<number, readonly unknown[]>>,
): M {
  const t = typeof table === 'object' && table !== null ? table : {}
  const ids = isArray(t.ids) ? t.ids : []
  const codes = str(t.codes)
  const more = typeof t.more === 'object' && t.more !== null ? t.more : {}
  const checks = typeof validators === 'object' && validators !== null ? validators : {}
  const headerChecks = typeof headerValidators === 'object' && headerValidators !== null ? headerValidators : {}
  const byMessageChecks = typeof byMessageValidators === 'object' && byMessageValidators !== null ? byMessageValidators : {}
  const entries: Array<readonly [string, unknown]> = []
  let line = 0
  for (let i = 0; i < ids.length; i++) {
    const id = str(ids[i])
    line += num(t.lines?.[i])
    const kind = pick(KINDS, codes[i * 4 + 1])
    const op: Record<string, unknown> = { id, action: pick(ACTIONS, codes[i * 4]), channel: str(t.channels?.[i]), kind, api: pick(APIS, codes[i * 4 + 2]) }
    const confirmation = pick(CONFIRMATIONS, codes[i * 4 + 3])
    if (confirmation !== undefined) op.confirmation = confirmation
    const target = t.targets?.[i]
    if (typeof target === 'string') op[kind === 'subscribe' ? 'consumer' : 'stream'] = target
    const extra = Object.hasOwn(more, i) ? more[i] : undefined
    if (typeof extra?.q === 'string') op.queue = extra.q
    if (isArray(extra?.r)) {
      const [timeoutMs, replyChannel] = extra.r
      op.requestReply = { routing: 'native-inbox', completion: 'first-response', timeoutMs, ...(typeof replyChannel === 'string' ? { replyChannel } : {}) }
    }
    if (isArray(extra?.m)) op.messages = [...extra.m]
    op.source = { file: str(file), pointer: `/operations/${escapeToken(id)}`, line, column: num(t.columns?.[i]) }
    const validate = Object.hasOwn(checks, i) ? checks[i] : undefined
    if (typeof validate === 'function') op.validatePayload = validate
    const validateHeaders = Object.hasOwn(headerChecks, i) ? headersValidator(headerChecks[i], (v) => v) : undefined
    if (validateHeaders) op.validateHeaders = validateHeaders
    const byMessage = Object.hasOwn(byMessageChecks, i) ? messageValidators(byMessageChecks[i]) : undefined
    if (byMessage) op.validateByMessage = byMessage
    entries.push([id, deepFreeze(op)])
  }
  return frozenMap(entries) as M
}

/**
 * `streams` or `consumers`: `[key, authority, config, line, column, stream, pointer, file, artifact]`
 * each, in key order; `stream` (a consumer's) is `0` when absent, `pointer` `0` for
 * `/x-nats-contract/<section>/<key>/config`, `file` `0` for the module's file, and `artifact` (an
 * external resource's locked file: `[path, sha256, pointer]`) left out when absent. Members in the
 * order a descriptor always had them (code unit order).
 */
export function nativeTable<M>(file: string, section: string, rows: ReadonlyArray<readonly unknown[]>): M {
  const entries: Array<readonly [string, unknown]> = []
  for (const row of isArray(rows) ? rows : []) {
    if (!isArray(row)) continue
    const [key, authority, config, line, column, stream, pointer, at, artifact] = row
    const name = str(key)
    const resource: Record<string, unknown> = {}
    if (isArray(artifact)) resource.artifact = { path: str(artifact[0]), pointer: str(artifact[2]), sha256: str(artifact[1]) }
    resource.authority = authority
    resource.config = config
    resource.key = name
    resource.source = {
      column: num(column),
      file: typeof at === 'string' ? at : str(file),
      line: num(line),
      pointer: typeof pointer === 'string' ? pointer : `/x-nats-contract/${str(section)}/${escapeToken(name)}/config`,
    }
    if (typeof stream === 'string') resource.stream = stream
    entries.push([name, deepFreeze(resource)])
  }
  return frozenMap(entries) as M
}

export type { SourceLink }
