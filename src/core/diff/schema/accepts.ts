/**
 * A small, three-valued validator used to make witnesses certain: `true` or `false` only when the
 * answer is sure for the keywords it knows, `undefined` otherwise (an `int64` read as the option
 * leaves unknown, a `discriminator`,
 * a pattern it cannot compile, an unknown keyword, a budget spent). A witness is kept only when
 * this says one version accepts it and the other refuses it.
 */
import { isObject } from '../../../runtime/shared/json-value.js'
import type { SchemaAt, SchemaDiffContext, SideName } from './context.js'
import { child } from './context.js'
import { INT32_RANGE, INT64_RANGE, OPENAPI_FORMAT_PATTERNS } from '../../openapi-formats.js'
import { leadingOptions, unicodeModeSource } from '../../pattern-dialect.js'
import { linearBuildMatcher, patternEngine } from '../../pattern-safety.js'
import { COMPARED_KEYWORDS, CONTAINER_KEYWORDS, OPENAPI_CHECKED_FORMATS, isAnnotation } from './keywords.js'
import { follow, hasConstraintsBesideRef, refOf } from './resolve.js'
import { canonicalKey, jsonEqual, type Budget } from './values.js'

type Tri = boolean | undefined

/**
 * The keywords it decides: every keyword the comparers read, less those whose verdict it leaves
 * undecided (they make its answer `undefined`, so no witness rests on them), plus the identifiers.
 */
const UNDECIDED = new Set(['minContains', 'maxContains', 'discriminator', 'unevaluatedProperties', 'unevaluatedItems'])
const KNOWN = new Set(['$schema', '$id', ...[...COMPARED_KEYWORDS].filter((keyword) => !UNDECIDED.has(keyword))])

function and(a: Tri, b: Tri): Tri {
  if (a === false || b === false) return false
  return a === true && b === true ? true : undefined
}

function or(a: Tri, b: Tri): Tri {
  if (a === true || b === true) return true
  return a === false && b === false ? false : undefined
}

const CHECK_BUDGET = 5_000
/** Steps of every validation in this process (read by tests and bench/ to hold the bounds). */
export const validationStats = { steps: 0 }
/** How deep a check goes: past it, the answer is unknown (so no witness is proven deeper: `findWitness`). */
export const MAX_CHECK_DEPTH = 48

/** The work budget of one validation, and the deepest level it has reached (for `verdicts`). */
interface CheckBudget extends Budget {
  deepest: number
}

/** Whether the schema at `at` (in the version `side`) accepts `value`, when that is certain. */
export function acceptsValue(ctx: SchemaDiffContext, side: SideName, at: SchemaAt, value: unknown): Tri {
  const budget: CheckBudget = { left: CHECK_BUDGET, deepest: 0 }
  const result = check(ctx, side, at, value, budget, 0)
  const spent = CHECK_BUDGET - Math.max(budget.left, 0)
  ctx.validationSteps += spent
  validationStats.steps += spent
  return result
}

/**
 * A verdict on one object or array against one schema node, kept for the rest of the diff: what it
 * answered, the budget it spent and how many levels below its own it went.
 */
interface Verdict {
  result: Tri
  spent: number
  reach: number
}

/**
 * The verdicts of one diff (one payload), by side, document, file, schema pointer and the value
 * object itself (a shared one: `keepVerdictsFor`). A witness is placed into the payload's minimal
 * instance by copying only the containers on its path (witness.ts): every other member is the same
 * object in every candidate, so its verdict, made for the first candidate, is read for the others
 * (and for the payload's other findings): the members besides the path are proven valid once per
 * payload, not once per candidate. The values are never written once made, so a verdict stands.
 *
 * A verdict is the walk's own answer, not an approximation: one is kept only when its walk reached
 * no cap (its budget never ran out, it went no deeper than MAX_CHECK_DEPTH), and it is read only
 * where the walk would again reach none (the budget left covers what it spent, the depth plus its
 * reach is within the cap); reading it spends what the walk spent. Below the caps the walk depends
 * on nothing but the schema node and the value, so a later validation answers as it would have.
 */
/** Whether verdicts are kept and read (off only to compare against the plain walk, in tests). */
export const verdictMemo = { enabled: true, reused: 0 }

/**
 * The objects whose verdicts are kept: those of the memoized minimal instances (witness.ts), which
 * every candidate of a payload shares. A placed candidate's own containers and copies are new for
 * each try, so keeping their verdicts would only cost.
 */
const shared = new WeakSet<object>()

/** Marks `value`'s objects and arrays (bounded: a minimal instance is at most 8 levels deep) as shared. */
export function keepVerdictsFor(value: unknown): void {
  const stack = [value]
  for (let steps = 0; stack.length > 0 && steps < 10_000; steps++) {
    const at = stack.pop()
    if (typeof at !== 'object' || at === null || shared.has(at)) continue
    shared.add(at)
    for (const member of Array.isArray(at) ? at : Object.values(at)) stack.push(member)
  }
}

const verdicts = new WeakMap<SchemaDiffContext, Record<SideName, Map<unknown, Map<string, Map<string, WeakMap<object, Verdict>>>>>>()

function verdictsOf(ctx: SchemaDiffContext, side: SideName, at: SchemaAt): WeakMap<object, Verdict> {
  let sides = verdicts.get(ctx)
  if (!sides) verdicts.set(ctx, (sides = { old: new Map(), new: new Map() }))
  let files = sides[side].get(at.document)
  if (!files) sides[side].set(at.document, (files = new Map()))
  let pointers = files.get(at.file)
  if (!pointers) files.set(at.file, (pointers = new Map()))
  let byValue = pointers.get(at.pointer)
  if (!byValue) pointers.set(at.pointer, (byValue = new WeakMap()))
  return byValue
}

function check(ctx: SchemaDiffContext, side: SideName, at: SchemaAt, value: unknown, budget: CheckBudget, depth: number): Tri {
  const kept = verdictMemo.enabled && typeof value === 'object' && value !== null && shared.has(value) ? verdictsOf(ctx, side, at) : undefined
  if (kept) {
    const seen = kept.get(value as object)
    if (seen && budget.left >= seen.spent && depth + seen.reach <= MAX_CHECK_DEPTH) {
      verdictMemo.reused++
      budget.left -= seen.spent
      budget.deepest = Math.max(budget.deepest, depth + seen.reach)
      return seen.result
    }
  }
  const before = budget.left
  const outer = budget.deepest
  budget.deepest = depth
  const result = checkNode(ctx, side, at, value, budget, depth)
  const reach = budget.deepest - depth
  budget.deepest = Math.max(outer, budget.deepest)
  if (kept && budget.left >= 0 && depth + reach <= MAX_CHECK_DEPTH) kept.set(value as object, { result, spent: before - budget.left, reach })
  return result
}

function checkNode(ctx: SchemaDiffContext, side: SideName, at: SchemaAt, value: unknown, budget: CheckBudget, depth: number): Tri {
  if (--budget.left < 0 || depth > MAX_CHECK_DEPTH) return undefined
  const schema = at.value
  if (schema === undefined || schema === true) return true
  if (schema === false) return false
  if (!isObject(schema)) return undefined
  const openapi = ctx.dialect === 'openapi-3.0'
  if (openapi && schema.nullable === true && value === null) return true
  let result: Tri = true
  const ref = refOf(schema)
  if (ref !== undefined) {
    const target = follow(ctx, side, at)
    if (!target) return undefined
    result = check(ctx, side, target, value, budget, depth + 1)
    if (ctx.refSiblings === 'ignore') return result
    if (ctx.refSiblings === 'unknown' && hasConstraintsBesideRef(schema, ctx.dialect)) return undefined
  }
  // `for...in`, not Object.keys: a schema node is a plain parsed object (its own keys, in the same
  // order), and this runs for every node of every witness validation.
  for (const key in schema) {
    if (result === false) return false
    if (key === '$ref' || isAnnotation(key, ctx.dialect) || CONTAINER_KEYWORDS.has(key)) continue
    if (!KNOWN.has(key)) return undefined
    // A closed member's merge decides which properties an object may have; any other value is judged by each member alone.
    if (openapi && key === 'allOf' && isObject(value) && hasClosedMember(ctx, side, at)) return undefined
    result = and(result, keyword(ctx, side, at, schema, key, value, budget, depth))
  }
  return result
}

function hasClosedMember(ctx: SchemaDiffContext, side: SideName, at: SchemaAt): boolean {
  // OpenAPI 3.0 merges allOf members' properties; a closed member then admits its siblings' properties.
  const members = (at.value as Record<string, unknown>).allOf
  if (!Array.isArray(members)) return false
  return members.some((_, i) => {
    let node: SchemaAt | undefined = child(at, 'allOf', i)
    if (refOf(node.value) !== undefined) node = follow(ctx, side, node)
    return !node || (isObject(node.value) && Object.hasOwn(node.value, 'additionalProperties') && node.value.additionalProperties !== true)
  })
}

function matchesAny(patterns: readonly Matcher[], name: string): Tri {
  let out: Tri = false
  for (const matcher of patterns) out = or(out, matcher.test(name))
  return out
}

function isType(value: unknown, name: unknown): Tri {
  switch (name) {
    case 'null':
      return value === null
    case 'boolean':
      return typeof value === 'boolean'
    case 'object':
      return isObject(value)
    case 'array':
      return Array.isArray(value)
    case 'string':
      return typeof value === 'string'
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value)
    default:
      return undefined
  }
}

function keyword(
  ctx: SchemaDiffContext,
  side: SideName,
  at: SchemaAt,
  schema: Record<string, unknown>,
  key: string,
  value: unknown,
  budget: CheckBudget,
  depth: number,
): Tri {
  const openapi = ctx.dialect === 'openapi-3.0'
  const k = schema[key]
  switch (key) {
    case '$schema':
    case '$id':
      return true
    case 'nullable':
      return typeof k === 'boolean' ? true : undefined
    case 'type': {
      if (!Array.isArray(k)) return or(false, isType(value, k))
      let out: Tri = false
      for (const name of k) {
        if (--budget.left < 0) return or(out, undefined)
        out = or(out, isType(value, name))
      }
      return out
    }
    case 'enum': {
      if (!Array.isArray(k)) return undefined
      let out: Tri = false
      for (const item of k) {
        // Each value compared spends the budget; once it is spent, the rest would answer nothing.
        if (budget.left < 0) return or(out, undefined)
        out = or(out, jsonEqual(item, value, budget))
      }
      return out
    }
    case 'const':
      return jsonEqual(k, value, budget)
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      if (typeof value !== 'number') return true
      const lower = key === 'minimum' || key === 'exclusiveMinimum'
      // The boolean form is read with minimum/maximum; a boolean minimum or maximum is no bound anyone agrees on.
      if (typeof k === 'boolean') return key.startsWith('exclusive') ? true : undefined
      if (typeof k !== 'number') return undefined
      const exclusive =
        key.startsWith('exclusive') ||
        (typeof schema[lower ? 'exclusiveMinimum' : 'exclusiveMaximum'] === 'boolean' && schema[lower ? 'exclusiveMinimum' : 'exclusiveMaximum'] === true)
      if (lower) return exclusive ? value > k : value >= k
      return exclusive ? value < k : value <= k
    }
    case 'multipleOf': {
      if (typeof value !== 'number') return true
      if (typeof k !== 'number' || !Number.isSafeInteger(k) || k <= 0) return undefined
      return Number.isInteger(value) ? value % k === 0 : false
    }
    case 'minLength':
    case 'maxLength': {
      if (typeof value !== 'string') return true
      if (typeof k !== 'number') return undefined
      const length = codePoints(value)
      return key === 'minLength' ? length >= k : length <= k
    }
    case 'pattern': {
      if (typeof value !== 'string') return true
      if (typeof k !== 'string') return undefined
      const matcher = compile(k, openapi)
      return matcher && value.length <= MAX_MATCHED_TEXT ? matcher.test(value) : undefined
    }
    case 'format': {
      // Formats describe strings and numbers; the generated validators check none in JSON Schema
      // (format.ts), and in OpenAPI 3.0 only those with a checked meaning constrain anything, each
      // as the validators check it: a string format's pattern on a `type: string` schema, int32's
      // range (and int64's, read as numbers) on an `integer` or `number` one.
      if (typeof value !== 'string' && typeof value !== 'number') return true
      if (!openapi || (typeof k === 'string' && !OPENAPI_CHECKED_FORMATS.has(k))) return true
      if (typeof k !== 'string') return undefined
      const numeric = schema.type === 'integer' || schema.type === 'number'
      if (Object.hasOwn(OPENAPI_FORMAT_PATTERNS, k)) return schema.type !== 'string' || typeof value !== 'string' ? true : formatRegex(k).test(value)
      if (!numeric) return true
      // int64 as text replaces an integer by its decimal text (this validator does not read that), and beside `number` checks nothing.
      if (k === 'int64' && ctx.int64 === 'string' && schema.type === 'number') return true
      const range = k === 'int32' ? INT32_RANGE : ctx.int64 === 'number' ? INT64_RANGE : undefined
      if (range === undefined) return undefined
      return typeof value !== 'number' || (value >= range.minimum && value <= range.maximum)
    }
    case 'minItems':
    case 'maxItems': {
      if (!Array.isArray(value)) return true
      if (typeof k !== 'number') return undefined
      return key === 'minItems' ? value.length >= k : value.length <= k
    }
    case 'uniqueItems': {
      if (!Array.isArray(value) || k !== true) return k === true || k === false || k === undefined ? true : undefined
      const seen = new Set<string>()
      for (const item of value) {
        const text = canonicalKey(item, budget)
        if (text === undefined) return undefined
        if (seen.has(text)) return false
        seen.add(text)
      }
      return true
    }
    case 'items':
    case 'prefixItems':
    case 'additionalItems': {
      if (!Array.isArray(value)) return true
      return arrayItems(ctx, side, at, schema, key, value, budget, depth)
    }
    case 'contains': {
      // An item its schema accepts (draft-07 6.4.6: none in the empty array, whatever the schema);
      // counted by minContains/maxContains (2019-09) it is left undecided.
      if (!Array.isArray(value)) return true
      if (Object.hasOwn(schema, 'minContains') || Object.hasOwn(schema, 'maxContains')) return undefined
      let out: Tri = false
      for (const item of value) {
        if (budget.left < 0) return undefined
        const one = check(ctx, side, child(at, 'contains'), item, budget, depth + 1)
        if (one === true) return true
        if (one === undefined) out = undefined
      }
      return out
    }
    case 'dependentRequired':
    case 'dependentSchemas':
    case 'dependencies': {
      // Each entry applies when its member is present: a list of names it requires (dependentRequired,
      // or a dependencies entry that is a list), else a schema the whole object must pass.
      if (!isObject(value)) return true
      if (!isObject(k)) return undefined
      let out: Tri = true
      for (const member of Object.keys(k)) {
        if (--budget.left < 0) return and(out, undefined)
        if (!Object.hasOwn(value, member)) continue
        const entry = k[member]
        if (Array.isArray(entry) && key !== 'dependentSchemas') {
          if ((budget.left -= entry.length) < 0) return and(out, undefined)
          for (const name of entry) if (typeof name !== 'string') return undefined
          for (const name of entry) if (!Object.hasOwn(value, name)) return false
        } else if (key === 'dependentRequired') return undefined
        else out = and(out, check(ctx, side, child(at, key, member), value, budget, depth + 1))
        if (out === false) return false
      }
      return out
    }
    case 'minProperties':
    case 'maxProperties': {
      if (!isObject(value)) return true
      if (typeof k !== 'number') return undefined
      const count = Object.keys(value).length
      if ((budget.left -= count) < 0) return undefined
      return key === 'minProperties' ? count >= k : count <= k
    }
    case 'required': {
      if (!isObject(value)) return true
      if (!Array.isArray(k)) return undefined
      for (const name of k) {
        if (--budget.left < 0) return undefined
        if (typeof name !== 'string' || !Object.hasOwn(value, name)) return false
      }
      return true
    }
    case 'properties': {
      if (!isObject(value)) return true
      if (!isObject(k)) return undefined
      let out: Tri = true
      for (const name in value) {
        if (--budget.left < 0) return and(out, undefined)
        if (Object.hasOwn(k, name)) out = and(out, check(ctx, side, child(at, 'properties', name), value[name], budget, depth + 1))
      }
      return out
    }
    case 'patternProperties': {
      if (!isObject(value)) return true
      if (!isObject(k)) return undefined
      let out: Tri = true
      for (const pattern of Object.keys(k)) {
        const matcher = compile(pattern, openapi)
        if (!matcher) return undefined
        for (const name of Object.keys(value)) {
          if (--budget.left < 0 || name.length > MAX_MATCHED_TEXT) return and(out, undefined)
          const matched = matcher.test(name)
          if (matched === undefined) out = and(out, undefined)
          else if (matched) out = and(out, check(ctx, side, child(at, 'patternProperties', pattern), value[name], budget, depth + 1))
        }
      }
      return out
    }
    case 'additionalProperties': {
      if (!isObject(value)) return true
      const props = isObject(schema.properties) ? schema.properties : undefined
      let patterns: Matcher[] | undefined
      if (isObject(schema.patternProperties)) {
        patterns = []
        for (const pattern of Object.keys(schema.patternProperties)) {
          if (--budget.left < 0) return undefined
          const matcher = compile(pattern, openapi)
          if (!matcher) return undefined
          patterns.push(matcher)
        }
      }
      let out: Tri = true
      for (const name in value) {
        if ((budget.left -= 1 + (patterns?.length ?? 0)) < 0 || (patterns !== undefined && name.length > MAX_MATCHED_TEXT)) return and(out, undefined)
        if (props !== undefined && Object.hasOwn(props, name)) continue
        const matched = patterns === undefined ? false : matchesAny(patterns, name)
        if (matched === true) continue
        if (matched === undefined) {
          out = and(out, undefined)
          continue
        }
        out = and(out, check(ctx, side, child(at, 'additionalProperties'), value[name], budget, depth + 1))
      }
      return out
    }
    case 'propertyNames': {
      if (!isObject(value)) return true
      let out: Tri = true
      for (const name of Object.keys(value)) {
        if (budget.left < 0) return and(out, undefined)
        out = and(out, check(ctx, side, child(at, 'propertyNames'), name, budget, depth + 1))
      }
      return out
    }
    case 'allOf':
    case 'anyOf':
    case 'oneOf': {
      if (!Array.isArray(k) || k.length === 0) return undefined
      // Every member is judged (none skipped on an early answer: a later member's budget and depth
      // are spent as before), folded as the keyword combines them.
      let out: Tri = key === 'anyOf' ? false : true
      let accepted = 0
      let unknown = false
      for (let i = 0; i < k.length; i++) {
        // Past the budget every member left answers nothing: the verdict is what the others gave.
        if (budget.left < 0) {
          if (key === 'allOf') out = and(out, undefined)
          else if (key === 'anyOf') out = or(out, undefined)
          else unknown = true
          break
        }
        const one = check(ctx, side, child(at, key, i), value, budget, depth + 1)
        if (key === 'allOf') out = and(out, one)
        else if (key === 'anyOf') out = or(out, one)
        else if (one === undefined) unknown = true
        else if (one) accepted++
      }
      if (key !== 'oneOf') return out
      return unknown ? undefined : accepted === 1
    }
    case 'not': {
      const inner = check(ctx, side, child(at, 'not'), value, budget, depth + 1)
      return inner === undefined ? undefined : !inner
    }
    case 'if': {
      const test = check(ctx, side, child(at, 'if'), value, budget, depth + 1)
      if (test === undefined) return undefined
      return check(ctx, side, child(at, test ? 'then' : 'else'), value, budget, depth + 1)
    }
    case 'then':
    case 'else':
      return true
    default:
      return undefined
  }
}

const formatRegexes = new Map<string, RegExp>()
/** A checked string format's pattern, compiled once (its own, plain ASCII: no flag changes it). */
function formatRegex(format: string): RegExp {
  let regex = formatRegexes.get(format)
  if (!regex) formatRegexes.set(format, (regex = new RegExp(OPENAPI_FORMAT_PATTERNS[format]!)))
  return regex
}

/** A pattern's matcher, made once per pattern and dialect (null: it does not compile, or runs on no engine the diff may use). */
const compiled = new Map<string, Matcher | null>()

/** A pattern's test on a text: `undefined` when it cannot say (a linear match past its work bound, a text too long). */
interface Matcher {
  test(text: string): Tri
}

/** The longest text a pattern is tried on: a longer value or name is undecided (a cheap pattern still costs its length times its ways). */
const MAX_MATCHED_TEXT = 4_096

/** The pattern's matcher (`matcherFor`), made once per pattern and dialect. */
function compile(pattern: string, openapi: boolean): Matcher | undefined {
  if (pattern.length > 200) return undefined
  const key = `${openapi ? '' : 'u'}/${pattern}`
  let matcher = compiled.get(key)
  if (matcher === undefined) {
    try {
      matcher = matcherFor(pattern, openapi)
    } catch {
      matcher = null
    }
    if (compiled.size >= 1_000) compiled.clear()
    compiled.set(key, matcher)
  }
  // Neither flag makes a RegExp stateful (no `g`, no `y`), and a linear matcher's `undecided` is read
  // right after its own `test`: a matcher is safe to share.
  return matcher ?? undefined
}

/**
 * The pattern's matcher under the policy the generated validators follow (pattern-safety.ts): a
 * `RegExp` where the pattern is proven cheap for a backtracking engine, RE2's linear-time
 * automaton where the policy runs it there (a value past its work bound is undecided); anything
 * else (a budgeted pattern, one split at its lookaheads) leaves every value undecided, so no witness
 * and no verdict rests on it. JavaScript's matcher cannot be stopped once it runs: `^(a|a)*$`
 * doubles its time with each character of `aaaa…!`, and a 200-byte document listing such a value
 * held a diff for minutes. OpenAPI 3.0's patterns, read without the Unicode flag, are placed by
 * their Unicode-mode form, as the validators place them.
 */
function matcherFor(pattern: string, openapi: boolean): Matcher | null {
  let read = pattern
  if (openapi && leadingOptions(pattern) === undefined) {
    const unicode = unicodeModeSource(pattern)
    if (!unicode.ok) return null
    read = unicode.source
  }
  const engine = patternEngine(read)
  if (engine.engine === 'native' || engine.engine === 'rewritten') {
    const regex = expression(pattern, openapi)
    return regex ? { test: (text) => regex.test(text) } : null
  }
  if (engine.engine !== 'linear') return null
  const linear = linearBuildMatcher(engine.source)
  return {
    test: (text) => {
      const matched = linear.test(text)
      return linear.undecided ? undefined : matched
    },
  }
}

/**
 * A pattern as the checker and the validators read it: a leading inline options group (`(?i)`, as
 * .NET writes it) is those flags over the rest (pattern-dialect.ts), which a RegExp takes as its own
 * flags; JavaScript has no such group, and without this every witness through such a pattern was unsure.
 */
function expression(pattern: string, openapi: boolean): RegExp | null {
  const options = leadingOptions(pattern)
  if (options === undefined) return new RegExp(pattern, openapi ? '' : 'u')
  const rest = openapi ? unicodeModeSource(options.rest) : { ok: true as const, source: options.rest }
  return rest.ok ? new RegExp(rest.source, `u${options.flags}`) : null
}

/** The string's length in code points, as `[...value].length` counts it, without the array. */
function codePoints(value: string): number {
  let count = 0
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < value.length) {
      const d = value.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) i++
    }
    count++
  }
  return count
}

function arrayItems(
  ctx: SchemaDiffContext,
  side: SideName,
  at: SchemaAt,
  schema: Record<string, unknown>,
  key: string,
  value: unknown[],
  budget: CheckBudget,
  depth: number,
): Tri {
  // Read once, under `items`: the tuple form (prefixItems, or items as an array with additionalItems) and the rest.
  const tupleForm = Object.hasOwn(schema, 'prefixItems') ? 'prefixItems' : Array.isArray(schema.items) ? 'items' : undefined
  const restKey = tupleForm === 'items' ? 'additionalItems' : 'items'
  if (key !== (tupleForm ?? 'items') && !(key === 'items' && !tupleForm)) return true
  const tuple = tupleForm ? schema[tupleForm] : []
  if (!Array.isArray(tuple)) return undefined
  if (tupleForm === 'prefixItems' && Array.isArray(schema.items)) return undefined
  let out: Tri = true
  for (let i = 0; i < value.length; i++) {
    if (budget.left < 0) return and(out, undefined)
    const node = i < tuple.length ? child(at, tupleForm!, i) : child(at, restKey)
    if (i >= tuple.length && !Object.hasOwn(schema, restKey)) break
    out = and(out, check(ctx, side, node, value[i], budget, depth + 1))
    if (out === false) return false
  }
  return out
}
