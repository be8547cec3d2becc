import { validatorDeclarations, type ValidatorDeclarations } from '../../core/schema-code.js'
import type { SchemaFacts } from './schema-facts.js'
import type { CompileMemos } from '../../core/memo.js'
import type { Schema as JsonSchema } from '../../runtime/shared/schema-check.js'
import type { ValidatorForm } from './options.js'
import { dataValidators } from './validators-data.js'
import { DIRECTIONS, convert, definitionsDocument, type ConvertContext, type Direction } from './json-schema.js'

export interface ValidatorRequest {
  /** A JavaScript identifier for the validator constant. */
  name: string
  schema: unknown
  direction: Direction
}

/**
 * Payload validators as code (option `validators`, default `'code'`): each payload schema, converted to JSON Schema for its direction,
 * becomes a validator function, and each definition it reaches one shared function
 * (`src/core/schema-code.ts`). A bundler drops every validator and definition no import reaches.
 * Design note: validators were first ajv standalone code (ajv's compile of 2,000 payload schemas
 * took ~4 s and 16 MB of code), then schemas as data for a runtime interpreter (3.5-4.2x ajv's
 * validation time, bench/validators.ts); this code is written in one walk of each schema.
 *
 * Returns `const` declarations (name -> expression) in the order they must be emitted, with the
 * runtime imports they need.
 */
export function generateValidators(
  requests: readonly ValidatorRequest[],
  facts: SchemaFacts,
  int64: 'number' | 'string',
  form: ValidatorForm = 'code',
  memos?: CompileMemos,
): ValidatorDeclarations {
  // The interpreter's form (option `validators: 'data'`): the same verdicts, a smaller module.
  if (form === 'data') return dataValidators(requests, facts, int64)
  const contexts: Record<Direction, ConvertContext> = {
    request: { facts, direction: 'request', int64, documentId: 'req', keys: new Map(), pending: [], asked: new Set() },
    response: { facts, direction: 'response', int64, documentId: 'res', keys: new Map(), pending: [], asked: new Set() },
  }
  const roots = requests.map((r) => ({ name: r.name, schema: convert(r.schema, contexts[r.direction]) as JsonSchema }))
  if (roots.length === 0) return { declarations: new Map(), imports: [], linearPatterns: false }
  // `req#/definitions/d3` -> its function `$req$d3`.
  const definitions = new Map<string, { name: string; schema: JsonSchema }>()
  for (const direction of DIRECTIONS) {
    const document = definitionsDocument(contexts[direction])
    for (const [key, schema] of Object.entries(document.definitions as Record<string, JsonSchema>))
      definitions.set(`${document.$id as string}#/definitions/${key}`, { name: `$${document.$id as string}$${key}`, schema })
  }
  return validatorDeclarations(roots, definitions, '$v$', memos)
}
