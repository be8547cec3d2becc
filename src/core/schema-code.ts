import { escapeToken } from '../runtime/shared/json-pointer.js'
import { KNOWN_KEYWORDS, itemTypes, type Schema, type SchemaObject } from '../runtime/shared/schema-check.js'
import { BOUNDS, MAX_VALIDATION_DEPTH, MESSAGES, type SizeKeyword } from '../runtime/shared/schema-errors.js'
import { jsLiteral, jsString } from './emit.js'
import { reachWithin } from './graph.js'
import type { CompileMemos, ContentMemo } from './memo.js'
import { patternEngine, runtimeSpec } from './pattern-safety.js'
import { PATTERNS_CONSTANT, needsLinearEngine, patternsConstant } from './schema-definitions.js'
import type { PatternSpec } from '../runtime/shared/pattern-matchers.js'

/**
 * Payload validators as code: a JSON Schema of the keywords the runtime's schema interpreter
 * implements (`src/runtime/shared/schema-check.ts`) becomes one function `(d, p, e, n)` (data,
 * instance path, errors, depth) holding exactly the checks its keywords ask for, with every
 * subschema but a `$ref` inlined, as ajv's code generation does. Same checks, same order, same
 * errors as the interpreter (`test/schema-check.test.ts` holds the two to each other and to ajv);
 * what the interpreter decides per value by closures, this decides once, at build time.
 *
 * Why code: the interpreter's closures were 3.5-4.2x ajv's time (bench/validators.ts) and shipped
 * 6 KB of interpreter with the first validator; the code is as fast as ajv's and ships only the
 * few helpers it calls. What ajv standalone code cost (seconds and megabytes for 2,000 schemas)
 * was its generality; this generator walks each schema node once and writes one line per check.
 *
 * Safety: every value from a schema reaches the code as a `jsString`/`jsLiteral` literal (property
 * names, enum values, patterns, messages); a pattern is compiled by `new RegExp(literal, "u")` or
 * is a linear-time matcher looked up by its text; nothing is evaluated while generating. Paths are
 * built only where an error is reported or a `$ref` is called. Cost: O(schema size) time and output.
 *
 * Worst case at run time: a `$ref` is the one way a schema node of this code can meet a value twice
 * (the rest is inlined, a tree). A definition reachable from two reference sites or through a cycle
 * is called through `$memo` (`memoCheck`, see `memoizedDefinitions`), so a validation visits
 * O(schema size x data size) nodes whatever the schema, and reports the first MAX_ERRORS errors of
 * the list ajv would give; one referenced once is called directly (a memo costs ~100 ns a call).
 */

/** What the code calls, by the local name it uses -> the runtime export it is. */
export const SCHEMA_HELPERS = {
  $validator: 'compiledValidator',
  $fail: 'schemaFail',
  $type: 'typeFail',
  $required: 'requiredFail',
  $additional: 'additionalFail',
  $bound: 'boundFail',
  $size: 'sizeFail',
  $multipleOfFail: 'multipleOfFail',
  $patternFail: 'patternFail',
  $deep: 'depthFail',
  $beyond: 'beyondDepth',
  $memo: 'memoCheck',
  $oneOf: 'oneOfFail',
  $unique: 'uniqueItemsFail',
  $codePoints: 'codePoints',
  $equal: 'equal',
  $multipleOf: 'isMultipleOf',
  $esc: 'escapeToken',
  $typeMatches: 'typeMatches',
  $isObject: 'isObject',
  $patternMatchers: 'patternMatchers',
  $refValidator: 'refValidator',
} as const
export type SchemaHelper = keyof typeof SCHEMA_HELPERS

/** The import specifiers for the helpers `code` used (`compiledValidator as $validator, ...`), in a fixed order. */
export function helperImports(code: SchemaCode): string[] {
  return (Object.keys(SCHEMA_HELPERS) as SchemaHelper[]).filter((h) => code.helpers.has(h)).map((h) => `${SCHEMA_HELPERS[h]} as ${h}`)
}

export interface SchemaCodeOptions {
  /** Prefix of the module constants this generator adds (patterns, key sets, values). */
  prefix: string
  /** The function (a module constant) that checks the definition a `$ref` names. */
  ref(ref: string): string
  /**
   * The module constant of runtime matchers (`patternMatchers`), when `pattern` does not run as one
   * native `RegExp`. Whether it answers must depend on `pattern` alone: a kept function's code took
   * that branch for it.
   */
  linear(pattern: string): string | undefined
  /** Functions' code kept across compiles by their schema's JSON text (`Piece`; `validatorDeclarations` passes the compiler's). */
  memo?: ContentMemo<Piece>
  /**
   * Write `LITERAL` around each literal a function of the same shape could take as a parameter
   * (`code-shapes.ts`): the schema's values, property names and paths. The caller takes them out.
   */
  markLiterals?: boolean
  /**
   * The schemas given are never changed once made (a format that keeps them across compiles, as
   * Benzene's converted schemas are): each one's memo key is made once and kept by its identity.
   */
  unchanging?: boolean
}

/** A piece's memo key: what kind of function, and the schema's JSON text. */
function pieceKey(schema: Schema, definition: boolean, marked: boolean): string {
  return `${definition ? 'D' : 'R'}${marked ? 'M' : ''}${JSON.stringify(schema)}`
}

/** `pieceKey`, kept per unchanging schema object (one table per kind of function): a kept schema's key is the same string, its hash known. */
const keptKeys = [new WeakMap<object, string>(), new WeakMap<object, string>(), new WeakMap<object, string>(), new WeakMap<object, string>()]
function keptKey(schema: Schema, definition: boolean, marked: boolean): string {
  if (typeof schema !== 'object') return pieceKey(schema, definition, marked)
  const keys = keptKeys[(definition ? 2 : 0) + (marked ? 1 : 0)]!
  let key = keys.get(schema)
  if (key === undefined) keys.set(schema, (key = pieceKey(schema, definition, marked)))
  return key
}

/**
 * Around a literal of a function's code when `markLiterals` is set: the text splits on it into
 * code and literals alternating, so functions that differ only in their literals are found without
 * reading the code again. Like `SLOT`, no literal or identifier of generated code holds it raw.
 */
export const LITERAL = '\u0002'

/**
 * Where a function's code names something of the module (a shared constant, a definition's
 * function, the linear-time matchers): U+0001 around the slot's number. No literal of generated
 * code holds that character raw (`jsString` escapes every control character) and no identifier
 * does, so the text splits on it exactly.
 */
const SLOT = '\u0001'

/** What a slot names: a module constant (kind, expression), a `$ref`'s function, a pattern's linear matcher. */
type Slot = readonly ['constant', string, string] | readonly ['ref', string] | readonly ['linear', string]

/**
 * One function's code with its module names left open: text and slot numbers alternating, the
 * slots in the order the generator asked for them, and the helpers it calls. The same schema
 * gives the same piece in any module, so a piece is kept by the schema's JSON text and a
 * recompile only fills in the names (a dev server's edit of one topic regenerates that topic's
 * functions, not the document's).
 */
export interface Piece {
  readonly parts: readonly string[]
  readonly slots: readonly Slot[]
  readonly helpers: readonly SchemaHelper[]
  readonly size: number
  /**
   * Its last filling: the names and the code they made. The same names give back that very
   * string, so what a format keeps by a function's code after it is found by identity.
   */
  last?: { names: readonly string[]; code: string }
}

/**
 * Where a node's checks apply: the variable holding the value, its path, its static depth. The
 * path is `head` (an expression) followed by the literal text `tail`: a member's path adds to the
 * text, an item's or a key's closes it into the expression (`p + "/items/" + i1`), so no list of
 * pieces is copied per member and the expression is one concatenation when asked for.
 */
interface At {
  data: string
  /** The path's expression up to its literal text (`p`, `p + "/a/" + i1`). */
  head: string
  /** Literal path text after `head` (unescaped, '' when none). */
  tail: string
  /** Schema steps and data levels below the function's own node (its depth is `n`). */
  depth: number
  /** The path as one expression, made when first asked for (every failure at this node names it). */
  code?: string
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/

/** The failing test of a one-word type, where it reads shorter than `!(test)`. */
const NEGATED: Readonly<Record<string, (x: string) => string>> = {
  string: (x) => `typeof ${x} !== "string"`,
  boolean: (x) => `typeof ${x} !== "boolean"`,
  null: (x) => `${x} !== null`,
  integer: (x) => `!Number.isInteger(${x})`,
  number: (x) => `!Number.isFinite(${x})`,
  array: (x) => `!Array.isArray(${x})`,
  object: (x) => `!$isObject(${x})`,
}

/** The keywords each kind's checks read (`numberChecks`, `stringChecks`, `arrayChecks`, `objectChecks`). */
const KIND_KEYWORDS: Readonly<Record<string, readonly string[]>> = {
  number: [...Object.keys(BOUNDS), 'multipleOf'],
  string: ['maxLength', 'minLength', 'pattern'],
  array: ['maxItems', 'minItems', 'items', 'uniqueItems'],
  object: ['maxProperties', 'minProperties', 'required', 'properties', 'patternProperties', 'additionalProperties'],
}

/** The bound keywords, in the interpreter's order. */
const BOUND_KEYWORDS = Object.keys(BOUNDS) as Array<keyof typeof BOUNDS>

/** Property names compared one by one up to this many; a `Set` past it. */
const INLINE_NAMES = 8
/** Enum values compared one by one up to this many scalars; a constant array past it. */
const INLINE_VALUES = 4

export class SchemaCode {
  /** The helpers the functions call (their imports belong in the module's header). */
  readonly helpers = new Set<SchemaHelper>()
  /** Module constants the functions share (name -> expression), to be emitted once each. */
  readonly constants = new Map<string, string>()
  private readonly shared = new Map<string, string>()
  /** The helpers of the function being written: the module's, or a piece's own while one is written. */
  private used = this.helpers
  /** A piece's slots while one is written; undefined when names are written directly. */
  private slots: Slot[] | undefined
  /** `jsString` of names and texts met again and again (property names, paths), made once each. */
  private readonly strings = new Map<string, string>()
  private vars = 0
  /** The parts of the function being written, in order (`text` joins them once). */
  private out: string[] = []
  private readonly marked: boolean

  constructor(private readonly options: SchemaCodeOptions) {
    this.marked = options.markLiterals === true
  }

  /** A validator expression: `$validator(function ...)` over `schema`. */
  validator(schema: Schema): string {
    this.helpers.add('$validator')
    return `/* @__PURE__ */ $validator(${this.fn(schema)})`
  }

  /**
   * `function (d, p, e, n) { ... }` checking `schema`. A definition's function (`definition`)
   * checks the depth first: it is entered only through a `$ref`, the one way a validation can go on
   * without end (between two references, a schema's own nesting is finite).
   */
  fn(schema: Schema, definition = false): string {
    const memo = this.options.memo
    // Without a memo (a file's first compile), names are written as they are asked for.
    if (memo === undefined) {
      this.used = this.helpers
      this.slots = undefined
      return this.text(schema, definition)
    }
    const key = this.options.unchanging ? keptKey(schema, definition, this.marked) : pieceKey(schema, definition, this.marked)
    let piece = memo.get(key)
    if (piece === undefined) {
      this.used = new Set()
      const slots: Slot[] = (this.slots = [])
      const text = this.text(schema, definition)
      const size = text.length + slots.reduce((sum, slot) => sum + slot[1].length + (slot.length === 3 ? slot[2].length : 0), 0)
      piece = { parts: text.split(SLOT), slots, helpers: [...this.used], size }
      // Twice its size: its last filling (`Piece.last`) is kept beside it.
      memo.set(key, piece, 2 * piece.size)
    }
    return this.fill(piece)
  }

  /** The function's code (its module names as slots while a piece is written), its parts in one list joined once. */
  private text(schema: Schema, definition: boolean): string {
    this.vars = 0
    const o: string[] = (this.out = [
      definition ? `function (d, p, e, n) { if (n >= ${MAX_VALIDATION_DEPTH}) return $deep(e, p); ` : 'function (d, p, e, n) { ',
    ])
    this.node(schema, { data: 'd', head: 'p', tail: '', depth: 0 })
    if (definition) this.used.add('$deep')
    o.push(' }')
    this.out = []
    return o.join('')
  }

  /** The piece's code with this module's names: slots resolved in the order they were asked for, as writing it here would have. */
  private fill(piece: Piece): string {
    for (const helper of piece.helpers) this.helpers.add(helper)
    const names: string[] = []
    // Text and slot numbers alternate: each number becomes the name resolved for it.
    const filled = (parts: readonly string[]) => {
      let out = parts[0]!
      for (let i = 1; i < parts.length; i += 2) out += names[Number(parts[i])]! + parts[i + 1]!
      return out
    }
    for (const slot of piece.slots) names.push(this.name(slot, (text) => filled(text.split(SLOT))))
    const { last } = piece
    if (last !== undefined && last.names.length === names.length && last.names.every((name, i) => name === names[i])) return last.code
    const code = filled(piece.parts)
    piece.last = { names, code }
    return code
  }

  /** A module name: a slot while a piece is written (`fill` resolves it), the name itself otherwise. */
  private slot(slot: Slot): string {
    if (this.slots === undefined) return this.name(slot, (text) => text)
    this.slots.push(slot)
    return `${SLOT}${this.slots.length - 1}${SLOT}`
  }

  /** What a slot names in this module; `named` fills the slots inside a constant's expression. */
  private name(slot: Slot, named: (text: string) => string): string {
    if (slot[0] === 'constant') return this.constant(slot[1], named(slot[2]))
    if (slot[0] === 'ref') return this.options.ref(slot[1])
    const linear = this.options.linear(slot[1])
    if (linear === undefined) throw new Error(`unplugin-contracts: the linear matcher of ${JSON.stringify(slot[1])} is gone`)
    return linear
  }

  /**
   * Writes `schema`'s checks at `at` onto `out`: their texts, the empty ones left out, joined by one
   * space as they come. Writes nothing when the node checks nothing (callers read that off the
   * list's length: no part written is empty).
   */
  private node(schema: Schema, at: At): void {
    if (schema === true) return
    if (schema === false) {
      this.out.push(this.fail(at, 'false schema', {}, MESSAGES['false schema']))
      return
    }
    for (const key in schema)
      if (Object.hasOwn(schema, key) && !KNOWN_KEYWORDS.has(key)) throw new Error(`unplugin-contracts: unsupported schema keyword ${key}`)
    const o = this.out
    const start = o.length
    // The slot names the definition's function, or its memoized caller (`validatorDeclarations` decides which).
    if (schema.$ref !== undefined) o.push(`${this.slot(['ref', schema.$ref])}(${at.data}, ${this.path(at)}, e, n + ${at.depth + 1});`)
    const gap = o.length
    if (gap > start) o.push(' ')
    const body = o.length
    this.typeAndKinds(schema, at)
    if (o.length === body) o.length = gap
    this.combinators(schema, at, start)
  }

  /** `piece` after the parts written since `start`, a space between. */
  private put(start: number, piece: string): void {
    if (this.out.length > start) this.out.push(' ', piece)
    else this.out.push(piece)
  }

  /**
   * A kind's checks (`typeAndKinds`) after a placeholder for the text before them: the
   * placeholder's index, or -1 (nothing left written) when the kind has no checks here.
   */
  private kind(kind: number, schema: SchemaObject, at: At): number {
    const o = this.out
    const at0 = o.length
    o.push('')
    if (kind === NUMBER) this.numberChecks(schema, at)
    else if (kind === STRING) this.stringChecks(schema, at)
    else if (kind === ARRAY) this.arrayChecks(schema, at)
    else this.objectChecks(schema, at)
    if (o.length > at0 + 1) return at0
    o.length = at0
    return -1
  }

  /** `type`, then the checks of each kind of value (number, string, array, object), as the interpreter orders them. */
  private typeAndKinds(schema: SchemaObject, at: At): void {
    const o = this.out
    // Tests are written only for the kinds that have checks (most nodes have none), and a kind's
    // checks are written only when the node has one of its keywords. Each kind's checks are
    // written in the interpreter's order after a placeholder, which then takes the text between
    // them (the end of the kind before, the test of this one): no kind's text is copied or joined.
    const kinds = kindsOf(schema)
    const type = schema.type
    const head = o.length
    // The placeholder for a type test before the kinds (one not among their tests).
    if (type !== undefined) o.push('')
    // Each kind's placeholder (number, string, array, object), -1 for a kind without checks.
    const places = [
      kinds & NUMBER ? this.kind(NUMBER, schema, at) : -1,
      kinds & STRING ? this.kind(STRING, schema, at) : -1,
      kinds & ARRAY ? this.kind(ARRAY, schema, at) : -1,
      kinds & OBJECT ? this.kind(OBJECT, schema, at) : -1,
    ]
    // One type whose test is its kind's test: the kind's checks run where the type passes.
    const single = typeof type === 'string' ? type : type !== undefined && type.length === 1 ? type[0] : undefined
    const ownIndex = single === 'string' ? 1 : single === 'array' ? 2 : single === 'object' ? 3 : -1
    const own = ownIndex >= 0 ? places[ownIndex]! : -1
    if (type === undefined) return this.branches(places, -1, '', at.data)
    const types = typeof type === 'string' ? [type] : type
    this.used.add('$type')
    const typeFail = `$type(e, ${this.path(at)}, ${this.str(types.join(','))});`
    if (own < 0) {
      o[head] = `if (${this.typeFails(types, at.data)}) ${typeFail} `
      return this.branches(places, -1, '', at.data)
    }
    // `if (test) { own } else { typeFail branches }`: the own kind's checks first (moved there in
    // the rare node whose other kinds' checks come before them).
    if (places.some((place, k) => k !== ownIndex && place >= 0 && place < own)) this.ownFirst(places, ownIndex, head + 1)
    o[places[ownIndex]!] = `if (${this.kindTest(single!, at.data)}) { `
    this.branches(places, ownIndex, ` } else { ${typeFail} `, at.data)
  }

  /**
   * Fills the placeholders of the kinds other than `ownIndex` with their tests (each one's text
   * after the end of the one before; the first after `lead`), and ends the last. With an own kind,
   * it is first and `lead` ends it: its `else` ends after the branches.
   */
  private branches(places: number[], ownIndex: number, lead: string, x: string): void {
    const o = this.out
    let open = false
    for (let k = 0; k < 4; k++) {
      const place = places[k]!
      if (place < 0 || k === ownIndex) continue
      const test =
        k === 0
          ? `if (typeof ${x} === "number") { `
          : k === 1
            ? `if (typeof ${x} === "string") { `
            : k === 2
              ? `if (Array.isArray(${x})) { `
              : `if (${this.typeTest('object', x)}) { `
      o[place] = open ? ` } ${test}` : lead + test
      open = true
    }
    if (ownIndex >= 0) o.push(open ? ' } }' : `${lead} }`)
    else if (open) o.push(' }')
  }

  /** Moves the own kind's parts (placeholder and checks) to `first`, before the other kinds' (their places updated). */
  private ownFirst(places: number[], ownIndex: number, first: number): void {
    const o = this.out
    const own = places[ownIndex]!
    // The own kind's parts end where the next written kind's begin.
    let end = o.length
    for (const place of places) if (place > own && place < end) end = place
    const parts = o.slice(own, end)
    const shift = end - own
    for (let i = own - 1; i >= first; i--) o[i + shift] = o[i]!
    for (let i = 0; i < parts.length; i++) o[first + i] = parts[i]!
    for (let k = 0; k < 4; k++) if (places[k]! >= first && places[k]! < own) places[k] = places[k]! + shift
    places[ownIndex] = first
  }

  /** The test of a kind with checks (`typeAndKinds`): a string, an array, an object. */
  private kindTest(kind: string, x: string): string {
    return kind === 'string' ? `typeof ${x} === "string"` : kind === 'array' ? `Array.isArray(${x})` : this.typeTest('object', x)
  }

  /** The condition under which `x` is none of `types`. */
  private typeFails(types: readonly string[], x: string): string {
    const negated = types.length === 1 && Object.hasOwn(NEGATED, types[0]!) ? NEGATED[types[0]!] : undefined
    if (negated === undefined) return `!(${types.map((t) => this.typeTest(t, x)).join(' || ')})`
    if (types[0] === 'object') this.used.add('$isObject')
    return negated(x)
  }

  /**
   * A member whose schema is only a `type`: the member's one check as `[fails, report]`, so that
   * the caller asks `hasOwn` only of a value of the wrong type (a valid value costs a read and a
   * type test). Undefined for any other schema.
   */
  private typeOnly(schema: Schema, at: At): readonly [fails: string, report: string] | undefined {
    if (typeof schema !== 'object' || schema.type === undefined) return undefined
    for (const key in schema) if (key !== 'type' && Object.hasOwn(schema, key)) return undefined
    const types = typeof schema.type === 'string' ? [schema.type] : [...schema.type]
    this.used.add('$type')
    return [this.typeFails(types, at.data), `$type(e, ${this.path(at)}, ${this.str(types.join(','))});`]
  }

  private typeTest(type: string, x: string): string {
    switch (type) {
      case 'integer':
        return `Number.isInteger(${x})`
      case 'number':
        return `Number.isFinite(${x})`
      case 'string':
      case 'boolean':
        return `typeof ${x} === "${type}"`
      case 'null':
        return `${x} === null`
      case 'array':
        return `Array.isArray(${x})`
      case 'object':
        this.used.add('$isObject')
        return `$isObject(${x})`
      default:
        this.used.add('$typeMatches')
        return `$typeMatches(${this.str(type)}, ${x})`
    }
  }

  private numberChecks(schema: SchemaObject, at: At): void {
    const x = at.data
    const start = this.out.length
    // Each bound's comparison is the JavaScript operator that holds for a valid value.
    for (const keyword of BOUND_KEYWORDS) {
      const limit = schema[keyword]
      if (limit === undefined) continue
      this.used.add('$bound')
      const literal = this.lit(limit)
      this.put(start, `if (!(${x} ${BOUNDS[keyword]} ${literal})) $bound(e, ${this.path(at)}, "${keyword}", ${literal});`)
    }
    if (schema.multipleOf !== undefined) {
      this.used.add('$multipleOf')
      this.used.add('$multipleOfFail')
      const literal = this.lit(schema.multipleOf)
      this.put(start, `if (!$multipleOf(${x}, ${literal})) $multipleOfFail(e, ${this.path(at)}, ${literal});`)
    }
  }

  private stringChecks(schema: SchemaObject, at: At): void {
    const x = at.data
    const start = this.out.length
    const { maxLength, minLength, pattern } = schema
    // A string's UTF-16 length bounds its code points (at least half, at most all): counted only when that does not decide.
    if (maxLength !== undefined) {
      this.used.add('$codePoints')
      const literal = this.lit(maxLength)
      this.put(start, `if (${x}.length > ${literal} && $codePoints(${x}) > ${literal}) ${this.size(at, 'maxLength', maxLength)}`)
    }
    if (minLength !== undefined) {
      this.used.add('$codePoints')
      this.put(start, `if (${x}.length < ${this.lit(2 * minLength)} && $codePoints(${x}) < ${this.lit(minLength)}) ${this.size(at, 'minLength', minLength)}`)
    }
    if (pattern !== undefined) {
      // The pattern's text once in the module: the matcher and the error both name its constant.
      const text = this.slot(['constant', 'pattern', jsString(pattern)])
      this.used.add('$patternFail')
      const matcher = this.matcher(pattern, text)
      // A runtime matcher may run out of its budget: the error then says the value was not decided.
      const undecided = this.options.linear(pattern) !== undefined ? `, ${matcher}.undecided` : ''
      this.put(start, `if (!${matcher}.test(${x})) $patternFail(e, ${this.path(at)}, ${text}${undecided});`)
    }
  }

  private arrayChecks(schema: SchemaObject, at: At): void {
    const o = this.out
    const x = at.data
    const start = o.length
    if (schema.maxItems !== undefined) {
      this.put(start, `if (${x}.length > ${this.lit(schema.maxItems)}) ${this.size(at, 'maxItems', schema.maxItems)}`)
    }
    if (schema.minItems !== undefined) {
      this.put(start, `if (${x}.length < ${this.lit(schema.minItems)}) ${this.size(at, 'minItems', schema.minItems)}`)
    }
    if (schema.items !== undefined) {
      const i = this.local('i')
      const v = this.local('v')
      const gap = o.length
      this.put(start, `for (let ${i} = 0; ${i} < ${x}.length; ${i}++) { const ${v} = ${x}[${i}]; `)
      const body = o.length
      this.node(schema.items, this.keyAt(at, v, i))
      if (o.length === body) o.length = gap
      else o.push(' }')
    }
    if (schema.uniqueItems === true) {
      this.used.add('$unique')
      this.put(start, `$unique(${x}, ${this.path(at)}, e, ${this.lit(itemTypes(schema))});`)
    }
  }

  private objectChecks(schema: SchemaObject, at: At): void {
    const o = this.out
    const x = at.data
    const start = o.length
    const { maxProperties, minProperties, required } = schema
    const properties = schema.properties ?? {}
    const names = Object.keys(properties)
    const patterned = Object.keys(schema.patternProperties ?? {})
    const extra = schema.additionalProperties
    const closed = extra === false
    const open = extra === undefined || extra === true
    // The own keys as an array only where they are counted or matched against patterns; a closed
    // object's keys are walked with `for...in` (no array per value), inherited ones skipped.
    const needKeys = maxProperties !== undefined || minProperties !== undefined || patterned.length > 0
    const keys = this.local('k')
    if (needKeys) this.put(start, `const ${keys} = Object.keys(${x});`)
    if (maxProperties !== undefined) {
      this.put(start, `if (${keys}.length > ${this.lit(maxProperties)}) ${this.size(at, 'maxProperties', maxProperties)}`)
    }
    if (minProperties !== undefined) {
      this.put(start, `if (${keys}.length < ${this.lit(minProperties)}) ${this.size(at, 'minProperties', minProperties)}`)
    }
    // Own members only: a payload is not judged by what every object inherits (`constructor`).
    if (required !== undefined)
      for (const name of required) {
        this.used.add('$required')
        const literal = this.str(name)
        this.put(start, `if (!Object.hasOwn(${x}, ${literal})) $required(e, ${this.path(at)}, ${literal});`)
      }
    if (!open) {
      const key = this.local('key')
      const known = [this.declared(names, key), ...patterned.map((p) => `${this.matcher(p)}.test(${key})`)].filter((t) => t !== '')
      const skip = known.length > 0 ? `if (${known.join(' || ')}) continue; ` : ''
      const member = this.local('m')
      const loop = needKeys ? `for (const ${key} of ${keys}) { ${skip}` : `for (const ${key} in ${x}) { ${skip}if (!Object.hasOwn(${x}, ${key})) continue; `
      if (closed) {
        this.used.add('$additional')
        this.put(start, `${loop}$additional(e, ${this.path(at)}, ${key}); }`)
      } else {
        this.put(start, `${loop}const ${member} = ${x}[${key}]; `)
        this.node(extra, { ...this.memberAt(at, key), data: member })
        o.push(' }')
      }
    }
    // One variable for the members' values, in turn (a member's checks use only its own value).
    const v = this.local('v')
    if (names.length > 0) {
      const gap = o.length
      this.put(start, `let ${v}; `)
      const first = o.length
      for (const name of names) {
        const memberAt: At = { data: v, head: at.head, tail: `${at.tail}/${escapeToken(name)}`, depth: at.depth + 1 }
        const read = `(${v} = ${this.member(x, name)}) !== undefined`
        const own = `Object.hasOwn(${x}, ${this.str(name)})`
        // The same verdict as checking an own member's type: a wrong type reported only when own.
        const leaf = this.typeOnly(properties[name]!, memberAt)
        if (leaf) {
          this.put(first, `if (${read} && ${leaf[0]} && ${own}) ${leaf[1]}`)
          continue
        }
        // The value first: an absent member (the usual optional one) costs one read, no `hasOwn`.
        const before = o.length
        this.put(first, `if (${read} && ${own}) { `)
        const body = o.length
        this.node(properties[name]!, memberAt)
        if (o.length === body) o.length = before
        else o.push(' }')
      }
      if (o.length === first) o.length = gap
    }
    for (const pattern of patterned) {
      const key = this.local('key')
      const member = this.local('m')
      // The loop's head names the matcher, asked for after the member's checks (as the module's constants are numbered).
      const gap = o.length
      if (gap > start) o.push(' ')
      const place = o.length
      o.push('')
      this.node(schema.patternProperties![pattern]!, { ...this.memberAt(at, key), data: member })
      const checked = o.length > place + 1
      const matcher = this.matcher(pattern)
      // A name a runtime matcher could not decide on is neither checked nor passed: refused, at the member.
      let undecided = ''
      if (this.options.linear(pattern) !== undefined) {
        this.used.add('$patternFail')
        undecided = ` else if (${matcher}.undecided) $patternFail(e, ${this.pathCode(this.memberAt(at, key))}, ${this.slot(['constant', 'pattern', jsString(pattern)])}, true);`
      }
      if (!checked && undecided === '') o.length = gap
      else {
        o[place] = `for (const ${key} of ${keys}) if (${matcher}.test(${key})) { const ${member} = ${x}[${key}]; `
        o.push(` }${undecided}`)
      }
    }
  }

  /** The place of a member found by key (`$esc` of it in the path). */
  private memberAt(at: At, key: string): At {
    this.used.add('$esc')
    return this.keyAt(at, `${at.data}[${key}]`, `$esc(${key})`)
  }

  /** A test that `key` is one of `names` ('' when there are none). */
  private declared(names: readonly string[], key: string): string {
    if (names.length === 0) return ''
    if (names.length <= INLINE_NAMES) return names.map((name) => `${key} === ${this.str(name)}`).join(' || ')
    return `${this.slot(['constant', 'names', `/* @__PURE__ */ new Set(${jsLiteral(names)})`])}.has(${key})`
  }

  /** After the parts written since `start`: the checks of `enum`, `const` and the combinators, each after a space (empty ones left out). */
  private combinators(schema: SchemaObject, at: At, start: number): void {
    const x = at.data
    if (
      schema.enum === undefined &&
      !('const' in schema) &&
      schema.allOf === undefined &&
      schema.anyOf === undefined &&
      schema.oneOf === undefined &&
      schema.not === undefined &&
      schema.if === undefined
    )
      return
    const o = this.out
    const below: At = { ...at, depth: at.depth + 1 }
    if (schema.enum !== undefined) {
      const values = schema.enum
      const allScalar = values.every((v) => v === null || typeof v !== 'object')
      const test =
        allScalar && values.length <= INLINE_VALUES
          ? values.length === 0
            ? 'true'
            : values.map((v) => `${x} !== ${this.lit(v)}`).join(' && ')
          : allScalar
            ? `!${this.slot(['constant', 'values', jsLiteral(values)])}.includes(${x})`
            : `!${this.slot(['constant', 'values', jsLiteral(values)])}.some((v) => $equal(v, ${x}))`
      if (!allScalar) this.used.add('$equal')
      const allowed = allScalar && values.length <= INLINE_VALUES ? this.lit(values) : this.slot(['constant', 'values', jsLiteral(values)])
      this.used.add('$fail')
      this.put(start, `if (${test}) $fail(e, ${this.path(at)}, "enum", { allowedValues: ${allowed} }, ${jsString(MESSAGES.enum)});`)
    }
    if ('const' in schema) {
      const value = schema.const
      const scalar = value === null || typeof value !== 'object'
      const literal = scalar ? this.lit(value) : this.slot(['constant', 'value', jsLiteral(value)])
      if (!scalar) this.used.add('$equal')
      this.used.add('$fail')
      this.put(
        start,
        `if (${scalar ? `${x} !== ${literal}` : `!$equal(${literal}, ${x})`}) $fail(e, ${this.path(at)}, "const", { allowedValue: ${literal} }, ${jsString(MESSAGES.const)});`,
      )
    }
    if (schema.allOf !== undefined)
      for (const s of schema.allOf) {
        const gap = o.length
        if (gap > start) o.push(' ')
        const body = o.length
        this.node(s, below)
        if (o.length === body) o.length = gap
      }
    // Branches report into `e` itself; a branch that passes, or a `not` that fails, takes its errors back (`e.length = start`).
    if (schema.anyOf !== undefined) {
      const first = this.local('s')
      const ok = this.local('ok')
      this.put(start, `{ const ${first} = e.length; let ${ok} = false; `)
      schema.anyOf.forEach((s, i) => {
        const before = this.local('b')
        o.push(i === 0 ? `{ const ${before} = e.length; ` : ` if (!${ok}) { const ${before} = e.length; `)
        this.node(s, below)
        o.push(` ${ok} = e.length === ${before}; }`)
      })
      this.used.add('$fail')
      o.push(` if (${ok}) e.length = ${first}; else $fail(e, ${this.path(at)}, "anyOf", {}, ${jsString(MESSAGES.anyOf)}); }`)
    }
    if (schema.oneOf !== undefined) {
      const first = this.local('s')
      const count = this.local('c')
      const one = this.local('f')
      const two = this.local('g')
      this.put(start, `{ const ${first} = e.length; let ${count} = 0, ${one} = -1, ${two} = -1; `)
      // A second passing branch settles it: like ajv, later branches are not looked at.
      schema.oneOf.forEach((s, i) => {
        const before = this.local('b')
        o.push(`${i === 0 ? '' : ' '}if (${count} < 2) { const ${before} = e.length; `)
        this.node(s, below)
        o.push(` if (e.length === ${before}) { if (${count}++ === 0) ${one} = ${i}; else ${two} = ${i}; } }`)
      })
      this.used.add('$oneOf')
      o.push(` if (${count} === 1) e.length = ${first}; else $oneOf(e, ${this.path(at)}, ${count} > 1 ? [${one}, ${two}] : null); }`)
    }
    if (schema.not !== undefined) {
      const before = this.local('b')
      this.used.add('$fail')
      this.put(start, `{ const ${before} = e.length; `)
      this.node(schema.not, below)
      o.push(` if (e.length === ${before}) $fail(e, ${this.path(at)}, "not", {}, ${jsString(MESSAGES.not)}); else e.length = ${before}; }`)
    }
    if (schema.if !== undefined && schema.then !== undefined) {
      const before = this.local('b')
      this.used.add('$fail')
      this.put(start, `{ const ${before} = e.length; `)
      this.node(schema.if, below)
      o.push(` if (e.length === ${before}) { `)
      this.node(schema.then, below)
      o.push(
        ` if (e.length > ${before}) $fail(e, ${this.path(at)}, "if", { failingKeyword: "then" }, ${jsString(MESSAGES.if)}); } else e.length = ${before}; }`,
      )
    }
  }

  private size(at: At, keyword: SizeKeyword, limit: number): string {
    this.used.add('$size')
    return `$size(e, ${this.path(at)}, "${keyword}", ${this.lit(limit)});`
  }

  private fail(at: At, keyword: string, params: Record<string, unknown>, message: string): string {
    this.used.add('$fail')
    return `$fail(e, ${this.path(at)}, ${jsString(keyword)}, ${jsLiteral(params)}, ${jsString(message)});`
  }

  /** The path expression, adjacent literal pieces joined: `p + "/items/" + i1`. */
  private path(at: At): string {
    return (at.code ??= this.pathCode(at))
  }

  private pathCode(at: At): string {
    return at.tail === '' ? at.head : `${at.head} + ${this.str(at.tail)}`
  }

  /** The place of an item or a member found by key: `at`'s path, `/`, then the expression `key`. */
  private keyAt(at: At, data: string, key: string): At {
    return { data, head: `${at.head} + ${this.str(`${at.tail}/`)} + ${key}`, tail: '', depth: at.depth + 1 }
  }

  /** The expression whose `test` decides `pattern`: a runtime matcher (`$patterns`), or a shared `RegExp` constant. */
  private matcher(pattern: string, text?: string): string {
    if (this.options.linear(pattern) !== undefined) return `${this.slot(['linear', pattern])}[${text ?? this.str(pattern)}]`
    return this.slot(['constant', 're', `/* @__PURE__ */ new RegExp(${text ?? jsString(pattern)}, "u")`])
  }

  /** A module constant for `expression`, one per distinct expression. */
  private constant(kind: string, expression: string): string {
    const key = `${kind}\u0000${expression}`
    let name = this.shared.get(key)
    if (name === undefined) {
      name = `${this.options.prefix}${kind}${this.shared.size}`
      this.shared.set(key, name)
      this.constants.set(name, expression)
    }
    return name
  }

  /** A string literal of a function's code (marked when `markLiterals`). */
  private str(text: string): string {
    let literal = this.strings.get(text)
    if (literal === undefined) this.strings.set(text, (literal = this.marked ? LITERAL + jsString(text) + LITERAL : jsString(text)))
    return literal
  }

  /**
   * A schema's value in a function's code, `jsLiteral`'s text, with (when `markLiterals`) each
   * string and number marked as `cutLiterals` would cut it: a number's sign, `true`, `false`,
   * `null` and an array's brackets are code.
   */
  private lit(value: unknown): string {
    // A finite number's JSON text is its literal (no character `jsString` escapes); a string's is `str`'s.
    if (typeof value === 'number' && Number.isFinite(value) && !this.marked) return JSON.stringify(value)
    if (!this.marked) return typeof value === 'string' ? this.str(value) : jsLiteral(value)
    if (typeof value === 'string') return this.str(value)
    if (typeof value === 'number' && Number.isFinite(value)) {
      const text = JSON.stringify(value)
      return text.charCodeAt(0) === 45 ? `-${LITERAL}${text.slice(1)}${LITERAL}` : `${LITERAL}${text}${LITERAL}`
    }
    if (Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object')) return `[${value.map((v) => this.lit(v)).join(',')}]`
    return jsLiteral(value)
  }

  /** `x.name`, or `x["name"]` when the name is not an identifier. */
  private member(x: string, name: string): string {
    return IDENTIFIER.test(name) ? `${x}.${name}` : `${x}[${this.str(name)}]`
  }

  private local(kind: string): string {
    return `${kind}${this.vars++}`
  }
}

const NUMBER = 1
const STRING = 2
const ARRAY = 4
const OBJECT = 8
/** Each kind's keywords (`KIND_KEYWORDS`) -> the kind's bit. */
const KIND_BITS: ReadonlyMap<string, number> = new Map(
  Object.entries({ number: NUMBER, string: STRING, array: ARRAY, object: OBJECT }).flatMap(([kind, bit]) => KIND_KEYWORDS[kind]!.map((k) => [k, bit] as const)),
)

/** The kinds (bits) `schema` has a keyword of, a keyword set to `undefined` not counted: one pass over its own keys. */
function kindsOf(schema: SchemaObject): number {
  let kinds = 0
  for (const key in schema) {
    const bit = KIND_BITS.get(key)
    if (bit !== undefined && Object.hasOwn(schema, key) && (schema as Record<string, unknown>)[key] !== undefined) kinds |= bit
  }
  return kinds
}

/** The memo of validator functions' pieces, one per compiler. */
const PIECES = 'schema-code'

/** One validator for a module: the constant it is exported under inside the module, and its root schema. */
export interface ValidatorRoot {
  name: string
  schema: Schema
}

/** The validators of one module, ready to emit. */
export interface ValidatorDeclarations {
  /** `const` name -> expression, in emission order: shared constants, definitions' functions, validators. */
  declarations: Map<string, string>
  /** The runtime imports the declarations call (`compiledValidator as $validator`, ...). */
  imports: string[]
  /** Whether the declarations need the linear-time engine (`LINEAR_PATTERNS_IMPORT`, its own import). */
  linearPatterns: boolean
  /**
   * With `refRoots`: how many places of the code call each function constant (a definition's, or
   * its memoized caller), the bare-reference validators (`$refValidator(name)`) not counted, and
   * the function each of those validators names. A function no code calls and one validator names
   * can be written where that validator is.
   */
  calls?: ReadonlyMap<string, number>
  refRoots?: ReadonlyMap<string, string>
}

/** How `validatorDeclarations` writes a module's validators. */
export interface ValidatorOptions {
  /**
   * A root schema that is exactly `{ $ref }` becomes `$refValidator(<its definition's function>)`
   * (`refValidator` in the runtime) instead of a function of its own that calls it.
   */
  refRoots?: boolean
  /** Marks the literals of functions' code (`SchemaCodeOptions.markLiterals`); the caller takes them out. */
  markLiterals?: boolean
  /** The schemas are never changed once made (`SchemaCodeOptions.unchanging`). */
  unchanging?: boolean
}

/**
 * The code of `roots` and of every definition they reach through `$ref` (`definitions`: reference ->
 * the function constant's name and its schema), each definition once however many validators call
 * it, so the output is linear in the schemas, and a bundler keeps only the functions an imported
 * validator reaches. Throws `schema is invalid: ...` for a reference that names nothing or a pattern
 * that is not a regular expression (the check stages refuse both first: reaching it is a bug of ours).
 */
export function validatorDeclarations(
  roots: readonly ValidatorRoot[],
  definitions: ReadonlyMap<string, { readonly name: string; readonly schema: Schema }>,
  prefix: string,
  memos?: CompileMemos,
  options: ValidatorOptions = {},
): ValidatorDeclarations {
  const linear = new Map<string, PatternSpec>()
  const wanted: string[] = []
  const reached = new Set<string>()
  // Each schema's references, found once: both analyses below read them.
  const rootRefs = roots.map((root) => refsIn(root.schema))
  const edges = new Map<string, string[]>()
  for (const [ref, { schema }] of definitions) edges.set(ref, refsIn(schema))
  const memoized = memoizedDefinitions(rootRefs, edges)
  const enterable = enterableDefinitions(rootRefs.flat(), (ref) => edges.get(ref) ?? NO_REFS)
  const calls = new Map<string, number>()
  const called = (ref: string): string => {
    const definition = definitions.get(ref)
    if (!definition) throw new Error(`schema is invalid: reference ${ref} names no definition`)
    if (!enterable.has(ref)) {
      code.helpers.add('$beyond')
      return '$beyond'
    }
    if (!reached.has(ref)) {
      reached.add(ref)
      wanted.push(ref)
    }
    return memoized.has(ref) ? `${definition.name}$m` : definition.name
  }
  const code = new SchemaCode({
    prefix,
    memo: memos?.of<Piece>(PIECES),
    markLiterals: options.markLiterals,
    unchanging: options.unchanging,
    ref(ref) {
      const name = called(ref)
      if (name !== '$beyond') calls.set(name, (calls.get(name) ?? 0) + 1)
      return name
    },
    linear(pattern) {
      const engine = patternEngine(pattern)
      if (engine.engine === 'invalid') throw new Error(`schema is invalid: pattern ${JSON.stringify(pattern)}: ${engine.reason}`)
      const spec = runtimeSpec(engine)
      if (spec === undefined) return undefined
      linear.set(pattern, spec)
      return PATTERNS_CONSTANT
    },
  })
  const refRoots = new Map<string, string>()
  const validators = roots.map((root) => {
    const ref = options.refRoots ? bareRef(root.schema) : undefined
    if (ref === undefined) return [root.name, code.validator(root.schema)] as const
    const name = called(ref)
    refRoots.set(root.name, name)
    code.helpers.add('$refValidator')
    return [root.name, `/* @__PURE__ */ $refValidator(${name})`] as const
  })
  const functions: Array<readonly [string, string]> = []
  // Definitions found while writing others are written too: a queue, each once (cycles included).
  for (let i = 0; i < wanted.length; i++) {
    const definition = definitions.get(wanted[i]!)!
    functions.push([definition.name, code.fn(definition.schema, true)])
    if (memoized.has(wanted[i]!)) {
      code.helpers.add('$memo')
      calls.set(definition.name, (calls.get(definition.name) ?? 0) + 1)
      functions.push([`${definition.name}$m`, `function (d, p, e, n) { $memo(${definition.name}, d, p, e, n); }`])
    }
  }
  const declarations = new Map<string, string>(code.constants)
  if (linear.size > 0) {
    declarations.set(PATTERNS_CONSTANT, patternsConstant(linear))
    code.helpers.add('$patternMatchers')
  }
  for (const [name, expression] of [...functions.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)), ...validators]) declarations.set(name, expression)
  const made: ValidatorDeclarations = { declarations, imports: helperImports(code), linearPatterns: needsLinearEngine(linear) }
  return options.refRoots ? { ...made, calls, refRoots } : made
}

/** The reference of a schema that is exactly `{ $ref }`, or undefined. */
function bareRef(schema: Schema): string | undefined {
  if (typeof schema !== 'object' || typeof schema.$ref !== 'string') return undefined
  for (const key in schema) if (key !== '$ref' && Object.hasOwn(schema, key)) return undefined
  return schema.$ref
}

/**
 * The definitions a validation can reach more than once with one value: those with two or more
 * reference sites (in definitions' bodies, plus the most any one root has: a validation starts
 * from one root) and those on or below a reference cycle. Every other definition is reached from
 * one site of a function that itself runs once per value, so it runs once per value too.
 * Iterative (Kahn's peeling for the cycles): O(schemas' size). `rootRefs`: each root's references
 * (`refsIn`), one entry per site; `edges`: each definition's, by its reference.
 */
export function memoizedDefinitions(rootRefs: readonly (readonly string[])[], edges: ReadonlyMap<string, readonly string[]>): ReadonlySet<string> {
  const sites = new Map<string, number>()
  for (const targets of edges.values()) for (const target of targets) sites.set(target, (sites.get(target) ?? 0) + 1)
  const fromRoots = new Map<string, number>()
  for (const refs of rootRefs) {
    const own = new Map<string, number>()
    for (const target of refs) own.set(target, (own.get(target) ?? 0) + 1)
    for (const [target, count] of own) fromRoots.set(target, Math.max(fromRoots.get(target) ?? 0, count))
  }
  const out = new Set<string>()
  for (const ref of edges.keys()) if ((sites.get(ref) ?? 0) + (fromRoots.get(ref) ?? 0) >= 2) out.add(ref)
  // Peel definitions no other definition refers to; what is left is on a cycle or below one.
  const indegree = new Map<string, number>()
  for (const ref of edges.keys()) indegree.set(ref, 0)
  for (const targets of edges.values()) for (const t of targets) if (indegree.has(t)) indegree.set(t, indegree.get(t)! + 1)
  const free = [...indegree].filter(([, d]) => d === 0).map(([ref]) => ref)
  while (free.length > 0) {
    const ref = free.pop()!
    indegree.delete(ref)
    for (const t of edges.get(ref) ?? []) {
      const d = indegree.get(t)
      if (d === undefined) continue
      indegree.set(t, d - 1)
      if (d === 1) free.push(t)
    }
  }
  for (const ref of indegree.keys()) out.add(ref)
  return out
}

/**
 * The definitions a validation can enter: a validator starts at depth 0 and each `$ref` it follows
 * adds at least one level (`n + depth + 1` in the code; `refValidator` and the interpreter add
 * one), and a definition is entered only below MAX_VALIDATION_DEPTH, so one that is that many
 * references or more from every root is never entered: a reference to it fails with `depthFail`
 * before it would be. `starts`: the references the roots make; `edges`: those a definition makes.
 * The generated forms leave the others out (code calls the runtime's `beyondDepth` instead, data
 * names `true`): same errors, and no chain of thousands of definitions, which only a hostile
 * document has and which a bundler's tree-shaking walks link by link (Rollup's stack overflowed on
 * a chain of 8,000). A lower bound on the depth, so nothing that can run is left out.
 * Breadth-first: O(the enterable definitions' references).
 */
export function enterableDefinitions(starts: Iterable<string>, edges: (ref: string) => Iterable<string>): ReadonlySet<string> {
  return reachWithin(starts, edges, MAX_VALIDATION_DEPTH - 1)
}

/**
 * Every `$ref` in a schema's own tree (not following them), one entry per site. Iterative; the
 * subschemas (`subschemas`' keywords) are pushed straight onto the stack, no list per node.
 */
function refsIn(schema: Schema): string[] {
  const out: string[] = []
  const stack: Schema[] = [schema]
  while (stack.length > 0) {
    const s = stack.pop()!
    if (typeof s === 'boolean') continue
    if (s.$ref !== undefined) out.push(s.$ref)
    if (s.items !== undefined) stack.push(s.items)
    if (s.additionalProperties !== undefined) stack.push(s.additionalProperties)
    if (s.properties !== undefined) pushMembers(stack, s.properties)
    if (s.patternProperties !== undefined) pushMembers(stack, s.patternProperties)
    if (s.allOf !== undefined) for (let i = 0; i < s.allOf.length; i++) stack.push(s.allOf[i]!)
    if (s.anyOf !== undefined) for (let i = 0; i < s.anyOf.length; i++) stack.push(s.anyOf[i]!)
    if (s.oneOf !== undefined) for (let i = 0; i < s.oneOf.length; i++) stack.push(s.oneOf[i]!)
    if (s.not !== undefined) stack.push(s.not)
    if (s.if !== undefined) stack.push(s.if)
    if (s.then !== undefined) stack.push(s.then)
  }
  return out
}

const NO_REFS: readonly string[] = []

function pushMembers(stack: Schema[], map: Readonly<Record<string, Schema>>): void {
  for (const key in map) if (Object.hasOwn(map, key)) stack.push(map[key]!)
}
