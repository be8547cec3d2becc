/** Fixed vocabularies of profile v0.2 interactions ("Adapter protocols" to "Completion and cancellation"). */
export const ADAPTER_KINDS = [
  'audience',
  'authorization',
  'result-verifier',
  'aggregation',
  'transform',
  'selection',
  'delivery',
  'ownership',
  'state-store',
  'workflow',
] as const

// One table for the static rules and the runtime's `materialize`.
export { BRANCH_FIELDS, CONTEXT_FIELDS } from '../../runtime/nats/binding-fields.js'

/** Which correlation expression names which branch or operation fact, and the sources that may fill it. */
export const CORRELATION_SOURCES: Readonly<Record<string, ReadonlyArray<string>>> = {
  operation: ['input:operationId', 'context:operationId'],
  branch: ['branch:id'],
  attempt: ['branch:attempt'],
  peer: ['branch:peerId'],
  fence: ['branch:fence'],
}

/** The token domain of generated operation ids: `op` + 64 lowercase hex digits. */
export const OPERATION_ID_DOMAIN = { kind: 'token', alphabet: 'hex', first: 'any', prefix: 'op', minLength: 66, maxLength: 66 } as const

/** Which adapter kind each reference must name. */
export const ADAPTER_REFERENCES: ReadonlyArray<{ path: readonly string[]; kind: (typeof ADAPTER_KINDS)[number] }> = [
  { path: ['audience', 'resolver'], kind: 'audience' },
  { path: ['audience', 'authorization'], kind: 'authorization' },
  { path: ['correlation', 'verifier'], kind: 'result-verifier' },
  { path: ['aggregation', 'adapter'], kind: 'aggregation' },
  { path: ['dispatch', 'selector'], kind: 'selection' },
  { path: ['delivery', 'adapter'], kind: 'delivery' },
  { path: ['delivery', 'stateStore'], kind: 'state-store' },
  { path: ['delivery', 'ownership', 'adapter'], kind: 'ownership' },
]

/**
 * The fixed cancellation wire data (profile v0.2, Completion and cancellation: "Wire data follows the
 * fixed CancelRequest/CancelResult schemas. Commands identify operation/branch/attempt/fence.
 * Replies are stopped, already-completed or unknown."), as this project pins it: each member the
 * message payload must require, with its JSON type; a result's `outcome` is exactly those three.
 */
export const CANCEL_REQUEST: Readonly<Record<string, string>> = { operationId: 'string', branchId: 'string', attempt: 'integer', fence: 'integer' }
export const CANCEL_RESULT: Readonly<Record<string, string>> = { operationId: 'string', branchId: 'string', outcome: 'string' }
export const CANCEL_OUTCOMES: readonly string[] = ['stopped', 'already-completed', 'unknown']
