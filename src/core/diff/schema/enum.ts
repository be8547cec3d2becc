/**
 * `enum` and `const`, read together as the finite set of values the node admits (their
 * intersection when both are written). Values are compared by canonical JSON (object keys sorted).
 */
import { isObject } from '../../../runtime/shared/json-value.js'
import type { Frame, SchemaAt, SchemaDiffContext } from './context.js'
import { quote } from './context.js'
import { canonicalKey } from './values.js'

/** The admitted values by canonical key, `undefined` when unrestricted, `'junk'` when unreadable. */
function allowed(ctx: SchemaDiffContext, node: Record<string, unknown>): Map<string, unknown> | undefined | 'junk' {
  let set: Map<string, unknown> | undefined
  if (Object.hasOwn(node, 'enum')) {
    if (!Array.isArray(node.enum)) return 'junk'
    set = new Map()
    for (const value of node.enum) {
      const key = canonicalKey(value, ctx.budget)
      if (key === undefined) return 'junk'
      set.set(key, value)
    }
  }
  if (Object.hasOwn(node, 'const')) {
    const key = canonicalKey(node.const, ctx.budget)
    if (key === undefined) return 'junk'
    const only = new Map([[key, node.const]])
    set = set ? (set.has(key) ? only : new Map()) : only
  }
  return set
}

/** How many values listed on one side only are each checked against the node (a bound on the work: each is one small validation). */
const MAX_JUDGED = 256

function list(values: unknown[]): string {
  const shown = values.slice(0, 5).map(quote).join(', ')
  return values.length > 5 ? `${shown} and ${values.length - 5} more` : shown
}

export function compareEnum(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame): void {
  const ov = o.value as Record<string, unknown>
  const nv = n.value as Record<string, unknown>
  if (!Object.hasOwn(ov, 'enum') && !Object.hasOwn(nv, 'enum') && !Object.hasOwn(ov, 'const') && !Object.hasOwn(nv, 'const')) return
  const a = allowed(ctx, ov)
  const b = allowed(ctx, nv)
  const oKey = Object.hasOwn(ov, 'enum') ? 'enum' : 'const'
  const nKey = Object.hasOwn(nv, 'enum') ? 'enum' : 'const'
  if (a === 'junk' || b === 'junk') {
    ctx.emit('schema-keyword-changed', 'unknown', o, oKey, n, nKey, frame, 'an enum or const that could not be read changed')
    return
  }
  if (!a && !b) return
  if (!a) {
    const values = [...b!.values()]
    ctx.emit(nKey === 'const' ? 'schema-const-added' : 'schema-enum-added', 'narrows', o, oKey, n, nKey, frame, `the values are now limited to ${list(values)}`)
    return
  }
  if (!b) {
    ctx.emit(
      oKey === 'const' ? 'schema-const-removed' : 'schema-enum-removed',
      'widens',
      o,
      oKey,
      n,
      nKey,
      frame,
      `the values are no longer limited to ${list([...a.values()])}`,
    )
    return
  }
  // A value listed on one side only changes what the node accepts only if the node's other keywords
  // let it through: `1` dropped from the enum of a string, or `null` from the enum of a `nullable`
  // node (which admits it beside its enum), was never, or is still, accepted. Such a value is left
  // out where that is certain; the first MAX_JUDGED of each list are judged, the rest kept.
  const added = [...b.entries()]
    .filter(([key]) => !a.has(key))
    .map(([, value]) => value)
    .filter((value, i) => i >= MAX_JUDGED || !(ctx.accepts?.('new', n, value) === false || ctx.accepts?.('old', o, value) === true))
  const removed = [...a.entries()]
    .filter(([key]) => !b.has(key))
    .map(([, value]) => value)
    .filter((value, i) => i >= MAX_JUDGED || !(ctx.accepts?.('old', o, value) === false || ctx.accepts?.('new', n, value) === true))
  const listed = a.size !== b.size || [...b.keys()].some((key) => !a.has(key))
  const onlyConst = !Object.hasOwn(ov, 'enum') && !Object.hasOwn(nv, 'enum')
  if (onlyConst && added.length && removed.length) {
    ctx.emit('schema-const-changed', 'both', o, 'const', n, 'const', frame, `const went from ${list(removed)} to ${list(added)}`, () => [
      { acceptedBy: 'old', values: removed },
      { acceptedBy: 'new', values: added },
    ])
    return
  }
  if (added.length)
    ctx.emit('schema-enum-value-added', 'widens', o, oKey, n, nKey, frame, `${list(added)} ${added.length === 1 ? 'is' : 'are'} now allowed`, () => [
      { acceptedBy: 'new', values: added.slice(0, 8) },
    ])
  if (removed.length)
    ctx.emit(
      'schema-enum-value-removed',
      'narrows',
      o,
      oKey,
      n,
      nKey,
      frame,
      `${list(removed)} ${removed.length === 1 ? 'is' : 'are'} no longer allowed`,
      () => [{ acceptedBy: 'old', values: removed.slice(0, 8) }],
    )
  if (!added.length && !removed.length && (listed || oKey !== nKey || !sameOrder(ov[oKey], nv[nKey]))) {
    ctx.emit(
      'schema-keyword-rewritten',
      'none',
      o,
      oKey,
      n,
      nKey,
      frame,
      listed ? 'the values listed changed, but the node accepts the same ones' : 'the allowed values are written differently',
    )
  }
}

function sameOrder(a: unknown, b: unknown): boolean {
  if (!Array.isArray(a) || !Array.isArray(b)) return isObject(a) === isObject(b) && a === b
  if (a.length !== b.length) return false
  try {
    return JSON.stringify(a) === JSON.stringify(b)
  } catch {
    return false
  }
}
