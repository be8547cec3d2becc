import { createAjv } from '../../../core/standalone-validators.js'
import { escapeToken, splitPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../document.js'
import { dirname, resolve } from 'node:path'
import { refFilePath, refSites } from '../../../core/json-refs.js'
import type { NatsContext } from '../context.js'
import type { NatsReport } from './rule.js'
import { type Validate, addFormats, officialSchema } from './standard.js'

/** Complexity: O(size of the referenced parts), each definition of the AsyncAPI schema compiled once. */

/** A definition of the AsyncAPI 3.1.0 schema, compiled alone (what a locked file contributes in a position). */
// Module-level by design: keyed by a definition name of the fixed AsyncAPI schema, never by a document.
const definitionValidators = new Map<string, Validate>()

function definitionErrors(definition: string, value: unknown): NonNullable<Validate['errors']> {
  let validate = definitionValidators.get(definition)
  if (!validate) {
    const ajv = createAjv({ allErrors: true, validateFormats: true })
    addFormats(ajv)
    ajv.addFormat('uri-reference', true)
    ajv.addSchema(officialSchema(), 'asyncapi')
    definitionValidators.set(definition, (validate = ajv.compile({ $ref: `asyncapi#/definitions/${definition}` })))
  }
  return validate(value) ? [] : (validate.errors ?? [])
}

/** The definition a `$ref` position of the document holds, for the part a locked file supplies there. */
const EXTERNAL_POSITIONS: ReadonlyArray<[RegExp, string]> = [
  [/^\/(?:components\/)?channels\/[^/]+\/messages\/[^/]+\/\$ref$/, 'messageObject'],
  [/^\/components\/messages\/[^/]+\/\$ref$/, 'messageObject'],
  [/^\/(?:components\/)?channels\/[^/]+\/parameters\/[^/]+\/\$ref$/, 'parameter'],
  [/\/(?:payload|headers)(?:\/.*)?\/\$ref$|^\/components\/schemas\/.*\/\$ref$/, 'schema'],
]

/**
 * What a locked file contributes through a standard `$ref` (a message, a parameter, a schema) is
 * validated as the definition of the position that references it, and reported in that file at
 * the referenced value. O(size of the referenced parts).
 */
export function externalParts(ctx: NatsContext, report: NatsReport): void {
  for (const { ref, pointer } of refSites(ctx.doc)) {
    if (ref.startsWith('#') || /^[a-z][a-z0-9+.-]*:/i.test(ref)) continue
    const definition = EXTERNAL_POSITIONS.find(([at]) => at.test(pointer))?.[1]
    const fragment = ref.split('#')[1] ?? ''
    const file = definition && ctx.input.files.get(resolve(dirname(ctx.main.file), refFilePath(ref)))
    if (!definition || !file) continue
    let value: unknown = file.source.value
    for (const token of splitPointer(fragment)) value = Array.isArray(value) ? value[Number(token)] : isObject(value) ? value[token] : undefined
    if (value === undefined) continue
    const seen = new Set<string>()
    for (const e of definitionErrors(definition, value)) {
      if (e.keyword === 'oneOf' || e.keyword === 'anyOf' || e.keyword === 'if' || (e.keyword === 'required' && e.params.missingProperty === '$ref')) continue
      const extra = e.keyword === 'additionalProperties' ? (e.params as { additionalProperty?: string }).additionalProperty : undefined
      const at = `${fragment}${e.instancePath}${extra === undefined ? '' : `/${escapeToken(extra)}`}`
      if (seen.has(at)) continue
      seen.add(at)
      report.in(
        file,
        at,
        `AsyncAPI 3.1.0 (${definition}, referenced from ${pointer}): ${extra === undefined ? `${at || 'the value'} ${e.message}` : `${JSON.stringify(extra)} is not a member it may have`}.`,
        { keyword: e.keyword, ref },
      )
    }
  }
}
