/**
 * Array keywords: the items (the tuple form, `prefixItems` or draft-07's `items` array with
 * `additionalItems`, paired by index, and the schema for the rest), `minItems`/`maxItems`,
 * `uniqueItems`, `contains`.
 */
import { isObject } from '../../../runtime/shared/json-value.js'
import type { Frame, SchemaAt, SchemaDiffContext } from './context.js'
import { child, deeper } from './context.js'
import { minimalInstance } from './witness.js'
import { compareCounts } from './bounds.js'
import { compareNode, compareSummarized } from './pair.js'
import { childOrAbsent } from './object.js'
import { fewValues } from './node-values.js'
import { canonicalKey, jsonEqual } from './values.js'

/** Tuples longer than this are compared entry by entry up to it; the rest is reported as not compared. */
const MAX_TUPLE = 1_000

interface Items {
  tuple: SchemaAt[]
  rest: SchemaAt
}

function readItems(at: SchemaAt): Items | undefined {
  const node = at.value as Record<string, unknown>
  if (Object.hasOwn(node, 'prefixItems')) {
    if (!Array.isArray(node.prefixItems) || Array.isArray(node.items)) return undefined
    return { tuple: node.prefixItems.map((_, i) => child(at, 'prefixItems', i)), rest: childOrAbsent(at, 'items') }
  }
  if (Array.isArray(node.items)) return { tuple: node.items.map((_, i) => child(at, 'items', i)), rest: childOrAbsent(at, 'additionalItems') }
  return { tuple: [], rest: childOrAbsent(at, 'items') }
}

/** `countsOnly`: the items' keywords constrain nothing here (node.ts): only the counts and `contains` are compared. */
export function compareArrayKeywords(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame, countsOnly = false): void {
  const ov = o.value as Record<string, unknown>
  const nv = n.value as Record<string, unknown>
  compareCounts(ctx, o, n, frame, {
    min: 'minItems',
    max: 'maxItems',
    noun: 'item count',
    rules: {
      minUp: 'schema-min-items-increased',
      minDown: 'schema-min-items-decreased',
      maxDown: 'schema-max-items-decreased',
      maxUp: 'schema-max-items-increased',
    },
    // Nulls and distinct values of each type (an outside pass: unique booleans had no witness), the
    // type the items' schema names first: each candidate the node admits is validated whole.
    make: (count, at, side) => {
      const node = at.value as Record<string, unknown>
      const fills: Record<string, () => unknown[] | undefined> = {
        // Distinct values of the items' listed ones (an enum, documented `const` branches): unique
        // items of few values had no witness, every fill below repeating a value or of another type.
        listed: () => {
          const values = isObject(node.items) ? distinct(fewValues(node.items) ?? []) : []
          return values.length >= count ? values.slice(0, count) : undefined
        },
        null: () => Array.from({ length: count }, () => null),
        // The item schema's minimal instance, repeated (an object item: a recursive tree's children).
        object: () => {
          if (!isObject(node.items)) return []
          const item = minimalInstance(ctx, side, child(at, 'items'), 0)
          return Array.from({ length: count }, () => item)
        },
        integer: () => Array.from({ length: count }, (_, i) => i),
        string: () => Array.from({ length: count }, (_, i) => String.fromCharCode(97 + (i % 26)).repeat(1 + Math.floor(i / 26))),
        boolean: () => [true, false].slice(0, count),
      }
      const items = isObject(node.items) ? (node.items.type ?? 'object') : undefined
      const first = items === 'number' ? 'integer' : typeof items === 'string' && Object.hasOwn(fills, items) ? items : 'null'
      const order = ['listed', first, ...Object.keys(fills).filter((type) => type !== first && type !== 'listed')]
      return order
        .filter((type) => (type !== 'boolean' || count <= 2) && (type !== 'object' || isObject(node.items)))
        .map((type) => fills[type]!())
        .filter((made) => made !== undefined)
    },
    countOf: (value) => (Array.isArray(value) ? value.length : undefined),
  })
  const a = ov.uniqueItems ?? false
  const b = nv.uniqueItems ?? false
  if (a !== b && !countsOnly) {
    if (typeof a !== 'boolean' || typeof b !== 'boolean')
      ctx.emit('schema-keyword-changed', 'unknown', o, 'uniqueItems', n, 'uniqueItems', frame, 'a malformed uniqueItems changed')
    else if (b)
      ctx.emit('schema-unique-items-added', 'narrows', o, 'uniqueItems', n, 'uniqueItems', frame, 'items must now be unique', () => [
        {
          acceptedBy: 'old',
          values: [
            [null, null],
            [0, 0],
            ['', ''],
            [{}, {}],
          ],
        },
      ])
    else
      ctx.emit('schema-unique-items-removed', 'widens', o, 'uniqueItems', n, 'uniqueItems', frame, 'items no longer need to be unique', () => [
        {
          acceptedBy: 'new',
          values: [
            [null, null],
            [0, 0],
            ['', ''],
            [{}, {}],
          ],
        },
      ])
  }
  if (!countsOnly) compareItems(ctx, o, n, frame)
  const had = Object.hasOwn(ov, 'contains')
  const has = Object.hasOwn(nv, 'contains')
  const counted = Object.hasOwn(ov, 'maxContains') || Object.hasOwn(nv, 'maxContains')
  if (had !== has && !counted) {
    // An array valid against `contains` has an item its schema accepts, so whatever that schema, the
    // empty array is refused (draft-07 6.4.6): `contains: {}` is no absent `contains` (an outside
    // pass: added or removed, it was no finding). Added narrows, removed widens, `[]` the witness.
    ctx.emit(
      had ? 'schema-constraint-removed' : 'schema-constraint-added',
      had ? 'widens' : 'narrows',
      o,
      'contains',
      n,
      'contains',
      frame,
      had
        ? '`contains` was removed: an array no longer needs an item it matches'
        : '`contains` was added: an array needs an item it matches (the empty array is refused)',
      // The empty array first; then arrays of one item the schema may refuse (where the other keywords refuse `[]`).
      () => [{ acceptedBy: had ? 'new' : 'old', values: [[], [null], [0], [''], [{}], [[]], [true], [0.5]] }],
    )
  } else if (had || has) {
    // contains alone is monotone; under maxContains a narrower contains lets more arrays under the maximum.
    const inner = counted ? deeper(frame, null, 'mixed', 'maxContains counts the items contains matches') : deeper(frame, null)
    compareNode(ctx, childOrAbsent(o, 'contains'), childOrAbsent(n, 'contains'), inner, {
      narrow: 'schema-constraint-added',
      widen: 'schema-constraint-removed',
      what: 'contains',
    })
  }
  for (const key of ['minContains', 'maxContains']) {
    if (jsonEqual(ov[key], nv[key], ctx.budget) !== true) ctx.emit('schema-keyword-changed', 'unknown', o, key, n, key, frame, `\`${key}\` changed`)
  }
}

function compareItems(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame): void {
  const ov = o.value as Record<string, unknown>
  const nv = n.value as Record<string, unknown>
  const keys = ['items', 'prefixItems', 'additionalItems']
  if (!keys.some((key) => Object.hasOwn(ov, key) || Object.hasOwn(nv, key))) return
  const a = readItems(o)
  const b = readItems(n)
  if (!a || !b) {
    if (keys.some((key) => jsonEqual(ov[key], nv[key], ctx.budget) !== true))
      ctx.emit('schema-keyword-changed', 'unknown', o, 'items', n, 'items', frame, 'malformed items changed')
    return
  }
  const length = Math.max(a.tuple.length, b.tuple.length)
  for (let i = 0; i < Math.min(length, MAX_TUPLE); i++) {
    if (ctx.stopped) return
    const inOld = i < a.tuple.length
    const inNew = i < b.tuple.length
    const what = `item ${i}`
    if (inOld && inNew) {
      compareNode(ctx, a.tuple[i]!, b.tuple[i]!, deeper(frame, { item: i, holder: { old: o, new: n } }), {
        narrow: 'schema-constraint-added',
        widen: 'schema-constraint-removed',
        what,
      })
      continue
    }
    const rule = inNew ? 'schema-prefix-item-added' : 'schema-prefix-item-removed'
    const oEffective = inOld ? a.tuple[i]! : a.rest
    const nEffective = inNew ? b.tuple[i]! : b.rest
    compareSummarized(
      ctx,
      oEffective,
      nEffective,
      deeper(frame, { item: i, holder: { old: o, new: n } }),
      { narrow: rule, widen: rule, summary: rule, what },
      {
        o: oEffective,
        n: nEffective,
        what: `the tuple entry ${i} was ${inNew ? 'added' : 'removed'}`,
      },
    )
  }
  if (length > MAX_TUPLE)
    ctx.emit('schema-not-compared', 'unknown', o, 'items', n, 'items', frame, `tuples longer than ${MAX_TUPLE} entries are compared up to entry ${MAX_TUPLE}`)
  compareNode(ctx, a.rest, b.rest, deeper(frame, { item: Math.min(length, 16), holder: { old: o, new: n } }), {
    narrow: 'schema-items-added',
    widen: 'schema-items-removed',
    what: length ? 'the items after the tuple' : 'items',
  })
}

/** The values, each once (JSON equality, by canonical text); a value too large to key is left out. */
function distinct(values: readonly unknown[]): unknown[] {
  const seen = new Set<string>()
  const out: unknown[] = []
  for (const value of values) {
    const key = canonicalKey(value, { left: 10_000 })
    if (key === undefined || seen.has(key)) continue
    seen.add(key)
    out.push(value)
  }
  return out
}
