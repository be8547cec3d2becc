import { unicodeModeSource } from '../../../core/pattern-dialect.js'
import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../../../runtime/benzene/document.js'
import { benzeneSchemaRule } from './rule.js'

/** Complexity: O(schemas + pattern lengths) over the shared schema list. */

/** Escapes that mean one thing with the Unicode flag and another without it: `\p{L}` is `p{L}`, `\u{41}` is 41 `u`s. */
const UNICODE_ONLY = /\\[pPu]\{/

/**
 * OpenAPI 3.0 reads `pattern` without the Unicode flag, and so does the generator; a pattern
 * written with a Unicode-mode escape is valid there but almost certainly means something else than
 * what its author wrote, so it is a warning (the pattern is still read as the dialect says).
 */
export const patternDialect = benzeneSchemaRule({
  code: 'BENZENE_PATTERN_DIALECT',
  severity: 'warning',
  description:
    'A `pattern` with `\\p{...}`, `\\P{...}` or `\\u{...}` (OpenAPI 3.0 reads patterns without the Unicode flag, where these are not escapes), or one led by an inline options group such as `(?i)` (not ECMA-262, which a pattern SHOULD be; read as the flags on the rest).',
  visit(schema, where, report) {
    if (!isObject(schema) || typeof schema.pattern !== 'string') return
    const read = unicodeModeSource(schema.pattern)
    if (read.ok && read.inlineOptions !== undefined) {
      report(
        joinPointer(where(), 'pattern'),
        `Pattern ${JSON.stringify(schema.pattern)} starts with the inline options ${read.inlineOptions} (.NET, PCRE, Java), which ECMA-262 does not have; OpenAPI 3.0 says a pattern SHOULD be ECMA-262. It is read as those options on the rest of the pattern (${read.inlineOptions === '(?n)' ? 'explicit capture changes no match' : `an ES2025 modifier group: ${read.source}`}).`,
        { pattern: schema.pattern, inlineOptions: read.inlineOptions },
      )
      return
    }
    if (!UNICODE_ONLY.test(schema.pattern)) return
    report(
      joinPointer(where(), 'pattern'),
      `Pattern ${JSON.stringify(schema.pattern)} is read as OpenAPI 3.0 reads patterns, without the Unicode flag: there \`\\p{L}\` is the text "p{L}" and \`\\u{41}\` is 41 "u"s, not a property or a code point. Write \`\\uXXXX\` escapes or character ranges instead.`,
      { pattern: schema.pattern },
    )
  },
})
