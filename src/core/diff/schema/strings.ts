/**
 * String keywords: `minLength`/`maxLength` (counts), `pattern` (the regular languages compared:
 * pattern.ts), and `format`
 * (whether it constrains depends on the validator: OpenAPI 3.0's checked formats narrow and widen,
 * its documentation formats change nothing, and JSON Schema's are `unknown`).
 */
import type { SchemaEffect } from '../schema-diff-types.js'
import type { Frame, SchemaAt, SchemaDiffContext } from './context.js'
import { quote } from './context.js'
import { compareCounts } from './bounds.js'
import { OPENAPI_CHECKED_FORMATS } from './keywords.js'
import { comparePattern } from './pattern.js'

export function compareStrings(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame): void {
  compareCounts(ctx, o, n, frame, {
    min: 'minLength',
    max: 'maxLength',
    noun: 'string length',
    rules: {
      minUp: 'schema-min-length-increased',
      minDown: 'schema-min-length-decreased',
      maxDown: 'schema-max-length-decreased',
      maxUp: 'schema-max-length-increased',
    },
    make: (count) => 'a'.repeat(count),
  })
  const ov = o.value as Record<string, unknown>
  const nv = n.value as Record<string, unknown>
  comparePattern(ctx, o, n, frame)
  const f = ov.format
  const g = nv.format
  if (f !== g) {
    const effectOf = (added: boolean): SchemaEffect => {
      if (ctx.dialect !== 'openapi-3.0') return 'unknown'
      const format = added ? g : f
      if (typeof format === 'string' && !OPENAPI_CHECKED_FORMATS.has(format)) return 'none'
      return added ? 'narrows' : 'widens'
    }
    if (f === undefined) ctx.emit('schema-format-added', effectOf(true), o, 'format', n, 'format', frame, `the format ${quote(g)} was added`)
    else if (g === undefined) ctx.emit('schema-format-removed', effectOf(false), o, 'format', n, 'format', frame, `the format ${quote(f)} was removed`)
    else {
      const documentation = ctx.dialect === 'openapi-3.0' && [f, g].every((x) => typeof x === 'string' && !OPENAPI_CHECKED_FORMATS.has(x))
      ctx.emit('schema-format-changed', documentation ? 'none' : 'unknown', o, 'format', n, 'format', frame, `the format went from ${quote(f)} to ${quote(g)}`)
    }
  }
}
