/**
 * `pattern`: the two regular languages compared (regex-language.ts). A pattern added narrows the
 * strings accepted unless it accepts every string; one removed widens likewise; one changed widens,
 * narrows, both or neither as the languages include each other, and is `unknown` where a pattern
 * is outside the regular subset or past the size bound (the sentence says which). Each proven
 * direction offers the shortest string in the difference as a witness candidate.
 */
import type { SchemaEffect } from '../schema-diff-types.js'
import type { Candidates, Frame, SchemaAt, SchemaDiffContext } from './context.js'
import { MAX_PATTERN_DECISIONS, quote } from './context.js'
import { jsonEqual } from './values.js'
import {
  acceptsEverything,
  compareLanguages,
  lengthRange,
  patternLanguage as readLanguage,
  shortestOutside,
  type LengthRange,
  type PatternLanguage,
} from './regex-language.js'

/** A pattern's language, within the diff's budget of patterns decided. */
function patternLanguage(ctx: SchemaDiffContext, pattern: string): PatternLanguage {
  if (++ctx.patternDecisions > MAX_PATTERN_DECISIONS) return { ok: false, reason: `the pattern is past the ${MAX_PATTERN_DECISIONS} patterns one diff decides` }
  return readLanguage(pattern, ctx.dialect)
}

/** The lengths of the strings a pattern admits (regex-language.ts `lengthRange`), within the same budget; undefined when not decided. */
export function patternLengths(ctx: SchemaDiffContext, pattern: string): LengthRange | undefined {
  const language = patternLanguage(ctx, pattern)
  return language.ok ? lengthRange(language) : undefined
}

/** Strings tried when a language gives none (a pattern outside the subset). */
const SAMPLES = ['', 'a', 'A', '0', ' ', 'aa', 'a-1', '_']

export function comparePattern(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame): void {
  const a = (o.value as Record<string, unknown>).pattern
  const b = (n.value as Record<string, unknown>).pattern
  if (a === b || (typeof a !== 'string' && typeof b !== 'string' && jsonEqual(a, b, ctx.budget) === true)) return
  // A pattern that is no string is no constraint the validators apply the same way: the keyword-changed rule says so.
  if ((a !== undefined && typeof a !== 'string') || (b !== undefined && typeof b !== 'string')) {
    ctx.emit(
      'schema-keyword-changed',
      'unknown',
      o,
      'pattern',
      n,
      'pattern',
      frame,
      `the pattern went from ${quote(a)} to ${quote(b)}, one of which is no string`,
    )
    return
  }
  if (a === undefined) return added(ctx, o, n, frame, b as string)
  if (b === undefined) return removed(ctx, o, n, frame, a)
  changed(ctx, o, n, frame, a, b as string)
}

function added(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame, pattern: string): void {
  const language = patternLanguage(ctx, pattern)
  if (language.ok && acceptsEverything(language)) {
    ctx.emit('schema-pattern-added', 'none', o, 'pattern', n, 'pattern', frame, `the pattern ${quote(pattern)}, which every string matches, was added`)
    return
  }
  const outside = language.ok ? shortestOutside(language) : undefined
  ctx.emit('schema-pattern-added', 'narrows', o, 'pattern', n, 'pattern', frame, `the pattern ${quote(pattern)} was added`, () => [
    { acceptedBy: 'old', values: outside === undefined ? SAMPLES : [outside] },
  ])
}

function removed(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame, pattern: string): void {
  const language = patternLanguage(ctx, pattern)
  if (language.ok && acceptsEverything(language)) {
    ctx.emit('schema-pattern-removed', 'none', o, 'pattern', n, 'pattern', frame, `the pattern ${quote(pattern)}, which every string matches, was removed`)
    return
  }
  const outside = language.ok ? shortestOutside(language) : undefined
  ctx.emit('schema-pattern-removed', 'widens', o, 'pattern', n, 'pattern', frame, `the pattern ${quote(pattern)} was removed`, () => [
    { acceptedBy: 'new', values: outside === undefined ? SAMPLES : [outside] },
  ])
}

function changed(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame, a: string, b: string): void {
  const what = `the pattern went from ${quote(a)} to ${quote(b)}`
  const before = patternLanguage(ctx, a)
  const after = patternLanguage(ctx, b)
  if (!before.ok || !after.ok) {
    const [side, reason] = !before.ok ? ['old', before.reason] : ['new', (after as { reason: string }).reason]
    ctx.emit('schema-pattern-changed', 'unknown', o, 'pattern', n, 'pattern', frame, `${what}, and ${reason.replace(/^the pattern/, `the ${side} one`)}`)
    return
  }
  const inclusion = compareLanguages(before, after)
  if (!inclusion) {
    ctx.emit(
      'schema-pattern-changed',
      'unknown',
      o,
      'pattern',
      n,
      'pattern',
      frame,
      `${what}, and comparing them would exceed the bound this diff spends on patterns`,
    )
    return
  }
  const candidates: Candidates[] = []
  if (inclusion.onlyFirst !== undefined) candidates.push({ acceptedBy: 'old', values: [inclusion.onlyFirst] })
  if (inclusion.onlySecond !== undefined) candidates.push({ acceptedBy: 'new', values: [inclusion.onlySecond] })
  const effect: SchemaEffect =
    candidates.length === 2 ? 'both' : inclusion.onlyFirst !== undefined ? 'narrows' : inclusion.onlySecond !== undefined ? 'widens' : 'none'
  const rule =
    effect === 'none'
      ? 'schema-keyword-rewritten'
      : effect === 'widens'
        ? 'schema-pattern-widened'
        : effect === 'narrows'
          ? 'schema-pattern-narrowed'
          : 'schema-pattern-changed'
  const text = effect === 'none' ? `${what}, which matches the same strings` : what
  ctx.emit(rule, effect, o, 'pattern', n, 'pattern', frame, text, () => candidates)
}
