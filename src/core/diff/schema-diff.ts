/**
 * The directional JSON Schema diff. INTERIM: until the engine lands this compares the two schemas'
 * JSON at their pointers (no `$ref` resolution) and reports any difference as one `unknown` change,
 * which every format maps to a warning: never wrong, rarely precise.
 */
import type { DiffSchemas, SchemaDiffRule } from './schema-diff-types.js'

export const SCHEMA_DIFF_RULES: readonly SchemaDiffRule[] = [
  {
    id: 'schema-changed',
    levels: ['warning'],
    audiences: ['receiver', 'sender'],
    summary: 'A schema changed in a way the diff cannot classify: an unknown implication is not assumed safe.',
    example: { old: '{"type": "string"}', new: '{"type": "string", "format": "uri"}' },
    mirror: { none: 'It reports for both directions at once.' },
  },
]

function at(document: unknown, pointer: string): unknown {
  let node = document
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined
    node = (node as Record<string, unknown>)[key]
  }
  return node
}

export const diffSchemas: DiffSchemas = (old, next) => {
  if (JSON.stringify(at(old.document, old.pointer)) === JSON.stringify(at(next.document, next.pointer))) return []
  return [
    {
      rule: 'schema-changed',
      effect: 'unknown',
      old: { file: old.file, pointer: old.pointer },
      new: { file: next.file, pointer: next.pointer },
      message: 'The schema changed and its effect on the accepted values was not classified.',
    },
  ]
}
