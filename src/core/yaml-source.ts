import type { Node } from 'yaml'
import { lazyRequire } from './lazy-require.js'

const yaml = lazyRequire<typeof import('yaml')>('yaml')
import { CORE_CODES, readPast, type CoreCode } from './codes.js'
import type { Diagnostic } from './diagnostics.js'
import { joinPointer, splitPointer } from '../runtime/shared/json-pointer.js'
import type { JsonParseResult, JsonSource } from './json-source.js'
import { LIMITS, loneSurrogate, mayOverflowNumber } from './limits.js'
import { LineIndex, loneCrsAsLineFeeds } from './source-text.js'
import { loadFastYaml } from './yaml-fast.js'
import type { YamlRegions } from './yaml-regions.js'

/** The offset of the first node nested deeper than the limit, or undefined (iterative). */
function tooDeepNode(root: unknown): number | undefined {
  const { isMap, isSeq, isPair } = yaml()
  const stack: Array<[unknown, number]> = [[root, 0]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!
    if (isMap(node) || isSeq(node)) {
      if (depth >= LIMITS.depth) return (node as Node).range?.[0] ?? 0
      for (const item of node.items as unknown[]) stack.push([isPair(item) ? item.value : item, depth + 1])
    }
  }
  return undefined
}

/** Aliases a contract may use, and how many nodes their expansion may produce (alias bombs). */
/**
 * `aliases`: aliases in one document; `copiedNodes`: the nodes they copy in all (an alias of a
 * mapping of 80 members copies about 160 nodes, each alias again): what expanding them costs, so
 * what is bounded, rather than the count alone (16 aliases of a one-member mapping were refused
 * while one alias of a large mapping passed: an outside pass). `aliasExpansion`: yaml's own bound
 * on aliases nested in aliases (its `maxAliasCount`).
 */
export const YAML_LIMITS = { aliases: 4096, copiedNodes: 65_536, aliasExpansion: 256 }

/**
 * A YAML document held to what JSON can say, with the position of every value. Plain documents
 * take the fast path (`yaml-fast.ts`: js-yaml, collection positions); the first position it cannot
 * answer (a scalar's, or a missing value's nearest ancestor) parses the text once more on the exact
 * path. Everything else takes the exact path from the start. `regions`: what the last parse of the
 * same file read (yaml-regions.ts); the value may share the unchanged parts of the last one's.
 */
export function parseYamlSource(file: string, text: string, regions?: YamlRegions): JsonParseResult {
  const unprintable = unprintableAt(file, text)
  if (unprintable) return unprintable
  // A number beyond a double's range is a diagnostic of the exact path; both paths must agree.
  const fast = mayOverflowNumber(text) ? undefined : loadFastYaml(text, regions)
  if (!fast) return exactYaml(file, text)
  const lines = new LineIndex(text)
  let exact: JsonSource | undefined
  const locate = (pointer: string) => {
    const offset = fast.start(pointer)
    if (offset !== undefined) {
      const { line, column } = lines.position(offset)
      return { line, column, offset }
    }
    exact ??= exactYaml(file, text).source
    return exact.locate(pointer)
  }
  return { source: { file, text, value: fast.value, lines, locate, collectionStart: (pointer) => fast.start(pointer) }, diagnostics: [] }
}

/**
 * YAML 1.2 (5.1): a stream holds no C0 control but tab, line feed and carriage return, not even in a
 * quoted scalar (where such a character is written as an escape). yaml and js-yaml both read a raw
 * NUL as text (an outside pass: a file of NUL bytes read as an empty document), so the text is
 * checked first: one linear scan. DEL, the C1 controls and U+FFFE/U+FFFF, which 5.1 keeps out of
 * the rest of a stream, are read as text: YAML 1.2 lets a quoted scalar hold every character but the
 * C0 controls "to ensure JSON compatibility", and JSON writers leave them raw in strings.
 */
// eslint-disable-next-line no-control-regex -- the characters YAML 1.2 does not allow anywhere
const UNPRINTABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/

function unprintableAt(file: string, text: string): JsonParseResult | undefined {
  const found = UNPRINTABLE.exec(text)
  if (!found) return undefined
  const lines = new LineIndex(text)
  const code = found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')
  const diagnostic: Diagnostic = {
    code: 'YAML_SYNTAX',
    severity: CORE_CODES.YAML_SYNTAX.severity,
    message: `Invalid YAML: the character U+${code} may not appear in a YAML stream (YAML 1.2, 5.1); write it as an escape in a double-quoted scalar ("\\u${code}").`,
    file,
    pointer: '',
    ...lines.position(found.index),
  }
  return { source: { file, text, value: undefined, lines, locate: () => ({ ...lines.position(found.index), offset: found.index }) }, diagnostics: [diagnostic] }
}

/**
 * The exact path: a YAML document held to what JSON can say, with the position of every value
 * (yaml by eemeli keeps ranges on each node). Duplicate keys, explicit tags, non-string keys, values JSON has no
 * form for (`.inf`, `.nan`) and aliases beyond `YAML_LIMITS` are diagnostics; the value is the
 * plain JSON-compatible data.
 */
export function parseExactYaml(file: string, text: string): JsonParseResult {
  return unprintableAt(file, text) ?? exactYaml(file, text)
}

/** `parseExactYaml` of a text already scanned for characters YAML does not allow (parseYamlSource scans once). */
function exactYaml(file: string, text: string): JsonParseResult {
  const { isAlias, isMap, isPair, isScalar, isSeq, parseDocument } = yaml()
  const lines = new LineIndex(text)
  const diagnostics: Diagnostic[] = []
  const warnings: Diagnostic[] = []
  const report = (code: CoreCode, offset: number, pointer: string, message: string) => {
    const severity = CORE_CODES[code].severity
    ;(severity === 'error' ? diagnostics : warnings).push({ code, severity, message, file, pointer, ...lines.position(offset) })
  }

  // Duplicate keys are found by the walk below with a set per mapping: yaml's own uniqueKeys check
  // compares every pair, which is quadratic in the size of a mapping (bench/: 5,000 channels).
  let doc: ReturnType<typeof import('yaml').parseDocument>
  try {
    // Merge keys (`<<: *base`) are merged, as YAML 1.1 and `@asyncapi/parser` read them; each one is
    // a warning (YAML_MERGE_KEY): other YAML 1.2 readers take `<<` for a member of that name.
    doc = parseDocument(loneCrsAsLineFeeds(text), { uniqueKeys: false, prettyErrors: false, strict: true, merge: true, version: '1.2' })
  } catch (error) {
    // The YAML parser recurses on nested flow collections; a hostile depth ends here, not in a crash.
    report('CONTRACTS_TOO_DEEP', 0, '', `The document could not be parsed within the nesting limit (${LIMITS.depth}): ${(error as Error).message}`)
    return { source: { file, text, value: undefined, lines, locate: () => ({ line: 1, column: 1, offset: 0 }) }, diagnostics }
  }
  // YAML 1.1 reads `yes` as true, dates as Date objects and `1:20` as a number: not what JSON (or a
  // YAML 1.2 reader such as the fast path) reads. Contracts are YAML 1.2.
  if (doc.directives?.yaml.explicit && doc.directives.yaml.version !== '1.2') {
    report(
      'YAML_NON_JSON_VALUE',
      0,
      '',
      `%YAML ${doc.directives.yaml.version} reads values differently from JSON (yes/no as booleans, dates, sexagesimal numbers); contracts are YAML 1.2: remove the directive.`,
    )
  }
  // One mistake makes the parser lose its place, and every token after it is reported again (a `{`
  // in a flow mapping gives seven errors, a stray indent a hundred): the first syntax error is the
  // mistake, the rest are counted in its message, not shown.
  const syntax = doc.errors.filter((error) => error.code !== 'DUPLICATE_KEY' && !/call stack/i.test(error.message))
  // The parser recurses on nested flow collections and reports running out of stack as an error, as
  // often as it ran out (once, or dozens of times, depending on how much stack the caller had left):
  // the first is the place, the document gets one diagnostic.
  const stack = doc.errors.find((error) => /call stack/i.test(error.message))
  for (const error of doc.errors) {
    if (/call stack/i.test(error.message)) {
      if (error === stack)
        report('CONTRACTS_TOO_DEEP', error.pos[0], '', `Values are nested beyond what can be parsed; contracts are limited to ${LIMITS.depth} levels.`)
      continue
    }
    if (error.code === 'DUPLICATE_KEY') report('YAML_DUPLICATE_KEY', error.pos[0], '', `Duplicate key: ${error.message.split('\n')[0]}`)
    else if (error === syntax[0]) report('YAML_SYNTAX', error.pos[0], '', yamlSyntaxMessage(error, text, syntax.length - 1))
  }
  const nodes = new Map<string, number>()
  let keyUnreadable = false
  let aliases = 0
  let copied = 0
  let aliasLimited = false
  /** Nodes an alias copies: its anchored node's, aliases in it counted as what they copy (each anchor once, memoized; past the bound, the bound). */
  const sizes = new Map<unknown, number>()
  const copiedBy = (alias: Node): number => sizeOf((alias as unknown as { resolve(d: unknown): unknown }).resolve(doc), new Set())
  const sizeOf = (node: unknown, open: Set<unknown>): number => {
    if (node === null || node === undefined || typeof node !== 'object') return 1
    const known = sizes.get(node)
    if (known !== undefined) return known
    // An alias inside the node it names copies without end.
    if (open.has(node)) return YAML_LIMITS.copiedNodes + 1
    open.add(node)
    let size = 1
    if (isAlias(node)) size = sizeOf((node as unknown as { resolve(d: unknown): unknown }).resolve(doc), open)
    else if (isMap(node) || isSeq(node))
      for (const item of node.items as unknown[]) {
        size += isPair(item) ? sizeOf(item.key, open) + sizeOf(item.value, open) : sizeOf(item, open)
        if (size > YAML_LIMITS.copiedNodes) break
      }
    open.delete(node)
    size = Math.min(size, YAML_LIMITS.copiedNodes + 1)
    sizes.set(node, size)
    return size
  }
  const visit = (node: unknown, pointer: string): void => {
    if (!node || typeof node !== 'object') return
    const n = node as Node
    if (n.range) nodes.set(pointer, n.range[0])
    if (isAlias(n)) {
      if (aliasLimited) return
      aliases++
      copied += copiedBy(n)
      if (aliases > YAML_LIMITS.aliases || copied > YAML_LIMITS.copiedNodes) {
        aliasLimited = true
        report(
          'YAML_ALIAS_LIMIT',
          n.range?.[0] ?? 0,
          pointer,
          aliases > YAML_LIMITS.aliases
            ? `More than ${YAML_LIMITS.aliases} aliases: contracts keep aliases few so that expanding them stays cheap.`
            : `The aliases copy more than ${YAML_LIMITS.copiedNodes} nodes in all: contracts keep what aliases copy small so that expanding them stays cheap.`,
        )
      }
      return
    }
    if (
      n.tag &&
      !isMap(n) &&
      !isSeq(n) &&
      !(isScalar(n) && n.tag.startsWith('tag:yaml.org,2002:') && ['str', 'int', 'float', 'bool', 'null'].includes(n.tag.slice(18)))
    ) {
      report('YAML_NON_JSON_VALUE', n.range?.[0] ?? 0, pointer, `Tag ${n.tag} has no JSON equivalent; write plain YAML values.`)
    } else if ((isMap(n) || isSeq(n)) && n.tag && !['tag:yaml.org,2002:map', 'tag:yaml.org,2002:seq'].includes(n.tag)) {
      report('YAML_NON_JSON_VALUE', n.range?.[0] ?? 0, pointer, `Tag ${n.tag} has no JSON equivalent; write plain YAML values.`)
    }
    if (isScalar(n) && typeof n.value === 'number' && !Number.isFinite(n.value)) {
      report('YAML_NON_JSON_VALUE', n.range?.[0] ?? 0, pointer, `${String(n.value)} has no JSON form.`)
    }
    if (isMap(n)) {
      // The merge keys' sources first: a member the mapping writes itself overrides a merged one, and
      // its position is the one kept (visited after).
      for (const pair of n.items) if (isPair(pair) && isMergeKey(pair.key)) mergeSources(pair, pointer)
      const seen = new Set<string>()
      for (const pair of n.items) {
        if (!isPair(pair)) continue
        const key = pair.key
        if (isMergeKey(key)) continue
        // AsyncAPI 3 (Format): keys are scalar strings "as defined by the YAML Failsafe schema
        // ruleset", under which every plain scalar is a string: `200:`, `true:`, `1.0:`, `~:` are the
        // keys "200", "true", "1.0", "~", as written (an outside pass found them refused). A key with
        // an explicit tag of another type (`!!int 7:`), an alias or a collection is no string.
        if (isScalar(key) && typeof key.value !== 'string' && key.tag === undefined && key.type === 'PLAIN' && typeof key.source === 'string')
          key.value = key.source
        let text: string
        if (isScalar(key) && typeof key.value === 'string') text = key.value
        else {
          const at = (key as Node | null)?.range?.[0] ?? n.range?.[0] ?? 0
          // A tagged scalar key is read as yaml's value reads it (`!!int 42` is "42", a null ""), so
          // what is under it is placed, and a key of the same text is a duplicate; a collection's or
          // an alias's has no text to read past.
          const read = isScalar(key) ? (key.value === null ? '' : String(key.value)) : undefined
          report(
            'YAML_NON_STRING_KEY',
            at,
            read === undefined ? pointer : joinPointer(pointer, read),
            'Keys must be strings: JSON objects have no other kind of key (a plain key such as `200:` is the string "200"; this one is tagged as another type, an alias or a collection).',
          )
          if (read === undefined) {
            keyUnreadable = true
            continue
          }
          text = read
        }
        const child = joinPointer(pointer, text)
        if (seen.has(text))
          report('YAML_DUPLICATE_KEY', (key as Node).range?.[0] ?? 0, child, `Duplicate key ${JSON.stringify(text)}: a mapping may not repeat a key.`)
        seen.add(text)
        if (pair.value === null) nodes.set(child, (key as Node).range?.[0] ?? 0)
        else visit(pair.value, child)
      }
    } else if (isSeq(n)) {
      n.items.forEach((item, i) => visit(item, joinPointer(pointer, i)))
    }
  }
  /** A `<<` key as the parser marks it when it merges (a plain `<<`; a quoted one is a member named `<<`). */
  const isMergeKey = (key: unknown): key is Node => isScalar(key) && typeof key.value === 'symbol'
  /**
   * A merge key's sources (a mapping, an alias of one, or a list of those), visited as members of
   * the mapping that merges them; anything else is no source (YAML 1.1's merge type), reported here,
   * where it is written.
   */
  const mergeSources = (pair: { key: unknown; value: unknown }, pointer: string) => {
    const key = pair.key as Node
    report(
      'YAML_MERGE_KEY',
      key.range?.[0] ?? 0,
      pointer,
      'A merge key (<<) is merged, as YAML 1.1 and @asyncapi/parser read it: the mappings it names are merged in, and members written beside it win. It is not YAML 1.2 (which AsyncAPI recommends), where it is a member named "<<": write the members out to be read the same by every reader.',
    )
    const sources = isSeq(pair.value) ? pair.value.items : [pair.value]
    for (const source of sources) {
      const node = source as Node | null
      if (isMap(node) || isAlias(node)) visit(node, pointer)
      else
        report(
          'YAML_SYNTAX',
          node?.range?.[0] ?? key.range?.[0] ?? 0,
          pointer,
          'A merge key (<<) takes a mapping, an alias of one, or a list of those; this is none of them.',
        )
    }
  }
  if (doc.errors.length === 0) {
    const deep = tooDeepNode(doc.contents)
    if (deep) report('CONTRACTS_TOO_DEEP', deep, '', `Values are nested more than ${LIMITS.depth} levels deep here; contracts are limited to ${LIMITS.depth}.`)
    else visit(doc.contents, '')
  }

  let value: unknown
  // A duplicate key (the later member is read) or a tagged scalar key (read as its text): the
  // value is read past it (codes.ts READ_PAST), for the rules alone.
  if (diagnostics.length === 0 || (readPast(diagnostics) && !keyUnreadable)) {
    let threw = false
    try {
      value = doc.toJS({ maxAliasCount: YAML_LIMITS.aliasExpansion })
    } catch (error) {
      threw = true
      const message = (error as Error).message
      // An alias written before its anchor names nothing yet (YAML 1.2, 3.2.2.2: an alias refers to
      // the most recent preceding node with that anchor): a syntax error, not an expansion past the limit.
      if (/unresolved alias/i.test(message)) report('YAML_SYNTAX', 0, '', `An alias is used before its anchor is set: ${message}`)
      // An alias under a merge key that names no mapping (the node is found only when merging).
      else if (/merge sources/i.test(message)) report('YAML_SYNTAX', 0, '', `A merge key (<<) names something that is not a mapping: ${message}`)
      else report('YAML_ALIAS_LIMIT', 0, '', `The aliases expand beyond ${YAML_LIMITS.aliasExpansion} nodes: ${message}`)
    }
    if (!threw && (value === undefined || value === null)) report('YAML_SYNTAX', 0, '', 'The document is empty.')
    // Only an escape in a double-quoted scalar can produce an unpaired surrogate.
    const lone = /\\[uU]0{0,4}[dD][89a-fA-F]/.test(text) ? loneSurrogate(value) : undefined
    if (lone !== undefined)
      report(
        'JSON_LONE_SURROGATE',
        nodes.get(lone) ?? 0,
        lone,
        'A string holds an unpaired UTF-16 surrogate: contracts are canonicalized (RFC 8785), which has no form for it.',
      )
  }
  const locate = (pointer: string) => {
    let tokens = splitPointer(pointer)
    let offset = nodes.get(pointer)
    while (offset === undefined && tokens.length > 0) {
      tokens = tokens.slice(0, -1)
      offset = nodes.get(joinPointer('', ...tokens))
    }
    return { ...lines.position(offset ?? 0), offset: offset ?? 0 }
  }
  return {
    source: { file, text, value: readPast(diagnostics) ? value : undefined, lines, locate } satisfies JsonSource,
    diagnostics,
    ...(warnings.length > 0 ? { warnings } : {}),
  }
}

/** The parser's sentence, a hint for the usual cause, and how many consequent errors were left out. */
function yamlSyntaxMessage(error: { message: string; pos: [number, number] }, text: string, consequent: number): string {
  const at = text[error.pos[0]]
  // A plain scalar may not hold flow indicators inside `{ }` or `[ ]`: `{ a: x.{y} }` needs quotes.
  const hint = at === '{' || at === '[' || at === '}' || at === ']' ? ` Inside { } or [ ], quote a value that contains ${at}: "…${at}…".` : ''
  const rest = consequent > 0 ? ` (${consequent} more syntax error${consequent === 1 ? '' : 's'} follow from this one and are not shown.)` : ''
  return `Invalid YAML: ${error.message.split('\n')[0]}.${hint}${rest}`
}
