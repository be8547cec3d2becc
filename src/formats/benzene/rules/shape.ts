import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../../../runtime/benzene/document.js'

/** Complexity (each rule here, worst case on any input under the size limits): one walk along the fixed document shape (its depth is the shape's, a few levels): O(document). */

/**
 * The member layout of a Benzene document (Benzene Contract Document §1-3), shared by the rules for missing
 * members and for wrongly typed ones. Members not listed are unknown and tolerated.
 */
/** `any`: a member whose presence is required but whose value is never judged (`openapi`, see openapi-value.ts). */
export type Kind = 'string' | 'boolean' | 'object' | 'array' | 'any'

export interface MemberSpec {
  kind: Kind
  required?: boolean
  members?: Record<string, MemberSpec>
  /** Spec of every array item. */
  items?: MemberSpec
  /** Spec of every value of a map-like object. */
  values?: MemberSpec
}

const string = (required = false): MemberSpec => ({ kind: 'string', required })
const schema = (required = false): MemberSpec => ({ kind: 'object', required })

export const documentShape: MemberSpec = {
  kind: 'object',
  required: true,
  members: {
    openapi: { kind: 'any', required: true },
    info: { kind: 'object', required: true, members: { title: string(true), version: string(true), description: string() } },
    messageEndpoint: string(),
    transports: { kind: 'array', items: string() },
    requests: {
      kind: 'array',
      required: true,
      items: {
        kind: 'object',
        members: {
          topic: string(true),
          version: string(),
          reserved: { kind: 'boolean' },
          httpMappings: { kind: 'array', items: { kind: 'object', members: { method: string(true), path: string(true) } } },
          request: schema(true),
          response: schema(true),
        },
      },
    },
    events: {
      kind: 'array',
      required: true,
      items: { kind: 'object', members: { topic: string(true), version: string(), message: schema(true) } },
    },
    components: { kind: 'object', required: true, members: { schemas: { kind: 'object', required: true, values: schema() } } },
  },
}

export function kindOf(value: unknown): Kind | 'number' | 'null' {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value as Kind | 'number'
}

/**
 * Walks `value` along `spec`, calling `visit` for every member the spec describes: `present` says
 * whether it exists. Descends only into values of the right kind, so each problem is reported once.
 */
export function walkShape(
  value: unknown,
  spec: MemberSpec,
  pointer: string,
  visit: (pointer: string, spec: MemberSpec, value: unknown, present: boolean) => void,
): void {
  visit(pointer, spec, value, true)
  if (kindOf(value) !== spec.kind) return
  if (spec.members && isObject(value)) {
    for (const [name, member] of Object.entries(spec.members)) {
      const present = Object.hasOwn(value, name)
      if (present) walkShape(value[name], member, joinPointer(pointer, name), visit)
      else visit(joinPointer(pointer, name), member, undefined, false)
    }
  }
  if (spec.values && isObject(value)) {
    for (const [name, child] of Object.entries(value)) walkShape(child, spec.values, joinPointer(pointer, name), visit)
  }
  if (spec.items && Array.isArray(value)) value.forEach((item, i) => walkShape(item, spec.items!, joinPointer(pointer, i), visit))
}
