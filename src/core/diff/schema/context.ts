/**
 * The state of one schema diff: both sides, the caps, the pairs already compared, and the changes
 * found so far.
 *
 * Cost: each (old node, new node, polarity, merge mode) is compared once (`memo`), so the work is
 * at most linear in the product of the nodes paired by name, index or `$ref`, and each pair's own
 * work is linear in its keywords. The caps below bound even that: MAX_PAIRS pairs, MAX_DEPTH
 * nested pairs within one schema (`$ref` targets start again from a queue, so the stack holds one
 * schema's nesting, not a chain of references), MAX_CHANGES changes, and MAX_WORK nodes visited by
 * the value comparisons (the equal-subtree shortcut spends at most 2,000 per pair). Past a cap the
 * rest is one `schema-not-compared` change with effect `unknown`: never silence.
 */
import type { SchemaChange, SchemaEffect, SchemaSide } from '../schema-diff-types.js'
import { escapeToken } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../../../runtime/shared/json-value.js'
import { composePolarity, effectPhrase, joinEffects, throughPolarity, type Polarity } from './effect.js'
import { gateReason, gatedEffect } from './type-gate.js'
import type { Budget } from './values.js'

export const MAX_DEPTH = 256
export const MAX_PAIRS = 20_000
export const MAX_CHANGES = 1_000
export const MAX_WORK = 4_000_000
/** Witness searches per diff (each runs two bounded validations per candidate). */
export const MAX_WITNESS_SEARCHES = 200
/**
 * Steps of validation (witnesses and the values judged to tell whether a change moves any, accepts.ts)
 * in all the calls of one document's diff (`SchemaDiffOptions.tally`), or in one call without it:
 * past it, changes have no witness and are kept as their keywords read. The 5,000-channel bench
 * diff, every payload changed, takes about a million.
 */
export const MAX_DOCUMENT_VALIDATION_STEPS = 8_000_000
/**
 * Changes all the calls of one document's diff may report together (`SchemaDiffOptions.tally`;
 * MAX_CHANGES bounds one call): past it, each further pair written differently is one
 * `schema-not-compared` change. A hundred channels each with a payload of a thousand changed
 * properties gave 100,000 findings and took 2 GB; the 5,000-channel bench diff, every payload
 * changed, reports about 12,000.
 */
export const MAX_DOCUMENT_CHANGES = 50_000
/**
 * Values judged against a node per diff to tell whether a change moves any (type-gate.ts, enum.ts),
 * each one bounded validation: past it a change is kept as the keyword reads (never dropped).
 */
export const MAX_VALUE_CHECKS = 2_000
/** Patterns turned into automata per diff (each bounded by regex-language.ts's state caps); past it, a pattern change is not decided. */
export const MAX_PATTERN_DECISIONS = 64

export type Dialect = 'json-schema' | 'openapi-3.0'
/** How keywords beside a `$ref` read: applied (2019-09 and later), ignored (draft-07, OpenAPI 3.0), or not known. */
export type RefSiblings = 'apply' | 'ignore' | 'unknown'
export type SideName = 'old' | 'new'

/** A schema node in one version: where it is and its value (`undefined` when absent: accepts anything). */
export interface SchemaAt {
  file: string
  document: unknown
  pointer: string
  value: unknown
}

/**
 * A step from the root value to the value a node validates, with the schema of the object or
 * array it steps into in each version (a witness builds a missing container from it).
 */
export type PathStep = ({ property: string } | { item: number }) & { holder?: { old: SchemaAt; new: SchemaAt } }

export interface Frame {
  polarity: Polarity
  depth: number
  /** Steps from the root value to the value this node validates; `null` when no plain path leads there. */
  path: readonly PathStep[] | null
  /** OpenAPI 3.0 `allOf` member: the members' property lists merge, so adding or removing one has no provable direction. */
  merged: boolean
  /** Why the polarity is not `pos`, for the sentence. */
  why?: string
}

/** The rules a position reports a whole schema appearing, disappearing or being replaced under. */
export interface Site {
  /** The new schema constrains where the old accepted anything (`true`/absent → schema, anything → `false`). */
  narrow: string
  /** The reverse. */
  widen: string
  /** Reported with the summed effect when both sides are schemas compared member by member (a `$ref` retargeted, a property moved). */
  summary?: string
  /** Names the position in a sentence (e.g. `property "id"`). */
  what?: string
  /** The whole sentence's subject when one side accepts anything or nothing (e.g. `property "id" was added`). */
  text?: string
}

export const GENERIC_SITE: Site = { narrow: 'schema-constraint-added', widen: 'schema-constraint-removed' }

/** Local values that may prove a change, each for the side that should accept it. */
export interface Candidates {
  acceptedBy: SideName
  values: readonly unknown[]
}

/** A change before its sentence is final (its effect can still grow when a recursive pair completes). */
export interface PendingChange {
  rule: string
  effect: SchemaEffect
  old: { file: string; pointer: string }
  new: { file: string; pointer: string }
  what: string
  why?: string
  witness?: { value: unknown; acceptedBy: SideName }
  /** For a change that moves values both ways, a witness accepted by the other version. */
  otherWitness?: { value: unknown; acceptedBy: SideName }
}

/** A pair's result: its effect, and the still-running pairs (back edges of a cycle) it depends on. */
export interface PairResult {
  effect: SchemaEffect
  deps: ReadonlySet<string>
  /** No change at all was found below (not even an annotation). */
  quiet: boolean
}

/** Compares two schema objects keyword by keyword (set by the engine: keeps this file free of the comparers). */
export type KeywordComparer = (ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame, siblingsOnly?: boolean) => void

/** `nodes`: the node the candidates are local to, in each version (the search may check a candidate there first). */
export type WitnessFinder = (
  ctx: SchemaDiffContext,
  frame: Frame,
  wanted: SchemaEffect,
  candidates: readonly Candidates[],
  nodes?: { old: SchemaAt; new: SchemaAt },
) => PendingChange['witness']

export class SchemaDiffContext {
  readonly changes: PendingChange[] = []
  readonly budget: Budget = { left: MAX_WORK }
  readonly memo = new Map<string, PairResult | 'running' | 'queued'>()
  /** `$ref` target pairs waiting to be compared from the top (pair.ts, `compareLater`). */
  readonly queue: Array<{ o: SchemaAt; n: SchemaAt; frame: Frame }> = []
  /** Summary changes waiting for a running pair's effect. */
  readonly waiting = new Map<string, PendingChange[]>()
  /** The running pairs' accumulated effects, innermost last. */
  readonly accumulators: Array<{ effect: SchemaEffect; deps: Set<string>; quiet: boolean }> = [{ effect: 'none', deps: new Set(), quiet: true }]
  pairs = 0
  witnessSearches = 0
  /** Steps of the validations this diff made (accepts.ts), for the document's bound (MAX_DOCUMENT_VALIDATION_STEPS). */
  validationSteps = 0
  /** Steps the document's earlier calls made (their tally's). */
  priorValidationSteps = 0
  patternDecisions = 0
  /** Schema nodes walked for normal forms (normal-form.ts, MAX_NORMAL_FORM_NODES). */
  normalFormNodes = 0
  /** Nodes the document's earlier calls walked for normal forms (their tally's: MAX_DOCUMENT_NORMAL_FORM_NODES). */
  priorNormalFormNodes = 0
  /** OpenAPI 3.0: how `format: int64` is checked (SchemaDiffOptions.int64); unset when not known. */
  int64: 'number' | 'string' | undefined
  stopped: string | undefined
  valueChecks = 0
  /**
   * Whether a node accepts a value, when certain (accepts.ts, set by schema-diff.ts; undefined past
   * MAX_VALUE_CHECKS): what the type gate and the enum comparison judge listed values with.
   */
  accepts: ((side: SideName, at: SchemaAt, value: unknown) => boolean | undefined) | undefined
  /** The lengths of the strings a pattern admits, when decided (pattern.ts, set by schema-diff.ts): what the type gate reads a `pattern`'s length bound from. */
  patternLengths: ((pattern: string) => { min: number; max: number } | undefined) | undefined
  /**
   * Whether, in one version, the schema at `inner` accepts no value the one at `outer` refuses (a
   * bounded comparison of the two within that version's document); false when unsure. Set by
   * diffSchemas for the outermost comparison only.
   */
  subsumed: ((side: SideName, at: SchemaAt, inner: string, outer: string) => boolean) | undefined
  /** Whole comparisons made earlier for the same documents (pair.ts, `SettledComparisons`). */
  settled: { readonly effects: ReadonlyMap<string, { effect: SchemaEffect; quiet: boolean }> } | undefined

  constructor(
    readonly old: SchemaSide,
    readonly next: SchemaSide,
    readonly dialect: Dialect,
    readonly refSiblings: RefSiblings,
    readonly findWitness: WitnessFinder,
    readonly compareKeywords: KeywordComparer,
  ) {}

  side(name: SideName): SchemaSide {
    return name === 'old' ? this.old : this.next
  }

  /** Stops the comparison once, with one change that says where and why. */
  stop(reason: string, o: SchemaAt, n: SchemaAt): void {
    if (this.stopped) return
    this.stopped = reason
    const top = this.accumulators[this.accumulators.length - 1]!
    top.effect = 'unknown'
    top.quiet = false
    this.changes.push({
      rule: 'schema-not-compared',
      effect: 'unknown',
      old: { file: o.file, pointer: o.pointer },
      new: { file: n.file, pointer: n.pointer },
      what: `the comparison stopped here (${reason})`,
    })
  }

  /**
   * Records a change. `local` is its effect on the node's own accepted values; the frame turns it
   * into the whole schema's. `oKey`/`nKey` name the keyword that changed, pointed at where the node has it.
   */
  emit(
    rule: string,
    local: SchemaEffect,
    o: SchemaAt,
    oKey: string | undefined,
    n: SchemaAt,
    nKey: string | undefined,
    frame: Frame,
    what: string,
    candidates?: () => readonly Candidates[],
    global = false,
  ): PendingChange | undefined {
    if (this.stopped) return undefined
    // A comparison whose budget ran out may have answered `not equal` for want of work: stop instead of reporting it.
    if (this.budget.left < 0) {
      this.stop(`more than ${MAX_WORK} nodes visited`, o, n)
      return undefined
    }
    if (this.changes.length >= MAX_CHANGES) {
      this.stop(`more than ${MAX_CHANGES} changes`, o, n)
      return undefined
    }
    // A keyword of one JSON type changes nothing on a node that admits no value of it (type-gate.ts).
    const why: { text?: string } = {}
    const gated = global
      ? local
      : gatedEffect(
          local,
          oKey ?? nKey,
          o.value,
          n.value,
          this.accepts && ((side, value) => this.accepts!(side, side === 'old' ? o : n, value)),
          why,
          this.patternLengths,
        )
    if (gated !== local) {
      what = `${what} (${why.text ?? gateReason(local, gated, oKey ?? nKey, o.value, n.value)})`
      local = gated
    }
    const effect = global ? local : throughPolarity(local, frame.polarity)
    const top = this.accumulators[this.accumulators.length - 1]!
    top.effect = joinEffects(top.effect, effect)
    top.quiet = false
    const change: PendingChange = { rule, effect, old: locate(o, oKey), new: locate(n, nKey), what }
    if (effect !== local && frame.why) change.why = frame.why
    if (candidates && frame.polarity === 'pos' && frame.path && (effect === 'widens' || effect === 'narrows' || effect === 'both')) {
      if (this.witnessSearches < MAX_WITNESS_SEARCHES && this.mayValidate()) {
        this.witnessSearches++
        const made = candidates()
        const witness = this.findWitness(this, frame, effect, made, { old: o, new: n })
        if (witness) change.witness = witness
        // A change that moves values both ways breaks senders and receivers: a witness for each direction.
        if (witness && effect === 'both' && this.witnessSearches < MAX_WITNESS_SEARCHES) {
          this.witnessSearches++
          const other = this.findWitness(this, frame, witness.acceptedBy === 'old' ? 'widens' : 'narrows', made, { old: o, new: n })
          if (other) change.otherWitness = other
        }
      }
    }
    this.changes.push(change)
    return change
  }

  /** Whether the document's validations are within MAX_DOCUMENT_VALIDATION_STEPS. */
  mayValidate(): boolean {
    return this.priorValidationSteps + this.validationSteps < MAX_DOCUMENT_VALIDATION_STEPS
  }

  /** Makes the final, sorted, deduplicated changes. */
  finish(): SchemaChange[] {
    const byKey = new Map<string, PendingChange>()
    for (const change of this.changes) {
      const key = `${change.rule}\u0000${change.old.file}\u0000${change.old.pointer}\u0000${change.new.file}\u0000${change.new.pointer}`
      const seen = byKey.get(key)
      if (!seen) byKey.set(key, change)
      else {
        seen.effect = joinEffects(seen.effect, change.effect)
        if (!seen.witness && change.witness) seen.witness = change.witness
        if (!seen.otherWitness && change.otherWitness) seen.otherWitness = change.otherWitness
        if (seen.why === undefined && change.why !== undefined) seen.why = change.why
      }
    }
    const out: SchemaChange[] = []
    for (const change of byKey.values()) {
      // A witness must prove the effect the change ends with (a join can make it `unknown`).
      const fitting = [change.witness, change.otherWitness].filter(
        (w): w is NonNullable<typeof w> => w !== undefined && witnessFits(w.acceptedBy, change.effect),
      )
      const witness = fitting[0]
      const witnesses = fitting.filter((w, i) => i === 0 || w.acceptedBy !== fitting[0]!.acceptedBy)
      const why = change.effect === 'unknown' && change.why ? ` (${change.why})` : ''
      out.push({
        rule: change.rule,
        effect: change.effect,
        old: change.old,
        new: change.new,
        message: `${capitalize(change.what)}: ${effectPhrase(change.effect)}${why}.`,
        ...(witness ? { witness } : {}),
        ...(witnesses.length > 1 ? { witnesses } : {}),
      })
    }
    out.sort(
      (a, b) =>
        compareText(a.new!.file, b.new!.file) ||
        compareText(a.new!.pointer, b.new!.pointer) ||
        compareText(a.old!.file, b.old!.file) ||
        compareText(a.old!.pointer, b.old!.pointer) ||
        compareText(a.rule, b.rule),
    )
    return out
  }
}

function witnessFits(acceptedBy: SideName, effect: SchemaEffect): boolean {
  if (effect === 'both') return true
  return acceptedBy === 'new' ? effect === 'widens' : effect === 'narrows'
}

function locate(at: SchemaAt, key: string | undefined): { file: string; pointer: string } {
  if (key !== undefined && isObject(at.value) && Object.hasOwn(at.value, key)) return { file: at.file, pointer: `${at.pointer}/${escapeToken(key)}` }
  return { file: at.file, pointer: at.pointer }
}

function capitalize(text: string): string {
  return text.length ? text[0]!.toUpperCase() + text.slice(1) : text
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** A quoted name for a sentence: JSON-quoted and cut short, so a hostile key cannot flood the message. */
export function quote(value: unknown): string {
  let text: string
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value))
  } catch {
    text = '(a value)'
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}

/** The child node `at.value[...tokens]`, with its pointer. */
export function child(at: SchemaAt, first: string | number, second?: string | number, ...rest: Array<string | number>): SchemaAt {
  // One or two tokens (nearly every call: a keyword, or a keyword and a name) read without a list:
  // the validator and the comparers make a child for every member they visit.
  let value = member(at.value, first)
  let pointer = `${at.pointer}/${escapeToken(first)}`
  if (second !== undefined) {
    value = member(value, second)
    pointer += `/${escapeToken(second)}`
    for (const token of rest) {
      value = member(value, token)
      pointer += `/${escapeToken(token)}`
    }
  }
  return { file: at.file, document: at.document, pointer, value }
}

function member(value: unknown, token: string | number): unknown {
  if (Array.isArray(value) && typeof token === 'number') return value[token]
  const name = String(token)
  return isObject(value) && Object.hasOwn(value, name) ? value[name] : undefined
}

/**
 * The frame of a child node: `step` is how its value is reached from this node's (`same` for an
 * applicator such as `allOf` or `$ref`, `null` where no plain path leads: `contains`, a pattern).
 */
export function deeper(frame: Frame, step: PathStep | 'same' | null, polarity: Polarity = 'pos', why?: string): Frame {
  const next: Frame = {
    polarity: composePolarity(frame.polarity, polarity),
    depth: frame.depth + 1,
    path: step === null || frame.path === null ? null : step === 'same' ? frame.path : [...frame.path, step],
    merged: false,
  }
  const reason = polarity === 'mixed' && why !== undefined ? why : (frame.why ?? why)
  if (reason !== undefined) next.why = reason
  return next
}
