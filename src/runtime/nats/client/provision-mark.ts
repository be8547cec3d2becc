/**
 * The ownership mark provisioning writes on every stream and consumer it creates, and reads back
 * before it changes one: "Each fact has one authority" (profile v0.2, "Native configuration and
 * authority"). A contract saying `authority: contract` is a claim; the mark on the server is the
 * proof that this contract created the resource.
 *
 * The mark lives in the resource's `description`: the closed v0.2 configuration has no
 * `description`, so no contract can write one, and every JetStream server keeps it (since 2.2).
 * The `metadata` map would need 2.10 (nats.js refuses to send it to an older server) and would be
 * a second place that could disagree with the first.
 */
import { compareVersions } from '../../shared/semver.js'

/** Who created a resource: a contract id and the version that last wrote it. */
export interface OwnerMark {
  readonly contract: string
  readonly version: string
  /**
   * Set when the description starts as a mark does but cannot be read as one (a note after it, a
   * raw control character, another spelling of the prefix): the text, cut short. Such a resource is
   * someone's, and is never taken over or changed.
   */
  readonly unreadable?: string
}

const PREFIX = 'unplugin-contracts owner '

/** The description that marks a resource as this contract's: a fixed prefix and a JSON object (any id survives it). */
export function markDescription(owner: OwnerMark): string {
  return PREFIX + JSON.stringify({ contract: owner.contract, version: owner.version })
}

/**
 * The mark a server-side description carries, or null when it carries none (no description, or
 * any other text). Bounded: one JSON.parse of the description, which the server caps at 4 KiB.
 */
export function readMark(description: unknown): OwnerMark | null {
  if (typeof description !== 'string') return null
  // Any text that starts as a mark does (letter case and leading space aside) is one: a mark this
  // reading cannot make out is not an absent mark, which --adopt would take over.
  if (!description.trimStart().toLowerCase().startsWith(PREFIX.trimEnd())) return null
  const unreadable = { contract: '', version: '', unreadable: description.length > 120 ? `${description.slice(0, 117)}...` : description }
  if (!description.startsWith(PREFIX)) return unreadable
  let value: unknown
  try {
    value = JSON.parse(description.slice(PREFIX.length))
  } catch {
    return unreadable
  }
  if (typeof value !== 'object' || value === null) return unreadable
  const { contract, version } = value as Record<string, unknown>
  if (typeof contract !== 'string' || typeof version !== 'string' || CONTROL.test(contract) || CONTROL.test(version)) return unreadable
  // Exactly what provisioning writes: a repeated or an extra member, another spelling of the same
  // JSON, is text someone else wrote, read as unreadable (an outside pass saw a repeated
  // `contract` taken as its last value, and the resource updated).
  return description === markDescription({ contract, version }) ? { contract, version } : unreadable
}

/** Control characters, which no contract id or version holds (written as \u escapes, they still read as one). */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

/** `contract orders 1.0.0`, `an unreadable mark ("...")`, or `no mark` for a resource provisioning did not create. */
export const markText = (owner: OwnerMark | null): string =>
  owner === null
    ? 'no mark'
    : owner.unreadable !== undefined
      ? `an unreadable mark (${JSON.stringify(owner.unreadable)})`
      : `contract ${owner.contract} ${owner.version}`

/**
 * Why `self` may not change a resource carrying `found`, or undefined when it may: the same
 * contract id, at the version that marked it or a newer one (a newer version takes its resources
 * over; an older one cannot roll them back). With `adopt`, a resource carrying no mark at all may
 * be taken over; one marked by another contract never.
 */
export function ownershipProblem(self: OwnerMark, found: OwnerMark | null, adopt: boolean): string | undefined {
  if (found === null)
    return adopt
      ? undefined
      : `it carries no ownership mark: provisioning did not create it, so it belongs to someone else (--adopt takes over an unmarked resource)`
  if (found.unreadable !== undefined) return `it carries ${markText(found)}: someone's, never taken over`
  if (found.contract !== self.contract) return `it carries the mark of ${markText(found)}, not of contract ${self.contract}`
  const order = compareVersions(self.version, found.version)
  if (order === undefined)
    return found.version === self.version ? undefined : `its mark names version ${found.version}, which cannot be compared with ${self.version}`
  if (order < 0) return `it carries the mark of ${markText(found)}, newer than this contract's ${self.version}`
  return undefined
}
