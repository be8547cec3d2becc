/**
 * Alias chains in generated declarations. A schema that is only another schema (`$ref`, or an
 * `allOf` of one `$ref`) is declared as an alias of that schema's type: `type A0 = A1`. A type
 * checker resolves an alias of an alias recursively, one stack frame or more a link: TypeScript's
 * `tsc` overflowed its stack on chains of about 1,000 to 2,000 aliases, which a contract of a few
 * hundred kilobytes writes. Declared instead as the type its chain ends in (`type A0 = A7999`),
 * every alias is one step from a type of its own, whatever the chain's length, and names the same
 * type.
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
