import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { PATTERN_BUDGET_TEXT, budgetedPatternMessage } from '../../../core/pattern-safety.js'
import { MAX_PATTERN_STEPS } from '../../../runtime/shared/budgeted-pattern.js'
import { isObject } from '../document.js'
import { natsRule, type NatsReport } from './rule.js'
import type { LoadedFile } from '../load.js'
import type { NatsContext } from '../context.js'

/** Complexity (each rule here, worst case on any input under the size limits): one iterative walk of components and channels, each pattern decided once (linear in its length). */

/**
 * A schema `pattern` (in `components` or a channel's messages) that no proof places on a
 * linear-time engine: it builds, and runs on the budgeted backtracking matcher, so a value it cannot
 * decide within the step budget fails validation with its own error. A warning: JSON Schema allows
 * any ECMA-262 pattern, but the author should know what happens at run time. See
 * `src/core/pattern-safety.ts`. One iterative walk of those two sections (and of the locked files
 * a message payload reaches): linear in their size, each pattern decided once.
 */
export const patternSupported = natsRule({
  code: 'NATS_PATTERN_BUDGETED',
  severity: 'warning',
  description: `A schema \`pattern\` not proven to run in linear time (backreference, lookbehind, a lookaround other than a leading one, a form RE2 cannot express): it runs under a budget of ${PATTERN_BUDGET_TEXT} steps per value, and a value it cannot decide within it fails validation.`,
  check(ctx, report) {
    // The document's components and channels, and every locked file a message payload reaches
    // (reported in that file, at the pattern).
    const { files } = ctx.messages
    const sources: Array<[LoadedFile, Array<[unknown, string]>]> = [
      [
        ctx.main,
        [
          [ctx.doc.components, '/components'],
          [ctx.doc.channels, '/channels'],
        ],
      ],
      ...[...files].sort().flatMap((file): Array<[LoadedFile, Array<[unknown, string]>]> => {
        const loaded = ctx.input.files.get(file) ?? ctx.input.documents.get(file)
        return loaded ? [[loaded, [[loaded.source.value, '']]]] : []
      }),
    ]
    for (const [file, stack] of sources) walkPatterns(ctx, file, stack, report)
  },
})

/** Every `pattern` under the stack's values, iteratively; one on the budgeted matcher is reported in `file`. */
function walkPatterns(ctx: NatsContext, file: LoadedFile, stack: Array<[unknown, string]>, report: NatsReport): void {
  // Only objects and arrays are pushed (a string or a number holds no pattern): no pointer is
  // made for most members of a large document (bench/).
  const push = (value: unknown, pointer: string, token: string | number) => {
    if (value !== null && typeof value === 'object') stack.push([value, joinPointer(pointer, token)])
  }
  while (stack.length > 0) {
    const [value, pointer] = stack.pop()!
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) push(value[i], pointer, i)
      continue
    }
    if (!isObject(value)) continue
    const found: Array<[string, string]> = typeof value.pattern === 'string' ? [[value.pattern, joinPointer(pointer, 'pattern')]] : []
    if (isObject(value.patternProperties))
      for (const key of Object.keys(value.patternProperties)) found.push([key, joinPointer(pointer, 'patternProperties', key)])
    for (const [pattern, at] of found) {
      // The engine the validator plan runs the pattern on (decided once per document: NatsContext.patternEngine).
      const engine = ctx.patternEngine(pattern)
      if (engine.engine === 'budgeted') report.in(file, at, budgetedPatternMessage(pattern, engine.reason), { pattern, budget: MAX_PATTERN_STEPS })
    }
    for (const key of Object.keys(value)) push(value[key], pointer, key)
  }
}
