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
  // What the walk below reads: the document's components and channels, and the locked files the
  // payloads reach (by path, then each one's parsed source).
  reads(ctx) {
    const files = [...ctx.messages.files].sort()
    return [
      ctx.doc.components,
      ctx.doc.channels,
      files.join('\u0000'),
      ...files.map((file) => (ctx.input.files.get(file) ?? ctx.input.documents.get(file))?.source),
    ]
  },
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
    // A file whose text spells no `pattern` (and has no escape that could make one) holds no
    // `pattern` or `patternProperties` member: its walk would find nothing (bench/).
    for (const [file, stack] of sources) if (mayHoldName(file.source.text, 'pattern')) walkPatterns(ctx, file, stack, report)
  },
})

/**
 * Whether a member name containing `name` can be in the value parsed from `text`: a YAML or JSON
 * key is its text's own characters unless an escape (a backslash) makes one it does not show.
 */
function mayHoldName(text: string, name: string): boolean {
  return text.includes(name) || text.includes('\\')
}

/** A value on the walk's stack: its pointer is spelled out only for a pattern reported under it. */
interface Frame {
  readonly value: object
  readonly parent: Frame | undefined
  readonly token: string | number
  /** Set on the frames the walk starts from. */
  readonly pointer?: string
}

function pointerOf(frame: Frame): string {
  const tokens: Array<string | number> = []
  let at: Frame = frame
  for (; at.pointer === undefined; at = at.parent!) tokens.push(at.token)
  let out = at.pointer
  for (let i = tokens.length - 1; i >= 0; i--) out = joinPointer(out, tokens[i]!)
  return out
}

/** Every `pattern` under the stack's values, iteratively; one on the budgeted matcher is reported in `file`. */
function walkPatterns(ctx: NatsContext, file: LoadedFile, roots: Array<[unknown, string]>, report: NatsReport): void {
  // Only objects and arrays are pushed (a string or a number holds no pattern), with their parent
  // and token rather than a pointer: no pointer and no key array is made for most members of a
  // large document (bench/). Visited in the order a stack of pointers visited them.
  const stack: Frame[] = []
  for (const [value, pointer] of roots) if (value !== null && typeof value === 'object') stack.push({ value, parent: undefined, token: '', pointer })
  while (stack.length > 0) {
    const frame = stack.pop()!
    const value = frame.value
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const child: unknown = value[i]
        if (child !== null && typeof child === 'object') stack.push({ value: child, parent: frame, token: i })
      }
      continue
    }
    if (!isObject(value)) continue
    if (typeof value.pattern === 'string') check(ctx, file, value.pattern, () => joinPointer(pointerOf(frame), 'pattern'), report)
    if (isObject(value.patternProperties)) {
      const properties = value.patternProperties
      for (const key in properties)
        if (Object.hasOwn(properties, key)) check(ctx, file, key, () => joinPointer(pointerOf(frame), 'patternProperties', key), report)
    }
    // Members pushed in key order (popped in reverse), as before; for-in over own names: no key array.
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue
      const child: unknown = value[key]
      if (child !== null && typeof child === 'object') stack.push({ value: child, parent: frame, token: key })
    }
  }
}

/** One pattern: reported at `at()` when the engine the validator plan runs it on is the budgeted matcher (decided once per document: NatsContext.patternEngine). */
function check(ctx: NatsContext, file: LoadedFile, pattern: string, at: () => string, report: NatsReport): void {
  const engine = ctx.patternEngine(pattern)
  if (engine.engine === 'budgeted') report.in(file, at(), budgetedPatternMessage(pattern, engine.reason), { pattern, budget: MAX_PATTERN_STEPS })
}
