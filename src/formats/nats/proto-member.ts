import { setOwn } from '../../runtime/shared/own-property.js'
import { isObject } from './document.js'

/** Schema members whose values map names to subschemas. */
const NAME_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependencies', 'dependentSchemas'])
/** Schema members whose values are data, never schemas. */
const DATA = new Set(['enum', 'const', 'default', 'examples', 'example', 'required'])
/** The one key the pattern matches: `__proto__` itself. */
const PROTO_PATTERN = '^__proto__$'

/**
 * `schema` with every `properties: { __proto__: S }` member moved to `patternProperties:
 * { '^__proto__$': S }` of the same schema object, which means the same to JSON Schema (the member
 * is checked when present, and is no additional property) but is one ajv checks: ajv's generated
 * code skips a property named `__proto__`, so `{"__proto__": "foo"}` would pass a
 * `{type: number}` member. Every object is built with own properties only. A copy; O(schema size),
 * nesting bounded by MAX_DEPTH (deeper parts are left as they are: documents are depth-limited when read).
 */
export function protoMembersAsPatterns(schema: unknown, depth = 0): unknown {
  if (depth > MAX_DEPTH) return schema
  if (Array.isArray(schema)) return schema.map((s) => protoMembersAsPatterns(s, depth + 1))
  if (!isObject(schema)) return schema
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(schema)) {
    const value = schema[key]
    if (DATA.has(key)) setOwn(out, key, value)
    else if (NAME_MAPS.has(key) && isObject(value)) {
      const members: Record<string, unknown> = {}
      for (const name of Object.keys(value)) setOwn(members, name, protoMembersAsPatterns(value[name], depth + 1))
      setOwn(out, key, members)
    } else setOwn(out, key, protoMembersAsPatterns(value, depth + 1))
  }
  const properties = out.properties
  if (isObject(properties) && Object.hasOwn(properties, '__proto__')) {
    const member = properties.__proto__
    const rest: Record<string, unknown> = {}
    for (const name of Object.keys(properties)) if (name !== '__proto__') setOwn(rest, name, properties[name])
    out.properties = rest
    const patterns: Record<string, unknown> = isObject(out.patternProperties) ? { ...out.patternProperties } : {}
    // A pattern already written for the same key holds beside the member: both apply.
    setOwn(patterns, PROTO_PATTERN, Object.hasOwn(patterns, PROTO_PATTERN) ? { allOf: [patterns[PROTO_PATTERN], member] } : member)
    out.patternProperties = patterns
  }
  return out
}

const MAX_DEPTH = 256
