/**
 * Admission, shared by memory and durable state: the invocation's checks and its operation id
 * (`invocationKey`), then the audience snapshot, authorization at admission, the dispatch mode's
 * shape rules, the explicit manifest (dispatch `branches`, `none`) and every attempt-1 request
 * materialized (so validated) before anything is admitted (`admitInvocation`). Where the admission is
 * kept (the executor's memory or the state bucket's admission record) is the caller's.
 */
import { messageDataProblem } from '../../shared/wire-json.js'
import { allowedIn, CLOSED, isThenable, unlessClosed } from './adapter-answer.js'
import { errorText } from '../../shared/error-text.js'
import { canonicalText } from './same-json.js'
import { materialize, materializeBranches, MaterializeError, type Interaction } from '../interactions.js'
import type { AdapterContext, AuthorizationStage, Deployment, ExecutorAdapters } from './adapters.js'
import type { AdmittedBranch } from './events.js'
import type { InteractionPlan } from './policy.js'
import type { ManifestAdmission, ManifestDispatch } from './dispatch/branches.js'
import { fastOperationId } from './dispatch/operation-id.js'
import { ok, refuse, type ExecutorResult } from './result.js'

const isToken = (value: unknown): value is string => typeof value === 'string' && /^[A-Za-z0-9_-]+$/.test(value)

/**
 * The audience's distinct peers in lexicographic order (UTF-16 code units, as `sort` orders
 * strings). A list already strictly ascending, as audiences usually are, is only copied. O(n log n).
 */
export function distinctSorted(peers: readonly string[]): string[] {
  let ascending = true
  for (let i = 1; i < peers.length && ascending; i++) ascending = peers[i - 1]! < peers[i]!
  return ascending ? peers.slice() : [...new Set(peers)].sort()
}

/** The idempotency identity of an invocation: its operation id and its inputs' canonical JSON. */
export interface InvocationKey {
  readonly operationId: string
  readonly inputBytes: string
}

/**
 * Checks an invocation's shape and computes its operation id (the profile's hash of principal,
 * contract digest and idempotency key) and its inputs' canonical bytes. O(input size).
 */
export async function invocationKey(
  invocation: { readonly principalId?: unknown; readonly idempotencyKey?: unknown; readonly inputs?: unknown } | undefined,
  contractDigest: string,
): Promise<ExecutorResult<InvocationKey>> {
  if (typeof invocation?.principalId !== 'string' || invocation.principalId === '' || typeof invocation.idempotencyKey !== 'string')
    return refuse('EXECUTOR_INVALID_INPUT', 'an invocation needs a principal id and an idempotency key')
  // JSON data within a message's bounds first (the application's value): canonicalize walks an array
  // of 2^32 - 1 holes slot by slot, and a member shared at every level of a chain path by path.
  const inputs = invocation.inputs ?? {}
  const inputBytes = messageDataProblem(inputs) ? undefined : canonicalText(inputs)
  if (inputBytes === undefined) return refuse('EXECUTOR_INVALID_INPUT', 'the inputs are not JSON data')
  const operationId = await fastOperationId(invocation.principalId, contractDigest, invocation.idempotencyKey)
  return ok({ operationId, inputBytes })
}

/** The idempotency comparison of a kept admission with a new invocation of the same operation id. */
export const idempotencyConflict = (operationId: string) =>
  refuse<never>('EXECUTOR_IDEMPOTENCY_CONFLICT', `${operationId}: this idempotency key was used with different input`)

export interface AdmissionCall {
  readonly interaction: Interaction
  readonly plan: InteractionPlan
  readonly adapters: ExecutorAdapters<any, any, any>
  readonly deployment: Deployment
  readonly manifest: ManifestDispatch | undefined
  /** The invocation's inputs with the generated operation id bound. */
  readonly inputs: Readonly<Record<string, unknown>>
  /** The adapters' context now (the deadline not yet known). */
  readonly context: () => AdapterContext
  /** Resolved when the executor closes: an adapter still awaited then answers the invocation EXECUTOR_CLOSED. */
  readonly closing?: Promise<void>
}

export interface Admitted {
  readonly revision: string
  /** The audience snapshot's distinct peers authorized at admission, lexicographic. */
  readonly peers: readonly string[]
  /** The branches admission starts (fence 0: a claim, with ownership, raises it). */
  readonly branches: readonly AdmittedBranch[]
  /** The manifest admitted (dispatch `branches`, `none`). */
  readonly manifest?: ManifestAdmission
  /** Attempt 1's request of each published branch, materialized (fence 0) in one pass. */
  readonly requests: ReadonlyMap<string, { subject: string; payload: Record<string, unknown> }>
}

/** A boolean when the adapter answers synchronously (most do), else its promise: no turn per peer. */
export function authorizedNow(
  adapters: ExecutorAdapters<any, any, any>,
  context: AdapterContext,
  peerId: string,
  stage: AuthorizationStage,
): boolean | Promise<boolean> {
  let answer: unknown
  try {
    answer = adapters.authorization({ context, data: { peerId, stage } })
  } catch {
    return false
  }
  // A thenable adopted (a `then` that throws is a refusal); an answer whose reading throws is a refusal too.
  if (isThenable(answer)) return Promise.resolve(answer).then(allowedIn, () => false)
  return allowedIn(answer)
}

/** The branch-input of a manifest branch, for `materialize`'s `{branch: input}` bindings. */
export const branchInput = (manifest: ManifestAdmission | undefined, branchId: string): unknown => manifest?.inputOf.get(branchId)

/**
 * The request of one branch's attempt: `materialize` with the inputs, the context and the branch
 * (its manifest input, when it has one). Throws what `materialize` throws.
 */
export function requestOf(
  interaction: Interaction,
  inputs: Readonly<Record<string, unknown>>,
  context: AdapterContext,
  b: { readonly branchId: string; readonly peerId: string; readonly attempt: number; readonly fence: number },
  input: unknown,
): { subject: string; payload: Record<string, unknown> } {
  return materialize(interaction, {
    inputs: inputs as Record<string, unknown>,
    context: context as unknown as Record<string, unknown>,
    branch: { id: b.branchId, peerId: b.peerId, attempt: b.attempt, fence: b.fence, input },
  })
}

/**
 * Everything admission decides before an operation is admitted: refused (with nothing admitted or
 * published) on an adapter failure, an empty audience, a direct dispatch to other than one peer,
 * a manifest refused, or a request that does not materialize. O(audience + manifest + requests).
 */
/**
 * The audience adapter's answer, read once: a revision and peers that are tokens, or undefined. The
 * peers must be JSON data within a message's bounds first (an array of 2^32 - 1 holes was visited
 * slot by slot), and nothing of it may throw (a getter, a Proxy's trap).
 */
function audienceOf(answer: unknown): { revision: string; peers: readonly string[] } | undefined {
  try {
    const { revision, peers } = answer as { revision?: unknown; peers?: unknown }
    if (typeof revision !== 'string' || !Array.isArray(peers) || messageDataProblem(peers) || !peers.every(isToken)) return undefined
    return { revision, peers: peers as string[] }
  } catch {
    return undefined
  }
}

export async function admitInvocation(call: AdmissionCall): Promise<ExecutorResult<Admitted>> {
  const { interaction, plan, adapters, deployment, manifest, inputs, context, closing } = call
  const closed = (adapter: string) => refuse('EXECUTOR_CLOSED', `${interaction.id}: the executor closed before the ${adapter} adapter answered`)
  let snap: unknown
  try {
    snap = await unlessClosed(
      adapters.audience({
        context: context(),
        data: { kind: String((interaction as Record<string, any>)['audience']?.kind), input: inputs[plan.audience.input] },
      }),
      closing,
    )
  } catch (error) {
    return refuse('EXECUTOR_ADAPTER_FAILED', `audience failed: ${errorText(error)}`)
  }
  if (snap === CLOSED) return closed('audience')
  const audience = audienceOf(snap)
  if (!audience) return refuse('EXECUTOR_ADAPTER_FAILED', 'the audience adapter answered no {revision, peers} of tokens')
  const candidates = distinctSorted(audience.peers).filter((p) => plan.audience.includeSender || p !== deployment.senderPeerId)
  // `Array.of`, not `[]`: kept with the operation's record, and a literal would be born old (see `Materialized`, interactions.ts).
  const peers: string[] = Array.of()
  // One context while the adapter answers synchronously (one object, not one per peer); a fresh one after it awaits.
  let at = context()
  for (const peer of candidates) {
    const allowed = authorizedNow(adapters, at, peer, 'admission')
    if (typeof allowed === 'boolean') {
      if (allowed) peers.push(peer)
    } else {
      const answer = await unlessClosed(allowed, closing)
      if (answer === CLOSED) return closed('authorization')
      if (answer) peers.push(peer)
      at = context()
    }
  }
  if (peers.length === 0) return refuse('EXECUTOR_EMPTY_AUDIENCE', `${interaction.id}: the audience is empty at admission`)
  if (plan.dispatch.mode === 'direct' && peers.length !== 1)
    return refuse('EXECUTOR_ADMISSION_REFUSED', `${interaction.id}: direct dispatch needs exactly one peer, the audience holds ${peers.length}`)
  const declared = manifest ? await unlessClosed(manifest.admit({ inputs, peers, context: context() }), closing) : undefined
  if (declared === CLOSED) return closed('manifest')
  if (declared && !declared.ok) return declared
  const branches: readonly AdmittedBranch[] = declared
    ? declared.value.branches
    : (plan.dispatch.mode === 'one-eligible' ? [peers[0]!] : peers).map((p) => ({ branchId: p, peerId: p, fence: 0 }))
  // Every request is materialized (and so validated) before anything is admitted or published.
  const requests = new Map<string, { subject: string; payload: Record<string, unknown> }>()
  try {
    // One context for the admission's requests: they are materialized in one synchronous pass.
    const at = context()
    // Inputs and context read and checked once; each branch writes in only its own members.
    const requestFor = materializeBranches(interaction, { inputs, context: at as unknown as Record<string, unknown> })
    for (const b of manifest?.publishes === false ? [] : branches)
      requests.set(b.branchId, requestFor({ id: b.branchId, peerId: b.peerId, attempt: 1, fence: b.fence, input: branchInput(declared?.value, b.branchId) }))
  } catch (error) {
    if (error instanceof MaterializeError || (error instanceof Error && error.name === 'SubjectError')) return refuse('EXECUTOR_INVALID_INPUT', error.message)
    throw error
  }
  return ok({ revision: audience.revision, peers, branches, ...(declared ? { manifest: declared.value } : {}), requests })
}
