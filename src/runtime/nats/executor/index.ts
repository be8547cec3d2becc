/**
 * `unplugin-contracts/runtime/nats/executor`: runs what an interaction descriptor declares on NATS
 * (nats.js v3). Built: memory state with online-best-effort delivery; durable state with
 * durable-per-recipient delivery, ownership (claims in JetStream KV), retries and restart/resume;
 * direct, independent, one-eligible, branches (an authenticated manifest; memory state) and none
 * (gather; memory state) dispatch; every completion mode; cooperative cancellation; the responder
 * helper; the pure decision core and `simulate`. Anything else answers `EXECUTOR_UNSUPPORTED`
 * (see docs/executor.md).
 */
export { createExecutor } from './executor.js'
export type { Executor, ExecutorModule, ExecutorOptions, Invocation, InvocationInputs, InvocationOutcome, Publication } from './executor.js'
export type {
  AdapterCall,
  AdapterContext,
  AuthorizationStage,
  BranchInputOf,
  Deployment,
  ExecutorAdapters,
  Given,
  ManifestEntry,
  OutputOf,
  RequestOf,
  ResultFieldsOf,
  ResultOf,
} from './adapters.js'
export { manifestDigest, MAX_MANIFEST_BRANCHES } from './dispatch/manifest.js'
export { planInteraction, readExpression, type InteractionPlan } from './policy.js'
export type { ExecutorErrorCode, ExecutorResult } from './result.js'
export { DecisionCore } from './decision/machine.js'
export * from './events.js'
export { createResponder, type Responder, type ResponderOptions, type ResponderRequest } from './responder.js'
export { openClaimStore, type Claim, type ClaimStore, type StoredClaim } from './ownership/claims.js'
export type { DurableBinding } from './durable/executor.js'
export type { DurableResponderBinding } from './delivery/responder.js'
export type { DeliveryPlan, OwnershipPlan } from './delivery/plan.js'
