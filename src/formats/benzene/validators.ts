import { jsLiteral } from '../../core/emit.js'
import type { Schema } from './document.js'
import { convert, definitionsDocument, type ConvertContext, type Direction } from './json-schema.js'

export interface ValidatorRequest {
  /** A JavaScript identifier for the validator constant. */
  name: string
  schema: unknown
  direction: Direction
}

/**
 * Payload validators as data: each payload schema (converted to JSON Schema for its direction) and
 * each definition it reaches become `const`s, and a validator is the runtime's `schemaValidator`
 * over them (`src/runtime/schema-check.ts`). Design note: validators used to be ajv standalone
 * code, and ajv's compile of 2,000 payload schemas took ~4 s and 16 MB of code (bench/, target
 * 5x the parse floor); emitting schemas costs what printing JSON costs, and a bundler still drops
 * every schema and definition no import reaches. The code evaluates nothing (strict CSP).
 *
 * Returns `const` declarations (name -> expression) in the order they must be emitted:
 * definitions first, then one validator per request under the request's name.
 */
export function generateValidators(requests: readonly ValidatorRequest[], catalogue: Readonly<Record<string, Schema>>, int64: 'number' | 'string'): Map<string, string> {
  const contexts: Record<Direction, ConvertContext> = {
    request: { catalogue, direction: 'request', int64, documentId: 'req', keys: new Map(), open: new Set() },
    response: { catalogue, direction: 'response', int64, documentId: 'res', keys: new Map(), open: new Set() },
  }
  const roots = requests.map((r) => ({ ...r, json: convert(r.schema, contexts[r.direction]) }))
  const out = new Map<string, string>()
  if (roots.length === 0) return out
  // `req#/definitions/d3` -> its constant and the definitions it names directly.
  const definitions = new Map<string, { constant: string; refs: ReadonlySet<string> }>()
  for (const direction of DIRECTIONS) {
    const document = definitionsDocument(contexts[direction])
    for (const [key, schema] of Object.entries(document.definitions as Record<string, unknown>)) {
      const constant = `$${document.$id as string}$${key}`
      definitions.set(`${document.$id as string}#/definitions/${key}`, { constant, refs: scan(schema) })
      out.set(constant, jsLiteral(schema))
    }
  }
  // Most payloads are one `$ref`: the definitions object for a single reference is written once.
  const single = new Map<string, string>()
  const definitionsObject = (refs: ReadonlySet<string>): string => {
    const only = refs.size === 1 ? refs.values().next().value! : undefined
    const known = only === undefined ? undefined : single.get(only)
    if (known !== undefined) return known
    const text = `{ ${[...closure(refs, definitions)].map((ref) => `${jsLiteral(ref)}: ${definitions.get(ref)!.constant}`).join(', ')} }`
    if (only !== undefined) single.set(only, text)
    return text
  }
  for (const root of roots) out.set(root.name, `/* @__PURE__ */ $schemaValidator(${jsLiteral(root.json)}, ${definitionsObject(scan(root.json))})`)
  return out
}

const DIRECTIONS = ['request', 'response'] as const
const SINGLE = ['items', 'additionalProperties', 'not', 'if', 'then'] as const
const LISTS = ['allOf', 'anyOf', 'oneOf'] as const
const MAPS = ['properties', 'patternProperties'] as const

/**
 * The definitions a schema names directly, walking the keywords the converter produces (enum and
 * const hold data, not schemas); throws when a pattern does not compile as the runtime compiles it.
 */
function scan(schema: unknown): Set<string> {
  const refs = new Set<string>()
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return
    const s = node as Record<string, unknown>
    if (typeof s.$ref === 'string') refs.add(s.$ref)
    if (typeof s.pattern === 'string') {
      try {
        new RegExp(s.pattern, 'u')
      } catch (error) {
        throw new Error(`schema is invalid: pattern ${JSON.stringify(s.pattern)} does not compile: ${(error as Error).message}`)
      }
    }
    for (const key of SINGLE) if (key in s) visit(s[key])
    for (const key of LISTS) if (Array.isArray(s[key])) for (const member of s[key] as unknown[]) visit(member)
    for (const key of MAPS) {
      const map = s[key]
      if (map !== null && typeof map === 'object') for (const name in map) visit((map as Record<string, unknown>)[name])
    }
  }
  visit(schema)
  return refs
}

/** Every definition reachable from `refs`, through the definitions themselves. */
function closure(refs: ReadonlySet<string>, definitions: ReadonlyMap<string, { refs: ReadonlySet<string> }>): Set<string> {
  const reached = new Set<string>()
  const queue = [...refs]
  while (queue.length > 0) {
    const ref = queue.pop()!
    if (reached.has(ref)) continue
    const target = definitions.get(ref)
    if (!target) throw new Error(`schema is invalid: reference ${ref} names no definition`)
    reached.add(ref)
    queue.push(...target.refs)
  }
  return reached
}
