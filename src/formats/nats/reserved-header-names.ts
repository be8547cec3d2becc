import { buildTimeMatcher } from '../../core/pattern-safety.js'
import { RESERVED_PREFIX as PREFIX } from '../../runtime/nats/reserved-headers.js'
import { isObject } from './document.js'

const COMPONENTS = '#/components/schemas/'
/** Schema objects read, at most (a document's own nesting is bounded when read). */
const MAX_VISITS = 4096

/**
 * The header names the NATS server and JetStream set or read (nats-server's and nats.js's
 * constants): a `patternProperties` pattern names those of them it matches, since no list of the
 * names a pattern matches can be made.
 */
const KNOWN_NAMES = [
  'Nats-Msg-Id',
  'Nats-Expected-Stream',
  'Nats-Expected-Last-Msg-Id',
  'Nats-Expected-Last-Sequence',
  'Nats-Expected-Last-Subject-Sequence',
  'Nats-Expected-Last-Subject-Sequence-Subject',
  'Nats-Rollup',
  'Nats-TTL',
  'Nats-Marker-Reason',
  'Nats-Stream',
  'Nats-Subject',
  'Nats-Sequence',
  'Nats-Time-Stamp',
  'Nats-Last-Sequence',
  'Nats-Num-Pending',
  'Nats-UpTo-Sequence',
  'Nats-Pending-Messages',
  'Nats-Pending-Bytes',
  'Nats-Last-Consumer',
  'Nats-Last-Stream',
  'Nats-Consumer-Stalled',
  'Nats-Service-Error',
  'Nats-Service-Error-Code',
  'Nats-Required-Api-Level',
]

/** Keywords whose schemas apply to the headers object itself (not to one header's value). */
const IN_PLACE = ['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else']

/**
 * The `Nats-` header names a message's headers schema names, wherever a keyword that reads names
 * says one: `properties`, `required`, `dependentRequired`, `dependencies` and `dependentSchemas`
 * (keys and lists), and the names of KNOWN_NAMES a `patternProperties` pattern matches; in the
 * schema itself and in every schema applying to the same object (`allOf`, `anyOf`, `oneOf`, `not`,
 * `if`, `then`, `else`, `dependentSchemas`, `dependencies`), through `$ref`s into
 * `components.schemas` (where the model's references point). The client checks those
 * (reserved-headers.ts in the runtime) and leaves every other `Nats-` name out of what it checks: a
 * name the schema speaks of in any of these ways is one it means to check (an outside pass found
 * `not: { required: [Nats-Msg-Id] }` left unchecked). Sorted, each once. O(schema objects
 * reached), each visited once, at most MAX_VISITS; patterns run on the build's bounded engine.
 */
export function reservedHeaderNames(schema: unknown, components: Readonly<Record<string, unknown>>): string[] {
  const names = new Set<string>()
  const name = (key: unknown) => {
    if (typeof key === 'string' && key.startsWith(PREFIX)) names.add(key)
  }
  const seen = new Set<unknown>()
  const stack = [schema]
  while (stack.length > 0 && seen.size < MAX_VISITS) {
    const node = stack.pop()
    if (isObject(node) && typeof node.$ref === 'string') {
      if (!node.$ref.startsWith(COMPONENTS)) continue
      const component = node.$ref.slice(COMPONENTS.length).replace(/~1/g, '/').replace(/~0/g, '~')
      if (Object.hasOwn(components, component)) stack.push(components[component])
      // Members written beside `$ref` are read too: a `required` there names a header as much as one inside.
      const { $ref: _ref, ...siblings } = node
      if (Object.keys(siblings).length > 0) stack.push(siblings)
      continue
    }
    if (!isObject(node) || seen.has(node)) continue
    seen.add(node)
    if (isObject(node.properties)) for (const key of Object.keys(node.properties)) name(key)
    if (Array.isArray(node.required)) for (const key of node.required) name(key)
    for (const keyword of ['dependentRequired', 'dependencies', 'dependentSchemas'])
      if (isObject(node[keyword]))
        for (const [key, value] of Object.entries(node[keyword] as Record<string, unknown>)) {
          name(key)
          if (Array.isArray(value)) for (const listed of value) name(listed)
          else if (keyword !== 'dependentRequired') stack.push(value)
        }
    if (isObject(node.patternProperties))
      for (const pattern of Object.keys(node.patternProperties)) for (const known of KNOWN_NAMES) if (matches(pattern, known)) names.add(known)
    for (const keyword of IN_PLACE) {
      const value = node[keyword]
      if (Array.isArray(value)) for (const member of value) stack.push(member)
      else if (value !== undefined) stack.push(value)
    }
  }
  return [...names].sort()
}

/** Whether `pattern` (ECMA-262, as JSON Schema reads it) matches `text`; an invalid pattern matches nothing (another rule refuses it). */
function matches(pattern: string, text: string): boolean {
  try {
    return buildTimeMatcher(pattern).test(text)
  } catch {
    return false
  }
}
