/**
 * The subject half of the diff oracle, written from the NATS profile's "Token domains and channels"
 * alone (not from the compiler's or the differ's code): two versions of a small application document
 * whose one channel's address, parameters and token types differ by one labelled edit, and an
 * enumerator that expands a channel of a document to every concrete subject it allows. Token domains
 * are finite, and the generator keeps them small, so the expansion is exhaustive: a subject of the
 * old channel missing from the new one is a witness that breaks a publisher; a new subject that was
 * not an old one is a witness that breaks a subscriber that parses.
 */
import { stringify } from 'yaml'
import type { DiffFinding } from '../../src/core/diff/types.js'
import type { Random } from './diff-oracle-random.js'

// ---------------------------------------------------------------------------------------------
// Token types and their languages, from the profile's words

export type TokenTypeDef =
  | { kind: 'enum'; values: string[] }
  | { kind: 'token'; alphabet: 'lower' | 'ascii' | 'hex'; first: 'letter' | 'any'; minLength: number; maxLength: number; prefix: string }

const DIGITS = '0123456789'
const LOWER_LETTERS = 'abcdefghijklmnopqrstuvwxyz'
const UPPER_LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
/** "ASCII letters, digits, underscore or hyphen"; lower excludes upper case; hex is 0-9 and a-f. */
const ALPHABET: Record<'lower' | 'ascii' | 'hex', string> = {
  ascii: UPPER_LETTERS + LOWER_LETTERS + DIGITS + '_-',
  lower: LOWER_LETTERS + DIGITS + '_-',
  hex: DIGITS + 'abcdef',
}
const isLetter = (c: string) => LOWER_LETTERS.includes(c) || UPPER_LETTERS.includes(c)

/** More values than this in one domain is a generator bug: the expansion must stay exhaustive and cheap. */
const DOMAIN_LIMIT = 5000
/** The most subjects a generated channel may have (the generator regenerates above it). */
export const CHANNEL_LIMIT = 4000

/**
 * Every value of a token type: an enum's values; for a token, the prefix followed by a suffix over
 * the alphabet, the whole token `minLength..maxLength` bytes long, the suffix starting with a letter
 * when `first` is `letter` (and so not empty), possibly empty when `any`.
 */
export function domainValues(type: TokenTypeDef): string[] {
  if (type.kind === 'enum') return [...new Set(type.values)]
  const chars = ALPHABET[type.alphabet]
  const out: string[] = []
  let suffixes = ['']
  for (let length = 0; length + type.prefix.length <= type.maxLength; length++) {
    if (length > 0) suffixes = suffixes.flatMap((s) => [...chars].map((c) => s + c))
    if (suffixes.length > DOMAIN_LIMIT) throw new Error(`token type too large to enumerate: ${JSON.stringify(type)}`)
    const total = type.prefix.length + length
    if (total < type.minLength || total < 1) continue
    for (const suffix of suffixes) if (type.first === 'any' || (suffix.length > 0 && isLetter(suffix[0]!))) out.push(type.prefix + suffix)
    if (out.length > DOMAIN_LIMIT) throw new Error(`token type too large to enumerate: ${JSON.stringify(type)}`)
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// The enumerator: a channel of a document, expanded

/** The parts of an application document the enumerator reads. */
export interface ChannelDocument {
  'x-nats-contract': { tokenTypes: Record<string, TokenTypeDef>; channels: Record<string, { parameters: Record<string, string> }> }
  channels: Record<string, { address: string }>
}

/**
 * Every concrete subject of channel `id` of `document`: the address split on `.`, each token either
 * a literal or a whole-token `{placeholder}` whose values are its parameter's token type's domain.
 */
export function channelSubjects(document: ChannelDocument, id: string): Set<string> {
  const address = document.channels[id]!.address
  const parameters = document['x-nats-contract'].channels[id]!.parameters
  const tokenTypes = document['x-nats-contract'].tokenTypes
  let subjects = ['']
  for (const [index, token] of address.split('.').entries()) {
    const placeholder = /^\{(.+)\}$/.exec(token)
    const values = placeholder ? domainValues(tokenTypes[parameters[placeholder[1]!]!]!) : [token]
    const next: string[] = []
    for (const prefix of subjects) for (const value of values) next.push(index === 0 ? value : `${prefix}.${value}`)
    if (next.length > CHANNEL_LIMIT * 4) throw new Error(`channel too large to enumerate: ${address}`)
    subjects = next
  }
  return new Set(subjects)
}

// ---------------------------------------------------------------------------------------------
// Random channels and edits

type Token = { literal: string } | { param: string }

/** One channel of the generated document, as the generator edits it. */
export interface ChannelSpec {
  tokens: Token[]
  /** Placeholder -> token type name. */
  parameters: Record<string, string>
  tokenTypes: Record<string, TokenTypeDef>
  description: string
}

/** Enum values and literals share values, so fixing or opening a placeholder can keep a subject. */
const VALUE_POOL = ['a', 'b', 'c', 'eu', 'us', 'f1', 'x0', 'Q']
const LITERAL_POOL = ['app', 'a', 'eu', 'x0', 'f', 'orders', 'b']
const PARAMETER_POOL = ['p', 'q', 'r', 's', 'region', 'id']

/** A small token type: an enum of 1-3 values, or a token whose language has at most a few hundred values. */
export function randomTokenType(random: Random): TokenTypeDef {
  const roll = random.next()
  if (roll < 0.55) return { kind: 'enum', values: random.sample(VALUE_POOL, random.int(1, 3)) }
  if (roll < 0.75) {
    const prefix = random.pick(['', '', 'x'])
    return { kind: 'token', alphabet: 'hex', first: 'any', minLength: prefix.length + 1, maxLength: prefix.length + random.int(1, 2), prefix }
  }
  if (roll < 0.9) return { kind: 'token', alphabet: 'lower', first: random.pick(['letter', 'any'] as const), minLength: 1, maxLength: 1, prefix: '' }
  return { kind: 'token', alphabet: 'ascii', first: 'letter', minLength: 1, maxLength: 1, prefix: '' }
}

function freshName(used: Iterable<string>, pool: readonly string[], stem: string): string {
  const taken = new Set(used)
  for (const name of pool) if (!taken.has(name)) return name
  // One of the first size + 1 numbered names is free.
  for (let i = 0; i < taken.size; i++) if (!taken.has(`${stem}${i}`)) return `${stem}${i}`
  return `${stem}${taken.size}`
}

function freshTypeName(spec: ChannelSpec): string {
  return freshName(Object.keys(spec.tokenTypes), [], 'k')
}

/** Adds a placeholder token with a fresh parameter name and a fresh token type (or `type`). */
function newPlaceholder(spec: ChannelSpec, random: Random, type: TokenTypeDef = randomTokenType(random)): Token {
  const param = freshName(Object.keys(spec.parameters), PARAMETER_POOL, 'p')
  const typeName = freshTypeName(spec)
  spec.tokenTypes[typeName] = type
  spec.parameters[param] = typeName
  return { param }
}

/** A channel of 1-4 tokens, about half of them placeholders; regenerated (a bounded number of times) when it has too many subjects. */
export function randomChannel(random: Random): ChannelSpec {
  for (let attempt = 0; attempt < 100; attempt++) {
    const spec: ChannelSpec = { tokens: [], parameters: {}, tokenTypes: {}, description: 'Events.' }
    const length = random.int(1, 4)
    for (let i = 0; i < length; i++) spec.tokens.push(random.chance(0.5) ? newPlaceholder(spec, random) : { literal: random.pick(LITERAL_POOL) })
    // A spare token type, for edits that point a parameter elsewhere.
    if (random.chance(0.5)) spec.tokenTypes[freshTypeName(spec)] = randomTokenType(random)
    if (subjectCount(spec) <= CHANNEL_LIMIT) return spec
  }
  return { tokens: [{ literal: 'app' }], parameters: {}, tokenTypes: {}, description: 'Events.' }
}

function subjectCount(spec: ChannelSpec): number {
  return spec.tokens.reduce((n, t) => n * ('param' in t ? domainValues(spec.tokenTypes[spec.parameters[t.param]!]!).length : 1), 1)
}

const placeholders = (spec: ChannelSpec) => spec.tokens.filter((t): t is { param: string } => 'param' in t)
const literalIndexes = (spec: ChannelSpec) => spec.tokens.flatMap((t, i) => ('literal' in t ? [i] : []))
const typeOf = (spec: ChannelSpec, param: string) => spec.tokenTypes[spec.parameters[param]!]!

/** A placeholder leaves the address: its parameter goes, its token type stays (a document may keep unused types). */
function removeParameter(spec: ChannelSpec, param: string): void {
  delete spec.parameters[param]
}

/** An edit kind of the channel: whether it applies, and the edit (in place, on a copy). */
interface ChannelEditKind {
  label: string
  applies(spec: ChannelSpec): boolean
  apply(spec: ChannelSpec, random: Random): void
}

const enumParams = (spec: ChannelSpec) => placeholders(spec).filter((t) => typeOf(spec, t.param).kind === 'enum')
const tokenParams = (spec: ChannelSpec) => placeholders(spec).filter((t) => typeOf(spec, t.param).kind === 'token')

/** A type of its own for `param`, so editing it leaves any other parameter naming the same type unchanged. */
function ownType(spec: ChannelSpec, param: string): TokenTypeDef {
  const name = spec.parameters[param]!
  const shared = Object.entries(spec.parameters).some(([p, t]) => p !== param && t === name)
  if (!shared) return spec.tokenTypes[name]!
  const copy = structuredClone(spec.tokenTypes[name]!)
  const fresh = freshTypeName(spec)
  spec.tokenTypes[fresh] = copy
  spec.parameters[param] = fresh
  return copy
}

const CHANNEL_EDITS: ChannelEditKind[] = [
  {
    label: 'enum-value-added',
    applies: (s) => enumParams(s).length > 0,
    apply: (s, random) => {
      const type = ownType(s, random.pick(enumParams(s)).param) as { values: string[] }
      const fresh = VALUE_POOL.filter((v) => !type.values.includes(v))
      type.values.splice(random.int(0, type.values.length), 0, random.pick(fresh))
    },
  },
  {
    label: 'enum-value-removed',
    applies: (s) => enumParams(s).some((t) => (typeOf(s, t.param) as { values: string[] }).values.length > 1),
    apply: (s, random) => {
      const param = random.pick(enumParams(s).filter((t) => (typeOf(s, t.param) as { values: string[] }).values.length > 1)).param
      const type = ownType(s, param) as { values: string[] }
      type.values.splice(random.int(0, type.values.length - 1), 1)
    },
  },
  {
    label: 'enum-value-replaced',
    applies: (s) => enumParams(s).length > 0,
    apply: (s, random) => {
      const type = ownType(s, random.pick(enumParams(s)).param) as { values: string[] }
      const fresh = VALUE_POOL.filter((v) => !type.values.includes(v))
      type.values[random.int(0, type.values.length - 1)] = random.pick(fresh)
    },
  },
  {
    label: 'enum-values-reordered',
    applies: (s) => enumParams(s).some((t) => (typeOf(s, t.param) as { values: string[] }).values.length > 1),
    apply: (s, random) => {
      const param = random.pick(enumParams(s).filter((t) => (typeOf(s, t.param) as { values: string[] }).values.length > 1)).param
      const type = ownType(s, param) as { values: string[] }
      type.values.reverse()
    },
  },
  {
    label: 'literal-changed',
    applies: (s) => literalIndexes(s).length > 0,
    apply: (s, random) => {
      const i = random.pick(literalIndexes(s))
      const old = (s.tokens[i] as { literal: string }).literal
      s.tokens[i] = { literal: random.pick(LITERAL_POOL.filter((l) => l !== old)) }
    },
  },
  {
    label: 'literal-inserted',
    applies: (s) => s.tokens.length < 5,
    apply: (s, random) => void s.tokens.splice(random.int(0, s.tokens.length), 0, { literal: random.pick(LITERAL_POOL) }),
  },
  {
    label: 'literal-removed',
    applies: (s) => s.tokens.length > 1 && literalIndexes(s).length > 0,
    apply: (s, random) => void s.tokens.splice(random.pick(literalIndexes(s)), 1),
  },
  {
    label: 'parameter-renamed',
    applies: (s) => placeholders(s).length > 0,
    apply: (s, random) => {
      const token = random.pick(placeholders(s))
      const renamed = freshName(Object.keys(s.parameters), [...PARAMETER_POOL].reverse(), 'p')
      s.parameters[renamed] = s.parameters[token.param]!
      removeParameter(s, token.param)
      token.param = renamed
    },
  },
  {
    label: 'token-type-renamed',
    applies: (s) => placeholders(s).length > 0,
    apply: (s, random) => {
      const old = s.parameters[random.pick(placeholders(s)).param]!
      const renamed = freshName(Object.keys(s.tokenTypes), ['renamed', 'domain'], 'n')
      s.tokenTypes[renamed] = s.tokenTypes[old]!
      delete s.tokenTypes[old]
      for (const p of Object.keys(s.parameters)) if (s.parameters[p] === old) s.parameters[p] = renamed
    },
  },
  {
    // The same language written another way: a token type as the enum of its values, or the reverse
    // when an enum happens to list a token's whole language (then the token is written instead).
    label: 'token-type-rewritten-equal',
    applies: (s) => placeholders(s).some((t) => domainValues(typeOf(s, t.param)).length <= 40),
    apply: (s, random) => {
      const param = random.pick(placeholders(s).filter((t) => domainValues(typeOf(s, t.param)).length <= 40)).param
      const type = typeOf(s, param)
      const fresh = freshTypeName(s)
      s.tokenTypes[fresh] =
        type.kind === 'token' ? { kind: 'enum', values: domainValues(type) } : (equalToken(type.values) ?? { kind: 'enum', values: [...type.values].reverse() })
      s.parameters[param] = fresh
    },
  },
  {
    label: 'token-type-retargeted',
    applies: (s) => placeholders(s).length > 0,
    apply: (s, random) => {
      const param = random.pick(placeholders(s)).param
      const others = Object.keys(s.tokenTypes).filter((n) => n !== s.parameters[param])
      if (others.length > 0 && random.chance(0.6)) s.parameters[param] = random.pick(others)
      else {
        const fresh = freshTypeName(s)
        s.tokenTypes[fresh] = randomTokenType(random)
        s.parameters[param] = fresh
      }
    },
  },
  {
    label: 'token-type-redefined',
    applies: (s) => placeholders(s).length > 0,
    apply: (s, random) => {
      s.tokenTypes[s.parameters[random.pick(placeholders(s)).param]!] = randomTokenType(random)
    },
  },
  {
    label: 'token-length-changed',
    applies: (s) => tokenParams(s).length > 0,
    apply: (s, random) => {
      const type = ownType(s, random.pick(tokenParams(s)).param) as Extract<TokenTypeDef, { kind: 'token' }>
      // Bounds within the prefix and two characters after it; the channel limit rejects a language too large.
      const lengths = [type.prefix.length, type.prefix.length + 1, type.prefix.length + 2].filter((n) => n >= 1)
      const [min, max] = [random.pick(lengths), random.pick(lengths)].sort((x, y) => x - y) as [number, number]
      if (min === type.minLength && max === type.maxLength) type.maxLength = max === lengths[lengths.length - 1] ? lengths[0]! : max + 1
      else [type.minLength, type.maxLength] = [min, max]
      type.minLength = Math.min(type.minLength, type.maxLength)
    },
  },
  {
    label: 'token-first-changed',
    applies: (s) => tokenParams(s).length > 0,
    apply: (s, random) => {
      const type = ownType(s, random.pick(tokenParams(s)).param) as Extract<TokenTypeDef, { kind: 'token' }>
      type.first = type.first === 'letter' ? 'any' : 'letter'
    },
  },
  {
    label: 'token-alphabet-changed',
    applies: (s) => tokenParams(s).length > 0,
    apply: (s, random) => {
      const type = ownType(s, random.pick(tokenParams(s)).param) as Extract<TokenTypeDef, { kind: 'token' }>
      type.alphabet = random.pick((['lower', 'ascii', 'hex'] as const).filter((a) => a !== type.alphabet))
      // Keep the language small enough to enumerate: at most two characters after the prefix.
      type.maxLength = Math.min(type.maxLength, type.prefix.length + (type.alphabet === 'hex' ? 2 : 1))
      type.minLength = Math.min(type.minLength, type.maxLength)
    },
  },
  {
    label: 'token-prefix-changed',
    applies: (s) => tokenParams(s).length > 0,
    apply: (s, random) => {
      const type = ownType(s, random.pick(tokenParams(s)).param) as Extract<TokenTypeDef, { kind: 'token' }>
      const suffixMax = type.maxLength - type.prefix.length
      const suffixMin = type.minLength - type.prefix.length
      type.prefix = random.pick(['', 'x', 'a', 'xa'].filter((p) => p !== type.prefix))
      type.maxLength = type.prefix.length + Math.max(1, suffixMax)
      type.minLength = Math.max(1, type.prefix.length + suffixMin)
      if (type.minLength > type.maxLength) type.minLength = type.maxLength
    },
  },
  {
    label: 'placeholder-fixed-to-literal',
    applies: (s) => placeholders(s).length > 0,
    apply: (s, random) => {
      const token = random.pick(placeholders(s))
      const i = s.tokens.indexOf(token)
      const values = domainValues(typeOf(s, token.param))
      s.tokens[i] = { literal: random.chance(0.7) ? random.pick(values) : random.pick(LITERAL_POOL) }
      removeParameter(s, token.param)
    },
  },
  {
    label: 'literal-opened-to-placeholder',
    applies: (s) => literalIndexes(s).length > 0,
    apply: (s, random) => {
      const i = random.pick(literalIndexes(s))
      const literal = (s.tokens[i] as { literal: string }).literal
      const values = random.chance(0.5)
        ? [literal]
        : [
            literal,
            ...random.sample(
              VALUE_POOL.filter((v) => v !== literal),
              random.int(1, 2),
            ),
          ]
      s.tokens[i] = newPlaceholder(s, random, { kind: 'enum', values })
    },
  },
  {
    label: 'parameter-added',
    applies: (s) => s.tokens.length < 5,
    apply: (s, random) => void s.tokens.splice(random.int(0, s.tokens.length), 0, newPlaceholder(s, random)),
  },
  {
    label: 'parameter-removed',
    applies: (s) => s.tokens.length > 1 && placeholders(s).length > 0,
    apply: (s, random) => {
      const token = random.pick(placeholders(s))
      s.tokens.splice(s.tokens.indexOf(token), 1)
      removeParameter(s, token.param)
    },
  },
  {
    label: 'tokens-swapped',
    applies: (s) => s.tokens.length > 1,
    apply: (s, random) => {
      const i = random.int(0, s.tokens.length - 2)
      const [a, b] = [s.tokens[i]!, s.tokens[i + 1]!]
      s.tokens[i] = b
      s.tokens[i + 1] = a
    },
  },
  {
    label: 'description-changed',
    applies: () => true,
    apply: (s) => void (s.description = `${s.description} Edited.`),
  },
]

/** A token type with the same language as the enum `values`, when one of the generator's shapes has it. */
function equalToken(values: readonly string[]): TokenTypeDef | undefined {
  const set = new Set(values)
  const candidates: TokenTypeDef[] = [
    { kind: 'token', alphabet: 'hex', first: 'any', minLength: 1, maxLength: 1, prefix: '' },
    { kind: 'token', alphabet: 'hex', first: 'letter', minLength: 1, maxLength: 1, prefix: '' },
  ]
  return candidates.find((c) => {
    const language = domainValues(c)
    return language.length === set.size && language.every((v) => set.has(v))
  })
}

export const CHANNEL_EDIT_LABELS: readonly string[] = CHANNEL_EDITS.map((e) => e.label)

export interface ChannelPair {
  old: ChannelSpec
  new: ChannelSpec
  edit: string
}

/** One labelled edit of `spec`, its result small enough to enumerate (a bounded number of tries, then a description edit). */
export function randomChannelEdit(random: Random, spec: ChannelSpec, only?: string): ChannelPair {
  const kinds = CHANNEL_EDITS.filter((e) => (only === undefined || e.label === only) && e.applies(spec))
  for (let attempt = 0; attempt < 20 && kinds.length > 0; attempt++) {
    const kind = random.pick(kinds)
    const edited = structuredClone(spec)
    kind.apply(edited, random)
    if (subjectCount(edited) <= CHANNEL_LIMIT) return { old: spec, new: edited, edit: kind.label }
  }
  const edited = structuredClone(spec)
  edited.description += ' Edited.'
  return { old: spec, new: edited, edit: 'description-changed' }
}

// ---------------------------------------------------------------------------------------------
// The document

export const CHANNEL_ID = 'events'

/** A message payload schema and the component schemas beside it (what its `$ref`s name), when not the default. */
export interface PayloadOption {
  payload: unknown
  schemas?: Record<string, unknown>
}

const DEFAULT_PAYLOAD: PayloadOption = { payload: { type: 'object', properties: { n: { type: 'integer' } } } }

/** The application document holding the channel, with one operation sending on it and one receiving. */
export function applicationDocument(spec: ChannelSpec, message: PayloadOption = DEFAULT_PAYLOAD): ChannelDocument & Record<string, unknown> {
  const used = new Set(Object.values(spec.parameters))
  const params = placeholders(spec).map((t) => t.param)
  const document = {
    asyncapi: '3.1.0',
    info: { title: 'Oracle', version: '1.0.0' },
    'x-nats-contract': {
      version: '0.2.0-draft',
      contract: 'oracle',
      deployment: { binding: 'oracle-dev', minimumServerVersion: '2.11.0' },
      // Types no parameter names are kept only when the generator made them spare (they are allowed).
      tokenTypes: Object.fromEntries(Object.entries(spec.tokenTypes).filter(([name]) => used.has(name) || name.startsWith('k'))),
      channels: { [CHANNEL_ID]: { parameters: Object.fromEntries(params.map((p) => [p, spec.parameters[p]!])) } },
      operations: { emit: { publish: { api: 'core', confirmation: 'none' } }, watch: { subscribe: { api: 'core' } } },
    },
    channels: {
      [CHANNEL_ID]: {
        address: spec.tokens.map((t) => ('param' in t ? `{${t.param}}` : t.literal)).join('.'),
        description: spec.description,
        ...(params.length > 0 ? { parameters: Object.fromEntries(params.map((p) => [p, {}])) } : {}),
        messages: { event: { payload: message.payload } },
      },
    },
    operations: {
      emit: { action: 'send', channel: { $ref: `#/channels/${CHANNEL_ID}` } },
      watch: { action: 'receive', channel: { $ref: `#/channels/${CHANNEL_ID}` } },
    },
    ...(message.schemas && Object.keys(message.schemas).length > 0 ? { components: { schemas: message.schemas } } : {}),
  }
  return document
}

export function documentText(document: object): string {
  return stringify(document)
}

// ---------------------------------------------------------------------------------------------
// The property

/** Findings that flag a change for an audience kind: any finding above `info` naming that kind (a warning is not assumed safe). */
export function flags(findings: readonly DiffFinding[], kind: string): DiffFinding[] {
  return findings.filter((f) => f.level !== 'info' && f.audiences.some((a) => a.kind === kind))
}

export interface SubjectWitnesses {
  /** Old subjects the new channel no longer has: a publisher of one breaks. */
  removed: string[]
  /** New subjects the old channel did not have: a subscriber that parses breaks on one. */
  added: string[]
}

export function subjectWitnesses(oldSubjects: ReadonlySet<string>, newSubjects: ReadonlySet<string>): SubjectWitnesses {
  return { removed: [...oldSubjects].filter((s) => !newSubjects.has(s)).sort(), added: [...newSubjects].filter((s) => !oldSubjects.has(s)).sort() }
}

function describeChannel(document: ChannelDocument): string {
  const address = document.channels[CHANNEL_ID]!.address
  const parameters = document['x-nats-contract'].channels[CHANNEL_ID]!.parameters
  const types = Object.entries(parameters).map(([p, t]) => `${p}: ${t} = ${JSON.stringify(document['x-nats-contract'].tokenTypes[t])}`)
  return `"${address}"${types.length > 0 ? ` {${types.join('; ')}}` : ''}`
}

function describeFindings(findings: readonly DiffFinding[]): string {
  if (findings.length === 0) return 'no findings'
  return findings.map((f) => `${f.rule} ${f.level} for ${f.audiences.map((a) => a.kind).join('/') || 'nobody'}`).join(', ')
}

/**
 * What is wrong with a differ's findings for one pair, judged by the witnesses: a removed subject
 * with no finding flagging publishers, an added one with none flagging subscribers. Empty when the
 * findings stand. The document has one channel, so every finding is about it.
 */
export function subjectViolations(
  edit: string,
  documents: { old: ChannelDocument; new: ChannelDocument },
  findings: readonly DiffFinding[],
  witnesses: SubjectWitnesses,
): string[] {
  const out: string[] = []
  const context = () =>
    `; edit ${edit}: channel "${CHANNEL_ID}" old ${describeChannel(documents.old)} -> new ${describeChannel(documents.new)}; the differ reported ${describeFindings(findings)}`
  const removed = witnesses.removed[0]
  if (removed !== undefined && flags(findings, 'publisher').length === 0)
    out.push(
      `publishers break unflagged: "${removed}" was a subject of the old channel and is not one of the new (${witnesses.removed.length} such)${context()}`,
    )
  const added = witnesses.added[0]
  if (added !== undefined && flags(findings, 'subscriber').length === 0)
    out.push(`subscribers break unflagged: "${added}" is a subject of the new channel and was not one of the old (${witnesses.added.length} such)${context()}`)
  return out
}
