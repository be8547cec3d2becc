/**
 * The application's adapters: typed functions of `{context, data}` (profile v0.2, adapter
 * protocols). The context is fixed and runtime-attested; the executor never lets a caller set it.
 */

/** The fixed adapter context. `deadlineMs` is null only before admission. */
export interface AdapterContext {
  readonly contractId: string
  readonly contractVersion: string
  readonly contractDigest: string
  readonly operationId: string
  readonly principalId: string
  readonly senderPeerId: string
  readonly scopeId: string
  readonly systemId: string
  readonly accountId: string
  readonly jetstreamDomain: string
  readonly nowMs: number
  readonly deadlineMs: number | null
  readonly policyRevision: string
}

export interface AdapterCall<D> {
  readonly context: AdapterContext
  readonly data: D
}

type Answer<T> = T | Promise<T>

/** Where authorization is (re)checked. */
export type AuthorizationStage = 'admission' | 'dispatch' | 'renewal' | 'result' | 'cancel'

export interface ExecutorAdapters<ResultPayload = unknown, Output = unknown> {
  /** The audience snapshot at admission: its revision and the peers it holds. */
  readonly audience: (
    call: AdapterCall<{ readonly kind: string; readonly input: unknown }>,
  ) => Answer<{ readonly revision: string; readonly peers: readonly string[] }>
  readonly authorization: (call: AdapterCall<{ readonly peerId: string; readonly stage: AuthorizationStage }>) => Answer<{ readonly allowed: boolean }>
  /** The result verifier (after the executor's own subject-permission check of subject and body peer). */
  readonly verifier?: (call: AdapterCall<ResultPayload>) => Answer<{ readonly allowed: boolean }>
  /** The typed output from the results admitted when the decision was made. */
  readonly aggregation?: (call: AdapterCall<readonly ResultPayload[]>) => Answer<Output>
}

/** Deployment facts the runtime attests (from the deployment binding, never from a caller). */
export interface Deployment {
  readonly senderPeerId: string
  readonly scopeId: string
  readonly systemId: string
  readonly accountId: string
  readonly jetstreamDomain: string
  readonly policyRevision: string
}
