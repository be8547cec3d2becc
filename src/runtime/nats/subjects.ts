/**
 * Subject value objects for generated NATS channels: `render` builds a subject from typed
 * parameters and checks each value against its domain; `parse` splits a subject on `.` and
 * checks every token, so a dot inside a value can never shift the parameters. Filters render
 * subscription subjects with `*` and a final `>`.
 */
import type { Validator } from '../shared/validation.js'
import { errorText } from '../shared/error-text.js'
import { domainCheck, inDomain, isBaseToken, type TokenType } from './tokens.js'

export type { TokenType } from './tokens.js'

export type SubjectErrorCode = 'SUBJECT_MISSING_PARAMETER' | 'SUBJECT_UNKNOWN_PARAMETER' | 'SUBJECT_INVALID_VALUE' | 'SUBJECT_NO_MATCH'

export class SubjectError extends Error {
  override readonly name = 'SubjectError'
  constructor(
    readonly code: SubjectErrorCode,
    message: string,
    readonly parameter?: string,
  ) {
    super(message)
  }
}

/** The error for parameters that could not be read at all (their reading threw). */
const unreadableParameters = (address: string, error: unknown): SubjectError =>
  new SubjectError('SUBJECT_INVALID_VALUE', `${address}: the parameters cannot be read (${errorText(error)}).`)

/** One token of a template: a literal, a placeholder, or (in filters) `*` / a final `>`. */
export type TemplateToken = string | { readonly param: string }

export interface SourceLink {
  readonly file: string
  readonly pointer: string
  readonly line: number
  readonly column: number
}

export interface Subject<P> {
  readonly address: string
  render(params: P): string
  parse(subject: string): P
  tryParse(subject: string): P | undefined
  matches(subject: string): boolean
}

export interface Filter<P> {
  readonly template: string
  /** The subscription subject for these parameters (`*` and `>` stay wildcards). */
  render(params: P): string
  /** Whether a concrete subject is delivered by this filter, its placeholders limited to their domains. */
  matches(subject: string): boolean
}

export interface Channel<P, F extends string = string, M = unknown, H = unknown, S = unknown> {
  readonly id: string
  readonly address: string | undefined
  readonly parameters: Readonly<Record<keyof P & string, TokenType>>
  readonly subject?: Subject<P>
  readonly filters: Readonly<Record<F, Filter<Partial<P>>>>
  /** Validates a payload against the channel's messages (absent: a message takes any payload, or its schema is in another file). */
  readonly validatePayload?: Validator
  /**
   * Validates a message's headers (a plain object, one string per name) against its messages'
   * `headers` schemas (absent: a message has no headers schema, and any headers pass).
   */
  readonly validateHeaders?: Validator
  /**
   * Each message's payload and headers validators, when the messages' headers schemas differ (or
   * some have none): a message passes when one message takes both its payload and its headers.
   */
  readonly validateByMessage?: readonly import('./message-headers.js').MessageValidators[]
  readonly source: SourceLink
  /** Type only (never present): the payload type of the channel's messages. */
  readonly __payload?: M
  /** Type only (never present): the headers type of the channel's messages (`unknown`: any headers). */
  readonly __headers?: H
  /**
   * Type only (never present), where the messages are checked message by message (`validateByMessage`):
   * each message's payload and headers types, paired (`{ payload; headers }`, headers `unknown` for a
   * message without a headers schema); `unknown` for any other channel, whose payload and headers are
   * checked apart.
   */
  readonly __messages?: S
}

/** A channel with an address: its `subject` renders and parses concrete subjects. */
export type AddressedChannel<P, F extends string = string, M = unknown, H = unknown, S = unknown> = Channel<P, F, M, H, S> & { readonly subject: Subject<P> }

function compile(template: readonly TemplateToken[], parameters: Readonly<Record<string, TokenType>>) {
  const checks = template.map((t) => (typeof t === 'string' ? undefined : domainCheck(parameters[t.param]!)))
  return checks
}

const OBJECT_PROTOTYPE = Object.prototype
const DOT = 46

export function createSubject<P extends Record<string, string>>(
  address: string,
  template: readonly TemplateToken[],
  parameters: Readonly<Record<string, TokenType>>,
): Subject<P> {
  const checks = compile(template, parameters)
  const names = new Set(template.filter((t): t is { param: string } => typeof t !== 'string').map((t) => t.param))
  // The hot paths (bench/): the template is compiled once into literal runs and parameter slots,
  // so render concatenates and checks, and parse splits and checks, with nothing else allocated.
  const slots = template.flatMap((t, i) => (typeof t === 'string' ? [] : [{ param: t.param, check: checks[i]! }]))
  const runs: string[] = ['']
  template.forEach((t, i) => {
    const sep = i === 0 ? '' : '.'
    if (typeof t === 'string') runs[runs.length - 1] += sep + t
    else {
      runs[runs.length - 1] += sep
      runs.push('')
    }
  })
  const needParams = (params: unknown) => {
    if (typeof params !== 'object' || params === null) throw new SubjectError('SUBJECT_MISSING_PARAMETER', `render(${address}) needs its parameters.`)
  }
  // Own, well-typed, in the domain: a value inherited from a polluted prototype is not a parameter.
  // `inherits` is false for the usual argument, an object literal (or a null-prototype object),
  // while Object.prototype has no value under any parameter name: then every value found is the
  // object's own, and the per-parameter Object.hasOwn (a third of render's time, bench/) is
  // skipped. Pollution (a merge writing `__proto__.region = ...`) makes such a value, so it turns
  // the check back on. The renderers below read Object.prototype with keys fixed per closure,
  // which the engine caches; a loop over the names does not get that.
  const value = (params: P, param: string, check: (v: string) => boolean, inherits: boolean): string => {
    const v = params[param]
    if (typeof v !== 'string' || !check(v) || (inherits && !Object.hasOwn(params, param))) fail(params, param, v)
    return v as string
  }
  const paramNames = [...names]
  const inherits = (params: object): boolean => {
    const proto = Object.getPrototypeOf(params)
    if (proto === null) return false
    if (proto !== Object.prototype) return true
    for (let i = 0; i < paramNames.length; i++) if ((OBJECT_PROTOTYPE as Record<string, unknown>)[paramNames[i]!] !== undefined) return true
    return false
  }
  let render: (params: P) => string
  // One to three parameters, the common addresses, get a renderer with the runs and slots in
  // closure variables and a single concatenation (bench/: render within 2x a template literal).
  // Each parameter is read and checked at a site of its own, not through `value`: a site reads one
  // key and calls one check, so its property load stays monomorphic and the check can be inlined;
  // through one shared helper, every name and check of every subject meets at the same two sites.
  const proto = OBJECT_PROTOTYPE as Record<string, unknown>
  if (slots.length === 1) {
    const [r0, r1] = runs as [string, string]
    const { param: p0, check: c0 } = slots[0]!
    render = (params) => {
      needParams(params)
      const own = Object.getPrototypeOf(params)
      const inherited = own === OBJECT_PROTOTYPE ? proto[p0] !== undefined : own !== null
      const v0 = params[p0]
      if (typeof v0 !== 'string' || !c0(v0) || (inherited && !Object.hasOwn(params, p0))) fail(params, p0, v0)
      return r0 + v0 + r1
    }
  } else if (slots.length === 2) {
    const [r0, r1, r2] = runs as [string, string, string]
    const [{ param: p0, check: c0 }, { param: p1, check: c1 }] = slots as [(typeof slots)[0], (typeof slots)[0]]
    render = (params) => {
      needParams(params)
      const own = Object.getPrototypeOf(params)
      const inherited = own === OBJECT_PROTOTYPE ? proto[p0] !== undefined || proto[p1] !== undefined : own !== null
      const v0 = params[p0]
      if (typeof v0 !== 'string' || !c0(v0) || (inherited && !Object.hasOwn(params, p0))) fail(params, p0, v0)
      const v1 = params[p1]
      if (typeof v1 !== 'string' || !c1(v1) || (inherited && !Object.hasOwn(params, p1))) fail(params, p1, v1)
      return r0 + v0 + r1 + v1 + r2
    }
  } else if (slots.length === 3) {
    const [r0, r1, r2, r3] = runs as [string, string, string, string]
    const [{ param: p0, check: c0 }, { param: p1, check: c1 }, { param: p2, check: c2 }] = slots as [(typeof slots)[0], (typeof slots)[0], (typeof slots)[0]]
    render = (params) => {
      needParams(params)
      const own = Object.getPrototypeOf(params)
      const inherited = own === OBJECT_PROTOTYPE ? proto[p0] !== undefined || proto[p1] !== undefined || proto[p2] !== undefined : own !== null
      const v0 = params[p0]
      if (typeof v0 !== 'string' || !c0(v0) || (inherited && !Object.hasOwn(params, p0))) fail(params, p0, v0)
      const v1 = params[p1]
      if (typeof v1 !== 'string' || !c1(v1) || (inherited && !Object.hasOwn(params, p1))) fail(params, p1, v1)
      const v2 = params[p2]
      if (typeof v2 !== 'string' || !c2(v2) || (inherited && !Object.hasOwn(params, p2))) fail(params, p2, v2)
      return r0 + v0 + r1 + v1 + r2 + v2 + r3
    }
  } else {
    render = (params) => {
      needParams(params)
      const inherited = inherits(params)
      let out = runs[0]!
      for (let i = 0; i < slots.length; i++) out += value(params, slots[i]!.param, slots[i]!.check, inherited) + runs[i + 1]!
      return out
    }
  }
  const fail = (params: P, param: string, v: unknown): never => {
    if (v === undefined || !Object.hasOwn(params, param)) {
      // Unknown names are looked for only on failure: a typo always fails here, as its real parameter is missing.
      for (const key in params)
        if (!names.has(key))
          throw new SubjectError('SUBJECT_UNKNOWN_PARAMETER', `${address} has no parameter ${JSON.stringify(key)} (is it a misspelling of {${param}}?).`, key)
      throw new SubjectError('SUBJECT_MISSING_PARAMETER', `${address}: parameter {${param}} is missing.`, param)
    }
    throw new SubjectError('SUBJECT_INVALID_VALUE', `${address}: ${JSON.stringify(v)} is not a valid {${param}}.`, param)
  }
  // A parameter named __proto__ must become an own property, not the result's prototype.
  const plainNames = ![...names].includes('__proto__')
  const repeated = names.size !== slots.length
  // The longest subject of the address: a longer input is refused before it is split (a 30 MB
  // string split on '.' took 470 MB), so parsing costs at most this many characters' work.
  const longest = template.reduce((n, t, i) => n + (i === 0 ? 0 : 1) + (typeof t === 'string' ? t.length : maxTokenLength(parameters[t.param]!)), 0)
  // Scanned in place rather than split: only the parameters' values are cut out of the subject (a
  // split made an array and a string per token, literals included, on every message a responder
  // or an executor reads). Token for token the same verdicts as comparing `subject.split('.')`
  // with the template: a literal token (which has no '.') must fill its segment exactly, a
  // parameter's value is its whole segment, and the subject must have the template's segment count.
  const tryParse = (subject: string): P | undefined => {
    if (typeof subject !== 'string' || subject.length > longest) return undefined
    const n = subject.length
    const params = {} as Record<string, string>
    let at = 0
    for (let i = 0; i < template.length; i++) {
      if (i > 0) {
        if (subject.charCodeAt(at) !== DOT) return undefined
        at++
      }
      const token = template[i]!
      if (typeof token === 'string') {
        if (!subject.startsWith(token, at)) return undefined
        at += token.length
        continue
      }
      let end = subject.indexOf('.', at)
      if (end < 0) end = n
      const value = subject.slice(at, end)
      at = end
      if (!checks[i]!(value)) return undefined
      if (repeated && Object.hasOwn(params, token.param) && params[token.param] !== value) return undefined
      if (plainNames) params[token.param] = value
      else Object.defineProperty(params, token.param, { value, enumerable: true, writable: true, configurable: true })
    }
    // A literal that only began its segment, or segments beyond the template's: not this address.
    return at === n ? (params as P) : undefined
  }
  const parse = (subject: string): P => {
    const params = tryParse(subject)
    if (params === undefined) throw new SubjectError('SUBJECT_NO_MATCH', `${JSON.stringify(subject)} is not a subject of ${address}.`)
    return params
  }
  // A Proxy whose traps throw, a revoked one, a getter that throws, a bigint a message cannot quote:
  // what the parameters are is the caller's, the error is always a SubjectError.
  const checked = (params: P): string => {
    try {
      return render(params)
    } catch (error) {
      throw error instanceof SubjectError ? error : unreadableParameters(address, error)
    }
  }
  return Object.freeze({ address, render: checked, parse, tryParse, matches: (subject: string) => tryParse(subject) !== undefined })
}

export function createFilter<P extends Record<string, string>>(
  templateText: string,
  template: readonly TemplateToken[],
  parameters: Readonly<Record<string, TokenType>>,
): Filter<Partial<P>> {
  const render = (params: Partial<P> = {}): string =>
    template
      .map((token) => {
        if (typeof token === 'string') return token
        const value = Object.hasOwn(params, token.param) ? params[token.param] : undefined
        // A placeholder left out stays a wildcard: the filter with some of its placeholders filled.
        if (value === undefined) return '*'
        if (typeof value !== 'string' || !inDomain(parameters[token.param]!, value)) {
          throw new SubjectError('SUBJECT_INVALID_VALUE', `${templateText}: ${JSON.stringify(value)} is not a valid {${token.param}}.`, token.param)
        }
        return value
      })
      .join('.')
  const tail = template[template.length - 1] === '>'
  // Without a final `>` a subject has at most the template's tokens, each at most a token's
  // longest (128 bytes for a `*`): a longer input is refused before it is split.
  const longest = tail
    ? Infinity
    : template.reduce((n, t, i) => n + (i === 0 ? 0 : 1) + (t === '*' ? 128 : typeof t === 'string' ? t.length : maxTokenLength(parameters[t.param]!)), 0)
  const matches = (subject: string): boolean => {
    if (typeof subject !== 'string' || subject.length > longest) return false
    // Only the template's own tokens are split off; a `>` tail is scanned in place (no array of
    // every token of an arbitrarily long subject).
    const fixed = tail ? template.length - 1 : template.length
    const tokens = splitFirst(subject, fixed)
    if (tokens === undefined) return false
    if (tail ? tokens.rest === undefined || !nonEmptyTokens(tokens.rest) : tokens.rest !== undefined) return false
    const bound: Record<string, string> = Object.create(null)
    for (let i = 0; i < fixed; i++) {
      const token = template[i]!
      const value = tokens.head[i]!
      if (!isBaseToken(value) && token !== '*') return false
      if (token === '*') {
        if (value === '') return false
      } else if (typeof token === 'string') {
        if (value !== token) return false
      } else {
        if (!inDomain(parameters[token.param]!, value)) return false
        if (token.param in bound && bound[token.param] !== value) return false
        bound[token.param] = value
      }
    }
    return true
  }
  const checked = (params?: Partial<P>): string => {
    try {
      return render(params)
    } catch (error) {
      throw error instanceof SubjectError ? error : unreadableParameters(templateText, error)
    }
  }
  return Object.freeze({ template: templateText, render: checked, matches })
}

/** The first `count` tokens of a subject and the text after them (undefined when nothing follows), or undefined when it has fewer. */
function splitFirst(subject: string, count: number): { head: string[]; rest: string | undefined } | undefined {
  const head: string[] = []
  let start = 0
  for (let i = 0; i < count; i++) {
    const dot = subject.indexOf('.', start)
    if (dot === -1) {
      if (i !== count - 1) return undefined
      head.push(subject.slice(start))
      return { head, rest: undefined }
    }
    head.push(subject.slice(start, dot))
    start = dot + 1
  }
  return { head, rest: count === 0 ? subject : subject.slice(start) }
}

/** No empty token in `text` (no leading, trailing or doubled `.`), in one scan. */
function nonEmptyTokens(text: string): boolean {
  return text !== '' && text.charCodeAt(0) !== 46 && text.charCodeAt(text.length - 1) !== 46 && !text.includes('..')
}

/** The longest value of a token type. */
function maxTokenLength(type: TokenType): number {
  return type.kind === 'token' ? type.maxLength : type.values.reduce((n, v) => Math.max(n, v.length), 0)
}

const PLACEHOLDER = /^\{([^{}]+)\}$/

/**
 * The tokens of a subject template or filter as written (`svc.{region}.*.>`): a placeholder is a
 * whole `{name}` token, everything else is literal (`*` and `>` included). Generated modules pass
 * the text alone and the tokens are read here, once per channel a program imports: the compiler
 * has already held the text to the profile's grammar, and a module half the size builds faster
 * (bench/: generation was a third of a 500-channel compile).
 */
export function templateTokens(text: string): TemplateToken[] {
  return text.split('.').map((part) => {
    const placeholder = PLACEHOLDER.exec(part)
    return placeholder ? { param: placeholder[1]! } : part
  })
}

export function createChannel<P, F extends string>(
  channel: {
    id: string
    address: string | undefined
    /** The address's tokens; read from `address` when absent. */
    template?: readonly TemplateToken[]
    parameters: Readonly<Record<string, TokenType>>
    /** `[name, filter text, tokens?]`; the tokens are read from the text when absent. */
    filters: ReadonlyArray<readonly [F, string, (readonly TemplateToken[])?]>
    source: SourceLink
  },
  validatePayload?: Validator,
): Channel<P, F> {
  const parameters = Object.freeze({ ...channel.parameters })
  const filters = Object.create(null) as Record<string, Filter<Partial<P>>>
  for (const [name, text, template] of channel.filters)
    Object.defineProperty(filters, name, { value: createFilter(text, template ?? templateTokens(text), parameters), enumerable: true })
  const address = channel.address
  return Object.freeze({
    id: channel.id,
    address,
    parameters,
    ...(address !== undefined ? { subject: createSubject(address, channel.template ?? templateTokens(address), parameters) } : {}),
    filters: Object.freeze(filters),
    ...(validatePayload ? { validatePayload } : {}),
    source: Object.freeze({ ...channel.source }),
  }) as unknown as Channel<P, F>
}
