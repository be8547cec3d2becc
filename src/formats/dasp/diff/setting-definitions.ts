import type { DiffAudience } from '../../../core/diff/types.js'
import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../../../runtime/shared/json-value.js'
import { canonical, CLIENT, EVERYONE, type Findings, HOST, quote } from './findings.js'
import { compareItemSchemas } from './item-schemas.js'
import { locate, type PositionedDocument } from './sides.js'

type Spec = Record<string, unknown>

const settingsOf = (d: PositionedDocument): Record<string, unknown> => (isObject(d.value.settings) ? d.value.settings : {})
const persists = (spec: Spec) => spec.persistence !== 'connection'

/**
 * A definition's settings (DASP-EXT-002's "closed selection settings with value, unit, limit, and
 * validation rules"), compared setting by setting. The client sends the values in its request and the
 * host validates them: what the new definition refuses breaks the client (`dasp-setting-narrowed`),
 * what it newly accepts breaks a host still validating with the old one (`dasp-setting-widened`).
 * Linear in the settings' sizes (enum values through sets; item schemas by the schema engine's bound).
 *
 * Saved sessions break when the change reaches what their floor recorded (DASP-EXT-005): a setting
 * the selection sets (`selected`, in either version) that persisted in the old definition, whose
 * meaning changed (not its persistence: the saved value stays the floor). A setting no request sets, or one that was a fresh connection
 * setting, is recorded by no session (the floor is a minimum: what becomes a session requirement
 * now is beyond it).
 */
export function compareSettingDefinitions(a: PositionedDocument, b: PositionedDocument, uri: string, selected: ReadonlySet<string>, out: Findings): void {
  const before = settingsOf(a)
  const after = settingsOf(b)
  const at = (name: string, ...tokens: Array<string | number>) => joinPointer('', 'settings', name, ...tokens)
  for (const name of Object.keys(before))
    if (!Object.hasOwn(after, name))
      out.add({
        rule: 'dasp-setting-narrowed',
        level: 'breaking',
        audiences: [CLIENT],
        old: locate(a, at(name)),
        new: locate(b, '/settings'),
        message: `Extension ${quote(uri)} no longer defines setting ${quote(name)}; a request that sets it is refused.`,
      })
  for (const name of Object.keys(after)) {
    const next = after[name]
    if (!Object.hasOwn(before, name)) {
      out.add({
        rule: 'dasp-setting-widened',
        level: 'breaking',
        audiences: [HOST],
        old: locate(a, '/settings'),
        new: locate(b, at(name)),
        message: `Extension ${quote(uri)} defines a new setting ${quote(name)}; a host validating with the old definition refuses a request that sets it.`,
      })
      continue
    }
    const old = before[name]
    if (!isObject(old) || !isObject(next)) continue
    // Saved sessions recorded the setting only where it persisted in the old definition: the floor is a minimum (DASP-EXT-005).
    const recorded = selected.has(name) && persists(old)
    // Not saved sessions: a session saved with the setting keeps its saved value as a floor
    // requirement, which a reopening selection that still sets it meets whatever the setting's
    // persistence now is (DASP-EXT-005; the runtime's checkSessionFloor agrees, an outside pass).
    if (old.persistence !== next.persistence)
      out.add({
        rule: 'dasp-setting-persistence-changed',
        level: 'breaking',
        audiences: [CLIENT, HOST],
        old: locate(a, at(name, 'persistence')),
        new: locate(b, at(name, 'persistence')),
        message: `Setting ${quote(name)} of ${quote(uri)} now persists as ${quote(next.persistence)} instead of ${quote(old.persistence)}${
          recorded ? '; sessions saved with it keep its saved value as their floor' : ''
        }.`,
      })
    const meaning = (['type', 'unit', 'uniqueBy'] as const).filter((k) => canonical(old[k]) !== canonical(next[k]))
    if (meaning.length > 0) {
      const audiences: DiffAudience[] = recorded ? [...EVERYONE] : [CLIENT, HOST]
      const k = meaning[0]!
      out.add({
        rule: 'dasp-setting-meaning-changed',
        level: 'breaking',
        audiences,
        old: locate(a, Object.hasOwn(old, k) ? at(name, k) : at(name)),
        new: locate(b, Object.hasOwn(next, k) ? at(name, k) : at(name)),
        message: `Setting ${quote(name)} of ${quote(uri)} changed its ${meaning.join(', ')}: the same value now means something else.`,
        data: { changed: meaning },
      })
      // Another type: its bounds and values are another type's; nothing more to compare.
      if (meaning.includes('type')) continue
    }
    compareBounds(a, b, name, old, next, uri, out)
    compareValues(a, b, name, old, next, uri, out)
    if (next.type === 'array' && Object.hasOwn(old, 'items') && Object.hasOwn(next, 'items')) compareItemSchemas(a, b, name, uri, out)
  }
}

/** `minimum`/`maximum` (integers) and `minItems`/`maxItems` (arrays): a bound that moved inward narrows, outward widens. */
function compareBounds(a: PositionedDocument, b: PositionedDocument, name: string, old: Spec, next: Spec, uri: string, out: Findings): void {
  for (const [key, lower] of [
    ['minimum', true],
    ['maximum', false],
    ['minItems', true],
    ['maxItems', false],
  ] as const) {
    const x = typeof old[key] === 'number' ? (old[key] as number) : lower ? -Infinity : Infinity
    const y = typeof next[key] === 'number' ? (next[key] as number) : lower ? -Infinity : Infinity
    if (x === y) continue
    const narrows = lower ? y > x : y < x
    const where = (d: PositionedDocument, spec: Spec) =>
      locate(d, Object.hasOwn(spec, key) ? joinPointer('', 'settings', name, key) : joinPointer('', 'settings', name))
    const show = (v: number) => (Number.isFinite(v) ? String(v) : 'none')
    out.add({
      rule: narrows ? 'dasp-setting-narrowed' : 'dasp-setting-widened',
      level: 'breaking',
      audiences: narrows ? [CLIENT] : [HOST],
      old: where(a, old),
      new: where(b, next),
      message: `Setting ${quote(name)} of ${quote(uri)} changed its ${key} from ${show(x)} to ${show(y)}: ${
        narrows ? 'a value the old definition allowed is now refused' : 'a host on the old definition refuses a value now allowed'
      }.`,
      data: {
        keyword: key,
        old: Number.isFinite(x) ? x : null,
        new: Number.isFinite(y) ? y : null,
        ...(key === 'minimum' || key === 'maximum' ? { witness: boundWitness(lower, narrows, x, y) } : {}),
      },
    })
  }
}

/**
 * An integer a moved `minimum` or `maximum` lets through on one side only, as every witness of the
 * differ is written (`{value, acceptedBy}`): narrowed, the old bound itself (inside the old range,
 * past the new bound) or, where the old had none, one past the new bound; widened, the new bound
 * (or one past the old where the new has none). The other bound is the same on both sides here or
 * reported by itself. (An array's `minItems`/`maxItems` has no witness: its items are the schema's.)
 */
function boundWitness(lower: boolean, narrows: boolean, x: number, y: number): { value: number; acceptedBy: 'old' | 'new' } {
  const past = (bound: number) => (lower ? bound - 1 : bound + 1)
  if (narrows) return { value: Number.isFinite(x) ? x : past(y), acceptedBy: 'old' }
  return { value: Number.isFinite(y) ? y : past(x), acceptedBy: 'new' }
}

/** An enum's `values`: each removed value narrows, each added one widens; the value is the witness. */
function compareValues(a: PositionedDocument, b: PositionedDocument, name: string, old: Spec, next: Spec, uri: string, out: Findings): void {
  if (!Array.isArray(old.values) || !Array.isArray(next.values)) return
  const index = (list: unknown[]) => new Map(list.map((v, i) => [canonical(v), i] as const))
  const before = index(old.values)
  const after = index(next.values)
  for (const [key, i] of before)
    if (!after.has(key))
      out.add({
        rule: 'dasp-setting-narrowed',
        level: 'breaking',
        audiences: [CLIENT],
        old: locate(a, joinPointer('', 'settings', name, 'values', i)),
        new: locate(b, joinPointer('', 'settings', name, 'values')),
        message: `Setting ${quote(name)} of ${quote(uri)} no longer allows ${quote((old.values as unknown[])[i])}.`,
        data: { witness: { value: (old.values as unknown[])[i], acceptedBy: 'old' } },
      })
  for (const [key, i] of after)
    if (!before.has(key))
      out.add({
        rule: 'dasp-setting-widened',
        level: 'breaking',
        audiences: [HOST],
        old: locate(a, joinPointer('', 'settings', name, 'values')),
        new: locate(b, joinPointer('', 'settings', name, 'values', i)),
        message: `Setting ${quote(name)} of ${quote(uri)} now allows ${quote((next.values as unknown[])[i])}; a host on the old definition refuses it.`,
        data: { witness: { value: (next.values as unknown[])[i], acceptedBy: 'new' } },
      })
}
