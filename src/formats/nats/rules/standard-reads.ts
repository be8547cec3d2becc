import { refSites } from '../../../core/json-refs.js'
import type { NatsContext } from '../context.js'

/**
 * A same-document reference whose first token names a member of the document other than the
 * profile, written without escapes (`~`, `%`): following it reads nothing of `x-nats-contract`.
 */
const INTO_STANDARD = /^#\/(?!x-nats-contract(?:\/|$))[^/~%]+(?:\/|$)/

/**
 * What a rule over the document's standard part reads (`Rule.reads`, core/kept-reports.ts): every
 * top-level member but the profile (their names, in order, and their values), and the profile
 * sections it names. Following a reference reads the member it names, so this holds only while
 * every `$ref` of the document names a standard member of it; a document with a reference
 * elsewhere (into the profile, into another file, or not plainly written), or a bundle (locked
 * files, other documents: what they hold is theirs), gives the document itself, which is a new
 * value on every parse (the rule always runs). O(references) for that scan, made on the
 * `documentSites` walk that loading made already.
 */
export function standardParts(ctx: NatsContext, ...profileSections: string[]): readonly unknown[] {
  const standard = (ctx.ruleFacts.standardParts ??= standardOf(ctx))
  if (standard.length === 1) return standard
  const reads = [...standard]
  for (const section of profileSections) reads.push(stable(ctx.profile[section]))
  return reads
}

/** Read for an empty mapping, which a parse makes anew each time (`interactions: {}` is no region it keeps). */
const EMPTY_MAPPING = Object.freeze({})

/** `value`, or one shared stand-in when it is an empty mapping: equal content reads as the same value. */
function stable(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value
  for (const key in value) if (Object.hasOwn(value, key)) return value
  return Object.getOwnPropertyNames(value).length === 0 ? EMPTY_MAPPING : value
}

/** `standardParts` without profile sections (made once per check: several rules and the model ask). */
function standardOf(ctx: NatsContext): readonly unknown[] {
  const { doc } = ctx
  if (ctx.input.files.size > 0 || ctx.input.documents.size > 0) return [doc]
  for (const { ref } of refSites(doc)) if (!INTO_STANDARD.test(ref)) return [doc]
  const reads: unknown[] = [ctx.main.file, Object.keys(doc).join('\u0000')]
  for (const key of Object.keys(doc)) if (key !== 'x-nats-contract') reads.push(stable(doc[key]))
  return reads
}
