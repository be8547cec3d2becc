/**
 * Branch manifests (dispatch `branches` and `none`): the profile's "typed array of {branchId,
 * peerId, input} with unique branch IDs and authorized recipients", which "require authentication
 * and the same result/closure checks as locally dispatched work". This file reads a manifest out of
 * an invocation's inputs and computes the digest its authentication covers; `branches.ts` admits it.
 */
import { canonicalText } from '../same-json.js'
import type { Interaction } from '../../interactions.js'
import { check } from '../../../shared/validation.js'
import type { ManifestEntry } from '../adapters.js'
import { ok, refuse, type ExecutorResult } from '../result.js'
import { lengthPrefixed } from './length-prefixed.js'

/**
 * At most this many branches per manifest: each is a request, a claim and a unit of the decision, and
 * a manifest is caller data; a larger one is refused rather than fanned out.
 */
export const MAX_MANIFEST_BRANCHES = 1024

/** Branch ids and peer ids are correlation values and subject tokens: the executor's token rule. */
const TOKEN = /^[A-Za-z0-9_-]+$/

/**
 * The manifest in `inputs[name]`, checked: its input's declared schema (the compiler required one),
 * an array of at most MAX_MANIFEST_BRANCHES objects whose `branchId` and `peerId` are tokens, branch
 * ids unique, every entry with an `input`. O(entries + the schema check).
 */
export function readManifest(interaction: Interaction, name: string, inputs: Readonly<Record<string, unknown>>): ExecutorResult<readonly ManifestEntry[]> {
  const bad = (what: string) =>
    refuse<readonly ManifestEntry[]>('EXECUTOR_INVALID_INPUT', `${interaction.id}: the branch manifest (input ${JSON.stringify(name)}) ${what}`)
  const value = Object.hasOwn(inputs, name) ? inputs[name] : undefined
  if (!Array.isArray(value)) return bad('is not an array')
  if (value.length > MAX_MANIFEST_BRANCHES) return bad(`holds ${value.length} branches, more than ${MAX_MANIFEST_BRANCHES}`)
  const validator = interaction.validateInputs && Object.hasOwn(interaction.validateInputs, name) ? interaction.validateInputs[name] : undefined
  if (validator && check(validator, value)) return bad('breaks its schema')
  const seen = new Set<string>()
  const entries: ManifestEntry[] = []
  for (const [i, entry] of value.entries()) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return bad(`entry ${i} is not an object`)
    const { branchId, peerId } = entry as Record<string, unknown>
    if (typeof branchId !== 'string' || !TOKEN.test(branchId)) return bad(`entry ${i} has no token branchId`)
    if (typeof peerId !== 'string' || !TOKEN.test(peerId)) return bad(`entry ${i} has no token peerId`)
    if (!Object.hasOwn(entry, 'input')) return bad(`entry ${i} has no input`)
    if (seen.has(branchId)) return bad(`repeats branch id ${JSON.stringify(branchId)}`)
    seen.add(branchId)
    entries.push({ branchId, peerId, input: (entry as Record<string, unknown>)['input'] })
  }
  if (entries.length === 0) return refuse('EXECUTOR_EMPTY_AUDIENCE', `${interaction.id}: the branch manifest is empty`)
  return ok(entries)
}

/**
 * What a manifest's authentication covers: lowercase hex SHA-256 over the length-prefixed contract
 * digest, principal id, operation id and the entries' canonical JSON (RFC 8785), in that order. A
 * signer computes the same bytes to sign; binding the operation id keeps an authentic manifest from
 * being replayed into another operation, another principal's or another contract's. Undefined when
 * the entries are not JSON data. Web Crypto, so it runs in browsers too.
 */
export async function manifestDigest(
  contractDigest: string,
  principalId: string,
  operationId: string,
  entries: readonly ManifestEntry[],
): Promise<string | undefined> {
  const json = canonicalText(entries)
  if (json === undefined) return undefined
  const digest = await globalThis.crypto.subtle.digest('SHA-256', lengthPrefixed([contractDigest, principalId, operationId, json]))
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('')
}
