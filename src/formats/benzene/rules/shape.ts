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
  /** What the member means, in a sentence: the hover text of the editor schema made from this layout (scripts/editor-schemas.ts). */
  description?: string
}

const string = (description: string, required = false): MemberSpec => ({ kind: 'string', required, description })
const schema = (description: string, required = false): MemberSpec => ({ kind: 'object', required, description })

export const documentShape: MemberSpec = {
  kind: 'object',
  required: true,
  members: {
    openapi: {
      kind: 'any',
      required: true,
      description: 'A heritage marker, written "3.0.1": it names the schema dialect (OpenAPI 3.0 Schema Objects); the document is not full OpenAPI.',
    },
    info: {
      kind: 'object',
      required: true,
      description: "The service's name and version (empty strings when it has neither).",
      members: {
        title: string('The service name.', true),
        version: string("The service's version.", true),
        description: string('What the service does.'),
      },
    },
    messageEndpoint: string("The path of the service's Benzene-message-over-HTTP endpoint; absent when it has none (no default path is assumed)."),
    transports: {
      kind: 'array',
      description: 'Every transport the service receives messages over ("sqs", "kafka", "http", ...); omitted when empty.',
      items: string('A transport name.'),
    },
    requests: {
      kind: 'array',
      required: true,
      description: 'One entry per request/response topic (possibly none).',
      items: {
        kind: 'object',
        members: {
          topic: string('The topic id (for example "payments:capture").', true),
          version: string('The topic\'s handler version; omitted (never "") for the unversioned handler.'),
          reserved: {
            kind: 'boolean',
            description: "true when the topic is one of Benzene's reserved utility topics (benzene:spec, benzene:healthcheck, ...); present only when true.",
          },
          httpMappings: {
            kind: 'array',
            description: "The topic's explicit HTTP exposure; omitted when it has none.",
            items: {
              kind: 'object',
              members: { method: string('The HTTP method (for example "POST").', true), path: string('The route (for example "/payments/{id}").', true) },
            },
          },
          request: schema('The request payload: an OpenAPI 3.0 Schema Object, inline or a $ref into #/components/schemas.', true),
          response: schema('The response payload: an OpenAPI 3.0 Schema Object, inline or a $ref into #/components/schemas.', true),
        },
      },
    },
    events: {
      kind: 'array',
      required: true,
      description:
        'The events the service publishes without waiting for a reply, one entry per topic (an empty array when there are none; Benzene Contract Document §3).',
      items: {
        kind: 'object',
        members: {
          topic: string('The event topic id.', true),
          version: string("The event's version; omitted when unversioned."),
          message: schema('The event payload: an OpenAPI 3.0 Schema Object, inline or a $ref into #/components/schemas.', true),
        },
      },
    },
    components: {
      kind: 'object',
      required: true,
      description: "The document's schema catalogue.",
      members: {
        schemas: {
          kind: 'object',
          required: true,
          description: 'OpenAPI 3.0 Schema Objects by name; every $ref in the document points to #/components/schemas/<name>.',
          values: { kind: 'object', required: false },
        },
      },
    },
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
