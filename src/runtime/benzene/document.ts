import { unescapeToken } from '../shared/json-pointer.js'
import { isObject } from '../shared/json-value.js'
export { isObject }
/**
 * The Benzene contract document (Benzene Contract Document §1-4), as the rules leave it: every type below holds
 * once validation has passed. Unknown members are kept (and hashed) but not modelled.
 */
export type Schema = Record<string, unknown>

export interface RequestEntry {
  topic: string
  version?: string
  reserved?: true
  httpMappings?: Array<{ method: string; path: string }>
  request: Schema
  response: Schema
  example?: unknown
  [unknown: string]: unknown
}

export interface EventEntry {
  topic: string
  version?: string
  message: Schema
  example?: unknown
  [unknown: string]: unknown
}

export interface BenzeneDocument {
  /** A heritage marker, "3.0.1" as written; consumers must not reject a document on its value (Benzene Contract Document §1). */
  openapi: unknown
  info: { title: string; version: string; description?: string; [unknown: string]: unknown }
  messageEndpoint?: string
  transports?: string[]
  requests: RequestEntry[]
  events: EventEntry[]
  components: { schemas: Record<string, Schema>; [unknown: string]: unknown }
  [unknown: string]: unknown
}

export const REF_PREFIX = '#/components/schemas/'

/**
 * A schema's own flag (`nullable`, `readOnly`, `writeOnly`), as OpenAPI 3.0 reads it: a Reference
 * Object's siblings are ignored, so beside `$ref` the flag is not there. Types and validators both
 * ask through this, so they cannot disagree on a sibling.
 */
export function hasFlag(schema: unknown, flag: 'nullable' | 'readOnly' | 'writeOnly'): boolean {
  return isObject(schema) && !('$ref' in schema) && schema[flag] === true
}

/** A request or event entry's identity as people write it: `topic` or `topic@version`. */
export function entryLabel(entry: { topic: string; version?: string }): string {
  return entry.version === undefined ? entry.topic : `${entry.topic}@${entry.version}`
}

/** The schema name a `$ref` of the exact form `#/components/schemas/<name>` names, or undefined. */
export function refTarget(ref: unknown): string | undefined {
  if (typeof ref !== 'string' || !ref.startsWith(REF_PREFIX)) return undefined
  // A `$ref` is a URI reference, so its fragment is a percent-encoded JSON Pointer:
  // `#/components/schemas/Order%20Line` names "Order Line". Text that is not a valid
  // percent-encoding (`50%off`) is read as it stands.
  const token = percentDecoded(ref.slice(REF_PREFIX.length))
  if (token === '' || token.includes('/')) return undefined
  return unescapeToken(token)
}

function percentDecoded(text: string): string {
  if (!text.includes('%')) return text
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
