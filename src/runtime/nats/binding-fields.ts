/**
 * The context and branch fields an interaction binding may read (NATS contract profile v0.2,
 * "Context fields" and "Bindings"), with the JSON type of their values. Shared by the compiler's
 * static rules and by `materialize`, which checks the values it is given against them.
 */

/** The thirteen context fields and the JSON type of their values. */
export const CONTEXT_FIELDS: Readonly<Record<string, 'string' | 'integer' | 'integer-or-null'>> = {
  contractId: 'string',
  contractVersion: 'string',
  contractDigest: 'string',
  operationId: 'string',
  principalId: 'string',
  senderPeerId: 'string',
  scopeId: 'string',
  systemId: 'string',
  accountId: 'string',
  jetstreamDomain: 'string',
  nowMs: 'integer',
  deadlineMs: 'integer-or-null',
  policyRevision: 'string',
}

/** Branch fields a binding may read, and their JSON types (`input` is the branch's own input slot). */
export const BRANCH_FIELDS: Readonly<Record<string, 'string' | 'integer' | 'input'>> = {
  id: 'string',
  peerId: 'string',
  attempt: 'integer',
  fence: 'integer',
  input: 'input',
}

/**
 * Why `value` is not a value of a field of this type, or undefined when it is: IDs and revisions
 * are nonempty strings, times, attempts and fences safe nonnegative integers ("times safe
 * nonnegative integer UTC milliseconds"; "fencing integers"), `deadlineMs` may be null. O(1).
 */
export function fieldValueProblem(type: 'string' | 'integer' | 'integer-or-null', value: unknown): string | undefined {
  if (type === 'string') return typeof value === 'string' && value !== '' ? undefined : 'is not a nonempty string'
  if (type === 'integer-or-null' && value === null) return undefined
  return Number.isSafeInteger(value) && (value as number) >= 0 ? undefined : `is not a safe nonnegative integer${type === 'integer-or-null' ? ' or null' : ''}`
}
