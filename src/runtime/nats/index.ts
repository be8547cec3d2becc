/** `unplugin-contracts/runtime/nats`: what generated NATS contract modules import. */
export { SubjectError, createChannel, createFilter, createSubject } from './subjects.js'
export type { AddressedChannel, Channel, Filter, SourceLink, Subject, SubjectErrorCode, TemplateToken } from './subjects.js'
export { inDomain, intersects, isBaseToken, type Alphabet, type TokenType } from './tokens.js'
export { MaterializeError, createInteraction, materialize, operationId, quorumThreshold } from './interactions.js'
export type { BindingSource, Interaction, InteractionInput, MaterializeValues } from './interactions.js'
export { ajvRuntime } from '../shared/validation.js'
export { schemaValidator } from '../shared/schema-check.js'
export { dataValidator } from '../shared/data-validator.js'
export * from '../shared/validator-helpers.js'
export { deepFreeze } from '../shared/deep-freeze.js'
export { channel, channelMap, filterTemplate, nativeTable, operationTable } from './module-data.js'
import { deepFreeze } from '../shared/deep-freeze.js'

/** A frozen map with no prototype, keyed by exact ids (channel and operation ids are document text). */
export function idMap<M>(entries: ReadonlyArray<readonly [string, unknown]>): M {
  const map = Object.create(null) as Record<string, unknown>
  for (const [key, value] of entries) Object.defineProperty(map, key, { value: deepFreeze(value), enumerable: true })
  return Object.freeze(map) as M
}

/** A generated operation descriptor. */
export interface OperationDescriptor {
  readonly id: string
  readonly action: 'send' | 'receive'
  readonly channel: string
  readonly kind: 'publish' | 'subscribe'
  readonly api: 'core' | 'jetstream'
  readonly confirmation?: 'none' | 'stream-ack'
  readonly stream?: string
  readonly consumer?: string
  /** The queue group of the standard NATS operation binding (core subscriptions join it). */
  readonly queue?: string
  readonly requestReply?: {
    readonly routing: 'native-inbox'
    readonly completion: 'first-response'
    readonly timeoutMs: number
    readonly replyChannel?: string
  }
  /** The channel's messages the operation lists, when fewer than all of them: it carries those only. */
  readonly messages?: readonly string[]
  /** Checks a payload against the messages the operation lists (present with `messages`, when they can be checked). */
  readonly validatePayload?: import('../shared/validation.js').Validator
  /** Validates the headers of the messages the operation lists (`messages`), when each has a headers schema. */
  readonly validateHeaders?: import('../shared/validation.js').Validator
  /** Each listed message's payload and headers validators, when their headers schemas differ (as a channel's `validateByMessage`). */
  readonly validateByMessage?: readonly import('./message-headers.js').MessageValidators[]
  readonly source: import('./subjects.js').SourceLink
}

export interface NativeDescriptor {
  readonly key: string
  readonly authority: 'contract' | 'external'
  readonly stream?: string
  readonly config: Readonly<Record<string, unknown>>
  readonly artifact?: { readonly path: string; readonly sha256: string; readonly pointer: string }
  readonly source: import('./subjects.js').SourceLink
}

export interface ContractIdentity {
  readonly id: string
  readonly version: string
  readonly profile: '0.2.0-draft'
  /** Lowercase SHA-256 of the application document's exact bytes. */
  readonly digest: string
  readonly deployment?: { readonly binding: string; readonly minimumServerVersion: string }
}

export interface AdapterDescriptor {
  readonly key: string
  readonly kind:
    'audience' | 'authorization' | 'result-verifier' | 'aggregation' | 'transform' | 'selection' | 'delivery' | 'ownership' | 'state-store' | 'workflow'
  readonly version: string
  readonly inputSchema: string
  readonly outputSchema: string
  readonly description?: string
  readonly source: import('./subjects.js').SourceLink
}

export interface PipelineDescriptor {
  readonly key: string
  readonly onFailure: 'stop'
  readonly steps: ReadonlyArray<{ readonly interaction?: string; readonly operation?: string; readonly inputAdapter?: string; readonly bindings: unknown }>
  readonly source: import('./subjects.js').SourceLink
}

export interface WorkflowDescriptor {
  readonly key: string
  readonly artifact: { readonly path: string; readonly sha256: string }
  readonly adapter: string
  readonly inputSchema: string
  readonly outputSchema: string
  readonly source: import('./subjects.js').SourceLink
}
