import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { PATTERN_BUDGET_TEXT, budgetedPatternMessage, optionsReading } from '../../../core/pattern-safety.js'
import { MAX_PATTERN_STEPS } from '../../../runtime/shared/budgeted-pattern.js'
import { isObject } from '../document.js'
import { natsRule } from './rule.js'
import type { LoadedFile } from '../load.js'
import type { NatsContext } from '../context.js'

/** Complexity (each rule here, worst case on any input under the size limits): one iterative walk of components and channels, each pattern decided once (linear in its length). */

/** What the pattern rules read: the document's components and channels, and the locked files the payloads reach (by path, then each one's parsed source). */
function patternReads(ctx: NatsContext): unknown[] {
  // A payload reaches only files read with the document (message-schemas.ts `follow`): with none
  // read, none, and the payloads are not gathered just to say so (a recompile whose pattern rules
  // replay would otherwise gather them only here: bench/incremental.ts).
  const files = ctx.input.files.size === 0 && ctx.input.documents.size === 0 ? [] : [...ctx.messages.files].sort()
  return [
    ctx.doc.components,
    ctx.doc.channels,
    files.join('\u0000'),
    ...files.map((file) => (ctx.input.files.get(file) ?? ctx.input.documents.get(file))?.source),
  ]
}

/**
 * Each schema `pattern` and `patternProperties` name in the document's components and channels,
 * and in every locked file a message payload reaches, with the file that holds it (a report is made
 * there, at the pattern).
 */
function forEachPattern(ctx: NatsContext, visit: Visit): void {
  // Walked once per compile for the three rules that read the patterns (ctx.ruleFacts.patternSites).
  let sites = ctx.ruleFacts.patternSites
  if (sites === undefined) {
    const found: PatternSite[] = []
    walkAll(ctx, (pattern, file, at) => void found.push({ pattern, file, at }))
    ctx.ruleFacts.patternSites = sites = found
  }
  for (const site of sites) visit(site.pattern, site.file, site.at)
}

/** One pattern the walk found (`at` spells out its pointer only when asked). */
export interface PatternSite {
  readonly pattern: string
  readonly file: LoadedFile
  readonly at: () => string
}

function walkAll(ctx: NatsContext, visit: Visit): void {
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
  for (const [file, stack] of sources) if (mayHoldName(file.source.text, 'pattern')) walkPatterns(file, stack, visit)
}

/** One pattern found: its text, the file holding it, and its pointer there (spelled out only when asked). */
type Visit = (pattern: string, file: LoadedFile, at: () => string) => void

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
  reads: patternReads,
  check(ctx, report) {
    forEachPattern(ctx, (pattern, file, at) => {
      const engine = ctx.patternEngine(pattern)
      if (engine.engine === 'budgeted') report.in(file, at(), budgetedPatternMessage(pattern, engine.reason), { pattern, budget: MAX_PATTERN_STEPS })
    })
  },
})

/**
 * A `pattern` (or `patternProperties` name) that is no regular expression at all: ECMA-262 with or
 * without the Unicode flag, or led by an inline options group (pattern-dialect.ts). The Schema
 * Object only says a pattern SHOULD be ECMA-262, but no validator can check what such a pattern
 * asks: the generator cannot do it (unsupported), so the build fails here, at the pattern.
 */
export const patternInvalid = natsRule({
  code: 'NATS_PATTERN_INVALID',
  description:
    'A schema `pattern` or `patternProperties` name that is no regular expression (not ECMA-262 with or without the Unicode flag, nor led by an inline options group such as `(?i)`): no validator can check it (unsupported).',
  reads: patternReads,
  check(ctx, report) {
    forEachPattern(ctx, (pattern, file, at) => {
      const engine = ctx.patternEngine(pattern)
      if (engine.engine === 'invalid')
        report.in(file, at(), `Pattern ${JSON.stringify(pattern)} is not a regular expression (${engine.reason}); the generated validator cannot check it.`, {
          pattern,
        })
    })
  },
})

/**
 * A pattern led by an inline options group, `(?i)` and the like, as .NET, PCRE and Java write
 * them: not ECMA-262, which the Schema Object says a pattern SHOULD be (a warning), and read as
 * those options on the rest of the pattern (core/pattern-dialect.ts).
 */
export const patternDialect = natsRule({
  code: 'NATS_PATTERN_DIALECT',
  severity: 'warning',
  description:
    'A schema `pattern` or `patternProperties` name led by an inline options group such as `(?i)` (.NET, PCRE, Java): not ECMA-262, which a pattern SHOULD be; it is read as those options on the rest of the pattern.',
  reads: patternReads,
  check(ctx, report) {
    forEachPattern(ctx, (pattern, file, at) => {
      if (!pattern.startsWith('(?')) return
      const read = optionsReading(pattern)
      if (read && 'source' in read)
        report.in(
          file,
          at(),
          `Pattern ${JSON.stringify(pattern)} starts with the inline options ${read.group}, which ECMA-262 does not have; it is read as those options on the rest of the pattern (${read.source}).`,
          { pattern, inlineOptions: read.group },
        )
    })
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

/** Every `pattern` and `patternProperties` name under the stack's values, iteratively, each given to `visit`. */
function walkPatterns(file: LoadedFile, roots: Array<[unknown, string]>, visit: Visit): void {
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
    if (typeof value.pattern === 'string') visit(value.pattern, file, () => joinPointer(pointerOf(frame), 'pattern'))
    if (isObject(value.patternProperties)) {
      const properties = value.patternProperties
      for (const key in properties) if (Object.hasOwn(properties, key)) visit(key, file, () => joinPointer(pointerOf(frame), 'patternProperties', key))
    }
    // Members pushed in key order (popped in reverse), as before; for-in over own names: no key array.
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue
      const child: unknown = value[key]
      if (child !== null && typeof child === 'object') stack.push({ value: child, parent: frame, token: key })
    }
  }
}
