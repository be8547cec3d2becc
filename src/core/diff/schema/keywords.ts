/**
 * Which keywords each comparer reads. A keyword in no list is unknown: when it differs between the
 * versions its effect is `unknown`, since a validator may or may not enforce it.
 */

/** Keywords that constrain nothing: a change to them has effect `none`. `x-` extensions count too. */
export const ANNOTATION_KEYWORDS: ReadonlySet<string> = new Set([
  'title',
  'description',
  'examples',
  'example',
  'default',
  'deprecated',
  '$comment',
  'externalDocs',
  'xml',
  'contentMediaType',
  'contentEncoding',
  'contentSchema',
  'readOnly',
  'writeOnly',
])

/** Containers of definitions: they constrain nothing by themselves and are compared where a `$ref` reaches them. */
export const CONTAINER_KEYWORDS: ReadonlySet<string> = new Set(['$defs', 'definitions'])

/** Keywords a comparer in this folder reads (beside the annotations). */
export const COMPARED_KEYWORDS: ReadonlySet<string> = new Set([
  '$ref',
  'type',
  'nullable',
  'enum',
  'const',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'items',
  'prefixItems',
  'additionalItems',
  'minItems',
  'maxItems',
  'uniqueItems',
  'contains',
  'minContains',
  'maxContains',
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
  'dependentRequired',
  'dependentSchemas',
  'dependencies',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'discriminator',
  'unevaluatedProperties',
  'unevaluatedItems',
])

export function isAnnotation(keyword: string, dialect: 'json-schema' | 'openapi-3.0'): boolean {
  // In OpenAPI 3.0 readOnly / writeOnly decide whether `required` applies to a request or a response.
  if (dialect === 'openapi-3.0' && (keyword === 'readOnly' || keyword === 'writeOnly')) return false
  return ANNOTATION_KEYWORDS.has(keyword) || keyword.startsWith('x-')
}

/** OpenAPI 3.0 formats the generated validators check (format.ts says on which types); the others document. */
export const OPENAPI_CHECKED_FORMATS: ReadonlySet<string> = new Set(['int32', 'int64', 'date', 'date-time', 'uuid', 'byte'])
