/**
 * Pairing: compares one old schema node with one new one, once per (old pointer, new pointer,
 * polarity, merge mode), so `$ref` cycles end. A pair met again while it is still being compared (a
 * back edge of a cycle) is assumed equal for now (the coinductive reading: values are finite, so a
 * difference shows at some finite depth, and the running pair reports it); whatever summed up an
 * effect through that back edge is completed when the pair finishes.
 */
import type { SchemaEffect } from '../schema-diff-types.js'
import { isObject } from '../../../runtime/shared/json-value.js'
import { joinEffects } from './effect.js'
import { CONTAINER_KEYWORDS, OPENAPI_CHECKED_FORMATS, isAnnotation } from './keywords.js'
import {
  GENERIC_SITE,
  MAX_DEPTH,
  MAX_PAIRS,
  child,
  quote,
  type Frame,
  type PairResult,
  type SchemaAt,
  type SchemaDiffContext,
  type SideName,
  type Site,
} from './context.js'
import { jsonEqual, referenceFree } from './values.js'
import { representativeValues } from './witness-values.js'
import { fewValues } from './node-values.js'
import { sameNormalForm, writtenDifferently } from './normal-form.js'
import { minimalInstance } from './witness.js'
import { abandonRecording, finishRecording, noteKnown, noteNew, replay, startRecording, taint } from './memo-changed.js'

const UNKNOWN: PairResult = { effect: 'unknown', deps: new Set(), quiet: false }
const NONE: PairResult = { effect: 'none', deps: new Set(), quiet: true }

/**
 * Pairs proven equal with nothing to report, kept across calls for the same two documents: a
 * format diffs each payload with its own call, and most payloads reach the same unchanged
 * components. Keyed by the documents' identity (weakly: a document no longer held is dropped), on
 * the premise that a `$ref` in a given document resolves the same way in every call.
 */
const provenEqual = new WeakMap<object, WeakMap<object, Set<string>>>()

function provenSet(o: SchemaAt, n: SchemaAt, create: boolean): Set<string> | undefined {
  if (typeof o.document !== 'object' || o.document === null || typeof n.document !== 'object' || n.document === null) return undefined
  let inner = provenEqual.get(o.document)
  if (!inner) {
    if (!create) return undefined
    provenEqual.set(o.document, (inner = new WeakMap()))
  }
  let set = inner.get(n.document)
  if (!set) {
    if (!create) return undefined
    inner.set(n.document, (set = new Set()))
  }
  return set
}

/** What a node is as a schema: accepts anything, nothing, a schema object to compare, or something that is no schema. */
export type SchemaKind = 'true' | 'false' | 'object' | 'junk'

export function schemaKind(value: unknown, ctx: SchemaDiffContext): SchemaKind {
  if (value === undefined || value === true) return 'true'
  if (value === false) return 'false'
  if (!isObject(value)) return 'junk'
  let negated = false
  for (const key of Object.keys(value)) {
    if (isAnnotation(key, ctx.dialect) || CONTAINER_KEYWORDS.has(key) || constrainsNothing(key, value, ctx.dialect)) continue
    // `not` of a schema that accepts anything (`{not: {}}`) accepts nothing, as `false` does (an
    // outside pass: `additionalProperties: false` to `{not: {}}` was read as opening it).
    if (key === 'not' && schemaKind(value.not, ctx) === 'true') negated = true
    else return 'object'
  }
  return negated ? 'false' : 'true'
}

/**
 * Keywords no JSON Schema dialect defines that this project's validators leave out (`nullable`,
 * draft-04's `id`, ajv's `$async`), identifiers (`$id`, anchors) and `format` (an annotation here,
 * as the validators read it): beside annotations alone they leave a schema accepting every value,
 * so `{}` and `{nullable: true}` are one schema's kind, and the keywords are compared as keywords
 * (a `nullable` change is `unknown`, a `format` change `none`).
 */
const ACCEPT_ALL_JSON_SCHEMA: ReadonlySet<string> = new Set(['nullable', 'id', '$async', '$id', '$anchor', '$dynamicAnchor', '$recursiveAnchor', 'format'])
/**
 * In OpenAPI 3.0: `nullable` without a `type` adds nothing to what the rest accepts (3.0.3, Schema
 * Object: "only if `type` is explicitly defined"), and the other keywords above it does not define
 * are annotations; a `format` the Benzene validators check is a constraint.
 */
const ACCEPT_ALL_OPENAPI: ReadonlySet<string> = new Set(['nullable', 'id', '$async', '$id', '$anchor', '$dynamicAnchor', '$recursiveAnchor'])

function constrainsNothing(key: string, schema: Record<string, unknown>, dialect: SchemaDiffContext['dialect']): boolean {
  if (dialect === 'openapi-3.0') {
    if (key === 'format') return typeof schema.format === 'string' && !OPENAPI_CHECKED_FORMATS.has(schema.format)
    return ACCEPT_ALL_OPENAPI.has(key) && (key !== 'nullable' || !Object.hasOwn(schema, 'type'))
  }
  return ACCEPT_ALL_JSON_SCHEMA.has(key)
}

/** Whether `equalMember` answers for its callers (off only to compare against the plain walk, in tests). */
export const equalMemberShortcut = { enabled: true, taken: 0 }

/**
 * Two members of schema objects about to be compared (`compareNode` on `child(o, ...)` and
 * `child(n, ...)`), answered without making their locations, frame, sentence or pair key when
 * their values are equal schema objects with no reference: what `compareNode` does with such a
 * pair met for the first time in a call (the only way a member pair is met: its parent pair is
 * compared once per call) is count a pair, spend the equal-subtree shortcut's work, record the pair
 * as equal and report nothing. This does the counting and spending and reports nothing; the record
 * only served a later meeting, which does not come. False (the caller compares the pair) wherever
 * the walk could do anything else: the call stopped, a cap reached or about to be, a node past the
 * depth cap, a value that is no schema object, a subtree too big for the shortcut's budget.
 */
export function equalMember(ctx: SchemaDiffContext, oValue: unknown, nValue: unknown, depth: number): boolean {
  if (!equalMemberShortcut.enabled || ctx.stopped || ctx.budget.left < 0 || depth > MAX_DEPTH || ctx.pairs + 1 > MAX_PAIRS) return false
  if (!isObject(oValue) || !isObject(nValue) || schemaKind(oValue, ctx) !== 'object') return false
  if (!equalWithoutReferences(ctx, oValue, nValue)) return false
  ctx.pairs++
  equalMemberShortcut.taken++
  return true
}

/**
 * Values a schema that replaces (or is replaced by) one that admits nothing may be shown to admit:
 * the values it lists (a `const` branch added to a `oneOf`: that value), its minimal instance, then
 * the generic ones.
 */
function admittedValues(ctx: SchemaDiffContext, side: SideName, at: SchemaAt): unknown[] {
  const listed = isObject(at.value) ? (fewValues(at.value) ?? []).slice(0, 8) : []
  return [...listed, minimalInstance(ctx, side, at, 0), ...representativeValues()]
}

/** Compares two nodes; its result is the effect on the whole schema of everything that changed below. */
export function compareNode(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame, site: Site = GENERIC_SITE): PairResult {
  if (ctx.stopped) return UNKNOWN
  // Where both hold a double negation (beside other keywords, say), they are compared as written:
  // unwrapping one side alone paired its X with the other side's whole node (the implied-bounds
  // oracle: a `minimum` removed beside `{not: {not: X}}` also read as a type narrowed).
  if (!holdsDoubleNegation(o.value) || !holdsDoubleNegation(n.value)) {
    o = withoutDoubleNegation(o)
    n = withoutDoubleNegation(n)
  }
  if (ctx.budget.left < 0) {
    ctx.stop('the work budget ran out', o, n)
    return UNKNOWN
  }
  const oKind = schemaKind(o.value, ctx)
  const nKind = schemaKind(n.value, ctx)
  if (frame.depth > MAX_DEPTH) {
    // Past the cap nothing recurses, so one scan with the whole budget may still prove the rest equal.
    if (referenceFree(o.value, ctx.budget) === true && referenceFree(n.value, ctx.budget) === true && jsonEqual(o.value, n.value, ctx.budget) === true)
      return NONE
    return single(ctx.emit('schema-not-compared', 'unknown', o, undefined, n, undefined, frame, `the schemas nest deeper than ${MAX_DEPTH} levels here`))
  }
  if (oKind === 'junk' || nKind === 'junk') {
    if (jsonEqual(o.value, n.value, ctx.budget) === true) return NONE
    return single(ctx.emit('schema-keyword-changed', 'unknown', o, undefined, n, undefined, frame, 'a value that is no schema changed'))
  }
  const where = site.what ? `${site.what}: ` : ''
  // A schema that accepts anything (or nothing), written another way in one version (`allOf: [{}]`,
  // an `anyOf` of every type; `allOf: [{not: {}}]` against `not: {}`): nothing moves.
  const plain = oKind === 'object' ? nKind : nKind === 'object' ? oKind : undefined
  if (oKind !== nKind && o.value !== undefined && n.value !== undefined && (plain === 'true' || plain === 'false') && sameNormalForm(ctx, o, n))
    return single(
      ctx.emit(
        'schema-keyword-rewritten',
        'none',
        o,
        undefined,
        n,
        undefined,
        frame,
        `${where}the schema accepts ${plain === 'true' ? 'anything' : 'nothing'} in both versions, written another way`,
      ),
    )
  if (oKind !== 'object' || nKind !== 'object') {
    if (site.text !== undefined && oKind !== nKind) {
      const effect = oKind === 'true' || nKind === 'false' ? 'narrows' : 'widens'
      const values = representativeValues()
      return single(
        ctx.emit(effect === 'narrows' ? site.narrow : site.widen, effect, o, undefined, n, undefined, frame, site.text, () => [
          { acceptedBy: effect === 'narrows' ? 'old' : 'new', values },
        ]),
      )
    }
    if (oKind === nKind) {
      if (oKind === 'true' && isObject(o.value) && isObject(n.value)) ctx.compareKeywords(ctx, o, n, frame)
      return NONE
    }
    if (oKind === 'true') {
      // Anything was accepted: a schema (or `false`) now constrains.
      const text =
        nKind === 'false' ? `${where}the schema is now \`false\` where anything was accepted` : `${where}a schema now constrains what anything could be`
      return single(ctx.emit(site.narrow, 'narrows', o, undefined, n, undefined, frame, text, () => [{ acceptedBy: 'old', values: representativeValues() }]))
    }
    if (oKind === 'false') {
      const text =
        nKind === 'true' ? `${where}the schema was \`false\` and now accepts anything` : `${where}a schema now accepts values where \`false\` accepted none`
      return single(
        ctx.emit(site.widen, 'widens', o, undefined, n, undefined, frame, text, () => [{ acceptedBy: 'new', values: admittedValues(ctx, 'new', n) }]),
      )
    }
    if (nKind === 'true') {
      return single(
        ctx.emit(site.widen, 'widens', o, undefined, n, undefined, frame, `${where}the schema was removed and anything is accepted`, () => [
          { acceptedBy: 'new', values: representativeValues() },
        ]),
      )
    }
    return single(
      ctx.emit(site.narrow, 'narrows', o, undefined, n, undefined, frame, `${where}the schema is now \`false\``, () => [
        { acceptedBy: 'old', values: admittedValues(ctx, 'old', o) },
      ]),
    )
  }
  return comparePair(ctx, o, n, frame)
}

/**
 * `{not: {not: X}}` admits exactly what X admits: compared as X (an outside pass found `type:
 * integer` against its double negation reported as breaking both ways). Only a node whose one
 * keyword is `not`, twice over; the pointers name X where it is written.
 */
function withoutDoubleNegation(at: SchemaAt): SchemaAt {
  let node = at
  // Bounded: each turn goes two levels down a finite document.
  for (;;) {
    const outer = node.value
    if (!isObject(outer) || !onlyNot(outer) || !isObject(outer.not) || !onlyNot(outer.not)) return node
    node = child(node, 'not', 'not')
  }
}

/** Whether a node has `not` whose schema holds `not` alone. */
const holdsDoubleNegation = (value: unknown): boolean => isObject(value) && Object.hasOwn(value, 'not') && isObject(value.not) && onlyNot(value.not)

/** Whether `not` is a node's one member (asked of every node compared: no key list made). */
const onlyNot = (node: Record<string, unknown>): boolean => {
  if (!Object.hasOwn(node, 'not')) return false
  for (const key in node) if (key !== 'not' && Object.hasOwn(node, key)) return false
  return true
}

function single(change: { effect: SchemaEffect } | undefined): PairResult {
  return change ? { effect: change.effect, deps: new Set(), quiet: false } : UNKNOWN
}

/**
 * Each file named in a pair key by a short number of its own, for the life of the process: a key
 * is made for every pair of nodes compared, and two absolute paths made most of its length. Files
 * are few (a document and its locked files), and a number is never given to another file, so keys
 * kept across calls (`provenEqual`, memo-changed.ts) keep their meaning.
 */
const fileIds = new Map<string, string>()

function fileId(file: string): string {
  let id = fileIds.get(file)
  if (id === undefined) fileIds.set(file, (id = fileIds.size.toString(36)))
  return id
}

function pairKey(o: SchemaAt, n: SchemaAt, frame: Frame): string {
  return `${frame.polarity}|${frame.merged ? 'm' : ''}|${fileId(o.file)}#${o.pointer}|${fileId(n.file)}#${n.pointer}`
}

/** A pair met before (or proven equal in an earlier call): its result, joined into the running pair's. */
function known(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, key: string): PairResult | undefined {
  const top = ctx.accumulators[ctx.accumulators.length - 1]!
  const seen = ctx.memo.get(key)
  if (seen === 'running' || seen === 'queued') {
    taint(ctx)
    top.deps.add(key)
    return { effect: 'none', deps: new Set([key]), quiet: true }
  }
  if (seen) {
    noteKnown(ctx, key)
    const settled = settle(ctx, seen)
    top.effect = joinEffects(top.effect, settled.effect)
    top.quiet &&= settled.quiet
    for (const dep of settled.deps) top.deps.add(dep)
    return settled
  }
  if (provenSet(o, n, false)?.has(`${ctx.dialect}|${ctx.refSiblings}|${key}`)) {
    noteNew(ctx, key)
    ctx.memo.set(key, NONE)
    return NONE
  }
  return undefined
}

/**
 * Compares the targets of a `$ref` pair later, from the top (`runQueue`), not inside this call: a
 * chain of references (S0 → S1 → ... → S199) then costs no stack, only the depth of one schema's
 * own nesting. Until it runs, the pair counts as a dependency, completed as a back edge is.
 */
export function compareLater(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame, site: Site = GENERIC_SITE): PairResult {
  if (ctx.stopped) return UNKNOWN
  if (schemaKind(o.value, ctx) !== 'object' || schemaKind(n.value, ctx) !== 'object') return compareNode(ctx, o, n, frame, site)
  const key = pairKey(o, n, frame)
  const hit = known(ctx, o, n, key)
  if (hit) return hit
  // A settled pair's effect counts toward the pair that reached it, as a pair met before does
  // (`known`): returned alone, it was lost wherever the caller ignored the result (a `$ref` to the
  // same target), so a component naming a changed one was settled as unchanged and then proven
  // equal for every later call of the two documents, hiding the change from a payload walked whole.
  const settled = settledEffect(ctx, key, frame)
  if (settled) {
    foldInto(ctx.accumulators[ctx.accumulators.length - 1]!, settled)
    return settled
  }
  // A pair below a recorded one queued: the recorded pair's effect waits on it, so it is not settled alone.
  taint(ctx)
  ctx.memo.set(key, 'queued')
  ctx.queue.push({ o, n, frame: { ...frame, depth: 0 } })
  ctx.accumulators[ctx.accumulators.length - 1]!.deps.add(key)
  return { effect: 'none', deps: new Set([key]), quiet: true }
}

/**
 * The whole effect of comparisons already made on their own for the same two documents (a format
 * compares each component once, `SchemaDiffOptions.settled`), by pair: a later comparison that
 * reaches one of them through a `$ref` takes its effect instead of walking it again and reporting
 * its changes a second time (the first comparison reported them, with every party; a format merges
 * the same change found twice). A chain of components S0 -> S1 -> ... compared one by one was
 * quadratic in the chain's length (3 minutes for 1,600 links); dependencies first, it is linear.
 */
export class SettledComparisons {
  readonly effects = new Map<string, { effect: SchemaEffect; quiet: boolean }>()
}

/** The key a whole comparison of `o` and `n` is kept under, from the top (`frame` the top's). */
export function settledKey(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame): string {
  return `${ctx.dialect}|${ctx.refSiblings}|${pairKey(o, n, frame)}`
}

/** A settled comparison's effect, where the frame is the one it was made from (positive, plain, unmerged). */
function settledEffect(ctx: SchemaDiffContext, key: string, frame: Frame): PairResult | undefined {
  if (ctx.settled === undefined || frame.polarity !== 'pos' || frame.merged || frame.why !== undefined || frame.path === null) return undefined
  const settled = ctx.settled.effects.get(`${ctx.dialect}|${ctx.refSiblings}|${key}`)
  if (settled === undefined) return undefined
  // What the call finds now depends on another call's result: no recording of it is replayed elsewhere.
  taint(ctx)
  return { effect: settled.effect, deps: new Set(), quiet: settled.quiet }
}

/** Runs the deferred `$ref` pairs, first in first out (deterministic), until none is left. */
export function runQueue(ctx: SchemaDiffContext): void {
  // Bounded: each pair is queued once, and MAX_PAIRS bounds the pairs.
  while (ctx.queue.length && !ctx.stopped) {
    const { o, n, frame } = ctx.queue.shift()!
    const key = pairKey(o, n, frame)
    // A `$ref` target pair (a shared component) settled in an earlier call for the same documents: replayed (memo-changed.ts).
    const replayed = replay(ctx, o, n, frame, key, complete)
    if (replayed) foldInto(ctx.accumulators[ctx.accumulators.length - 1]!, replayed)
    else run(ctx, o, n, frame, key, true)
  }
}

function comparePair(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame): PairResult {
  const key = pairKey(o, n, frame)
  return known(ctx, o, n, key) ?? run(ctx, o, n, frame, key)
}

function run(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame, key: string, record = false): PairResult {
  const top = ctx.accumulators[ctx.accumulators.length - 1]!
  const provenKey = `${ctx.dialect}|${ctx.refSiblings}|${key}`
  noteNew(ctx, key)
  if (++ctx.pairs > MAX_PAIRS) {
    ctx.stop(`more than ${MAX_PAIRS} pairs of schema nodes`, o, n)
    return UNKNOWN
  }
  if (equalWithoutReferences(ctx, o.value, n.value)) {
    complete(ctx, key, NONE)
    return NONE
  }
  ctx.memo.set(key, 'running')
  const recording = record ? startRecording(ctx, o, n, frame, key) : undefined
  const acc = { effect: 'none' as SchemaEffect, deps: new Set<string>(), quiet: true }
  ctx.accumulators.push(acc)
  let compared = false
  try {
    // The same schema written another way (an allOf merged, a type list as branches): one change that moves nothing.
    if (writtenDifferently(o.value, n.value) && sameNormalForm(ctx, o, n))
      ctx.emit('schema-keyword-rewritten', 'none', o, undefined, n, undefined, frame, 'the schema is written another way and admits the same values')
    else ctx.compareKeywords(ctx, o, n, frame)
    compared = true
  } finally {
    ctx.accumulators.pop()
    if (recording && !compared) abandonRecording(ctx, recording)
  }
  acc.deps.delete(key)
  const result: PairResult = { effect: acc.effect, deps: acc.deps, quiet: acc.quiet }
  complete(ctx, key, result)
  if (recording) finishRecording(ctx, recording, result)
  if (result.quiet && result.effect === 'none' && result.deps.size === 0 && !ctx.stopped) provenSet(o, n, true)?.add(provenKey)
  foldInto(top, result)
  return result
}

function foldInto(top: { effect: SchemaEffect; deps: Set<string>; quiet: boolean }, result: PairResult): void {
  top.effect = joinEffects(top.effect, result.effect)
  top.quiet &&= result.quiet
  for (const dep of result.deps) top.deps.add(dep)
}

/** Records a pair's result and completes the summaries that waited for it. */
function complete(ctx: SchemaDiffContext, key: string, result: PairResult): void {
  ctx.memo.set(key, result)
  const waiting = ctx.waiting.get(key)
  if (!waiting) return
  ctx.waiting.delete(key)
  for (const change of waiting) {
    change.effect = joinEffects(change.effect, result.effect)
    for (const dep of result.deps) wait(ctx, dep, change)
  }
}

/**
 * The shortcut for equal subtrees, tried within a small budget of its own: a big subtree that
 * differs somewhere deep is then compared member by member instead of scanned again at every level
 * (which made a 10,000-deep schema quadratic).
 */
const SHORTCUT_BUDGET = 2_000

/** The shortcut's budget, one object for every call (none of the scans it is lent to calls back). */
const local = { left: 0 }

export function equalWithoutReferences(ctx: SchemaDiffContext, a: unknown, b: unknown): boolean {
  local.left = Math.min(SHORTCUT_BUDGET, ctx.budget.left)
  const start = local.left
  const same = referenceFree(a, local) === true && referenceFree(b, local) === true && jsonEqual(a, b, local) === true
  ctx.budget.left -= start - Math.max(local.left, 0)
  return same
}

/** A finished pair's effect with the pairs it waited for that have finished since folded in. */
function settle(ctx: SchemaDiffContext, result: PairResult): PairResult {
  if (result.deps.size === 0) return result
  let effect = result.effect
  let quiet = result.quiet
  const deps = new Set<string>()
  const queue = [...result.deps]
  const visited = new Set<string>(queue)
  // Bounded: each key is queued once.
  while (queue.length) {
    const dep = queue.pop()!
    const done = ctx.memo.get(dep)
    if (done === 'running' || done === 'queued' || done === undefined) deps.add(dep)
    else {
      effect = joinEffects(effect, done.effect)
      quiet &&= done.quiet
      for (const next of done.deps) {
        if (visited.has(next)) continue
        visited.add(next)
        queue.push(next)
      }
    }
  }
  return { effect, deps, quiet }
}

function wait(ctx: SchemaDiffContext, key: string, change: NonNullable<ReturnType<SchemaDiffContext['emit']>>): void {
  taint(ctx)
  const list = ctx.waiting.get(key)
  if (list) list.push(change)
  else ctx.waiting.set(key, [change])
}

/**
 * Compares two nodes and reports the position itself under `site.summary` with the effect of
 * everything below (a `$ref` retargeted: none when the targets are equal).
 */
export function compareSummarized(
  ctx: SchemaDiffContext,
  o: SchemaAt,
  n: SchemaAt,
  frame: Frame,
  site: Site & { summary: string },
  report: { o: SchemaAt; oKey?: string; n: SchemaAt; nKey?: string; what: string },
  later = false,
): PairResult {
  const oKind = schemaKind(o.value, ctx)
  const nKind = schemaKind(n.value, ctx)
  // Where one side accepts anything or nothing and the other does not, compareNode reports under the site's own rules.
  if ((oKind !== 'object' || nKind !== 'object') && oKind !== nKind) return compareNode(ctx, o, n, frame, { ...site, text: report.what })
  const result = later ? compareLater(ctx, o, n, frame, site) : compareNode(ctx, o, n, frame, site)
  const settled = settle(ctx, result)
  const change = ctx.emit(site.summary, settled.effect, report.o, report.oKey, report.n, report.nKey, frame, report.what, undefined, true)
  if (change) for (const dep of settled.deps) wait(ctx, dep, change)
  return settled
}

export { quote }
