/**
 * A keyword that constrains values of one JSON type (`maximum` numbers, `maxLength` strings,
 * `maxItems` arrays, `required` objects) changes nothing on a node that admits no value of that
 * type: `{type: string}` to `{maximum: 1}` narrows no string. The engine compares keywords one by
 * one; this says, from a node's own `type`, `enum` and `const`, whether a change of such a keyword
 * can reach any value the node admits. It answers "maybe" (true) whenever it is not sure (a `$ref`
 * whose siblings may be ignored, an unreadable `type`), so it only ever removes effects that are
 * certainly void. O(the node's enum).
 */
import { isObject } from '../../../runtime/shared/json-value.js'
import type { SchemaEffect } from '../schema-diff-types.js'
import { fewValues, impliedCount, MAX_LISTED, numberRange, type CountedType, type PatternLengths } from './node-values.js'
import { integersOnly, onIntegers, readBound } from './bounds.js'
import { typeAtoms } from './type.js'

type JsonType = 'number' | 'string' | 'array' | 'object'

const KEYWORD_TYPE: Readonly<Record<string, JsonType>> = {
  minimum: 'number',
  maximum: 'number',
  exclusiveMinimum: 'number',
  exclusiveMaximum: 'number',
  multipleOf: 'number',
  minLength: 'string',
  maxLength: 'string',
  pattern: 'string',
  minItems: 'array',
  maxItems: 'array',
  uniqueItems: 'array',
  items: 'array',
  prefixItems: 'array',
  additionalItems: 'array',
  contains: 'array',
  minContains: 'array',
  maxContains: 'array',
  minProperties: 'object',
  maxProperties: 'object',
  required: 'object',
  properties: 'object',
  patternProperties: 'object',
  additionalProperties: 'object',
  propertyNames: 'object',
  dependentRequired: 'object',
}

/** The keywords that constrain values of `type` (the subschema keywords among them: `items`, `properties`, ...). */
export const keywordsOfType = (type: JsonType): string[] => Object.keys(KEYWORD_TYPE).filter((k) => KEYWORD_TYPE[k] === type)

/** Whether neither node may admit a value of `type` (each certainly excludes every one by its own `type`, `enum`, `const` or bounds). */
/**
 * Whether a node's own `type` and a subschema's admit no JSON type in common (neither a `$ref`,
 * whose siblings a dialect may ignore): an `anyOf` or `oneOf` branch that admits only values its
 * node refuses. False when unsure.
 */
export function disjointTypes(node: unknown, member: unknown): boolean {
  if (!isObject(node) || !isObject(member) || Object.hasOwn(node, '$ref') || Object.hasOwn(member, '$ref')) return false
  const [a, b] = [typeNames(node), typeNames(member)]
  return a !== undefined && b !== undefined && ![...b].some((t) => a.has(t))
}

export const neitherAdmits = (a: unknown, b: unknown, type: JsonType): boolean => !mayAdmit(a, type) && !mayAdmit(b, type)

/** The JSON type whose values `keyword` constrains, if it is one of those keywords. */
const keywordType = (keyword: string | undefined): JsonType | undefined =>
  keyword !== undefined && Object.hasOwn(KEYWORD_TYPE, keyword) ? KEYWORD_TYPE[keyword] : undefined

function typeOfValue(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}

/** Whether `node` may admit a value of `type`; false only when its own `type`, `enum` or `const` certainly exclude every one. */
function mayAdmit(node: unknown, type: JsonType): boolean {
  if (!isObject(node) || Object.hasOwn(node, '$ref')) return true
  if (Object.hasOwn(node, 'type')) {
    const types = Array.isArray(node.type) ? node.type : [node.type]
    if (!types.every((t) => typeof t === 'string')) return true
    const admitted = types.some((t) => t === type || (type === 'number' && t === 'integer'))
    if (!admitted) return false
  }
  if (Object.hasOwn(node, 'enum')) {
    if (!Array.isArray(node.enum)) return true
    if (!node.enum.some((value) => typeOfValue(value) === type)) return false
  }
  if (Object.hasOwn(node, 'const') && typeOfValue(node.const) !== type) return false
  return !boundsExclude(node, type)
}

const COUNTED: Readonly<Record<Exclude<JsonType, 'number'>, CountedType>> = { string: 'string', array: 'array', object: 'object' }

/**
 * Whether the node's own bounds leave no value of `type` (`minimum: 2, maximum: 1`; `minLength: 3,
 * maxLength: 2`; two names required of a closed object of one property); false when unsure.
 */
function boundsExclude(node: Record<string, unknown>, type: JsonType): boolean {
  if (type !== 'number') return impliedCount(node, COUNTED[type], 'min') > impliedCount(node, COUNTED[type], 'max')
  const range = numberRange(node)
  if (!range) return false
  const [low, high] = range
  return low.value > high.value || (low.value === high.value && (low.exclusive || high.exclusive))
}

/**
 * Whether a change between two nodes may move a value (of `type`, when given) out of `from` and not
 * into `to`: a narrowing from the old node to the new, or the mirror for a widening. A node that lists
 * its values (`enum`, `const`) is exact: one of them must be accepted by it and not certainly by the
 * other (`accepts`, three-valued), so `{type: number, enum: [null]}`, which admits nothing, moves
 * nothing, and `{enum: [null]}` widens nothing from a node that admits null. Any other node is judged
 * on its `type` alone. True whenever unsure.
 */
function mayMove(
  from: unknown,
  type: JsonType | undefined,
  accepts: ((value: unknown) => boolean | undefined) | undefined,
  acceptsOther: ((value: unknown) => boolean | undefined) | undefined,
): boolean {
  if (!isObject(from) || Object.hasOwn(from, '$ref')) return true
  const few = accepts !== undefined && acceptsOther !== undefined ? fewValues(from) : undefined
  if (few !== undefined)
    return few.some((value) => (type === undefined || typeOfValue(value) === type) && accepts!(value) !== false && acceptsOther!(value) !== true)
  return type === undefined ? mayAdmitAnything(from) : mayAdmit(from, type)
}

/** Whether a node may admit any value: some type its `type` allows (every type without one) whose values its bounds leave. */
function mayAdmitAnything(node: Record<string, unknown>): boolean {
  const written = Object.hasOwn(node, 'type')
    ? Array.isArray(node.type)
      ? node.type
      : [node.type]
    : ['null', 'boolean', 'number', 'string', 'array', 'object']
  if (!written.every((t) => typeof t === 'string')) return true
  return written.some((t) =>
    t === 'integer' || t === 'number' || t === 'string' || t === 'array' || t === 'object' ? !boundsExclude(node, t === 'integer' ? 'number' : t) : true,
  )
}

/**
 * A keyword change's effect on the node itself, with the halves no value can show taken out: a
 * narrowing needs a value the old node admits (of the keyword's type, for a typed keyword), a
 * widening one the new node admits.
 */
export function gatedEffect(
  local: SchemaEffect,
  keyword: string | undefined,
  old: unknown,
  next: unknown,
  accepts?: (side: 'old' | 'new', value: unknown) => boolean | undefined,
  why?: { text?: string },
  patternLengths?: PatternLengths,
): SchemaEffect {
  if (local === 'none' || local === 'unknown') return local
  const type = keywordType(keyword)
  const byOld = accepts && ((v: unknown) => accepts('old', v))
  const byNew = accepts && ((v: unknown) => accepts('new', v))
  let narrows = (local === 'narrows' || local === 'both') && mayMove(old, type, byOld, byNew)
  let widens = (local === 'widens' || local === 'both') && mayMove(next, type, byNew, byOld)
  // A bound moved on integers: only the integers between the two bounds can move, judged one by one.
  // A count raised from nothing to one: only the empty value moves, judged as well.
  const gap = byOld && byNew && (narrows || widens) ? (integerGap(keyword, old, next) ?? emptyGap(keyword, old, next)) : undefined
  if (gap) {
    const [n, w] = [narrows, widens]
    narrows &&= gap.some((value) => byOld!(value) !== false && byNew!(value) !== true)
    widens &&= gap.some((value) => byNew!(value) !== false && byOld!(value) !== true)
    if (why && (n !== narrows || w !== widens))
      why.text =
        typeof gap[0] === 'number'
          ? `no integer between the two bounds is admitted by one version and refused by the other`
          : `the one value it could move, the empty one, is refused by the node's other keywords or admitted by both`
  }
  for (const [half, from, to] of [
    ['narrows', old, next],
    ['widens', next, old],
  ] as const) {
    const reason = (half === 'narrows' ? narrows : widens) ? vacuous(keyword, from, to, patternLengths) : undefined
    if (reason === undefined) continue
    if (half === 'narrows') narrows = false
    else widens = false
    if (why) why.text = reason
  }
  return narrows && widens ? 'both' : narrows ? 'narrows' : widens ? 'widens' : 'none'
}

const COUNT_KEYWORDS: Readonly<Record<string, unknown>> = { minLength: '', minItems: [], minProperties: {} }

/** The empty value of a `min*` count that one version reads as at most 0 and the other as 1: the one value that can move. */
function emptyGap(keyword: string | undefined, old: unknown, next: unknown): unknown[] | undefined {
  if (keyword === undefined || !Object.hasOwn(COUNT_KEYWORDS, keyword) || !isObject(old) || !isObject(next)) return undefined
  const count = (node: Record<string, unknown>) => (node[keyword] === undefined ? 0 : typeof node[keyword] === 'number' ? node[keyword] : undefined)
  const [a, b] = [count(old), count(next)]
  if (a === undefined || b === undefined || Math.max(a, b) !== 1 || Math.min(a, b) > 0) return undefined
  return [COUNT_KEYWORDS[keyword]]
}

/** The JSON types a node admits at most (type.ts's atoms of its `type`, and `null` where OpenAPI's `nullable` adds it). */
export function typeNames(node: unknown): Set<string> | undefined {
  const atoms: Set<string> | undefined = typeAtoms(node)
  if (atoms && isObject(node) && node.nullable === true) atoms.add('null')
  return atoms
}

const multipleOf = (node: Record<string, unknown>) => (typeof node.multipleOf === 'number' && node.multipleOf > 0 ? node.multipleOf : undefined)
/** Every integer is a multiple of `k` (1, 0.5, 0.25...). */
const dividesIntegers = (k: number | undefined) => k === undefined || Number.isInteger(1 / k)

/**
 * Whether a keyword's change moves no value out of what `from` admits into what `to` refuses, by
 * what the two nodes' other keywords say (each case one an outside pass found reported as breaking):
 * `uniqueItems` where `from` admits no array of two items; a `multipleOf` every integer meets, on a
 * node that admits integers alone; `type` that drops only the non-integer numbers from a node whose
 * `multipleOf` admits integers alone; a `not` whose schema admits no type `from` admits.
 */
function vacuous(keyword: string | undefined, from: unknown, to: unknown, patternLengths?: PatternLengths): string | undefined {
  if (!isObject(from) || !isObject(to)) return undefined
  switch (keyword) {
    case 'maxLength':
    case 'maxItems':
    case 'maxProperties':
    case 'minLength':
    case 'minItems':
    case 'minProperties':
      return impliedBound(keyword, from, to, patternLengths)
    case 'uniqueItems':
      return typeof from.maxItems === 'number' && from.maxItems < 2 ? 'no array of two items is admitted there, and one item is always unique' : undefined
    case 'multipleOf': {
      const types = typeNames(from)
      return types !== undefined && !types.has('frac') && dividesIntegers(multipleOf(to))
        ? 'only integers are admitted there, and every integer meets it'
        : undefined
    }
    case 'type': {
      const [a, b] = [typeNames(from), typeNames(to)]
      if (!a || !b) return undefined
      const dropped = [...a].filter((t) => !b.has(t))
      const k = multipleOf(from)
      return dropped.length === 1 && dropped[0] === 'frac' && k !== undefined && Number.isInteger(k)
        ? `only the non-integer numbers differ, and multipleOf ${k} admits none of them`
        : undefined
    }
    case 'not': {
      const admitted = typeNames(from)
      const refused = isObject(to.not) ? typeNames(to.not) : undefined
      return admitted !== undefined && refused !== undefined && ![...refused].some((t) => admitted.has(t))
        ? 'its schema admits no type the node admits, so it refuses nothing there'
        : undefined
    }
    default:
      return undefined
  }
}

const COUNT_OF: Readonly<Record<string, { type: CountedType; side: 'min' | 'max'; unit: string }>> = {
  minLength: { type: 'string', side: 'min', unit: 'characters' },
  maxLength: { type: 'string', side: 'max', unit: 'characters' },
  minItems: { type: 'array', side: 'min', unit: 'items' },
  maxItems: { type: 'array', side: 'max', unit: 'items' },
  minProperties: { type: 'object', side: 'min', unit: 'members' },
  maxProperties: { type: 'object', side: 'max', unit: 'members' },
}

/**
 * A count bound of `to` that every value `from` admits already meets, by what `from`'s keywords
 * imply (node-values.ts: `maxProperties: 1` on a closed object of one property, `maxItems: 2` on a
 * closed tuple of two or on unique booleans, `minProperties: 2` beside two required names): the
 * reason, or undefined. An outside pass found each of these reported as breaking.
 */
function impliedBound(keyword: string, from: Record<string, unknown>, to: Record<string, unknown>, patternLengths?: PatternLengths): string | undefined {
  const { type, side, unit } = COUNT_OF[keyword]!
  const bound = to[keyword]
  if (typeof bound !== 'number' || !Number.isInteger(bound) || bound < 0) return undefined
  const implied = impliedCount(from, type, side, patternLengths)
  const met = side === 'max' ? implied <= bound : implied >= bound
  if (!met) return undefined
  if (!Number.isFinite(implied)) return `no ${type} is admitted there`
  return `no ${type} admitted there has ${side === 'max' ? 'more' : 'fewer'} than ${bound} ${unit}: its other keywords allow ${side === 'max' ? 'at most' : 'at least'} ${implied}`
}

/**
 * The integers between a bound as one version reads it and as the other does, on nodes that admit
 * integers alone among numbers: the only numbers a change of that bound can move. Undefined when a
 * bound is absent, unreadable or past the safe integers, or the gap holds more than MAX_LISTED
 * (then the keyword's reading stands). An outside pass found `minimum` raised from 1 to 3 under
 * `multipleOf: 5` reported as narrowing, where no admitted value lies between.
 */
function integerGap(keyword: string | undefined, old: unknown, next: unknown): number[] | undefined {
  const side = keyword === 'minimum' || keyword === 'exclusiveMinimum' ? 'lower' : keyword === 'maximum' || keyword === 'exclusiveMaximum' ? 'upper' : undefined
  if (side === undefined || !isObject(old) || !isObject(next) || !integersOnly(old) || !integersOnly(next)) return undefined
  const [a, b] = [readBound(old, side), readBound(next, side)]
  if (a === undefined || b === undefined || a === 'junk' || b === 'junk') return undefined
  const [x, y] = [onIntegers(a, side)!.value, onIntegers(b, side)!.value]
  if (!Number.isSafeInteger(x) || !Number.isSafeInteger(y) || Math.abs(x - y) > MAX_LISTED) return undefined
  // Every integer one bound admits and the other does not: from the looser bound up to (not
  // including) the tighter one, on the side the bound is on.
  const [from, to] = side === 'lower' ? [Math.min(x, y), Math.max(x, y) - 1] : [Math.min(x, y) + 1, Math.max(x, y)]
  const values: number[] = []
  for (let i = from; i <= to; i++) values.push(i)
  return values
}

/**
 * Why a change's effect was gated, for its sentence. `old`/`next` are the node in each version: one
 * whose few values were judged one by one (`fewValues`) moved none of them, which is not the same as
 * admitting none (an outside pass found "accepts none here" said of a node admitting 0, 5 and 10).
 */
export function gateReason(local: SchemaEffect, gated: SchemaEffect, keyword: string | undefined, old?: unknown, next?: unknown): string {
  const type = keywordType(keyword)
  const lostNarrowing = (local === 'narrows' || local === 'both') && gated !== 'narrows' && gated !== 'both'
  const lostWidening = (local === 'widens' || local === 'both') && gated !== 'widens' && gated !== 'both'
  const side = lostNarrowing && lostWidening ? 'either version' : lostNarrowing ? 'the old version' : 'the new version'
  const judged = (lostNarrowing && isObject(old) && fewValues(old) !== undefined) || (lostWidening && isObject(next) && fewValues(next) !== undefined)
  if (judged) return `${side} admits only a few values here, judged one by one, and none of them moves`
  return type === undefined ? `${side} accepts no value here` : `it constrains only ${type}s, and ${side} accepts none here`
}
