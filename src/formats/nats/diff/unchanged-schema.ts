/**
 * Whether a payload schema is the same in both versions, decided without the schema diff: its JSON
 * is equal, and so is the JSON of every schema its `$ref`s reach (each resolving, in both documents,
 * to a node at the same pointer), under the same `$schema` at the documents' roots. The schema diff
 * of such a pair reports nothing (it compares equal inputs), but walks the whole payload to say so
 * (every node's pointer made, its references followed and compared as pairs): for a contract review
 * that changes a few channels of 5,000, those walks of the unchanged payloads were about two thirds
 * of the comparison (bench/diff.ts `few_channels_ratio`).
 *
 * Only a payload whose schemas name other schemas by `$ref` alone is decided here: a
 * `$dynamicRef`, a `$recursiveRef`, a `discriminator` (whose `mapping` names schemas, and whose
 * children OpenAPI 3.0 finds through `allOf` anywhere) makes the answer "not known", and the schema
 * diff decides, as it does for a reference that names nothing or another file.
 *
 * Cost: each node of the payload and of each schema it reaches walked twice per diff (its references,
 * then core's `jsonEqual`; the targets' answers are kept per pointer), at most WALK_BUDGET per payload;
 * past that, "not known".
 */
import { DESCEND, SKIP, STOP, jsonEqual, walkMembers, type Budget } from '../../../core/diff/schema/values.js'
import { isObject } from '../document.js'
import type { Version } from './context.js'
import { localPointer, valueAt } from './payloads.js'

/** Keys that name another schema other than by `$ref`, or make one node's meaning depend on others. */
const OTHER_NAMING = new Set(['$dynamicRef', '$recursiveRef', '$dynamicAnchor', '$recursiveAnchor', 'discriminator', 'mapping'])

/**
 * Work for one payload (its own nodes and those of the targets not yet known, each visited twice:
 * for its references, then compared) before the answer is "not known": 100,000 nodes.
 */
const WALK_BUDGET = 200_000

/** A target's own JSON compared in both documents: equal (and the references it makes) or not. */
export type KnownTarget = { equal: false } | { equal: true; refs: readonly string[] }

/** Whether `unchangedPayload` answers (off only to compare against the schema diff alone, in tests); `taken` counts its yeses. */
export const unchangedShortcut = { enabled: true, taken: 0 }

/** True when the payload at `oldAt` and the one at `newAt` are provably the same schema (see above). */
export function unchangedPayload(old: Version, oldAt: string, next: Version, newAt: string): boolean {
  if (!unchangedShortcut.enabled) return false
  const same = provedSame(old, oldAt, next, newAt)
  if (same) unchangedShortcut.taken++
  return same
}

function provedSame(old: Version, oldAt: string, next: Version, newAt: string): boolean {
  if (!isObject(old.doc.value) || !isObject(next.doc.value) || old.doc.value.$schema !== next.doc.value.$schema) return false
  const budget = { left: WALK_BUDGET }
  const root = compareOwn(valueAt(old.doc.value, oldAt), valueAt(next.doc.value, newAt), budget)
  if (!root.equal) return false
  // Each target compared once per diff, kept on the old version (the pointer is the same in both).
  const known = old.unchangedTargets
  const seen = new Set<string>()
  const pending = [...root.refs]
  while (pending.length > 0) {
    const ref = pending.pop()!
    const pointer = localPointer(ref)
    if (pointer === undefined) return false
    if (seen.has(pointer)) continue
    seen.add(pointer)
    let target = known.get(pointer)
    if (target === undefined) {
      const a = valueAt(old.doc.value, pointer)
      const b = valueAt(next.doc.value, pointer)
      target = a === undefined || b === undefined ? { equal: false } : compareOwn(a, b, budget)
      if (budget.left < 0) return false
      known.set(pointer, target)
    }
    if (!target.equal) return false
    for (const inner of target.refs) pending.push(inner)
  }
  return true
}

/**
 * Whether two JSON values are equal (core's `jsonEqual`), not following references, with the `$ref`
 * strings they hold (the same in both); not equal past the budget, or where the first holds a key
 * of OTHER_NAMING or a `$ref` that is no string.
 */
function compareOwn(a: unknown, b: unknown, budget: Budget): KnownTarget {
  // Equality first: it stops at the first difference (an edited payload, the common case when this is
  // asked), where collecting the references walks the whole value.
  if (jsonEqual(a, b, budget) !== true) return { equal: false }
  const refs = ownRefs(a, budget)
  return refs !== undefined ? { equal: true, refs } : { equal: false }
}

/** The `$ref` strings in `value`, not followed; undefined past the budget or where compareOwn refuses. */
function ownRefs(value: unknown, budget: Budget): string[] | undefined {
  const refs: string[] = []
  const walked = walkMembers(value, budget, (key, member) => {
    if (OTHER_NAMING.has(key)) return STOP
    if (key !== '$ref') return DESCEND
    if (typeof member !== 'string') return STOP
    refs.push(member)
    return SKIP
  })
  return walked === true ? refs : undefined
}
