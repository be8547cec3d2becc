/**
 * `unplugin-contracts/runtime/nats/executor`: runs what an interaction descriptor declares on NATS
 * (nats.js v3). Built: memory state with online-best-effort delivery; direct and independent
 * dispatch; every completion mode; cooperative cancellation; the responder helper; branch claims in
 * JetStream KV; the pure decision core and `simulate`. Anything else answers `EXECUTOR_UNSUPPORTED`
 * (see docs/executor.md).
 */
export { createExecutor } from './executor.js'
export type { Executor, ExecutorModule, ExecutorOptions, Invocation, InvocationInputs, InvocationOutcome, Publication } from './executor.js'
export type { AdapterCall, AdapterContext, AuthorizationStage, Deployment, ExecutorAdapters } from './adapters.js'
export { planInteraction, readExpression, type InteractionPlan } from './policy.js'
export type { ExecutorErrorCode, ExecutorResult } from './result.js'
export { DecisionCore } from './decision/machine.js'
export * from './events.js'
export { createResponder, type Responder, type ResponderOptions, type ResponderRequest } from './responder.js'
export { openClaimStore, type Claim, type ClaimStore, type StoredClaim } from './ownership/claims.js'
