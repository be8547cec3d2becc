import { standaloneValidator, withStandaloneAjv } from '../../core/standalone-validators.js'
import type { Schema } from './document.js'
import { convert, definitionsDocument, type ConvertContext, type Direction } from './json-schema.js'

export interface ValidatorRequest {
  /** A JavaScript identifier for the validator constant. */
  name: string
  schema: unknown
  direction: Direction
}

/**
 * Standalone validators (ajv's standalone code generation) for the given payload schemas. Each
 * validator is a self-contained function expression, so a bundler drops the ones no import uses;
 * the code has no `require`, no `import`, no `eval` or `new Function`: ajv's two runtime helpers
 * come from `unplugin-contracts/runtime`.
 */
export function generateValidators(requests: readonly ValidatorRequest[], catalogue: Readonly<Record<string, Schema>>, int64: 'number' | 'string'): Map<string, string> {
  const contexts: Record<Direction, ConvertContext> = {
    request: { catalogue, direction: 'request', int64, documentId: 'req', keys: new Map(), open: new Set() },
    response: { catalogue, direction: 'response', int64, documentId: 'res', keys: new Map(), open: new Set() },
  }
  const roots = requests.map((r, i) => ({ ...r, id: `v${i}`, json: convert(r.schema, contexts[r.direction]) }))
  const out = new Map<string, string>()
  if (roots.length === 0) return out
  return withStandaloneAjv((ajv) => {
    for (const direction of ['request', 'response'] as const) {
      const document = definitionsDocument(contexts[direction])
      if (Object.keys(document.definitions as object).length > 0 || roots.some((r) => r.direction === direction)) ajv.addSchema(document)
    }
    for (const root of roots) ajv.addSchema(typeof root.json === 'boolean' ? { $id: root.id } : { ...root.json, $id: root.id })
    for (const root of roots) out.set(root.name, standaloneValidator(ajv, root.id))
    return out
  })
}
