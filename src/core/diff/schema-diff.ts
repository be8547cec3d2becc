/**
 * The directional JSON Schema diff: which values a schema accepts in one version and not in the
 * other, as named changes with an effect (`widens`, `narrows`, `both`, `none`, `unknown`), the
 * keyword's location in each version, and a witness value where one is cheap and certain.
 *
 * Reads JSON Schema (draft-07 to 2020-12 keywords) and OpenAPI 3.0 Schema Objects (`nullable`, the
 * boolean `exclusiveMinimum`, `discriminator` with `mapping`). The parts live in `schema/`, one
 * file per concern; the worst case and the caps are stated in `schema/context.ts`.
 */
import type { DiffSchemas, SchemaChange, SchemaDiffOptions, SchemaDiffRule, SchemaSide } from './schema-diff-types.js'
import { MAX_DOCUMENT_CHANGES, MAX_VALUE_CHECKS, SchemaDiffContext, type Frame } from './schema/context.js'
import { compareSchemaObjects } from './schema/node.js'
import { compareNode, equalWithoutReferences, runQueue, settledKey } from './schema/pair.js'
import { refSiblingsMode } from './schema/resolve.js'
import { SCHEMA_RULES } from './schema/rules.js'
import { readPointer } from './schema/values.js'
import { findWitness } from './schema/witness.js'
import { acceptsValue } from './schema/accepts.js'
import { patternLengths } from './schema/pattern.js'

export const SCHEMA_DIFF_RULES: readonly SchemaDiffRule[] = SCHEMA_RULES

/** Each rule's nominal effect (at the top of a schema), for a catalogue that wants to show it. */
export { SCHEMA_RULE_EFFECTS } from './schema/rules.js'
export { SettledComparisons } from './schema/pair.js'

/** Comparisons of one version's members with each other (`subsumed`) in one diff. */
const MAX_SUBSUMED = 64

export const diffSchemas: DiffSchemas = (old, next, options = {}) => compare(old, next, options, false)

function compare(old: SchemaSide, next: SchemaSide, options: SchemaDiffOptions, nested: boolean): SchemaChange[] {
  const dialect = options.dialect ?? 'json-schema'
  // Both versions are read the same way; a version that declares a draft decides for both only when they agree.
  const oldMode = refSiblingsMode(old, dialect)
  const newMode = refSiblingsMode(next, dialect)
  const ctx = new SchemaDiffContext(old, next, dialect, oldMode === newMode ? oldMode : 'unknown', findWitness, compareSchemaObjects)
  ctx.int64 = options.int64
  ctx.priorValidationSteps = options.tally?.validationSteps ?? 0
  ctx.priorNormalFormNodes = options.tally?.normalFormNodes ?? 0
  ctx.accepts = (side, at, value) => (ctx.valueChecks++ < MAX_VALUE_CHECKS && ctx.mayValidate() ? acceptsValue(ctx, side, at, value) : undefined)
  ctx.patternLengths = (pattern) => patternLengths(ctx, pattern)
  // A member of one version against another member of it (composition.ts: a branch that another
  // already covers adds nothing): a comparison of its own, never nested, at most MAX_SUBSUMED.
  let subsumedLeft = MAX_SUBSUMED
  ctx.subsumed = nested
    ? undefined
    : (side, at, inner, outer) => {
        const base = side === 'old' ? old : next
        if (--subsumedLeft < 0 || at.file !== base.file || at.document !== base.document) return false
        const changes = compare({ ...base, pointer: outer }, { ...base, pointer: inner }, options, true)
        return changes.every((c) => c.effect === 'none' || c.effect === 'narrows')
      }
  const frame: Frame = { polarity: 'pos', depth: 0, path: [], merged: false }
  const o = { file: old.file, document: old.document, pointer: old.pointer, value: safeRead(old.document, old.pointer) }
  const n = { file: next.file, document: next.document, pointer: next.pointer, value: safeRead(next.document, next.pointer) }
  ctx.settled = nested ? undefined : options.settled
  try {
    // Past the document's bound on changes, a pair is compared no further: written the same (no
    // reference to follow), it has none; else one change says the comparison stopped.
    if (!nested && (options.tally?.changes ?? 0) >= MAX_DOCUMENT_CHANGES) {
      if (!equalWithoutReferences(ctx, o.value, n.value))
        ctx.stop(`the document's schema diffs reported ${MAX_DOCUMENT_CHANGES.toLocaleString('en-US')} changes, their bound`, o, n)
    } else {
      compareNode(ctx, o, n, frame)
      runQueue(ctx)
    }
  } catch (error) {
    // Never throw on what a schema holds: a stack overflow on a pathological input becomes one unknown change.
    if (!(error instanceof RangeError)) throw error
    ctx.stop('the schemas are nested too deeply to compare', o, n)
  }
  // The whole comparison's effect, for later calls that reach this pair through a `$ref`.
  if (options.tally && !nested) options.tally.pairs += ctx.pairs
  if (options.tally) {
    options.tally.validationSteps = (options.tally.validationSteps ?? 0) + ctx.validationSteps
    options.tally.normalFormNodes = (options.tally.normalFormNodes ?? 0) + ctx.normalFormNodes
  }
  if (options.settled && !nested && !ctx.stopped) {
    const top = ctx.accumulators[0]!
    options.settled.effects.set(settledKey(ctx, o, n, frame), { effect: top.effect, quiet: top.quiet })
  }
  const changes: SchemaChange[] = ctx.finish()
  if (options.tally && !nested) options.tally.changes = (options.tally.changes ?? 0) + changes.length
  return changes
}

/**
 * The pairs of schema nodes a format's comparisons of one document may take together (each call has
 * its own caps, but a document can ask for many calls that each reach the same long run of
 * schemas: a chain of components, or a thousand channels naming it): a base any document gets and
 * 8 per member of the schemas in both versions (`members`). Realistic documents take well under one
 * pair per member (test/diff-settled-components.test.ts measures); past the bound, a format reports
 * what it did not compare as `schema-not-compared`. `scale`: for a format whose calls each walk what
 * their payload reaches (NATS reports a change once per message reaching it: 400 messages naming
 * one 400-component tree take about 25 pairs per member, honestly).
 */
export function documentPairBound(members: number, scale = 1): number {
  return scale * (100_000 + 8 * members)
}

/** The members (object keys and array items) of JSON values, counted by a stack: O(their size). */
export function countMembers(...values: unknown[]): number {
  let count = 0
  const stack = [...values]
  while (stack.length > 0) {
    const value = stack.pop()
    if (typeof value !== 'object' || value === null) continue
    const children = Array.isArray(value) ? value : Object.values(value)
    count += children.length
    for (const child of children) stack.push(child)
  }
  return count
}

function safeRead(document: unknown, pointer: string): unknown {
  try {
    return readPointer(document, pointer)
  } catch {
    return undefined
  }
}

/**
 * Whether the schema of `side` accepts `value`, when the engine's validator is certain (undefined
 * otherwise: a keyword it does not decide, a budget reached). For a format that must tell whether
 * a value one schema accepts is refused by each of several others (a message removed from a
 * channel whose other messages may still carry its payloads). Bounded as one validation of the
 * engine (5,000 steps); never throws.
 */
export function schemaAccepts(side: SchemaSide, value: unknown, options: SchemaDiffOptions = {}): boolean | undefined {
  const dialect = options.dialect ?? 'json-schema'
  const ctx = new SchemaDiffContext(side, side, dialect, refSiblingsMode(side, dialect), findWitness, compareSchemaObjects)
  ctx.int64 = options.int64
  try {
    return acceptsValue(ctx, 'old', { file: side.file, document: side.document, pointer: side.pointer, value: safeRead(side.document, side.pointer) }, value)
  } catch (error) {
    if (error instanceof RangeError) return undefined
    throw error
  }
}
