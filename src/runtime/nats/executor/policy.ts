/**
 * Reads an interaction descriptor into the decision core's policy, and says which descriptors this
 * executor runs: an unsupported mode is answered with `EXECUTOR_UNSUPPORTED`, never run halfway.
 */
import type { Interaction } from '../interactions.js'
import type { CompletionPolicy, DispatchMode, ExecutorPolicy, QuorumRule } from './events.js'
import { ok, refuse, type ExecutorResult } from './result.js'
import { readDelivery, type DeliveryPlan } from './delivery/plan.js'
import { readPointerValue } from './dispatch/pointers.js'

/** The members of a descriptor the executor reads (the generated descriptor holds them as data). */
export interface InteractionPlan {
  readonly policy: ExecutorPolicy
  readonly dispatch: { readonly mode: DispatchMode; readonly targetParameter?: string; readonly branchesInput?: string }
  readonly audience: { readonly input: string; readonly includeSender: boolean }
  readonly correlation: { readonly operation: string; readonly branch: string; readonly attempt: string; readonly peer: string; readonly fence: string }
  readonly success?: { readonly field: string; readonly equals: unknown }
  readonly cancel?: { readonly operation: string; readonly resultOperation: string }
  /** Memory or durable delivery, retries and ownership. */
  readonly delivery: DeliveryPlan
}

type Data = Record<string, unknown>
const isObject = (v: unknown): v is Data => typeof v === 'object' && v !== null && !Array.isArray(v)
const str = (o: Data, k: string): string | undefined => (typeof o[k] === 'string' ? (o[k] as string) : undefined)
const int = (o: Data, k: string): number | undefined => (Number.isSafeInteger(o[k]) && (o[k] as number) >= 0 ? (o[k] as number) : undefined)

const RUNS_DISPATCH: ReadonlySet<string> = new Set(['direct', 'independent', 'one-eligible', 'branches', 'none'])

/** O(1): reads a handful of members. */
export function planInteraction(interaction: Interaction): ExecutorResult<InteractionPlan> {
  const bad = (what: string) => refuse<InteractionPlan>('EXECUTOR_INVALID_DESCRIPTOR', `${String(interaction.id)}: ${what}`)
  const { dispatch, delivery, completion, audience, correlation } = interaction as unknown as Record<string, unknown>
  if (!isObject(dispatch) || !isObject(delivery) || !isObject(completion) || !isObject(audience))
    return bad('dispatch, delivery, completion and audience are required')
  const mode = str(dispatch, 'mode')
  if (!mode || !RUNS_DISPATCH.has(mode))
    return refuse(
      'EXECUTOR_UNSUPPORTED',
      `${interaction.id}: dispatch mode ${JSON.stringify(mode)} is not one of the profile's (direct, independent, one-eligible, branches, none)`,
    )
  const deliveryRead = readDelivery(delivery, mode)
  if (!deliveryRead.ok) return bad(deliveryRead.why)
  // Gathered work (dispatch none) is dispatched elsewhere: the executor publishes no attempt, so it retries none.
  if (mode === 'none' && deliveryRead.value.retry.maxAttempts > 1)
    return refuse('EXECUTOR_UNSUPPORTED', `${interaction.id}: gathered work (dispatch none) is not the executor's to retry: maxAttempts is 1`)
  // Gather-only work (dispatch none) has no request; every other mode publishes one (NATS_INTERACTION_SHAPE).
  if (mode === 'none' ? interaction.requestOperation !== undefined : !interaction.requestOperation || !interaction.subject)
    return bad(mode === 'none' ? 'dispatch none gathers without a requestOperation' : 'a dispatching mode needs a requestOperation and its subject')
  const branchesInput = str(dispatch, 'branchesInput')
  if ((mode === 'branches' || mode === 'none') && (!branchesInput || !Object.hasOwn(interaction.inputs, branchesInput)))
    return bad(`dispatch ${mode} reads a branch manifest: branchesInput names one of its inputs`)
  const completionMode = str(completion, 'mode')
  if (!completionMode || !['none', 'first-success', 'all-terminal', 'all-successful', 'quorum'].includes(completionMode)) return bad('completion.mode')
  const resultBearing = completionMode !== 'none'
  if (resultBearing && !interaction.resultOperation) return bad('a result-bearing completion needs a resultOperation')
  let quorum: QuorumRule | undefined
  if (completionMode === 'quorum') {
    const count = int(completion, 'count')
    const fraction = completion['fraction']
    if (count !== undefined) quorum = { count }
    else if (isObject(fraction) && int(fraction, 'numerator') !== undefined && int(fraction, 'denominator') !== undefined)
      quorum = { fraction: { numerator: fraction['numerator'] as number, denominator: fraction['denominator'] as number } }
    else return bad('a quorum needs a count or a fraction')
  }
  const remaining = str(completion, 'remaining') === 'cooperative' ? 'cooperative' : 'detach'
  const policyCompletion: CompletionPolicy = {
    mode: completionMode as CompletionPolicy['mode'],
    unit: str(completion, 'unit') === 'distinct-peers' ? 'distinct-peers' : 'distinct-branches',
    ...(quorum ? { quorum } : {}),
    deadlineMs: int(completion, 'deadlineMs') ?? 0,
    onTimeout: str(completion, 'onTimeout') === 'partial' ? 'partial' : 'fail',
    onImpossible: 'fail',
    lateResults: 'discard',
    remaining,
    waitFor: str(completion, 'waitFor') === 'settled' ? 'settled' : 'decision',
    cancelTimeoutMs: int(completion, 'cancelTimeoutMs') ?? 0,
  }
  if (resultBearing && int(completion, 'deadlineMs') === undefined) return bad('a result-bearing completion needs deadlineMs')
  let cancel: InteractionPlan['cancel']
  // Gathered work has no request bindings to derive a CancelRequest's subject from (its operation and peer parameters).
  if (remaining === 'cooperative' && mode === 'none')
    return refuse('EXECUTOR_UNSUPPORTED', `${interaction.id}: cooperative cancellation of gathered work (dispatch none) is not built yet`)
  if (remaining === 'cooperative') {
    const operation = str(completion, 'cancelOperation')
    const resultOperation = str(completion, 'cancelResultOperation')
    if (!operation || !resultOperation) return bad('cooperative cancellation needs cancelOperation and cancelResultOperation')
    cancel = { operation, resultOperation }
  }
  let corr: InteractionPlan['correlation'] = { operation: '', branch: '', attempt: '', peer: '', fence: '' }
  if (resultBearing) {
    if (!isObject(correlation)) return bad('a result-bearing completion needs correlation')
    const names = ['operation', 'branch', 'attempt', 'peer', 'fence'] as const
    for (const n of names) if (!str(correlation, n)) return bad(`correlation.${n}`)
    corr = Object.fromEntries(names.map((n) => [n, correlation[n] as string])) as unknown as InteractionPlan['correlation']
  }
  const success = completion['success']
  if (resultBearing && (!isObject(success) || !str(success, 'field') || !('equals' in success)))
    return bad('a result-bearing completion needs its success predicate')
  // A group or peer audience names its `input`; a scope audience its `scopeInput`.
  const input = str(audience, 'input') ?? str(audience, 'scopeInput')
  if (!input) return bad('audience.input')
  return ok({
    policy: {
      dispatch: mode as DispatchMode,
      completion: policyCompletion,
      retry: deliveryRead.value.retry,
    },
    delivery: deliveryRead.value,
    dispatch: {
      mode: mode as DispatchMode,
      ...(str(dispatch, 'targetParameter') ? { targetParameter: dispatch['targetParameter'] as string } : {}),
      ...(branchesInput && (mode === 'branches' || mode === 'none') ? { branchesInput } : {}),
    },
    audience: { input, includeSender: audience['includeSender'] === true },
    correlation: corr,
    ...(isObject(success) ? { success: { field: success['field'] as string, equals: success['equals'] } } : {}),
    ...(cancel ? { cancel } : {}),
  })
}

/** Reads a payload-only runtime expression (`$message.payload#/a/b`); undefined when absent or not one. Its pointer is split once per expression. */
export function readExpression(expression: string, payload: unknown): unknown {
  return readPointerValue(expression, payload)
}
