import { append } from '../../../core/append.js'
import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import type { NatsContext } from '../context.js'
import { isObject } from '../document.js'
import { deref } from '../schemas.js'
import type { NatsReport } from './rule.js'

/** Complexity (each helper here, worst case on any input under the size limits): overlap by one sort, O(b log b) for b bindings; required-field coverage O(fields x depth) through set lookups. */

/** Do two JSON Pointers overlap (one is the other or lies inside it)? */
export function pointersOverlap(a: string, b: string): boolean {
  return a === b || a.startsWith(b + '/') || b.startsWith(a + '/') || a === '' || b === ''
}

/**
 * Reports each destination that lies inside another (or equals ""), at the later of the two in
 * document order, naming its nearest enclosing one. One sort and a stack of open ancestors:
 * O(k log k) for k pointers, where comparing every pair was O(k^2). (In code unit order a
 * pointer's descendants follow it before any pointer that is not one: "/" sorts below every
 * token character that could follow a shared prefix and precede it.)
 */
export function checkOverlap(pointers: string[], where: (p: string) => string, report: NatsReport): void {
  const order = new Map(pointers.map((p, i) => [p, i]))
  const overlap = (a: string, b: string) => {
    const [later, earlier] = order.get(a)! > order.get(b)! ? [a, b] : [b, a]
    report(where(later), `Destination ${JSON.stringify(later)} overlaps ${JSON.stringify(earlier)}; destinations cannot overlap.`)
  }
  const sorted = [...pointers].sort()
  const open: string[] = []
  for (const pointer of sorted) {
    while (open.length > 0 && !pointersOverlap(pointer, open[open.length - 1]!)) open.pop()
    if (open.length > 0) overlap(pointer, open[open.length - 1]!)
    open.push(pointer)
  }
}

/** The bound pointers as a set, and the set of pointers some bound pointer lies strictly inside. */
interface BoundSets {
  exact: Set<string>
  inside: Set<string>
}

/**
 * Made once per call of `unboundRequired` or `composedConstruction` and handed down their
 * recursion, so each required field is decided in O(its depth), not by a scan of every binding
 * (which made required fields x bindings).
 */
function boundSets(bound: readonly string[]): BoundSets {
  const sets: BoundSets = { exact: new Set(bound), inside: new Set() }
  for (const p of bound) for (let i = p.lastIndexOf('/'); i > 0; i = p.lastIndexOf('/', i - 1)) sets.inside.add(p.slice(0, i))
  return sets
}

/** Is `path` or one of its ancestors in `set`? */
function ancestorOrSelfIn(path: string, set: ReadonlySet<string>): boolean {
  for (let end = path.length; end > 0; end = path.lastIndexOf('/', end - 1)) if (set.has(path.slice(0, end))) return true
  return set.has('')
}

/** Required payload fields not covered by a binding, descending into objects the bindings construct. */
export function unboundRequired(ctx: NatsContext, schema: Record<string, unknown> | undefined, bound: readonly string[]): string[] {
  return unboundBelow(ctx, schema, boundSets(bound), '')
}

function unboundBelow(ctx: NatsContext, schema: Record<string, unknown> | undefined, sets: BoundSets, base: string): string[] {
  const s = deref(ctx, schema)
  if (!s) return []
  const missing: string[] = []
  const required = Array.isArray(s.required) ? (s.required as string[]) : []
  const { exact, inside } = sets
  for (const name of required) {
    const path = joinPointer(base, name)
    if (ancestorOrSelfIn(path, exact)) continue
    if (inside.has(path)) {
      const child = isObject(s.properties) ? (s.properties[name] as Record<string, unknown>) : undefined
      append(missing, unboundBelow(ctx, child, sets, path))
    } else missing.push(path)
  }
  return missing
}

const COMPOSED = ['allOf', 'anyOf', 'oneOf', 'if', 'then', 'else', 'not', 'dependentRequired', 'dependentSchemas', 'dependencies']

/**
 * The objects a payload builds field by field (no binding supplies them whole) whose schema is
 * composed or conditional (allOf, anyOf, oneOf, if/then/else, not, dependencies): what they require
 * cannot be read off `required` and `properties`, so partial construction through them is not
 * proven ("The helper rejects partial construction through conditional/composed schemas it cannot
 * prove"). O(bound paths x depth).
 */
export function composedConstruction(ctx: NatsContext, schema: Record<string, unknown> | undefined, bound: readonly string[]): string[] {
  return composedBelow(ctx, schema, boundSets(bound), '')
}

function composedBelow(ctx: NatsContext, schema: Record<string, unknown> | undefined, sets: BoundSets, base: string): string[] {
  const s = deref(ctx, schema)
  if (!s) return []
  const { exact, inside } = sets
  if (ancestorOrSelfIn(base, exact)) return []
  const out: string[] = COMPOSED.some((k) => k in s) ? [base] : []
  const properties = isObject(s.properties) ? s.properties : {}
  for (const name of Object.keys(properties)) {
    const path = joinPointer(base, name)
    if (inside.has(path)) append(out, composedBelow(ctx, properties[name] as Record<string, unknown>, sets, path))
  }
  return out
}
