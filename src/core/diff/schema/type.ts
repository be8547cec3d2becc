/**
 * `type` (integer inside number) and OpenAPI 3.0's `nullable`. Types are compared as sets of
 * atoms, with `number` split into integers and the other numbers, so `integer` → `number` widens
 * and the reverse narrows.
 */
import { isObject } from '../../../runtime/shared/json-value.js'
import type { Frame, SchemaAt, SchemaDiffContext } from './context.js'
import { quote } from './context.js'
import { TYPE_REPRESENTATIVES } from './witness-values.js'
import { acceptsValue } from './accepts.js'

const ATOMS = ['null', 'boolean', 'object', 'array', 'string', 'int', 'frac'] as const
type Atom = (typeof ATOMS)[number]

function atomsOf(name: unknown): Atom[] | undefined {
  switch (name) {
    case 'number':
      return ['int', 'frac']
    case 'integer':
      return ['int']
    case 'null':
    case 'boolean':
    case 'object':
    case 'array':
    case 'string':
      return [name]
    default:
      return undefined
  }
}

/** The atoms a node's `type` admits: all of them when absent, `undefined` when it is malformed. */
export function typeAtoms(node: unknown): Set<Atom> | undefined {
  if (!isObject(node) || !Object.hasOwn(node, 'type')) return new Set(ATOMS)
  const names = Array.isArray(node.type) ? node.type : [node.type]
  const out = new Set<Atom>()
  for (const name of names) {
    const atoms = atomsOf(name)
    if (!atoms) return undefined
    for (const atom of atoms) out.add(atom)
  }
  return out
}

function describe(node: unknown): string {
  return isObject(node) && Object.hasOwn(node, 'type') ? quote(node.type) : 'any type'
}

export function compareType(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame): void {
  const a = typeAtoms(o.value)
  const b = typeAtoms(n.value)
  if (!a || !b) {
    const ot = (o.value as Record<string, unknown>).type
    const nt = (n.value as Record<string, unknown>).type
    if (JSON.stringify(ot) !== JSON.stringify(nt)) ctx.emit('schema-keyword-changed', 'unknown', o, 'type', n, 'type', frame, 'a malformed type changed')
    return
  }
  const removed = [...a].filter((atom) => !b.has(atom))
  const added = [...b].filter((atom) => !a.has(atom))
  const what = `the type went from ${describe(o.value)} to ${describe(n.value)}`
  const values = (atoms: Atom[]) => atoms.flatMap((atom) => (Object.hasOwn(TYPE_REPRESENTATIVES, atom) ? TYPE_REPRESENTATIVES[atom]! : []))
  if (removed.length && added.length) {
    ctx.emit('schema-type-changed', 'both', o, 'type', n, 'type', frame, what, () => [
      { acceptedBy: 'old', values: values(removed) },
      { acceptedBy: 'new', values: values(added) },
    ])
  } else if (removed.length) {
    ctx.emit('schema-type-narrowed', 'narrows', o, 'type', n, 'type', frame, what, () => [{ acceptedBy: 'old', values: values(removed) }])
  } else if (added.length) {
    ctx.emit('schema-type-widened', 'widens', o, 'type', n, 'type', frame, what, () => [{ acceptedBy: 'new', values: values(added) }])
  } else if (JSON.stringify((o.value as Record<string, unknown>).type) !== JSON.stringify((n.value as Record<string, unknown>).type)) {
    ctx.emit('schema-keyword-rewritten', 'none', o, 'type', n, 'type', frame, `${what}, which admit the same values`)
  }
}

/**
 * OpenAPI 3.0 `nullable: true` admits `null` beside whatever the rest of the schema admits (the
 * 3.0.1 reading producers write to). Adding it widens when the rest refuses `null`, and is no
 * change when the rest already accepts it, or the old version did anyway (removing it: the mirror).
 */
export function compareNullable(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame): void {
  const ov = o.value as Record<string, unknown>
  const nv = n.value as Record<string, unknown>
  const a = ov.nullable
  const b = nv.nullable
  if (a === b || (a !== true && b !== true && (a === undefined || a === false) && (b === undefined || b === false))) return
  if ((a !== undefined && typeof a !== 'boolean') || (b !== undefined && typeof b !== 'boolean')) {
    ctx.emit('schema-keyword-changed', 'unknown', o, 'nullable', n, 'nullable', frame, 'a malformed nullable changed')
    return
  }
  if (ctx.dialect !== 'openapi-3.0') {
    ctx.emit('schema-keyword-changed', 'unknown', o, 'nullable', n, 'nullable', frame, '`nullable` changed, which JSON Schema does not define')
    return
  }
  const added = b === true
  // Whether the rest of the schema (without nullable) already accepts null.
  const sideName = added ? 'new' : 'old'
  const node = added ? n : o
  const rest = { ...node, value: { ...(node.value as Record<string, unknown>), nullable: false } }
  const restAcceptsNull = acceptsValue(ctx, sideName, rest, null)
  // And whether the other version accepts null anyway (its type widened to any, say): then null is
  // accepted on both sides and the keyword changes nothing.
  const otherAcceptsNull = acceptsValue(ctx, added ? 'old' : 'new', added ? o : n, null)
  const effect =
    restAcceptsNull === true || otherAcceptsNull === true
      ? 'none'
      : restAcceptsNull === false && otherAcceptsNull === false
        ? added
          ? 'widens'
          : 'narrows'
        : 'unknown'
  ctx.emit(
    added ? 'schema-nullable-added' : 'schema-nullable-removed',
    effect,
    o,
    'nullable',
    n,
    'nullable',
    frame,
    added ? '`nullable: true` was added' : '`nullable: true` was removed',
    () => [{ acceptedBy: added ? 'new' : 'old', values: [null] }],
  )
}
