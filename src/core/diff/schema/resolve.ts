/**
 * `$ref` resolution. A reference is resolved through the side's `resolve` (the target may be in
 * another file); a reference that names nothing is reported as not compared (`unknown`), never
 * thrown. How keywords beside a `$ref` read depends on the dialect: OpenAPI 3.0 and draft-07 ignore
 * them, 2019-09 and later apply them, and a document that declares no draft leaves it open.
 */
import type { SchemaSide } from '../schema-diff-types.js'
import { isObject } from '../../../runtime/shared/json-value.js'
import { deeper, quote, type Dialect, type Frame, type RefSiblings, type SchemaAt, type SchemaDiffContext, type SideName } from './context.js'
import { isAnnotation } from './keywords.js'
import { compareLater, compareSummarized } from './pair.js'
import { readPointer, readPointerOnce } from './values.js'

export function refOf(value: unknown): string | undefined {
  return isObject(value) && typeof value.$ref === 'string' ? value.$ref : undefined
}

/** The schema a node's `$ref` names, or `undefined` when it names nothing (or the resolver fails). */
export function follow(ctx: SchemaDiffContext, side: SideName, at: SchemaAt): SchemaAt | undefined {
  const ref = refOf(at.value)
  if (ref === undefined) return undefined
  let target: ReturnType<SchemaSide['resolve']>
  try {
    target = ctx.side(side).resolve(ref, { file: at.file, pointer: at.pointer })
  } catch {
    return undefined
  }
  if (!target || typeof target.file !== 'string' || typeof target.pointer !== 'string') return undefined
  const value = readPointerOnce(target.document, target.pointer)
  if (value === undefined) return undefined
  return { file: target.file, document: target.document, pointer: target.pointer, value }
}

/** Follows `$ref` chains (a reference to a reference) up to a few hops; `undefined` when one names nothing. */
export function followAll(ctx: SchemaDiffContext, side: SideName, at: SchemaAt, hops = 16): SchemaAt | undefined {
  let node: SchemaAt | undefined = at
  for (let i = 0; i < hops && node && refOf(node.value) !== undefined; i++) node = follow(ctx, side, node)
  return node && refOf(node.value) === undefined ? node : undefined
}

/** How keywords beside a `$ref` read, from the dialect and the `$schema` the schema or its document declares. */
export function refSiblingsMode(side: SchemaSide, dialect: Dialect): RefSiblings {
  if (dialect === 'openapi-3.0') return 'ignore'
  const declared = [readPointer(side.document, side.pointer), side.document]
    .map((node) => (isObject(node) && typeof node.$schema === 'string' ? node.$schema : undefined))
    .find((text) => text !== undefined)
  if (declared === undefined) return 'unknown'
  if (/2019-09|2020-12/.test(declared)) return 'apply'
  if (/draft-0[3-7]/.test(declared)) return 'ignore'
  return 'unknown'
}

/** Whether a node holds, beside its `$ref`, a keyword that is no annotation or container of definitions. */
export function hasConstraintsBesideRef(value: unknown, dialect: Dialect): boolean {
  if (!isObject(value)) return false
  return Object.keys(value).some((key) => key !== '$ref' && key !== '$defs' && key !== 'definitions' && !isAnnotation(key, dialect))
}

/**
 * Whether each node starts a chain of nodes that are references alone that comes back to a node
 * of itself, by the document the chain starts in and the reading of keywords beside a `$ref`:
 * kept across the calls of a document's diff (a format compares each payload on its own, and a
 * thousand channels naming one long chain each walked it again from every link, 64 hops a side: 128
 * resolutions a pair, 82 s for a thousand channels on a thousand links). The premise is that of the
 * other memos: a `$ref` in a given document resolves the same way in every call.
 */
const cycles = new WeakMap<object, Map<string, Map<string, boolean>>>()

/** The longest chain of references alone followed: past it, no cycle is claimed (the node is compared as written). */
const MAX_REF_CHAIN = 100_000

/**
 * Whether `at` starts a chain of nodes that are references alone (no keyword beside the `$ref` that
 * applies) which comes back to a node of itself. Each node's answer is kept, so every node of a
 * document is followed once however many chains pass through it.
 */
function referencesOnlyCycle(ctx: SchemaDiffContext, side: SideName, at: SchemaAt): boolean {
  let memo: Map<string, boolean> = new Map()
  if (typeof at.document === 'object' && at.document !== null) {
    let readings = cycles.get(at.document)
    if (!readings) cycles.set(at.document, (readings = new Map()))
    const reading = `${ctx.dialect}/${ctx.refSiblings}`
    memo = readings.get(reading) ?? new Map()
    readings.set(reading, memo)
  }
  const path: string[] = []
  const onPath = new Set<string>()
  let node: SchemaAt | undefined = at
  let cycle = false
  while (node) {
    if (refOf(node.value) === undefined || (ctx.refSiblings !== 'ignore' && hasConstraintsBesideRef(node.value, ctx.dialect))) break
    const key = `${node.file}#${node.pointer}`
    const known = memo.get(key)
    if (known !== undefined) {
      cycle = known
      break
    }
    if (onPath.has(key)) {
      cycle = true
      break
    }
    if (path.length >= MAX_REF_CHAIN) return false
    onPath.add(key)
    path.push(key)
    node = follow(ctx, side, node)
  }
  for (const key of path) memo.set(key, cycle)
  return cycle
}

/** Compares two nodes at least one of which holds a `$ref`. */
export function compareReferences(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame): void {
  const oRef = refOf(o.value)
  const nRef = refOf(n.value)
  // A chain of references alone that comes back to itself (`A: {$ref: B}`, `B: {$ref: A}`) is
  // decided by nothing, and the validators accept no value there: compared as a schema that
  // accepts nothing, never assumed equal to the other side (which a back edge would otherwise be).
  const oVoid = oRef !== undefined && referencesOnlyCycle(ctx, 'old', o)
  const nVoid = nRef !== undefined && referencesOnlyCycle(ctx, 'new', n)
  if (oVoid || nVoid) {
    // The same cycle on both sides (the same reference) is no change at all.
    if (oVoid && nVoid && oRef === nRef) return
    const which = oVoid && nVoid ? 'both $refs name' : oVoid ? `the old $ref ${quote(oRef)} names` : `the new $ref ${quote(nRef)} names`
    ctx.emit(
      'schema-ref-changed',
      oVoid && nVoid ? 'none' : nVoid ? 'narrows' : 'widens',
      o,
      '$ref',
      n,
      '$ref',
      frame,
      `${which} a cycle of references alone, which accepts no value`,
    )
    return
  }
  const oTarget = oRef === undefined ? o : follow(ctx, 'old', o)
  const nTarget = nRef === undefined ? n : follow(ctx, 'new', n)
  if (!oTarget || !nTarget) {
    const missing = !oTarget ? `the old $ref ${quote(oRef)}` : `the new $ref ${quote(nRef)}`
    ctx.emit('schema-not-compared', 'unknown', o, '$ref', n, '$ref', frame, `${missing} names no schema, so the schemas were not compared`)
    return
  }
  const what =
    oRef !== undefined && nRef !== undefined
      ? `the $ref changed from ${quote(oRef)} to ${quote(nRef)}`
      : oRef !== undefined
        ? `the $ref ${quote(oRef)} was replaced by an inline schema`
        : `the inline schema was replaced by the $ref ${quote(nRef)}`
  const site = { narrow: 'schema-ref-changed', widen: 'schema-ref-changed', summary: 'schema-ref-changed' }
  const report = { o, oKey: '$ref', n, nKey: '$ref', what }
  const mode = ctx.refSiblings
  const oExtra = oRef !== undefined && hasConstraintsBesideRef(o.value, ctx.dialect)
  const nExtra = nRef !== undefined && hasConstraintsBesideRef(n.value, ctx.dialect)
  if (mode === 'ignore' || (!oExtra && !nExtra)) {
    const inner = deeper(frame, 'same')
    inner.merged = frame.merged
    if (oRef === nRef) compareLater(ctx, oTarget, nTarget, inner)
    else compareSummarized(ctx, oTarget, nTarget, inner, site, report, true)
    if (mode === 'ignore' && (oExtra || nExtra))
      ctx.emit('schema-annotation-changed', 'none', o, undefined, n, undefined, frame, 'keywords beside a $ref, which this dialect ignores, are present')
    return
  }
  if (oRef !== undefined && nRef !== undefined) {
    // Both sides: the target and the keywords beside it are a conjunction, compared part by part.
    const inner = deeper(frame, 'same')
    if (oRef === nRef) compareLater(ctx, oTarget, nTarget, inner)
    else compareSummarized(ctx, oTarget, nTarget, inner, site, report, true)
    const besides =
      mode === 'apply'
        ? frame
        : deeper(frame, 'same', 'mixed', 'keywords beside a $ref apply or not depending on the JSON Schema draft, which the document does not declare')
    ctx.compareKeywords(ctx, o, n, { ...besides, depth: frame.depth }, true)
    return
  }
  ctx.emit('schema-ref-changed', 'unknown', o, '$ref', n, '$ref', frame, `${what}, and keywords beside the $ref make the two hard to compare`)
}
