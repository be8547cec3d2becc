/**
 * Payload schemas by direction (Benzene Contract Document §2-4): a request is sent by its clients
 * and received by the service; a response and an event message are sent by the service and
 * received by clients. Each paired entry's payloads go through the schema engine (`diffSchemas`,
 * OpenAPI 3.0's dialect, `$ref`s resolved into `components.schemas`), and so does every component
 * schema both versions have, with the parties of every payload that reaches it (through `$ref`s, and
 * through the discriminators that select a parent's children): a change the engine finds behind a
 * `$ref` and at the component itself is one finding naming them all.
 *
 * Cost: the engine's on the payloads and the catalogue, plus, for the components that changed, one
 * reach per payload (a bare `$ref`'s shared by name): O(sum of the closures), the bound the
 * model already holds its topic hashes to; audiences per changed component at most one per entry.
 */
import { SettledComparisons, countMembers, diffSchemas, documentPairBound } from '../../../core/diff/schema-diff.js'
import { levelFor, type SchemaChange, type SchemaDiffOptions } from '../../../core/diff/schema-diff-types.js'
import { jsonEqual } from '../../../core/diff/schema/values.js'
import type { DiffAudience, DiffFinding, DiffLevel } from '../../../core/diff/types.js'
import { isObject, refTarget, type EventEntry, type RequestEntry, type Schema } from '../../../runtime/benzene/document.js'
import { joinPointer, splitPointer } from '../../../runtime/shared/json-pointer.js'
import { generationReach } from '../inheritance.js'
import type { SchemaFacts } from '../schema-facts.js'
import type { Pair, Paired } from './entries.js'
import { client, maxLevel, quote, service } from './findings.js'
import type { BenzeneVersion } from './side.js'
import { readingOf, type Reading } from './readings.js'
import { directionFree } from '../direction-free.js'
import { bareRef, placeComponentWitnesses, type ReachingPayload } from './witness-placement.js'

const READINGS: readonly Reading[] = ['request', 'response']

/**
 * OpenAPI 3.0's dialect, with `format: int64` read as the validators of both versions read it (the
 * `int64` option; when the two versions were compiled with different readings, unset: `unknown`).
 */
function dialectOf(old: BenzeneVersion, next: BenzeneVersion): SchemaDiffOptions {
  const int64 = old.model.options.int64 === next.model.options.int64 ? next.model.options.int64 : undefined
  return int64 === undefined ? { dialect: 'openapi-3.0' } : { dialect: 'openapi-3.0', int64 }
}

/** A party to a payload: who, and whether it sends or receives it. */
interface Party {
  audience: DiffAudience
  direction: 'sends' | 'receives'
}

/** The parties of a request payload, a response payload and an event message of the entry labelled `label`. */
function partiesOf(place: 'request' | 'response' | 'message', label: string): Party[] {
  return place === 'request'
    ? [
        { audience: client(label), direction: 'sends' },
        { audience: service(label), direction: 'receives' },
      ]
    : [
        { audience: client(label), direction: 'receives' },
        { audience: service(label), direction: 'sends' },
      ]
}

const PLACE_NAME = { request: 'request payload', response: 'response payload', message: 'message' } as const

/** The component a pointer lies in (`/components/schemas/<name>/...`), if any. */
function componentOf(pointer: string | undefined): string | undefined {
  if (pointer === undefined || !pointer.startsWith('/components/schemas/')) return undefined
  return splitPointer(pointer)[2]
}

/** A change as a finding: the level each party has, the finding at the highest, naming the parties at it. */
function toFinding(
  old: BenzeneVersion,
  next: BenzeneVersion,
  change: SchemaChange,
  parties: readonly Party[],
  where: string,
  payload?: { topic: string; place: Place },
): DiffFinding {
  const levels = parties.map((p) => levelFor(change.effect, p.direction))
  // A schema no payload reaches breaks nobody, whatever the change.
  const level: DiffLevel = parties.length === 0 ? 'info' : maxLevel(levels)
  // Nobody breaks at info: no party is named.
  const audiences = level === 'info' ? [] : parties.filter((_, i) => levels[i] === level).map((p) => p.audience)
  const data: Record<string, unknown> = { effect: change.effect }
  if (change.witness) data.witness = change.witness
  // A payload's own change: its witnesses are that payload (a component's are placed by witness-placement.ts).
  if (change.witness && payload) data.witnessIn = payload
  if (change.witnesses && payload) data.witnesses = change.witnesses.map((w) => ({ ...w, in: payload }))
  return {
    rule: change.rule,
    level,
    audiences,
    ...(change.old ? { old: old.at(change.old.pointer) } : {}),
    ...(change.new ? { new: next.at(change.new.pointer) } : {}),
    message: `${where}: ${change.message}`,
    data,
  }
}

/**
 * Where a change is, in words: its component when it lies in one in both versions (the same words
 * whoever reached it), else the entry's payload: a `$ref` replaced by an inline schema is a change of
 * the payload, not of the component it used to name, which did not change.
 */
function whereOf(change: SchemaChange, entryWhere: string): string {
  const now = componentOf(change.new?.pointer)
  const was = componentOf(change.old?.pointer)
  const component = change.new === undefined ? was : change.old === undefined ? now : now === was ? now : undefined
  return component === undefined ? entryWhere : `Component schema ${quote(component)}`
}

type Place = 'request' | 'response' | 'message'

interface Root {
  place: Place
  label: string
  oldPointer: string
  newPointer: string
  oldSchema: unknown
  newSchema: unknown
}

function roots(requests: Paired<RequestEntry>, events: Paired<EventEntry>): Root[] {
  const out: Root[] = []
  const compared = (paired: Paired<RequestEntry> | Paired<EventEntry>) => [...paired.pairs, ...paired.versionChanged]
  for (const p of compared(requests) as Pair<RequestEntry>[]) {
    for (const place of ['request', 'response'] as const) {
      out.push({
        place,
        label: p.new.label,
        oldPointer: `${p.old.pointer}/${place}`,
        newPointer: `${p.new.pointer}/${place}`,
        oldSchema: p.old.entry[place],
        newSchema: p.new.entry[place],
      })
    }
  }
  for (const p of compared(events) as Pair<EventEntry>[]) {
    out.push({
      place: 'message',
      label: p.new.label,
      oldPointer: `${p.old.pointer}/message`,
      newPointer: `${p.new.pointer}/message`,
      oldSchema: p.old.entry.message,
      newSchema: p.new.entry.message,
    })
  }
  return out
}

function catalogue(version: BenzeneVersion): Readonly<Record<string, Schema>> {
  const schemas = version.doc.components?.schemas
  return isObject(schemas) ? (schemas as Record<string, Schema>) : {}
}

export function payloadFindings(old: BenzeneVersion, next: BenzeneVersion, requests: Paired<RequestEntry>, events: Paired<EventEntry>): DiffFinding[] {
  const payloads = roots(requests, events)
  const was = catalogue(old)
  const is = catalogue(next)
  // The components first: a payload's own comparison then takes the effect of each component it
  // names from theirs (`SettledComparisons`) instead of walking it again, so n payloads naming one
  // large tree of components cost their own schemas, not n trees. The components' findings carry
  // the parties of every payload reaching them, so nothing the payload's walk would add is lost.
  const settled = new SettledComparisons()
  const tally = { pairs: 0 }
  // Every comparison of this document's schemas together is bounded by its size (`documentPairBound`).
  const bound = documentPairBound(countMembers(old.doc, next.doc))
  // A document with readOnly or writeOnly members is compared in each direction's reading (readings.ts).
  const directed = old.directional || next.directional
  const inReading: Record<Reading, SettledComparisons> = { request: new SettledComparisons(), response: new SettledComparisons() }
  const out: DiffFinding[] = componentFindings(old, next, payloads, settled, inReading, tally, bound)
  for (const root of payloads) {
    const reading = directed ? readingOf(root.place) : undefined
    const dialect: SchemaDiffOptions = { ...dialectOf(old, next), settled: reading === undefined ? settled : inReading[reading], tally }
    // The same component named in both versions: its own diff below finds every change, with every party.
    const name = bareRef(root.oldSchema)
    if (name !== undefined && name === bareRef(root.newSchema) && Object.hasOwn(was, name) && Object.hasOwn(is, name)) continue
    const where = `The ${PLACE_NAME[root.place]} of ${quote(root.label)}`
    const parties = partiesOf(root.place, root.label)
    // The payloads' own comparisons count against the same bound as the components' (every
    // payload naming components nobody compared walks them: a hostile document's many topics).
    // Past it, the same schema text is left to the components' own diffs (only what it names can differ).
    const changes =
      tally.pairs < bound
        ? diffSchemas(old.schema(root.oldPointer, reading), next.schema(root.newPointer, reading), dialect)
        : jsonEqual(root.oldSchema, root.newSchema, { left: EQUAL_BUDGET }) === true
          ? []
          : [notCompared(old, next, root.oldPointer, root.newPointer, `Not compared: ${BOUND_REACHED(bound)}`)]
    // A change inside a component the payload names is still in this payload's walk: its witness is this payload.
    for (const change of changes) out.push(toFinding(old, next, change, parties, whereOf(change, where), { topic: root.label, place: root.place }))
  }
  return out
}

/** The work an equality test of two payload schemas may take (nodes visited); past it they are compared. */
const EQUAL_BUDGET = 100_000

/** The sentence of a comparison stopped at the document's bound. */
const BOUND_REACHED = (bound: number) =>
  `comparing this document's schemas stopped at its bound (${bound.toLocaleString('en-US')} pairs of schema nodes, from the document's size); whether the accepted values changed cannot be proven, and an unknown schema implication is not assumed safe.`

/** A `schema-not-compared` change at the two pointers. */
function notCompared(old: BenzeneVersion, next: BenzeneVersion, oldPointer: string, newPointer: string, message: string): SchemaChange {
  return {
    rule: 'schema-not-compared',
    effect: 'unknown',
    old: { file: old.file, pointer: oldPointer },
    new: { file: next.file, pointer: newPointer },
    message,
  }
}

/**
 * Every component schema both versions have, through the engine, with the parties of the payloads
 * reaching it in either version.
 */
function componentFindings(
  old: BenzeneVersion,
  next: BenzeneVersion,
  payloads: readonly Root[],
  settled: SettledComparisons,
  inReading: Record<Reading, SettledComparisons>,
  tally: { pairs: number; validationSteps?: number; normalFormNodes?: number; changes?: number },
  bound: number,
): DiffFinding[] {
  const was = catalogue(old)
  const is = catalogue(next)
  const changes: Array<{ name: string; change: SchemaChange; also?: readonly string[]; reading?: Reading }> = []
  // Each component once, the ones it names first: a component reaching another takes that one's
  // effect (`SettledComparisons`) instead of comparing it again and reporting its changes twice.
  const options: SchemaDiffOptions = { ...dialectOf(old, next), settled, tally }
  // A component that reads differently in requests and in responses (it, or what it reaches, has a
  // readOnly or writeOnly member) is compared in each reading (readings.ts), after every other one,
  // which reads alike in both and whose settled effects both readings take.
  const [oldFree, newFree] = [directionFree(old.model.facts), directionFree(next.model.facts)]
  const directional = (name: string) => (old.directional || next.directional) && (!oldFree(name) || !newFree(name))
  const order = dependenciesFirst(was, is)
  // The components' comparisons together are bounded by the document's size: the rest, past it, is one unknown change.
  const skipped: string[] = []
  for (const name of order) {
    if (directional(name)) continue
    if (tally.pairs >= bound) {
      skipped.push(name)
      continue
    }
    const pointer = joinPointer('', 'components', 'schemas', name)
    for (const change of diffSchemas(old.schema(pointer), next.schema(pointer), options)) changes.push({ name, change })
  }
  if (order.some(directional)) {
    for (const reading of READINGS) for (const [key, effect] of settled.effects) inReading[reading].effects.set(key, effect)
    for (const name of order.filter(directional)) {
      if (tally.pairs >= bound) {
        skipped.push(name)
        continue
      }
      const pointer = joinPointer('', 'components', 'schemas', name)
      const found = READINGS.map((reading) => ({
        reading,
        list: diffSchemas(old.schema(pointer, reading), next.schema(pointer, reading), { ...options, settled: inReading[reading] }),
      }))
      // A change both readings find alike is one finding, for every party.
      const key = (c: SchemaChange) => JSON.stringify([c.rule, c.effect, c.old?.pointer, c.new?.pointer, c.message])
      const inBoth = new Set(found[0]!.list.map(key).filter((k) => found[1]!.list.some((c) => key(c) === k)))
      for (const change of found[0]!.list) changes.push({ name, change, ...(inBoth.has(key(change)) ? {} : { reading: found[0]!.reading }) })
      for (const change of found[1]!.list) if (!inBoth.has(key(change))) changes.push({ name, change, reading: found[1]!.reading })
    }
  }
  if (skipped.length > 0) {
    const pointer = joinPointer('', 'components', 'schemas', skipped[0]!)
    const others = skipped.slice(1)
    const listed =
      others.length <= 3 ? others.map(quote).join(', ') : `${others.slice(0, 3).map(quote).join(', ')} and ${(others.length - 3).toLocaleString('en-US')} more`
    const also = others.length === 0 ? '' : `, nor ${others.length === 1 ? 'one other' : `${others.length.toLocaleString('en-US')} others`} (${listed})`
    const message = `Not compared${also}: comparing this document's components stopped at its bound (${bound.toLocaleString('en-US')} pairs of schema nodes, from the document's size); whether their accepted values changed cannot be proven, and an unknown schema implication is not assumed safe.`
    changes.push({ name: skipped[0]!, change: notCompared(old, next, pointer, pointer, message), also: skipped })
  }
  // In the catalogue's order, as before the walk reordered them (a stable sort).
  const index = new Map(Object.keys(was).map((name, i) => [name, i]))
  changes.sort((a, b) => index.get(a.name)! - index.get(b.name)!)
  if (changes.length === 0) return []
  // Only the changed components need their parties: each payload's closure (old and new) asked once.
  const changed = new Set(changes.flatMap((c) => c.also ?? [c.name]))
  const parties = new Map<string, Party[]>()
  const byReading: Record<Reading, Map<string, Party[]>> = { request: new Map(), response: new Map() }
  const oldReach = new Map<string, ReadonlySet<string>>()
  const newReach = new Map<string, ReadonlySet<string>>()
  const reaching: ReachingPayload[] = []
  for (const root of payloads) {
    const reached = new Set<string>()
    const inVersion = { old: new Set<string>(), new: new Set<string>() }
    for (const [schema, facts, memo, into] of [
      [root.oldSchema, old.model.facts, oldReach, inVersion.old],
      [root.newSchema, next.model.facts, newReach, inVersion.new],
    ] as const) {
      const closure = reachOf(schema, facts, memo)
      const [small, large] = closure.size <= changed.size ? [closure, changed] : [changed, closure]
      for (const name of small) if (large.has(name)) into.add(name)
    }
    for (const name of inVersion.old) reached.add(name)
    for (const name of inVersion.new) reached.add(name)
    if (reached.size > 0) reaching.push({ ...root, reached: inVersion, parties: partiesOf(root.place, root.label) })
    for (const name of reached)
      for (const map of [parties, byReading[readingOf(root.place)]]) {
        let list = map.get(name)
        if (!list) map.set(name, (list = []))
        list.push(...partiesOf(root.place, root.label))
      }
  }
  const items = changes.map(({ name, change, also, reading }) => ({
    name,
    change,
    ...(reading === undefined ? {} : { reading }),
    finding: toFinding(
      old,
      next,
      change,
      also ? also.flatMap((other) => parties.get(other) ?? []) : ((reading === undefined ? parties : byReading[reading]).get(name) ?? []),
      whereOf(change, `Component schema ${quote(name)}`),
    ),
  }))
  // A component's witness is a value of the component: placed in a payload that reaches it (witness-placement.ts).
  placeComponentWitnesses(old, next, reaching, items, dialectOf(old, next), old.directional || next.directional, bound)
  return items.map((item) => item.finding)
}

/**
 * The components both versions have, each after the components it names (in either version) where
 * no cycle prevents it, else in the catalogue's order: a depth-first walk, by a stack (a chain of
 * references is as long as a document makes it), O(the schemas' size).
 */
function dependenciesFirst(was: Readonly<Record<string, Schema>>, is: Readonly<Record<string, Schema>>): string[] {
  const names = Object.keys(was).filter((name) => Object.hasOwn(is, name))
  const both = new Set(names)
  const named = (name: string): string[] => {
    const out: string[] = []
    const stack: unknown[] = [was[name], is[name]]
    while (stack.length > 0) {
      const value = stack.pop()
      if (Array.isArray(value)) for (const item of value) stack.push(item)
      else if (isObject(value))
        for (const key of Object.keys(value)) {
          const target = key === '$ref' ? refTarget(value[key]) : undefined
          if (target !== undefined && both.has(target)) out.push(target)
          else stack.push(value[key])
        }
    }
    return out
  }
  const order: string[] = []
  const state = new Map<string, 'open' | 'done'>()
  for (const start of names) {
    if (state.has(start)) continue
    const stack: Array<{ name: string; next: string[] }> = [{ name: start, next: named(start) }]
    state.set(start, 'open')
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!
      const target = top.next.pop()
      if (target === undefined) {
        stack.pop()
        state.set(top.name, 'done')
        order.push(top.name)
      } else if (!state.has(target)) {
        state.set(target, 'open')
        stack.push({ name: target, next: named(target) })
      }
    }
  }
  return order
}

/**
 * The component schemas a payload reaches as the generated types and validators read it: §5.3's
 * closure plus what its discriminators select (a parent's children, a `mapping`'s targets), as the
 * model's inheritance reading computes them (`generationReach`). A bare `$ref` is kept per name, so
 * the payloads naming one schema share its walk.
 */
function reachOf(schema: unknown, facts: SchemaFacts, memo: Map<string, ReadonlySet<string>>): ReadonlySet<string> {
  const name = bareRef(schema)
  if (name === undefined) return new Set(generationReach([schema], facts))
  let reached = memo.get(name)
  if (!reached) memo.set(name, (reached = new Set(generationReach([schema], facts))))
  return reached
}
