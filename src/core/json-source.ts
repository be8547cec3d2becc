import type { Node, ParseError } from 'jsonc-parser'
import { CORE_CODES, readPast } from './codes.js'
import type { Diagnostic } from './diagnostics.js'
import { joinPointer, splitPointer } from '../runtime/shared/json-pointer.js'
import { lazyRequire } from './lazy-require.js'
import { LIMITS, loneSurrogate, mayOverflowNumber, nonFiniteNumber, tooDeepJson } from './limits.js'
import { countKeys, scanJson, type JsonRegions } from './json-regions.js'
import { stringEnd } from './json-scan.js'
import { LineIndex } from './source-text.js'

/** The JSON reader with positions, loaded by the first JSON document (a YAML-only process never needs it). */
const jsonc = lazyRequire<typeof import('jsonc-parser')>('jsonc-parser')

/**
 * A JSON document with the position of every value, so that any rule can report a JSON Pointer and
 * get back a line and column. Strict JSON: comments, trailing commas and duplicate keys are
 * diagnostics, not extensions. The value itself comes from `JSON.parse`, so numbers and strings
 * are exactly what every other JSON consumer (and the contract hash) sees.
 */
export interface JsonSource {
  file: string
  text: string
  value: unknown
  lines: LineIndex
  /** Position of the value at `pointer`, or of its nearest existing ancestor. */
  locate(pointer: string): { line: number; column: number; offset: number }
  /**
   * YAML's fast path only (yaml-source.ts): the start offset of the mapping or sequence at
   * `pointer`, or undefined where the fast path cannot say. Unlike `locate`, never parses the text
   * again: a caller with its own fallback (the NATS differ) asks this first.
   */
  collectionStart?(pointer: string): number | undefined
}

export interface JsonParseResult {
  source: JsonSource
  /** Errors: with any, the text is not read (`source.value` is undefined), but for key errors the value is read past (codes.ts `readPast`). */
  diagnostics: Diagnostic[]
  /** Warnings about a text that was read (a YAML merge key): the caller that reports the document's diagnostics adds them. */
  warnings?: Diagnostic[]
}

/**
 * `regions`: what the last parse of the same file read (core/json-regions.ts): the value's parts
 * whose text is unchanged since then are the very values read then.
 */
/** Whether a parse's value is to be checked: read (a value), with no error but a key mistake it was read past (codes.ts READ_PAST). */
export const readPastParse = (result: JsonParseResult): boolean => result.source.value !== undefined && readPast(result.diagnostics)

export function parseJsonSource(file: string, text: string, regions?: JsonRegions): JsonParseResult {
  // A byte order mark is tolerated; replacing it by a space keeps every offset where it was.
  const body = text.charCodeAt(0) === 0xfeff ? ' ' + text.slice(1) : text
  const lines = new LineIndex(body)
  let index: { nodes: Map<string, Node>; diagnostics: Diagnostic[] } | undefined
  const buildIndex = () => (index ??= indexSource(file, body, lines))
  // A recompile whose edit lies inside one container the last parse read reads that container
  // alone (json-regions.ts `reread`); any problem in it, or an edit elsewhere, reads the whole text.
  const reread = regions?.reread(body, LIMITS.depth)
  let value: unknown = reread
  const diagnostics: Diagnostic[] = []
  // Fast path: JSON.parse, and a key count that proves there is no duplicate key. The tree with
  // every value's position is built only when something needs a position (a diagnostic, a source
  // map): on a 1 MB contract that tree costs many times the parse itself (bench/).
  // A recompile's regions need the text's containers: one scan finds them with what the reading
  // needs anyway (the depth limit, the key count), instead of a scan for each.
  const scan = regions === undefined || reread !== undefined ? undefined : scanJson(body, LIMITS.depth)
  const deep = reread !== undefined ? -1 : scan === undefined ? tooDeepJson(body) : scan.deep
  if (deep !== -1) {
    const diagnostic: Diagnostic = {
      code: 'CONTRACTS_TOO_DEEP',
      severity: CORE_CODES.CONTRACTS_TOO_DEEP.severity,
      message: `Values are nested more than ${LIMITS.depth} levels deep here; contracts are limited to ${LIMITS.depth}.`,
      file,
      pointer: '',
      ...lines.position(deep),
    }
    return { source: { file, text, value: undefined, lines, locate: () => ({ ...lines.position(deep), offset: deep }) }, diagnostics: [diagnostic] }
  }
  if (reread === undefined) {
    try {
      value = JSON.parse(body)
    } catch {
      value = undefined
    }
  }
  // RFC 8785 (and so every contract hash) has no form for an unpaired surrogate; one can only come
  // from a \\uD800-\\uDFFF escape, so the text says cheaply whether the value needs a look.
  if (reread === undefined && value !== undefined && /\\u[dD][89a-fA-F]/.test(body)) {
    const pointer = loneSurrogate(value)
    if (pointer !== undefined) {
      const source: JsonSource = { file, text, value: undefined, lines, locate: () => ({ line: 1, column: 1, offset: 0 }) }
      const located = locateWithTree(file, body, lines, pointer)
      return {
        source,
        diagnostics: [
          {
            code: 'JSON_LONE_SURROGATE',
            severity: CORE_CODES.JSON_LONE_SURROGATE.severity,
            message: 'A string holds an unpaired UTF-16 surrogate (\\uD800-\\uDFFF escape): contracts are canonicalized (RFC 8785), which has no form for it.',
            file,
            pointer,
            ...located,
          },
        ],
      }
    }
  }
  // A number beyond a double's range has no JSON value a hash can be computed over (RFC 8785).
  if (reread === undefined && value !== undefined && mayOverflowNumber(body)) {
    const pointer = nonFiniteNumber(value)
    if (pointer !== undefined) {
      const source: JsonSource = { file, text, value: undefined, lines, locate: () => ({ line: 1, column: 1, offset: 0 }) }
      return {
        source,
        diagnostics: [
          {
            code: 'JSON_NUMBER_RANGE',
            severity: CORE_CODES.JSON_NUMBER_RANGE.severity,
            message: 'A number is beyond the range of a double (it reads as Infinity); contracts are canonicalized (RFC 8785), which has no form for it.',
            file,
            pointer,
            ...locateWithTree(file, body, lines, pointer),
          },
        ],
      }
    }
  }
  if (reread === undefined && (value === undefined || countKeys(value) !== (scan === undefined ? countKeyTokens(body) : scan.keys)))
    diagnostics.push(...buildIndex().diagnostics)
  if (value === undefined && diagnostics.length === 0) {
    diagnostics.push({ code: 'JSON_SYNTAX', severity: CORE_CODES.JSON_SYNTAX.severity, message: 'Invalid JSON.', file, pointer: '', line: 1, column: 1 })
  }
  let shallow: Map<string, number> | undefined
  const locate = (pointer: string) => {
    // Source maps ask for top-level entries only: a scan that records depth <= 2 answers them
    // without building the whole tree.
    if (!index && value !== undefined && splitPointer(pointer).length <= 2) {
      shallow ??= shallowOffsets(body)
      const offset = shallow.get(pointer)
      if (offset !== undefined) return { ...lines.position(offset), offset }
    }
    const { nodes } = buildIndex()
    let node = nodes.get(pointer)
    let tokens = splitPointer(pointer)
    while (!node && tokens.length > 0) {
      tokens = tokens.slice(0, -1)
      node = nodes.get(joinPointer('', ...tokens))
    }
    const offset = node?.offset ?? 0
    return { ...lines.position(offset), offset }
  }
  if (diagnostics.length === 0 && reread === undefined && regions !== undefined) value = regions.share(body, value, scan!.spans)
  // A duplicate key leaves JSON.parse's value (the later member): read past it (codes.ts READ_PAST).
  return { source: { file, text, value: readPast(diagnostics) ? value : undefined, lines, locate }, diagnostics }
}

/**
 * Offsets of the values at depth 1 and 2 of a valid JSON text, by JSON Pointer. Strings are skipped
 * whole (their content never counts as structure); deeper values are not recorded.
 */
function shallowOffsets(text: string): Map<string, number> {
  const out = new Map<string, number>()
  // The open containers, as parallel arrays (no object per container): kind, member index, key.
  const arrays: boolean[] = []
  const indexes: number[] = []
  const keys: string[] = []
  let depth = 0
  let expectValue = true
  let pendingKey = ''
  const record = (offset: number) => {
    if (depth === 0 || depth > 2) return
    const tokens: string[] = []
    for (let d = 0; d < depth; d++) tokens.push(arrays[d] ? String(indexes[d]) : keys[d]!)
    out.set(joinPointer('', ...tokens), offset)
  }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 34 /* " */) {
      const j = stringEnd(text, i)
      if (depth > 0 && !arrays[depth - 1] && !expectValue) {
        // Only keys at recorded depths are ever looked up.
        pendingKey = depth <= 2 ? (JSON.parse(text.slice(i, j + 1)) as string) : ''
      } else if (expectValue) {
        record(i)
        expectValue = false
      }
      i = j
    } else if (c === 58 /* : */) {
      keys[depth - 1] = pendingKey
      expectValue = true
    } else if (c === 44 /* , */) {
      if (arrays[depth - 1]) {
        indexes[depth - 1]!++
        expectValue = true
      } else expectValue = false
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (expectValue) record(i)
      arrays[depth] = c === 91
      indexes[depth] = 0
      depth++
      expectValue = c === 91
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--
      expectValue = false
    } else if (expectValue && c > 32) {
      record(i)
      expectValue = false
    }
  }
  return out
}

/** A position from the full syntax tree, for the rare diagnostics found before the tree exists. */
function locateWithTree(file: string, body: string, lines: LineIndex, pointer: string) {
  const { nodes } = indexSource(file, body, lines)
  let tokens = splitPointer(pointer)
  let node = nodes.get(pointer)
  while (!node && tokens.length > 0) {
    tokens = tokens.slice(0, -1)
    node = nodes.get(joinPointer('', ...tokens))
  }
  return lines.position(node?.offset ?? 0)
}

/** Strings followed by a colon: the key tokens of a valid JSON text (strings are matched whole, so quotes inside them never desynchronize the scan). */
function countKeyTokens(text: string): number {
  // Called on text JSON.parse accepted, so every quote outside a string opens one. indexOf jumps
  // from string to string; no match objects (a regular expression here allocated megabytes).
  let n = 0
  for (let i = text.indexOf('"'); i !== -1;) {
    const j = stringEnd(text, i)
    if (j === text.length) break
    let k = j + 1
    for (let c = text.charCodeAt(k); c === 32 || c === 9 || c === 10 || c === 13; c = text.charCodeAt(++k));
    if (text.charCodeAt(k) === 58 /* : */) n++
    i = text.indexOf('"', k)
  }
  return n
}

/** The slow, exact path: a syntax tree with the position of every value, duplicate keys and syntax errors. */
function indexSource(file: string, body: string, lines: LineIndex): { nodes: Map<string, Node>; diagnostics: Diagnostic[] } {
  const errors: ParseError[] = []
  const root = jsonc().parseTree(body, errors, { disallowComments: true, allowTrailingComma: false })
  const diagnostics: Diagnostic[] = []
  const at = (offset: number) => lines.position(offset)
  // Only the first syntax error: the ones after it are mostly the parser losing its way.
  for (const error of errors.slice(0, 1)) {
    diagnostics.push({
      code: 'JSON_SYNTAX',
      severity: CORE_CODES.JSON_SYNTAX.severity,
      message: `Invalid JSON: ${describeParseError(jsonc().printParseErrorCode(error.error))}.`,
      file,
      pointer: '',
      ...at(error.offset),
    })
  }
  if (root === undefined && errors.length === 0) {
    diagnostics.push({
      code: 'JSON_SYNTAX',
      severity: CORE_CODES.JSON_SYNTAX.severity,
      message: 'Invalid JSON: the file is empty.',
      file,
      pointer: '',
      line: 1,
      column: 1,
    })
  }
  const nodes = new Map<string, Node>()
  if (root)
    indexNodes(root, '', nodes, (pointer, key) => {
      diagnostics.push({
        code: 'JSON_DUPLICATE_KEY',
        severity: CORE_CODES.JSON_DUPLICATE_KEY.severity,
        message: `Duplicate key ${JSON.stringify(key.value)}: JSON consumers disagree on which value wins, so a contract may not repeat a key.`,
        file,
        pointer,
        ...at(key.offset),
      })
    })
  return { nodes, diagnostics }
}

function indexNodes(node: Node, pointer: string, out: Map<string, Node>, onDuplicate: (pointer: string, key: Node) => void): void {
  out.set(pointer, node)
  if (node.type === 'object') {
    const seen = new Set<string>()
    for (const property of node.children ?? []) {
      const [key, value] = property.children ?? []
      if (!key || typeof key.value !== 'string') continue
      const child = joinPointer(pointer, key.value)
      if (seen.has(key.value)) onDuplicate(child, key)
      seen.add(key.value)
      if (value) indexNodes(value, child, out, onDuplicate)
    }
  } else if (node.type === 'array') {
    node.children?.forEach((child, i) => indexNodes(child, joinPointer(pointer, i), out, onDuplicate))
  }
}

function describeParseError(code: string): string {
  // jsonc-parser's codes are PascalCase identifiers; turn them into words for people.
  return code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()
}
