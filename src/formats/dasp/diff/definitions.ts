import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../../../runtime/shared/json-value.js'
import { canonical, CLIENT, EVERYONE, type Findings, HOST, pinKey, quote } from './findings.js'
import { locate, type PositionedDocument } from './sides.js'

/** Members of a list keyed canonically, each at its first index: set differences in linear time. */
function keyed(list: unknown, key: (v: unknown) => string = canonical): Map<string, number> {
  const out = new Map<string, number>()
  if (!Array.isArray(list)) return out
  list.forEach((v, i) => {
    const k = key(v)
    if (!out.has(k)) out.set(k, i)
  })
  return out
}

/** Calls `removed`/`added` with the index of each member of one list missing from the other. */
function setDiff(before: unknown, after: unknown, removed: (i: number) => void, added: (i: number) => void, key?: (v: unknown) => string): void {
  const a = keyed(before, key)
  const b = keyed(after, key)
  for (const [k, i] of a) if (!b.has(k)) removed(i)
  for (const [k, i] of b) if (!a.has(k)) added(i)
}

const dependencyKey = (d: unknown) => (isObject(d) ? JSON.stringify([d.uri, d.version, d.scope ?? null]) : canonical(d))
/** A dependency's scope in words (a scope changed reads as one requirement gone and one added: each must say which). */
const scopeOf = (dependency: { scope?: unknown }) => (dependency.scope === undefined ? '' : ` in scope ${quote(dependency.scope)}`)

const contractKey = (c: unknown) => (isObject(c) ? JSON.stringify([c.uri, c.version, pinKey(c.content)]) : canonical(c))

/**
 * Required dependencies (DASP-EXT-002) and affected operations (DASP-EXT-005), both in the saved
 * floor. The floor is a minimum: one removed breaks saved sessions (the runtime's checkSessionFloor
 * refuses an offer without a saved dependency), one added is a requirement beyond it.
 */
export function compareDependenciesAndOperations(a: PositionedDocument, b: PositionedDocument, uri: string, out: Findings): void {
  const deps = (d: PositionedDocument, i: number) => (d.value.dependencies as Array<Record<string, unknown>>)[i]!
  setDiff(
    a.value.dependencies,
    b.value.dependencies,
    (i) =>
      out.add({
        rule: 'dasp-dependency-removed',
        level: 'breaking',
        audiences: [...EVERYONE],
        old: locate(a, joinPointer('', 'dependencies', i)),
        new: locate(b, '/dependencies'),
        message: `Extension ${quote(uri)} no longer requires ${quote(deps(a, i).uri)} ${quote(deps(a, i).version)}${scopeOf(deps(a, i))}; a dependency cannot be removed from a confirmed or saved selection.`,
      }),
    (i) =>
      out.add({
        rule: 'dasp-dependency-added',
        level: 'breaking',
        audiences: [CLIENT, HOST],
        old: locate(a, '/dependencies'),
        new: locate(b, joinPointer('', 'dependencies', i)),
        message: `Extension ${quote(uri)} now requires ${quote(deps(b, i).uri)} ${quote(deps(b, i).version)}${scopeOf(deps(b, i))}; a dependency cannot be added to a confirmed selection (a saved session's floor still holds: the new dependency is beyond it).`,
      }),
    dependencyKey,
  )
  const op = (d: PositionedDocument, i: number) => (d.value.operations as unknown[])[i]
  setDiff(
    a.value.operations,
    b.value.operations,
    (i) =>
      out.add({
        rule: 'dasp-operation-removed',
        level: 'breaking',
        audiences: [...EVERYONE],
        old: locate(a, joinPointer('', 'operations', i)),
        new: locate(b, '/operations'),
        message: `Extension ${quote(uri)} no longer affects operation ${quote(op(a, i))}.`,
      }),
    (i) =>
      out.add({
        rule: 'dasp-operation-added',
        level: 'breaking',
        audiences: [CLIENT, HOST],
        old: locate(a, '/operations'),
        new: locate(b, joinPointer('', 'operations', i)),
        message: `Extension ${quote(uri)} now affects operation ${quote(op(b, i))}.`,
      }),
  )
}

/** What a definition supports: core, profile and binding contracts (DASP-EXT-002) and scopes (DASP-EXT-003). */
export function compareSupport(a: PositionedDocument, b: PositionedDocument, uri: string, out: Findings): void {
  const supports = (d: PositionedDocument) => (isObject(d.value.supports) ? d.value.supports : {})
  const lists: Array<{ label: string; pointer: string; before: unknown; after: unknown; key: (v: unknown) => string }> = [
    ...(['core', 'profiles', 'bindings'] as const).map((k) => ({
      label: k,
      pointer: joinPointer('', 'supports', k),
      before: supports(a)[k],
      after: supports(b)[k],
      key: contractKey,
    })),
    { label: 'scopes', pointer: '/scopes', before: a.value.scopes, after: b.value.scopes, key: canonical },
  ]
  for (const { label, pointer, before, after, key } of lists) {
    // `"any"` profiles: every profile. From a list to "any" only adds; from "any" to a list removes every other profile.
    if (before === 'any' || after === 'any') {
      if (before === after) continue
      const widened = after === 'any'
      out.add({
        rule: widened ? 'dasp-support-added' : 'dasp-support-removed',
        level: 'breaking',
        // As for listed support: what is now supported, an old host refuses; what is no longer, a new host refuses an old client.
        audiences: widened ? [HOST] : [CLIENT],
        old: locate(a, pointer),
        new: locate(b, pointer),
        message: widened
          ? `Extension ${quote(uri)} now supports any profile: a host that validates with the old definition refuses a selection with a profile it did not list.`
          : `Extension ${quote(uri)} no longer supports any profile, only those listed; a selection with another profile fails.`,
      })
      continue
    }
    const item = (list: unknown, i: number) => {
      const v = (list as unknown[])[i]
      return isObject(v) ? `${quote(v.uri)} ${quote(v.version)}` : quote(v)
    }
    setDiff(
      before,
      after,
      (i) =>
        out.add({
          rule: 'dasp-support-removed',
          level: 'breaking',
          // An old client's selection there is refused by a new host; a new client never asks for it.
          audiences: [CLIENT],
          old: locate(a, joinPointer(pointer, i)),
          new: locate(b, pointer),
          message: `Extension ${quote(uri)} no longer supports ${label === 'scopes' ? 'scope' : label} ${item(before, i)}; a selection of it there now fails.`,
        }),
      (i) =>
        out.add({
          rule: 'dasp-support-added',
          level: 'breaking',
          // A new client may select it there, and a host validating with the old definition refuses
          // that selection (as for a setting widened); no existing selection changes.
          audiences: [HOST],
          old: locate(a, pointer),
          new: locate(b, joinPointer(pointer, i)),
          message: `Extension ${quote(uri)} now supports ${label === 'scopes' ? 'scope' : label} ${item(after, i)}: a host that validates with the old definition refuses a selection of it there.`,
        }),
      key,
    )
  }
}

/** The members a definition lists as sets (their order means nothing), sorted before comparing. */
const SETS = new Set(['operations', 'scopes', 'dependencies', 'attributes'])
const sortedList = (list: unknown) => (Array.isArray(list) ? list.map((v) => canonical(v)).sort() : list)

/**
 * Settings as comparable text: an enum setting's `values` and, in an item schema, every `required`
 * and `enum` list are sets (their order means nothing: the outside pass found a reordered enum
 * reported as an in-place change). Bounded by the value's size (documents are held to the depth limit).
 */
function settingsAsSets(value: unknown, inSchema = false): unknown {
  if (Array.isArray(value)) return value.map((v) => settingsAsSets(v, inSchema))
  if (!isObject(value)) return value
  const out: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(value)) {
    const set = (inSchema && (key === 'required' || key === 'enum')) || (!inSchema && key === 'values' && value.type === 'enum')
    out[key] = set && Array.isArray(v) ? sortedList(v) : settingsAsSets(v, inSchema || key === 'items')
  }
  return out
}

/** A definition member as comparable text: sets and the `supports` lists in a fixed order. */
function asWritten(member: string, value: unknown): string {
  if (SETS.has(member)) return canonical(sortedList(value))
  if (member === 'settings' && isObject(value))
    return canonical(Object.fromEntries(Object.entries(value).map(([name, setting]) => [name, settingsAsSets(setting)])))
  if (member === 'supports' && isObject(value)) return canonical(Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sortedList(v)])))
  return canonical(value)
}

/**
 * A definition edited under the same identity and pin. The parts with rules of their own are
 * reported by them too; this says that the edit itself breaks DASP-EXT-008's immutability, once.
 */
export function compareInPlace(a: PositionedDocument, b: PositionedDocument, uri: string, version: string, out: Findings): void {
  if (pinKey(a.value.content) !== pinKey(b.value.content)) return
  const members = [...new Set([...Object.keys(a.value), ...Object.keys(b.value)])]
    // `$schema` names an editor's schema for the file: no part of what the definition states.
    .filter((k) => k !== 'identity' && k !== 'content' && k !== '$schema')
    .filter((k) => asWritten(k, a.value[k]) !== asWritten(k, b.value[k]))
    .sort()
  if (members.length === 0) return
  const first = members[0]!
  const at = (d: PositionedDocument) => locate(d, Object.hasOwn(d.value, first) ? joinPointer('', first) : '')
  out.add({
    rule: 'dasp-definition-changed-in-place',
    level: 'warning',
    audiences: [CLIENT, HOST],
    old: at(a),
    new: at(b),
    message: `The definition of ${quote(uri)} ${quote(version)} changed (${members.map((m) => quote(m)).join(', ')}) with the same identity and content pin; published version content is immutable.`,
    data: { members },
  })
}
