/**
 * `format`, read the way this project's generated validators read it.
 *
 * - JSON Schema (NATS payloads, DASP item schemas): the validators never assert a format (ajv with
 *   `validateFormats: false`, the schema interpreter has no `format`), which is JSON Schema
 *   2020-12's format-annotation reading: any format change is effect `none`.
 * - OpenAPI 3.0 (Benzene): the validators check `date`, `date-time`, `uuid` and `byte` on a
 *   `type: string` schema (each a pattern), `int32` on an `integer` or `number` schema (a range),
 *   and `int64` there as the `int64` option says (a range of numbers, or decimal text in place of
 *   an integer); any other format, or one beside another type, documents. So a checked format
 *   added narrows, removed widens; two checked string formats accept disjoint sets (but for the
 *   empty string and base64 text, which only `byte` accepts), so a change between them moves both
 *   ways; `int32` to `int64` read as numbers widens. Without the `int64` option, a change that
 *   involves a checked `int64` is `unknown`.
 */
import type { SchemaEffect } from '../schema-diff-types.js'
import type { Candidates, Frame, SchemaAt, SchemaDiffContext } from './context.js'
import { quote } from './context.js'
import { OPENAPI_FORMAT_EXAMPLES } from '../../openapi-formats.js'

/** Strings no checked string format accepts. */
const NO_FORMAT_STRINGS = ['a', '-']
const INT32_OUTSIDE = [2147483648, -2147483649]

/** What a format makes the validators check at one schema object. */
type Check =
  { kind: 'none' } | { kind: 'string'; name: string } | { kind: 'int32' } | { kind: 'int64-number' } | { kind: 'int64-text' } | { kind: 'int64-unknown' }

function checkOf(schema: Record<string, unknown>, int64: 'number' | 'string' | undefined): Check {
  const format = schema.format
  if (typeof format !== 'string') return { kind: 'none' }
  if (Object.hasOwn(OPENAPI_FORMAT_EXAMPLES, format)) return schema.type === 'string' ? { kind: 'string', name: format } : { kind: 'none' }
  const numeric = schema.type === 'integer' || schema.type === 'number'
  if (format === 'int32') return numeric ? { kind: 'int32' } : { kind: 'none' }
  if (format !== 'int64' || !numeric) return { kind: 'none' }
  if (int64 === undefined) return { kind: 'int64-unknown' }
  if (int64 === 'number') return { kind: 'int64-number' }
  // As text, int64 replaces an integer with a decimal string; beside `number` it checks nothing.
  return schema.type === 'integer' ? { kind: 'int64-text' } : { kind: 'none' }
}

/** Values the check refuses that the same schema without it accepts. */
function refusedBy(check: Check): readonly unknown[] {
  switch (check.kind) {
    case 'string':
      return NO_FORMAT_STRINGS
    case 'int32':
      return INT32_OUTSIDE
    case 'int64-number':
      return [1e19]
    case 'int64-text':
      return [1]
    default:
      return []
  }
}

export function compareFormat(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame, int64?: 'number' | 'string'): void {
  const ov = o.value as Record<string, unknown>
  const nv = n.value as Record<string, unknown>
  const f = ov.format
  const g = nv.format
  if (f === g) return
  const rule = f === undefined ? 'schema-format-added' : g === undefined ? 'schema-format-removed' : 'schema-format-changed'
  const what =
    f === undefined
      ? `the format ${quote(g)} was added`
      : g === undefined
        ? `the format ${quote(f)} was removed`
        : `the format went from ${quote(f)} to ${quote(g)}`
  if (ctx.dialect !== 'openapi-3.0') {
    ctx.emit(rule, 'none', o, 'format', n, 'format', frame, `${what}, and the generated validators treat formats as annotations`)
    return
  }
  const a = checkOf(ov, int64)
  const b = checkOf(nv, int64)
  if (a.kind === 'int64-unknown' || b.kind === 'int64-unknown') {
    ctx.emit(
      rule,
      'unknown',
      o,
      'format',
      n,
      'format',
      frame,
      `${what}, and what int64 checks depends on the int64 option (a range of numbers, or decimal text)`,
    )
    return
  }
  if (a.kind === 'none' && b.kind === 'none') {
    ctx.emit(rule, 'none', o, 'format', n, 'format', frame, `${what}, and the validators check neither format for this type (documentation only)`)
    return
  }
  const same = a.kind === b.kind && (a.kind !== 'string' || (b.kind === 'string' && a.name === b.name))
  if (same) {
    ctx.emit(rule, 'none', o, 'format', n, 'format', frame, `${what}, and the validators check the same values`)
    return
  }
  let effect: SchemaEffect
  const candidates: Candidates[] = []
  if (a.kind === 'none') {
    effect = b.kind === 'int64-text' ? 'both' : 'narrows'
    candidates.push({ acceptedBy: 'old', values: refusedBy(b) })
  } else if (b.kind === 'none') {
    effect = a.kind === 'int64-text' ? 'both' : 'widens'
    candidates.push({ acceptedBy: 'new', values: refusedBy(a) })
  } else if (a.kind === 'int32' && b.kind === 'int64-number') {
    effect = 'widens'
    candidates.push({ acceptedBy: 'new', values: INT32_OUTSIDE })
  } else if (a.kind === 'int64-number' && b.kind === 'int32') {
    effect = 'narrows'
    candidates.push({ acceptedBy: 'old', values: INT32_OUTSIDE })
  } else {
    effect = 'both'
    if (a.kind === 'string') candidates.push({ acceptedBy: 'old', values: [OPENAPI_FORMAT_EXAMPLES[a.name]] })
    if (b.kind === 'string') candidates.push({ acceptedBy: 'new', values: [OPENAPI_FORMAT_EXAMPLES[b.name]] })
  }
  const directed = rule === 'schema-format-changed' && (effect === 'widens' || effect === 'narrows')
  const id = directed ? (effect === 'widens' ? 'schema-format-widened' : 'schema-format-narrowed') : rule
  ctx.emit(id, effect, o, 'format', n, 'format', frame, what, () => candidates)
}
