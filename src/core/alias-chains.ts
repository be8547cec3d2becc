import { MAX_VALIDATION_DEPTH } from '../runtime/shared/schema-errors.js'
import { findCycles, longestPaths } from './graph.js'
/**
 * Chains in generated declarations, which a type checker resolves recursively: TypeScript's `tsc`
 * overflowed its stack on about 1,000 to 2,000 links, which a contract of a few hundred kilobytes
 * writes.
 *
 * - An alias chain: a schema that is only another schema (`$ref`, or a one-member `allOf`, `anyOf`
 *   or `oneOf`) is declared as an alias of that schema's type, `type A0 = A1`. Each such alias is
 *   declared as the type its chain ends in (`type A0 = A7999`), which names the same type.
 * - A chain of intersections or unions (`A0 = A1 & {...}`, `A0 = A1 | null`), which no alias
 *   collapses: where such a chain runs as deep as the validators' depth limit, its references are
 *   `never`, which is what the validator says of every value that takes them.
 */

/** A declaration's body that is another declaration's name alone: `Name` or `(Name)`. */
const ALIAS = /^(\(?)([A-Za-z_$][A-Za-z0-9_$]*)(\)?)$/

/**
 * For each declaration whose body (in `bodies`, by declared name) is another declaration's name, the
 * name its chain of such declarations ends in. A chain that comes back on itself has no end and is
 * left as it is (the checker reports such a cycle, as it did before). Cost: each name is visited
 * once, O(declarations).
 */
export function aliasEnds(bodies: ReadonlyMap<string, string>): Map<string, string> {
  const next = new Map<string, string>()
  for (const [name, body] of bodies) {
    const m = ALIAS.exec(body)
    if (m && m[1]!.length === m[3]!.length && m[2] !== name && bodies.has(m[2]!)) next.set(name, m[2]!)
  }
  /** Each alias's end once known; `null` for an alias whose chain has none (it comes back on itself). */
  const ends = new Map<string, string | null>()
  for (const start of next.keys()) {
    if (ends.has(start)) continue
    const path: string[] = []
    const onPath = new Set<string>()
    let at = start
    let end: string | null
    for (;;) {
      const known = ends.get(at)
      if (known !== undefined) {
        end = known
        break
      }
      const to = next.get(at)
      if (to === undefined) {
        end = at
        break
      }
      if (onPath.has(at)) {
        end = null
        break
      }
      onPath.add(at)
      path.push(at)
      at = to
    }
    for (const name of path) ends.set(name, end)
  }
  const out = new Map<string, string>()
  for (const [name, end] of ends) if (end !== null && end !== next.get(name)) out.set(name, end)
  return out
}

/** A declared name in a type's text, and where it starts. */
interface Use {
  name: string
  at: number
}

/**
 * The identifiers of `declared` that a type's text names eagerly: outside object types
 * (`{ ... }`), arrays (`X[]`, `(X | Y)[]`, `Array<X>`), string literals and comments. A checker
 * resolves an eager name when it resolves the type (an intersection's members, a union's, a
 * conditional type's arguments), and defers the others (an object's members, an array's element)
 * until they are asked for. Cost: one pass over the text.
 */
export function eagerNames(type: string, declared: ReadonlySet<string>): string[] {
  return eagerUses(type, declared).map((use) => use.name)
}

/** `eagerNames` with where each is in the text. */
function eagerUses(type: string, declared: ReadonlySet<string>): Use[] {
  /**
   * The eager names of each open group (parentheses, or a generic's `<...>`); the outermost is the
   * type itself. A group `deferred` (`Array<...>`) passes none of its names on.
   */
  const groups: Array<{ names: Use[]; deferred: boolean; close: string }> = [{ names: [], deferred: false, close: '' }]
  let braces = 0
  let brackets = 0
  const close = () => {
    const group = groups.pop()!
    const parent = groups[groups.length - 1]!
    if (!group.deferred) parent.names.push(...group.names)
  }
  for (let i = 0; i < type.length;) {
    const c = type[i]!
    if (c === '/' && type[i + 1] === '*') {
      const end = type.indexOf('*/', i + 2)
      i = end === -1 ? type.length : end + 2
      continue
    }
    if (c === '/' && type[i + 1] === '/') {
      const end = type.indexOf('\n', i + 2)
      i = end === -1 ? type.length : end + 1
      continue
    }
    if (c === '"' || c === "'" || c === '`') {
      let j = i + 1
      while (j < type.length && type[j] !== c) j += type[j] === '\\' ? 2 : 1
      i = j + 1
      continue
    }
    const top = braces === 0 && brackets === 0
    if (c === '{') braces++
    else if (c === '}') braces--
    else if (braces === 0 && c === '[') brackets++
    else if (braces === 0 && c === ']') brackets--
    else if (top && c === '(') groups.push({ names: [], deferred: false, close: ')' })
    else if (top && groups.length > 1 && c === groups[groups.length - 1]!.close) {
      // `(...)[]`: an array of the group, whose names are deferred.
      if (c === ')' && type[i + 1] === '[') groups[groups.length - 1]!.deferred = true
      close()
    } else if (top && isNameStart(type.charCodeAt(i))) {
      let j = i + 1
      while (j < type.length && isNamePart(type.charCodeAt(j))) j++
      const name = type.slice(i, j)
      if (type[j] === '<') {
        // A generic: `Array<X>` defers X, as `X[]` does; the others (`Exclude`, `Extract`) resolve theirs.
        groups.push({ names: [], deferred: name === 'Array' || name === 'ReadonlyArray', close: '>' })
        i = j + 1
        continue
      }
      // `X[]`: an array of X, deferred; `X.Y`: not one of the declared names alone.
      if (declared.has(name) && type[j] !== '[' && type[j] !== '.' && type[i - 1] !== '.') groups[groups.length - 1]!.names.push({ name, at: i })
      i = j
      continue
    }
    i++
  }
  while (groups.length > 1) close()
  return groups[0]!.names
}

/** `[A-Za-z_$]` and `[A-Za-z0-9_$]` of one UTF-16 code unit, without a regular expression per character of the declarations. */
function isNameStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36
}
function isNamePart(c: number): boolean {
  return isNameStart(c) || (c >= 48 && c <= 57)
}

/**
 * The declarations from which a chain of eager names (`eagerNames`) runs `limit` declarations
 * deep or more. TypeScript's `tsc` resolves such a chain recursively and
 * overflowed its stack on intersections and unions about 1,000 deep (`A0 = A1 & {...}`, `A0 = A1 |
 * number`, `A0 = A1 | null`), which no alias collapses. Each link is a `$ref` a validator follows
 * without reading any deeper into the value, so a validation that enters such a declaration follows
 * `limit` references and fails at the depth limit. Cost: one depth-first
 * walk, O(declarations + names); a cycle adds nothing to the depth (`chainSafeTypes` cuts
 * cycles of its own).
 */
export function tooDeep(bodies: ReadonlyMap<string, string>, limit: number): Set<string> {
  const declared = new Set(bodies.keys())
  const edges = new Map([...bodies].map(([name, type]) => [name, eagerNames(type, declared)]))
  return deepFrom(bodies.keys(), edges, limit)
}

/** `tooDeep` over the eager names already found (`edges`: each declaration's, by name). */
function deepFrom(names: Iterable<string>, edges: ReadonlyMap<string, readonly string[]>, limit: number): Set<string> {
  const height = longestPaths(names, (name) => edges.get(name) ?? [])
  return new Set([...height].filter(([, h]) => h >= limit).map(([name]) => name))
}

/**
 * Each declaration's type as written (by declared name). Where a validation can go on through
 * references without reading any deeper into the value, a reference that takes it to the depth
 * limit is `never`, since a validation that takes it fails there, while what the declaration admits
 * without it stays (`A0 = A1 | null` is `never | null`: a `nullable` schema admits `null` before it
 * follows its reference):
 *
 * - on a chain as deep as the validators' depth limit (`MAX_VALIDATION_DEPTH - 1` references), each
 *   eager name that starts a chain one shorter (`tooDeep`);
 * - on a cycle of eager names (`A = number | A`, `A = B`, `B = A`), each name of the cycle's own
 *   (a checker refuses such an alias as circular: TS2456).
 *
 * Then each alias of an alias is written as the type its chain ends in (`aliasEnds`). Every chain a
 * checker resolves recursively is then shorter than the limit, and none comes back on itself.
 */
export function chainSafeTypes(bodies: ReadonlyMap<string, string>): Map<string, string> {
  const declared = new Set(bodies.keys())
  // Each body's text scanned once: its uses give `tooDeep`'s names too.
  const uses = new Map([...bodies].map(([name, type]) => [name, eagerUses(type, declared)]))
  const tall = deepFrom(bodies.keys(), new Map([...uses].map(([name, found]) => [name, found.map((use) => use.name)])), MAX_VALIDATION_DEPTH - 2)
  const cycles = findCycles(bodies.keys(), { edges: (name: string) => uses.get(name) ?? [], target: (use: Use) => use.name })
  const cut = new Map(
    [...bodies].map(([name, type]) => {
      const own = cycles.componentOf(name)
      let out = type
      // From the last use back, so the earlier ones keep their places.
      for (const use of [...uses.get(name)!].reverse())
        if (tall.has(use.name) || (own !== undefined && cycles.onCycle(name) && own.has(use.name)))
          out = `${out.slice(0, use.at)}never${out.slice(use.at + use.name.length)}`
      return [name, out]
    }),
  )
  const ends = aliasEnds(cut)
  return new Map([...cut].map(([name, type]) => [name, ends.get(name) ?? type]))
}
