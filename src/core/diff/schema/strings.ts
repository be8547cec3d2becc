/**
 * String keywords: `minLength`/`maxLength` (counts), `pattern` (the regular languages compared:
 * pattern.ts), and `format` (as the generated validators read it: format.ts).
 */
import { codePoints } from '../../../runtime/shared/schema-values.js'
import type { Frame, SchemaAt, SchemaDiffContext } from './context.js'
import { compareCounts } from './bounds.js'
import { compareFormat } from './format.js'
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
    make: (count) => ['a'.repeat(count)],
    countOf: (value) => (typeof value === 'string' ? codePoints(value) : undefined),
  })
  comparePattern(ctx, o, n, frame)
  compareFormat(ctx, o, n, frame, ctx.int64)
}
