/**
 * Admission of an explicit branch manifest, for dispatch `branches` (the executor publishes one
 * request per entry) and `none` (gather: nothing is published; the entries name work already
 * dispatched elsewhere, whose results are collected from the declared result operation).
 *
 * The choices (docs/executor.md, "Dispatch branches and none"): the manifest is authenticated by the
 * application's `manifest` adapter over `manifestDigest` before anything is admitted; branches are the
 * entries themselves (branchKey declared: the manifest's branch id, its peer, its input slot), attempt
 * 1 and fence 0 like locally dispatched work; every entry's peer must be in the audience snapshot,
 * which holds only peers authorized at admission ("authorized recipients": a manifest naming any
 * other peer is refused whole, never trimmed); results go through the same correlation,
 * verification and decision as any other.
 */
import { errorText } from '../../../shared/error-text.js'
import type { Interaction } from '../../interactions.js'
import { inDomain } from '../../tokens.js'
import { check } from '../../../shared/validation.js'
import type { AdapterContext, ExecutorAdapters, ManifestEntry } from '../adapters.js'
import type { AdmittedBranch } from '../events.js'
import type { InteractionPlan } from '../policy.js'
import { ok, refuse, type ExecutorResult } from '../result.js'
import { manifestDigest, readManifest } from './manifest.js'

export interface ManifestAdmission {
  readonly branches: readonly AdmittedBranch[]
  /** The manifest's input slot of each branch, by branch id (bound through `{branch: input}`). */
  readonly inputOf: ReadonlyMap<string, unknown>
  readonly entries: readonly ManifestEntry[]
  readonly digest: string
}

export interface ManifestDispatch {
  /** False for `none`: gather-only work publishes no request. */
  readonly publishes: boolean
  admit(call: {
    readonly inputs: Readonly<Record<string, unknown>>
    /** The audience snapshot's distinct peers authorized at admission. */
    readonly peers: readonly string[]
    readonly context: AdapterContext
  }): Promise<ExecutorResult<ManifestAdmission>>
}

/**
 * Gather-only work runs no `materialize`, which is where inputs are otherwise checked: each given input
 * is checked here the same way (declared, in its token domain, valid against its schema).
 */
function checkInputs(interaction: Interaction, inputs: Readonly<Record<string, unknown>>): ExecutorResult<true> {
  for (const name of Object.keys(inputs)) {
    const declared = Object.hasOwn(interaction.inputs, name) ? interaction.inputs[name] : undefined
    const value = inputs[name]
    if (!declared) return refuse('EXECUTOR_INVALID_INPUT', `${interaction.id}: ${JSON.stringify(name)} is not an input of this interaction`)
    if (declared.tokenType && (typeof value !== 'string' || !inDomain(declared.tokenType, value)))
      return refuse('EXECUTOR_INVALID_INPUT', `${interaction.id}: input ${JSON.stringify(name)} is not in its token domain`)
    const validator = interaction.validateInputs && Object.hasOwn(interaction.validateInputs, name) ? interaction.validateInputs[name] : undefined
    if (validator && check(validator, value)) return refuse('EXECUTOR_INVALID_INPUT', `${interaction.id}: input ${JSON.stringify(name)} breaks its schema`)
  }
  return ok(true)
}

/**
 * The manifest dispatch of an interaction whose mode is `branches` or `none`; undefined for the other
 * modes. Refused when the application gave no `manifest` adapter: an unauthenticated manifest is
 * never run. O(1).
 */
export function manifestDispatch<R, O>(
  plan: InteractionPlan,
  interaction: Interaction,
  adapters: ExecutorAdapters<R, O, any>,
): ExecutorResult<ManifestDispatch | undefined> {
  const { mode, branchesInput } = plan.dispatch
  if (mode !== 'branches' && mode !== 'none') return ok(undefined)
  if (!branchesInput) return refuse('EXECUTOR_INVALID_DESCRIPTOR', `${interaction.id}: dispatch ${mode} needs branchesInput`)
  const authenticate = adapters.manifest
  if (typeof authenticate !== 'function')
    return refuse(
      'EXECUTOR_ADAPTER_MISSING',
      `${interaction.id}: dispatch ${mode} runs an explicit manifest, which needs the manifest adapter to authenticate it`,
    )
  return ok({
    publishes: mode === 'branches',
    async admit({ inputs, peers, context }) {
      if (mode === 'none') {
        const checked = checkInputs(interaction, inputs)
        if (!checked.ok) return checked
      }
      const read = readManifest(interaction, branchesInput, inputs)
      if (!read.ok) return read
      const entries = read.value
      const digest = await manifestDigest(context.contractDigest, context.principalId, context.operationId, entries)
      if (digest === undefined) return refuse('EXECUTOR_INVALID_INPUT', `${interaction.id}: the branch manifest is not JSON data`)
      let authenticated: boolean
      try {
        // Read inside the try: an answer whose `authenticated` is a getter or a Proxy's trap that throws fails as the adapter did.
        authenticated = (await authenticate({ context, data: { entries, digest } }))?.authenticated === true
      } catch (error) {
        return refuse('EXECUTOR_ADAPTER_FAILED', `manifest authentication failed: ${errorText(error)}`)
      }
      if (!authenticated) return refuse('EXECUTOR_MANIFEST_REFUSED', `${interaction.id}: the branch manifest is not authenticated`)
      const allowed = new Set(peers)
      const stranger = entries.find((e) => !allowed.has(e.peerId))
      if (stranger)
        return refuse(
          'EXECUTOR_MANIFEST_REFUSED',
          `${interaction.id}: branch ${JSON.stringify(stranger.branchId)} names peer ${JSON.stringify(stranger.peerId)}, not an authorized member of the audience snapshot`,
        )
      const branches = entries.map((e) => ({ branchId: e.branchId, peerId: e.peerId, fence: 0 }))
      return ok({ branches, inputOf: new Map(entries.map((e) => [e.branchId, e.input])), entries, digest })
    },
  })
}
