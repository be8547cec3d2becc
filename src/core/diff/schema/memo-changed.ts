/**
 * Changed pairs settled once across calls. A format diffs each payload with its own call, and a
 * changed shared component (a `Money` every payload names) was compared again for each of them:
 * its changes are the same each time, only the payload they are reported for differs. The first
 * call that compares such a pair records what the pair did (the changes it emitted, with the frame
 * each was emitted in, the pairs below it it settled, the pairs and work it spent); later calls for
 * the same two documents replay the record instead of walking the schemas again.
 *
 * A replay is the comparison itself, not an approximation of it: each change is emitted again
 * through the call's own `emit`, with the frame re-rooted at the call's path (so a witness is
 * searched against this payload, as before), and the caps are charged as the walk charged them.
 * Only a pair whose comparison depended on nothing outside itself is recorded: compared from the
 * `$ref` queue (depth 0), no pair below it queued, still running or settled by an earlier pair of
 * its call, no summary waiting on a pair, nothing stopped. A replay happens only where the walk
 * would have run the same way: none of the pairs below it known to the call yet, and the caps far
 * enough away that none is reached on the way (the equal-subtree shortcut's own budget included).
 *
 * Keyed like `provenEqual` (pair.ts): by the two documents' identity, weakly, on the premise that a
 * `$ref` in a given document resolves the same way in every call; the key holds the dialect, how
 * keywords beside a `$ref` read, the pair's key (polarity, merge mode, both pointers), the frame's
 * reason for a mixed polarity and whether a plain path leads to the pair (the only parts of the
 * frame its changes depend on besides the path itself, which is re-rooted).
 */
import type { SchemaEffect } from '../schema-diff-types.js'
import type { Candidates, Frame, PairResult, PathStep, SchemaAt, SchemaDiffContext } from './context.js'
import { MAX_CHANGES, MAX_PAIRS } from './context.js'

/** Whether changed pairs are recorded and replayed (off only to compare against the plain walk, in tests). */
export const changedPairMemo = { enabled: true, replays: 0 }

type EmitArgs = Parameters<SchemaDiffContext['emit']>

interface RecordedEmit {
  rule: string
  local: SchemaEffect
  o: SchemaAt
  oKey: string | undefined
  n: SchemaAt
  nKey: string | undefined
  /** The frame without its path; `suffix` is the path below the pair's own (null: no plain path). */
  frame: Omit<Frame, 'path'>
  suffix: readonly PathStep[] | null
  what: string
  candidates: (() => readonly Candidates[]) | undefined
  global: boolean
}

interface Settled {
  result: PairResult
  emits: RecordedEmit[]
  /** Every pair settled while this one ran (itself last), with its result. */
  memo: Array<[string, PairResult]>
  pairs: number
  work: number
}

/** A pair being recorded: what its walk did so far, and whether it still qualifies. */
export interface Recording {
  key: string
  memoKey: string
  o: SchemaAt
  n: SchemaAt
  path: readonly PathStep[] | null
  emits: RecordedEmit[]
  /** Pairs first seen while recording (their memo entries are the record's). */
  internal: Set<string>
  /** The call's pair count and work left when the pair began. */
  pairsBefore: number
  workBefore: number
  valid: boolean
  restoreEmit: () => void
}

/** The equal-subtree shortcut's own budget (pair.ts): a replay leaves at least this much besides what it charges. */
const SHORTCUT_BUDGET = 2_000

const settledPairs = new WeakMap<object, WeakMap<object, Map<string, Settled>>>()

function settledMap(o: SchemaAt, n: SchemaAt, create: boolean): Map<string, Settled> | undefined {
  if (typeof o.document !== 'object' || o.document === null || typeof n.document !== 'object' || n.document === null) return undefined
  let inner = settledPairs.get(o.document)
  if (!inner) {
    if (!create) return undefined
    settledPairs.set(o.document, (inner = new WeakMap()))
  }
  let map = inner.get(n.document)
  if (!map) {
    if (!create) return undefined
    inner.set(n.document, (map = new Map()))
  }
  return map
}

function memoKeyOf(ctx: SchemaDiffContext, key: string, frame: Frame): string {
  return `${ctx.dialect}|${ctx.refSiblings}|${frame.path === null ? 'x' : 'p'}|${frame.why ?? ''}|${key}`
}

const recordings = new WeakMap<SchemaDiffContext, Recording[]>()

function active(ctx: SchemaDiffContext): Recording[] | undefined {
  const list = recordings.get(ctx)
  return list && list.length > 0 ? list : undefined
}

/** Marks every running recording of the call as not reusable (its walk depended on something outside it). */
export function taint(ctx: SchemaDiffContext): void {
  const list = active(ctx)
  if (list) for (const r of list) r.valid = false
}

/** A pair first seen (queued, running, settled) while recordings run: theirs. */
export function noteNew(ctx: SchemaDiffContext, key: string): void {
  const list = active(ctx)
  if (list) for (const r of list) r.internal.add(key)
}

/** A pair found already known to the call: fine when a running recording saw it begin, else a dependency on outside. */
export function noteKnown(ctx: SchemaDiffContext, key: string): void {
  const list = active(ctx)
  if (list) for (const r of list) if (!r.internal.has(key)) r.valid = false
}

/** Starts recording a pair compared from the `$ref` queue; undefined when the memo is off or the documents cannot key it. */
export function startRecording(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame, key: string): Recording | undefined {
  if (!changedPairMemo.enabled || frame.depth !== 0 || ctx.stopped) return undefined
  if (typeof o.document !== 'object' || o.document === null || typeof n.document !== 'object' || n.document === null) return undefined
  let list = recordings.get(ctx)
  if (!list) recordings.set(ctx, (list = []))
  const recording: Recording = {
    key,
    memoKey: memoKeyOf(ctx, key, frame),
    o,
    n,
    path: frame.path,
    emits: [],
    internal: new Set([key]),
    pairsBefore: ctx.pairs,
    workBefore: ctx.budget.left,
    valid: true,
    restoreEmit: () => undefined,
  }
  // The walk's changes go through `ctx.emit`: seen here with their frames, then passed on unchanged.
  const own = Object.hasOwn(ctx, 'emit') ? ctx.emit : undefined
  const emit = ctx.emit
  ctx.emit = function (this: SchemaDiffContext, ...args: EmitArgs) {
    const change = emit.apply(this, args)
    const [rule, local, eo, oKey, en, nKey, f, what, candidates, global] = args
    if (change === undefined) recording.valid = false
    else if (recording.valid) {
      const { path, ...rest } = f
      const suffix = path === null || recording.path === null ? null : path.slice(recording.path.length)
      recording.emits.push({
        rule,
        local,
        o: eo,
        oKey,
        n: en,
        nKey,
        frame: rest,
        suffix,
        what,
        candidates: candidates && once(candidates),
        global: global ?? false,
      })
    }
    return change
  }
  recording.restoreEmit = () => {
    if (own) ctx.emit = own
    else delete (ctx as { emit?: unknown }).emit
  }
  list.push(recording)
  return recording
}

/** Ends a recording whose walk threw: nothing kept. */
export function abandonRecording(ctx: SchemaDiffContext, recording: Recording): void {
  recording.restoreEmit()
  const list = recordings.get(ctx)!
  list.splice(list.indexOf(recording), 1)
}

/** Ends a recording; keeps its record when the pair settled with nothing depending on outside it. */
export function finishRecording(ctx: SchemaDiffContext, recording: Recording, result: PairResult): void {
  abandonRecording(ctx, recording)
  // A walk that came near the end of the work budget may have taken the shortcut with less than its own budget.
  if (!recording.valid || ctx.stopped || result.deps.size > 0 || ctx.budget.left < SHORTCUT_BUDGET) return
  const memo: Array<[string, PairResult]> = []
  for (const key of recording.internal) {
    const entry = ctx.memo.get(key)
    if (entry === undefined || entry === 'running' || entry === 'queued' || entry.deps.size > 0) return
    if (key !== recording.key) memo.push([key, entry])
  }
  memo.push([recording.key, result])
  // The candidates are values of the two documents alone: made now, so the record holds no call.
  for (const e of recording.emits) if (e.candidates) e.candidates()
  const spent = { pairs: ctx.pairs - recording.pairsBefore, work: recording.workBefore - ctx.budget.left }
  settledMap(recording.o, recording.n, true)!.set(recording.memoKey, { result, emits: recording.emits, memo, ...spent })
}

/**
 * The pair's result replayed from an earlier call, its changes emitted into this one; undefined
 * (the caller walks the pair) when there is no record or the call's state could make the walk differ.
 */
export function replay(
  ctx: SchemaDiffContext,
  o: SchemaAt,
  n: SchemaAt,
  frame: Frame,
  key: string,
  complete: (ctx: SchemaDiffContext, key: string, result: PairResult) => void,
): PairResult | undefined {
  if (!changedPairMemo.enabled || frame.depth !== 0 || ctx.stopped) return undefined
  const settled = settledMap(o, n, false)?.get(memoKeyOf(ctx, key, frame))
  if (!settled) return undefined
  if (ctx.pairs + settled.pairs > MAX_PAIRS || ctx.budget.left < settled.work + SHORTCUT_BUDGET || ctx.changes.length + settled.emits.length >= MAX_CHANGES)
    return undefined
  for (const [inner] of settled.memo) if (inner !== key && ctx.memo.has(inner)) return undefined
  const state = ctx.memo.get(key)
  if (state !== undefined && state !== 'queued') return undefined
  changedPairMemo.replays++
  ctx.pairs += settled.pairs
  ctx.budget.left -= settled.work
  // The changes sum into a scratch accumulator, as they summed into the pair's own; the caller folds in the result.
  ctx.accumulators.push({ effect: 'none', deps: new Set(), quiet: true })
  try {
    for (const e of settled.emits) {
      const path = e.suffix === null || frame.path === null ? null : [...frame.path, ...e.suffix]
      ctx.emit(e.rule, e.local, e.o, e.oKey, e.n, e.nKey, { ...e.frame, path }, e.what, e.candidates, e.global)
    }
  } finally {
    ctx.accumulators.pop()
  }
  for (const [inner, result] of settled.memo) {
    noteNew(ctx, inner)
    if (inner !== key) ctx.memo.set(inner, result)
  }
  complete(ctx, key, settled.result)
  return settled.result
}

/** The thunk's value, made at most once; the thunk (which holds its call) is let go once made. */
function once<T>(make: () => T): () => T {
  let pending: (() => T) | undefined = make
  let value: T
  return () => {
    if (pending) {
      value = pending()
      pending = undefined
    }
    return value
  }
}
