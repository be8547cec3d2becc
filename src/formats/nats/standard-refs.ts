/**
 * AsyncAPI 3.1.0 lets each of these be a Reference Object instead of the object itself: a root
 * channel (Channels Object), a root operation (Operations Object), an operation's `reply`
 * (Operation Object) and a channel's parameter (Parameters Object); producers write them so to
 * share one definition from `components` (`channels: { c: { $ref: '#/components/channels/c' } }`).
 * The rules, the model and the generators read those parts as the objects they are: they read a
 * view of the document in which each such same-document reference is replaced by what it names.
 *
 * The view shares every part it does not replace (the parsed document, which a recompile reuses
 * region by region, is never changed), and is the document itself when nothing is a reference. A
 * reference is followed through chains (`resolveFragment`, at most its bound of hops, so a cycle
 * ends); one that names nothing, or names no object, is left as it is for the reference rules to
 * report. Reference Objects ignore their other members (AsyncAPI 3.1.0, Reference Object), so the
 * object named replaces the reference whole. A diagnostic inside a replaced part is located at the
 * reference (`locate` finds the nearest part the text has).
 *
 * Worst case: one pass over the root channels, their parameters, the root operations and their
 * replies, each reference resolved in at most the resolver's bound of hops.
 */
import { isObject } from './document.js'
import { resolveFragment } from './schemas.js'

type Json = Record<string, unknown>

/** `value` with its standard references replaced (see above); the same object when it has none. */
export function withStandardRefs(value: unknown): unknown {
  if (!isObject(value) || typeof value.asyncapi !== 'string') return value
  const doc = value
  const named = (part: unknown): unknown => {
    const read = throughRefs(doc, part)
    return 'value' in read ? read.value : part
  }
  /** `map` with `each` applied to every member, copied only when a member changes. */
  const mapped = (map: unknown, each: (member: unknown) => unknown): unknown => {
    if (!isObject(map)) return map
    let out: Json | undefined
    for (const key of Object.keys(map)) {
      const before = map[key]
      const after = each(before)
      if (after === before) continue
      out ??= copy(map)
      define(out, key, after)
    }
    return out ?? map
  }
  const channel = (part: unknown): unknown => {
    const c = named(part)
    if (!isObject(c)) return c
    const parameters = mapped(c.parameters, named)
    return parameters === c.parameters ? c : withMember(c, 'parameters', parameters)
  }
  const operation = (part: unknown): unknown => {
    const o = named(part)
    if (!isObject(o) || !('reply' in o)) return o
    const reply = named(o.reply)
    return reply === o.reply ? o : withMember(o, 'reply', reply)
  }
  const channels = mapped(doc.channels, channel)
  const operations = mapped(doc.operations, operation)
  if (channels === doc.channels && operations === doc.operations) return doc
  let out = doc
  if (channels !== doc.channels) out = withMember(out, 'channels', channels)
  if (operations !== doc.operations) out = withMember(out, 'operations', operations)
  return out
}

/** How many references one standard part may be read through (a chain of components); a cycle ends here too. */
export const MAX_STANDARD_REF_HOPS = 32

/** What reading a standard part through its references gave: the object it names, or why there is none. */
export type ThroughRefs = { value: unknown } | { problem: 'external' | 'unresolved' | 'cycle' | 'not-object'; ref: string }

/**
 * `part` read through its same-document references, each followed to what it names until an object
 * that is no reference (`{value}`; `part` itself when it is none). A reference into another file
 * (`external`), one that names nothing (`unresolved`), a chain that comes back on itself or passes
 * MAX_STANDARD_REF_HOPS (`cycle`), or a target that is no object (`not-object`: a string, a number,
 * an array, null) gives no value: the part stays as written, and NATS_REF_KIND says why.
 */
export function throughRefs(doc: unknown, part: unknown): ThroughRefs {
  let current = part
  const seen = new Set<string>()
  for (let hops = 0; isObject(current) && typeof current.$ref === 'string'; hops++) {
    const ref = current.$ref
    if (!ref.startsWith('#')) return { problem: 'external', ref }
    if (seen.has(ref) || hops >= MAX_STANDARD_REF_HOPS) return { problem: 'cycle', ref }
    seen.add(ref)
    const target = resolveFragment(doc, ref)
    if (target === undefined) return { problem: 'unresolved', ref }
    if (!isObject(target) || Array.isArray(target)) return { problem: 'not-object', ref }
    current = target
  }
  return { value: current }
}

/** A shallow copy keeping every own member as it is (a `__proto__` member stays a member). */
function copy(object: Json): Json {
  return Object.defineProperties({}, Object.getOwnPropertyDescriptors(object)) as Json
}

function define(object: Json, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true })
}

function withMember(object: Json, key: string, value: unknown): Json {
  const out = copy(object)
  define(out, key, value)
  return out
}
