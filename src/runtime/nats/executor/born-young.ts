/**
 * The live executor's per-operation objects that outlive a message (its log events, its
 * publications, the outcome it answers), made with `new` (or `Array.of`) rather than as literals.
 * V8 allocates the objects of a literal whose earlier objects outlived a young collection straight
 * into the old generation (allocation-site pretenuring), and an old object is a root of every
 * young collection until the next full one, dead or alive: such an object born old kept what it
 * points to (the admission's branches, the state answered, the strings read from a result) alive
 * past every young collection, which then made more literals look long-lived. A construction has
 * no allocation site: these objects are born young like the rest of the operation. Each is the
 * same value (`ExecutorEvent`, `Publication`, `InvocationOutcome`) member for member, in the same
 * order.
 */
import type { AdmittedBranch, Decision, ExecutorEvent, ExecutorState } from './events.js'

type Of<K extends ExecutorEvent['kind']> = Extract<ExecutorEvent, { kind: K }>

// Members declared and assigned in the events' order, `kind` first (parameter properties would come first).
export class AdmittedEvent implements Of<'admitted'> {
  readonly kind = 'admitted' as const
  readonly atMs: number
  readonly branches: readonly AdmittedBranch[]
  readonly eligible: readonly string[]
  constructor(atMs: number, branches: readonly AdmittedBranch[], eligible: readonly string[]) {
    this.atMs = atMs
    this.branches = branches
    this.eligible = eligible
  }
}

export class ResultEvent implements Of<'result'> {
  readonly kind = 'result' as const
  readonly atMs: number
  readonly branchId: string
  readonly peerId: string
  readonly attempt: number
  readonly fence: number
  readonly success: boolean
  readonly verified: boolean
  constructor(atMs: number, branchId: string, peerId: string, attempt: number, fence: number, success: boolean, verified: boolean) {
    this.atMs = atMs
    this.branchId = branchId
    this.peerId = peerId
    this.attempt = attempt
    this.fence = fence
    this.success = success
    this.verified = verified
  }
}

/** A request published (`ok`), or the error its publication failed with. */
export class PublicationRecord {
  // `declare`: no member at all unless the publication failed (a field would be an own `undefined`).
  declare readonly error?: string
  constructor(
    readonly branchId: string,
    readonly attempt: number,
    readonly ok: boolean,
    error?: string,
  ) {
    if (error !== undefined) this.error = error
  }
}

export class AudienceRecord {
  constructor(
    readonly revision: string,
    readonly policyRevision: string,
    readonly peers: readonly string[],
  ) {}
}

/** An invocation's outcome (`InvocationOutcome`); `output` only when the aggregation adapter gave one. */
export class OutcomeRecord<Output> {
  declare readonly output?: Output
  constructor(
    readonly operationId: string,
    readonly decision: Decision,
    readonly state: ExecutorState,
    readonly audience: AudienceRecord,
    readonly publications: readonly PublicationRecord[],
    output: Output | undefined,
  ) {
    if (output !== undefined) this.output = output
  }
}
