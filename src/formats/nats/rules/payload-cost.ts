import { unescapeToken } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../document.js'
import { requestPayload } from '../schemas.js'
import { natsRule } from './rule.js'
import { standardParts } from './standard-reads.js'

/**
 * Complexity: each runtime-checked payload the generated validators do not take is walked once,
 * each schema it reaches by reference sized once (a memo per target): linear in the components.
 */

/**
 * The most schema nodes a payload validated by ajv's standalone code (the fallback for keywords
 * beyond the generated validators') may expand to once every `$ref` is replaced by its target.
 * ajv memoizes nothing: it visits each node of that expansion at most once per data node, so this
 * bounds its validation at MAX_AJV_EXPANSION x data size. A recursive reference has no finite
 * expansion (a `oneOf` whose branches share a recursive member doubles the work per level).
 */
export const MAX_AJV_EXPANSION = 10_000

/**
 * A runtime-checked payload schema that only ajv's code can check (keywords beyond the generated
 * validators') and whose validation time is not bounded by schema size x data size: it refers to
 * itself, or its references expand past MAX_AJV_EXPANSION nodes. The generated validators and
 * the interpreter memoize and take any reference graph; ajv's code does not.
 */
export const payloadBounded = natsRule({
  code: 'NATS_PAYLOAD_UNBOUNDED',
  description:
    "A runtime-checked payload schema beyond the generated validators' keywords (checked by ajv's code) that is recursive or expands past 10,000 nodes (its validation time would grow faster than the data), or whose references nest more than 64 deep (ajv cannot compile it: unsupported).",
  // The payloads, the components they reach and the validator plan are read from the standard part
  // and the profile's interactions alone: an edit elsewhere in the profile (a stream's limits)
  // replays this rule's reports instead of gathering every payload again.
  reads: (ctx) => standardParts(ctx, 'interactions'),
  check(ctx, report) {
    const components = isObject(ctx.doc.components) && isObject(ctx.doc.components.schemas) ? ctx.doc.components.schemas : {}
    const { byChannel, extra } = ctx.messages
    const reached = { ...components, ...extra }
    // Which payloads ajv's code checks is the validator plan's decision (made once, read by generation too).
    const plan = ctx.validatorPlan
    const judge = (payload: unknown, schemas: Record<string, unknown>, pointer: string) => {
      const size = expandedSize(payload, schemas)
      if (size === undefined) return
      report(
        pointer,
        size === 'recursive'
          ? "This payload schema uses keywords beyond the generated validators', so ajv's code would check it, and it refers to itself: ajv re-validates a recursive member once per path to it, exponential in the data's depth. Write it with the generated validators' keywords (they memoize), or without the recursion."
          : size === 'deep'
            ? `This payload schema uses keywords beyond the generated validators', so ajv's code would check it, and its references nest more than ${MAX_AJV_REFERENCE_DEPTH} deep: ajv compiles each referenced schema inside the one that refers to it, and runs out of stack on such a chain (unsupported). Write it with the generated validators' keywords, or nest fewer references.`
            : `This payload schema uses keywords beyond the generated validators', so ajv's code would check it, and its references expand to more than ${MAX_AJV_EXPANSION} schema nodes: ajv visits each of them for each value. Write it with the generated validators' keywords (they memoize), or share fewer references.`,
        { expansion: typeof size === 'number' ? size : null },
      )
    }
    for (const channel of ctx.channelList) {
      for (const message of byChannel.get(channel.id) ?? []) {
        if (message.payload === undefined || plan.message(channel.id, message.name)?.backend !== 'ajv') continue
        judge(message.payload, reached, ctx.pointer('channels', channel.id, 'messages', message.name))
      }
    }
    for (const [key, it] of Object.entries(ctx.section('interactions'))) {
      if (!isObject(it) || !Array.isArray(it.capabilities) || !it.capabilities.includes('runtime-schema-check') || typeof it.requestOperation !== 'string')
        continue
      if (plan.interaction(key)?.payload?.plan.backend !== 'ajv') continue
      const payload = requestPayload(ctx, it.requestOperation)
      if (payload === undefined) continue
      judge(payload, components, ctx.pointer('x-nats-contract', 'interactions', key, 'capabilities'))
    }
  },
})

const PREFIX = '#/components/schemas/'

/**
 * The most references a payload validated by ajv's standalone code may nest, each inside the
 * schema of the one before. ajv compiles a referenced schema inside the one that refers to it: an
 * outside pass ran it out of stack (`RangeError`, an internal error) on chains of 150 to 250 links
 * of a few nodes each (`dependencies`, tuple `items`, `contains`), far below MAX_AJV_EXPANSION,
 * and a bundler's own frames leave it less.
 */
export const MAX_AJV_REFERENCE_DEPTH = 64

/**
 * What `payload` costs ajv: `recursive` when a reference reaches itself, `deep` when references
 * nest past MAX_AJV_REFERENCE_DEPTH, else the number of schema nodes it expands to with every
 * `#/components/schemas/...` reference replaced by its target (saturated past MAX_AJV_EXPANSION),
 * undefined when within both bounds. Each target is sized once (memo), each value walked
 * iteratively; the recursion follows references only, at most one frame per distinct target and
 * never past MAX_AJV_REFERENCE_DEPTH.
 */
function expandedSize(payload: unknown, schemas: Record<string, unknown>): number | 'recursive' | 'deep' | undefined {
  const sizes = new Map<string, number>()
  const open = new Set<string>()
  let recursive = false
  let deep = false
  const sizeOf = (value: unknown, level: number): number => {
    let total = 0
    const stack: unknown[] = [value]
    while (stack.length > 0 && !recursive && !deep) {
      const v = stack.pop()
      total++
      if (Array.isArray(v)) for (const item of v) stack.push(item)
      else if (isObject(v)) {
        for (const key of Object.keys(v)) {
          const member = v[key]
          if (key === '$ref' && typeof member === 'string') total += targetSize(member, level + 1)
          else stack.push(member)
        }
      }
      if (total > MAX_AJV_EXPANSION) return MAX_AJV_EXPANSION + 1
    }
    return total
  }
  const targetSize = (ref: string, level: number): number => {
    const known = sizes.get(ref)
    if (known !== undefined) return known
    if (open.has(ref)) {
      recursive = true
      return 0
    }
    if (level > MAX_AJV_REFERENCE_DEPTH) {
      deep = true
      return 0
    }
    const target = resolve(ref, schemas)
    if (target === undefined) return 0
    open.add(ref)
    const size = sizeOf(target, level)
    open.delete(ref)
    // A size cut short by a bound holds for this walk only.
    if (!recursive && !deep) sizes.set(ref, size)
    return size
  }
  const size = sizeOf(payload, 0)
  if (recursive) return 'recursive'
  if (deep) return 'deep'
  return size > MAX_AJV_EXPANSION ? size : undefined
}

/** The value `#/components/schemas/<pointer>` names (percent-decoded, `~` unescaped), or undefined. */
function resolve(ref: string, schemas: Record<string, unknown>): unknown {
  if (!ref.startsWith(PREFIX)) return undefined
  let value: unknown = schemas
  for (const raw of ref.slice(PREFIX.length).split('/')) {
    let token: string
    try {
      token = unescapeToken(decodeURIComponent(raw))
    } catch {
      return undefined
    }
    if (!isObject(value) && !Array.isArray(value)) return undefined
    if (!Object.hasOwn(value, token)) return undefined
    value = (value as Record<string, unknown>)[token]
  }
  return value
}
