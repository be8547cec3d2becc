import { LITERAL } from '../../core/schema-code.js'

/**
 * Validator functions (and, in the data form, definition literals) that differ only in their
 * literals, written once. A document's schemas often
 * share a shape (a thousand request objects with the same members, each with its own `maxLength`;
 * response objects that differ in one enum value): their generated functions are then the same
 * text but for a few numbers and strings. Such a group becomes one factory, `($a0) => function (d,
 * p, e, n) { ... $a0 ... }`, and each member a call with its own literals, `$shape0(21)`: the
 * function's code once, the literals as data. A literal the members share stays in the code, so the
 * factory's function is the members' own code with closure constants where they differ: the same
 * checks in the same order, as fast.
 *
 * Only literals become parameters, never names (a member's calls to other definitions are part of
 * its shape), so a factory runs nothing but closure creation when the module is evaluated, and a
 * bundler still keeps only the members an import reaches.
 */

/** A function's code cut at its literals: `parts[0] literal[0] parts[1] ...`. */
export interface Cut {
  readonly parts: readonly string[]
  readonly literals: readonly string[]
}

/** What `shareShapes` made: the factories to declare first, and each member's new expression. */
export interface Shapes {
  factories: Map<string, string>
  members: Map<string, string>
}

/** A group this small or smaller stays as it is: gzip already writes a second copy of a function cheaply. */
const MIN_MEMBERS = 3

/**
 * The factories for `functions` (name -> a `function (...) {...}` expression, or a schema's object
 * literal), in the order their first members come, each with its members' calls. A group becomes a
 * factory only when its text shrinks by it.
 */
export function shareShapes(functions: ReadonlyMap<string, string>, prefix = '$shape'): Shapes {
  const cuts = new Map<string, Cut>()
  for (const [name, code] of functions) cuts.set(name, cutLiterals(code))
  return shareCutShapes(cuts, prefix)
}

/**
 * A function's code written with `LITERAL` around its literals (`SchemaCode`'s `markLiterals`), as
 * code and literals: the generator decided what is a literal while writing it, so nothing reads
 * the code again to find them.
 */
export function markedCut(code: string): Cut {
  const pieces = code.split(LITERAL)
  const parts: string[] = []
  const literals: string[] = []
  for (let i = 0; i < pieces.length; i++) (i % 2 === 0 ? parts : literals).push(pieces[i]!)
  return { parts, literals }
}

/** `markedCut`'s code as written, without the marks (one native pass: a split and a join made an array of the pieces). */
export function unmarked(code: string): string {
  return code.includes(LITERAL) ? code.replaceAll(LITERAL, '') : code
}

/** `shareShapes` over code already cut at its literals; `kept`: the cuts are kept across compiles, so each one's group key is kept by the cut. */
export function shareCutShapes(functions: ReadonlyMap<string, Cut>, prefix = '$shape', kept = false): Shapes {
  const groups = new Map<string, Array<{ name: string; cut: Cut }>>()
  for (const [name, cut] of functions) {
    if (cut.literals.length === 0) continue
    let key = kept ? GROUP_KEYS.get(cut) : undefined
    if (key === undefined) {
      key = cut.parts.join('\u0002')
      if (kept) GROUP_KEYS.set(cut, key)
    }
    let group = groups.get(key)
    if (!group) groups.set(key, (group = []))
    group.push({ name, cut })
  }
  const factories = new Map<string, string>()
  const members = new Map<string, string>()
  for (const group of groups.values()) {
    if (group.length < MIN_MEMBERS) continue
    const { parts, literals: first } = group[0]!.cut
    // One parameter per column of literals that differs between members; columns that hold the
    // same literal in every member (a `maxLength` written in its test and in its error) share one.
    const column = (i: number) => group.map((m) => m.cut.literals[i]).join('\u0000')
    const param: Array<number | undefined> = []
    const columns = new Map<string, number>()
    const sources: number[] = []
    first.forEach((literal, i) => {
      if (!group.some((m) => m.cut.literals[i] !== literal)) return
      const key = column(i)
      let p = columns.get(key)
      if (p === undefined) {
        columns.set(key, (p = sources.length))
        sources.push(i)
      }
      param[i] = p
    })
    if (sources.length === 0) continue
    let body = parts[0]!
    for (let i = 0; i < first.length; i++) body += (param[i] === undefined ? first[i]! : `$a${param[i]}`) + parts[i + 1]!
    // An object literal (a schema of the data form) is returned in parentheses, not read as a block.
    const factory = `(${sources.map((_, p) => `$a${p}`).join(', ')}) => ${body.startsWith('{') ? `(${body})` : body}`
    const name = `${prefix}${factories.size}`
    const calls = group.map((m) => `/* @__PURE__ */ ${name}(${sources.map((i) => m.cut.literals[i]).join(', ')})`)
    const before = group.reduce((sum, m) => sum + cutLength(m.cut), 0)
    const after = factory.length + calls.reduce((sum, call) => sum + call.length, 0)
    if (after >= before) continue
    factories.set(name, factory)
    group.forEach((m, i) => members.set(m.name, calls[i]!))
  }
  return { factories, members }
}

/** Each cut's group key (its code between the literals), by the cut: a kept cut's is made once. */
const GROUP_KEYS = new WeakMap<Cut, string>()

function cutLength(cut: Cut): number {
  let n = 0
  for (const part of cut.parts) n += part.length
  for (const literal of cut.literals) n += literal.length
  return n
}

const QUOTE = 34
const BACKSLASH = 92
const SLASH = 47
const STAR = 42
const COLON = 58
const EQUALS = 61

const isDigit = (c: number) => c >= 48 && c <= 57
/** Letters, digits, `_` and `$`: a digit after one of these is part of a name, not a number. */
const isNameChar = (c: number) => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36

/** Where the number starting at `i` ends: digits, a fraction, an exponent (as `JSON.stringify` writes numbers). */
function numberEnd(code: string, i: number): number {
  const digits = (k: number) => {
    while (isDigit(code.charCodeAt(k))) k++
    return k
  }
  let k = digits(i)
  if (code.charCodeAt(k) === 46 && isDigit(code.charCodeAt(k + 1))) k = digits(k + 1)
  const e = code.charCodeAt(k)
  if (e === 101 || e === 69) {
    const sign = code.charCodeAt(k + 1)
    const at = sign === 43 || sign === 45 ? k + 2 : k + 1
    if (isDigit(code.charCodeAt(at))) k = digits(at)
  }
  return k
}
/** `typeof x === ` just before a string: the comparison V8 compiles to a type test only with a literal. */
const TYPEOF_BEFORE = /typeof [\w$.[\]]+ [!=]== $/

/**
 * Cuts generated code at its string and number literals (the code writes strings only as `jsString`
 * double-quoted literals, and no regular-expression literals). Kept in the text: object keys (a
 * string before `:`, which a name there would change), the type names `typeof` is compared with,
 * and numbers glued to a name.
 */
export function cutLiterals(code: string): Cut {
  const parts: string[] = []
  const literals: string[] = []
  let from = 0
  const take = (start: number, end: number) => {
    parts.push(code.slice(from, start))
    literals.push(code.slice(start, end))
    from = end
  }
  const n = code.length
  for (let i = 0; i < n;) {
    const c = code.charCodeAt(i)
    if (c === QUOTE) {
      let j = i + 1
      while (j < n && code.charCodeAt(j) !== QUOTE) j += code.charCodeAt(j) === BACKSLASH ? 2 : 1
      const end = j + 1
      let after = end
      while (after < n && code.charCodeAt(after) === 32) after++
      const key = after < n && code.charCodeAt(after) === COLON
      // `=== "string"` after `typeof`: looked at only after `== ` (the cheap test first).
      const compared = code.charCodeAt(i - 1) === 32 && code.charCodeAt(i - 2) === EQUALS && TYPEOF_BEFORE.test(code.slice(Math.max(0, i - 48), i))
      if (!key && !compared) take(i, end)
      i = end
    } else if (c === SLASH && code.charCodeAt(i + 1) === STAR) {
      const close = code.indexOf('*/', i + 2)
      i = close < 0 ? n : close + 2
    } else if (isDigit(c) && (i === 0 || (!isNameChar(code.charCodeAt(i - 1)) && code.charCodeAt(i - 1) !== 46))) {
      const end = numberEnd(code, i)
      if (end >= n || !isNameChar(code.charCodeAt(end))) take(i, end)
      i = end
    } else i++
  }
  parts.push(code.slice(from))
  return { parts, literals }
}
