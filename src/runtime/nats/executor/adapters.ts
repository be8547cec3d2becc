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

/** One entry of a branch manifest (profile: a typed array of {branchId, peerId, input}). */
export interface ManifestEntry<BranchInput = unknown> {
  readonly branchId: string
  readonly peerId: string
  readonly input: BranchInput
}

export interface ExecutorAdapters<ResultPayload = unknown, Output = unknown, BranchInput = unknown> {
  /** The audience snapshot at admission: its revision and the peers it holds. */
  readonly audience: (
    call: AdapterCall<{ readonly kind: string; readonly input: unknown }>,
  ) => Answer<{ readonly revision: string; readonly peers: readonly string[] }>
  readonly authorization: (call: AdapterCall<{ readonly peerId: string; readonly stage: AuthorizationStage }>) => Answer<{ readonly allowed: boolean }>
  /** The result verifier (after the executor's own subject-permission check of subject and body peer). */
  readonly verifier?: (call: AdapterCall<ResultPayload>) => Answer<{ readonly allowed: boolean }>
  /**
   * Authenticates a branch manifest (dispatch `branches` and `none`), required for those modes: the
   * profile requires manifests to be authenticated, and who vouches for one (a signing service, a
   * workflow engine's record) is the application's trust root. `digest` is what to authenticate: the
   * lowercase SHA-256 of the manifest bound to the contract digest, the principal and the
   * operation (`manifestDigest`), so an authentic manifest cannot be replayed into another operation.
   */
  readonly manifest?: (
    call: AdapterCall<{ readonly entries: readonly ManifestEntry<BranchInput>[]; readonly digest: string }>,
  ) => Answer<{ readonly authenticated: boolean }>
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

/**
 * Types from the contract: a generated module's declaration names, on each interaction descriptor,
 * the types flowing through it (optional members never present at run time: `__result`,
 * `__output`, `__request`, `__branchInput`). An untyped descriptor (`Interaction`) gives `unknown`.
 */
type Declared<I, K extends string> = I extends { readonly [P in K]?: infer T } ? (unknown extends T ? unknown : NonNullable<T>) : unknown
/** The result operation's payload: the verifier's and the aggregation's argument, what the success predicate reads. */
export type ResultOf<I> = Declared<I, '__result'>
/** The aggregation adapter's declared output. */
export type OutputOf<I> = Declared<I, '__output'>
/** The request operation's payload (what a peer's handler receives). */
export type RequestOf<I> = Declared<I, '__request'>
/** The branch manifest's `input` slot (dispatch `branches` and `none`). */
export type BranchInputOf<I> = Declared<I, '__branchInput'>
/** The result payload without its correlated members (the responder sets those): what a peer's handler returns. */
export type ResultFieldsOf<I> = Declared<I, '__resultFields'>
/** The caller's type argument when one was given, the contract's when it was left `unknown`. */
export type Given<T, Contract> = unknown extends T ? Contract : T
