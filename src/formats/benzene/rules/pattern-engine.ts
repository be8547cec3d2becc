import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { unicodeModeSource } from '../../../core/pattern-dialect.js'
import { patternEngine, type PatternEngine } from '../../../core/pattern-safety.js'
import { isObject } from '../../../runtime/benzene/document.js'
import { forEachSchema } from '../schema-walk.js'
import type { BenzeneRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): O(schemas + pattern lengths) over the shared schema list. */

/**
 * A `pattern` that no engine can run safely on data from the wire: not provably cheap for a
 * backtracking `RegExp`, and not expressible for the linear-time engine (lookaround,
 * backreferences). See `src/core/pattern-safety.ts` for the policy. Linear in the pattern's length.
 */
export const patternEngineRule: BenzeneRule = {
  code: 'BENZENE_PATTERN_UNSUPPORTED',
  description:
    'A `pattern` that could take super-linear time on a backtracking engine and that the linear-time engine cannot express, or whose linear-time program has more than 1,000 instructions.',
  check({ doc, report }) {
    forEachSchema(doc, (schema, where) => {
      if (!isObject(schema) || typeof schema.pattern !== 'string') return
      // Read as OpenAPI 3.0 does, without the Unicode flag; one that does not parse at all is BENZENE_INVALID_SCHEMA's.
      const read = unicodeModeSource(schema.pattern)
      if (!read.ok && read.invalid) return
      const engine: PatternEngine = read.ok ? patternEngine(read.source) : { engine: 'unsupported', reason: read.reason }
      if (engine.engine !== 'unsupported') return
      report(
        joinPointer(where(), 'pattern'),
        `Pattern ${JSON.stringify(schema.pattern)} is unsupported: ${engine.reason}. Rewrite it without lookaround or backreferences, or so that no part can match the same text in more than one way.`,
        { pattern: schema.pattern },
      )
    })
  },
}
