/**
 * Subject value objects for generated NATS channels: `render` builds a subject from typed
 * parameters and checks each value against its domain; `parse` splits a subject on `.` and
 * checks every token, so a dot inside a value can never shift the parameters. Filters render
 * subscription subjects with `*` and a final `>`.
 */
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

export interface Channel<P, F extends string = string> {
  readonly id: string
  readonly address: string | undefined
  readonly parameters: Readonly<Record<keyof P & string, TokenType>>
  readonly subject?: Subject<P>
  readonly filters: Readonly<Record<F, Filter<Partial<P>>>>
  readonly source: SourceLink
}

/** A channel with an address: its `subject` renders and parses concrete subjects. */
export type AddressedChannel<P, F extends string = string> = Channel<P, F> & { readonly subject: Subject<P> }

function compile(template: readonly TemplateToken[], parameters: Readonly<Record<string, TokenType>>) {
  const checks = template.map((t) => (typeof t === 'string' ? undefined : domainCheck(parameters[t.param]!)))
  return checks
}

export function createSubject<P extends Record<string, string>>(address: string, template: readonly TemplateToken[], parameters: Readonly<Record<string, TokenType>>): Subject<P> {
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
  const render = (params: P): string => {
    if (typeof params !== 'object' || params === null) throw new SubjectError('SUBJECT_MISSING_PARAMETER', `render(${address}) needs its parameters.`)
    let out = runs[0]!
    for (let i = 0; i < slots.length; i++) {
      const { param, check } = slots[i]!
      const v = params[param]
      if (typeof v !== 'string' || !check(v) || !Object.hasOwn(params, param)) fail(params, param, v)
      out += v + runs[i + 1]!
    }
    return out
  }
  const fail = (params: P, param: string, v: unknown): never => {
    if (v === undefined || !Object.hasOwn(params, param)) {
      // Unknown names are looked for only on failure: a typo always fails here, as its real parameter is missing.
      for (const key in params) if (!names.has(key)) throw new SubjectError('SUBJECT_UNKNOWN_PARAMETER', `${address} has no parameter ${JSON.stringify(key)} (is it a misspelling of {${param}}?).`, key)
      throw new SubjectError('SUBJECT_MISSING_PARAMETER', `${address}: parameter {${param}} is missing.`, param)
    }
    throw new SubjectError('SUBJECT_INVALID_VALUE', `${address}: ${JSON.stringify(v)} is not a valid {${param}}.`, param)
  }
  // A parameter named __proto__ must become an own property, not the result's prototype.
  const plainNames = ![...names].includes('__proto__')
  const repeated = names.size !== slots.length
  const tryParse = (subject: string): P | undefined => {
    if (typeof subject !== 'string') return undefined
    const tokens = subject.split('.')
    if (tokens.length !== template.length) return undefined
    const params = {} as Record<string, string>
    for (let i = 0; i < tokens.length; i++) {
      const token = template[i]!
      const value = tokens[i]!
      if (typeof token === 'string') {
        if (value !== token) return undefined
      } else {
        if (!checks[i]!(value)) return undefined
        if (repeated && Object.hasOwn(params, token.param) && params[token.param] !== value) return undefined
        if (plainNames) params[token.param] = value
        else Object.defineProperty(params, token.param, { value, enumerable: true, writable: true, configurable: true })
      }
    }
    return params as P
  }
  const parse = (subject: string): P => {
    const params = tryParse(subject)
    if (params === undefined) throw new SubjectError('SUBJECT_NO_MATCH', `${JSON.stringify(subject)} is not a subject of ${address}.`)
    return params
  }
  return Object.freeze({ address, render, parse, tryParse, matches: (subject: string) => tryParse(subject) !== undefined })
}

export function createFilter<P extends Record<string, string>>(templateText: string, template: readonly TemplateToken[], parameters: Readonly<Record<string, TokenType>>): Filter<Partial<P>> {
  const render = (params: Partial<P> = {}): string =>
    template
      .map((token) => {
        if (typeof token === 'string') return token
        const value = Object.hasOwn(params, token.param) ? params[token.param] : undefined
        if (value === undefined) throw new SubjectError('SUBJECT_MISSING_PARAMETER', `${templateText}: parameter {${token.param}} is missing.`, token.param)
        if (typeof value !== 'string' || !inDomain(parameters[token.param]!, value)) {
          throw new SubjectError('SUBJECT_INVALID_VALUE', `${templateText}: ${JSON.stringify(value)} is not a valid {${token.param}}.`, token.param)
        }
        return value
      })
      .join('.')
  const matches = (subject: string): boolean => {
    if (typeof subject !== 'string') return false
    const tokens = subject.split('.')
    const last = template[template.length - 1]
    const tail = last === '>'
    if (tail ? tokens.length < template.length : tokens.length !== template.length) return false
    const bound: Record<string, string> = Object.create(null)
    for (let i = 0; i < template.length - (tail ? 1 : 0); i++) {
      const token = template[i]!
      const value = tokens[i]!
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
    return tokens.slice(template.length - (tail ? 1 : 0)).every((t) => t !== '')
  }
  return Object.freeze({ template: templateText, render, matches })
}

export function createChannel<P, F extends string>(channel: {
  id: string
  address: string | undefined
  template?: readonly TemplateToken[]
  parameters: Readonly<Record<string, TokenType>>
  filters: ReadonlyArray<readonly [F, string, readonly TemplateToken[]]>
  source: SourceLink
}): Channel<P, F> {
  const parameters = Object.freeze({ ...channel.parameters })
  const filters = Object.create(null) as Record<string, Filter<Partial<P>>>
  for (const [name, text, template] of channel.filters) Object.defineProperty(filters, name, { value: createFilter(text, template, parameters), enumerable: true })
  return Object.freeze({
    id: channel.id,
    address: channel.address,
    parameters,
    ...(channel.template && channel.address !== undefined ? { subject: createSubject(channel.address, channel.template, parameters) } : {}),
    filters: Object.freeze(filters),
    source: Object.freeze({ ...channel.source }),
  }) as unknown as Channel<P, F>
}
