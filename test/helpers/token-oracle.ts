/**
 * An oracle for token languages written independently of the runtime: each token type as a regular
 * expression built from the profile's words, and a small universe of candidate tokens.
 *
 * Exactness of brute force over UNIVERSE: membership in a token language depends on a character only
 * through its class (digit, hex letter, other lower-case letter, upper-case letter, `_`, `-`),
 * except where a prefix or enum value names exact characters. Generated prefixes and enum values
 * use only one representative per class (REPS), so enumerating strings over the representatives
 * finds a common token whenever one exists.
 */
import type { TokenType } from '../../src/runtime/nats/tokens.js'

export const REPS = ['0', 'a', 'g', 'G', '_', '-']
/**
 * A second member of each class that prefixes, enum values and pattern literals never name: with
 * them, every class keeps a member no literal picks out, so "every subject" questions (covers) are
 * exact too, not only "some subject" ones.
 */
export const SECOND_REPS = ['1', 'b', 'h', 'H']

export function oracle(type: TokenType): RegExp {
  if (type.kind === 'enum') return new RegExp(`^(?:${type.values.map((v) => v.replace(/[-]/g, '\\-')).join('|')})$`)
  const chars = { lower: 'a-z0-9_\\-', ascii: 'A-Za-z0-9_\\-', hex: '0-9a-f' }[type.alphabet]
  const letters = { lower: 'a-z', ascii: 'A-Za-z', hex: 'a-f' }[type.alphabet]
  const suffix = type.first === 'letter' ? `[${letters}][${chars}]*` : `[${chars}]*`
  return new RegExp(`^(?=.{${type.minLength},${type.maxLength}}$)${type.prefix.replace(/-/g, '\\-')}${suffix}$`)
}

/** Every string over `reps` (REPS by default) of length 1..maxLength. */
export function words(maxLength: number, reps: readonly string[] = REPS): string[] {
  const out: string[] = ['']
  for (let n = 1; n <= maxLength; n++) for (const w of out.filter((x) => x.length === n - 1)) for (const c of reps) out.push(w + c)
  return out.filter((w) => w.length > 0)
}

const memberLists = new WeakMap<readonly string[], Map<string, string[]>>()
/**
 * The words of `universe` the oracle's regular expression for `type` accepts, kept per universe and
 * type: generated languages repeat types, and each list is a pass of one regular expression over
 * the universe (9,330 words for five characters over REPS).
 */
export function members(type: TokenType, universe: readonly string[]): string[] {
  let byType = memberLists.get(universe)
  if (!byType) memberLists.set(universe, (byType = new Map()))
  const key = JSON.stringify(type)
  let list = byType.get(key)
  if (!list) {
    const accepts = oracle(type)
    byType.set(key, (list = universe.filter((w) => accepts.test(w))))
  }
  return list
}
