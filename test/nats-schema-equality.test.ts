/**
 * "The same schema" as the NATS pipeline and binding rules decide it (schemas.ts `sameSchema`:
 * references resolved, annotations dropped), against an oracle written here from JSON Schema's
 * reading: an annotation keyword is dropped only where a keyword stands. A member name under
 * `properties`, `patternProperties`, `definitions`, `$defs`, `dependentSchemas` or `dependencies`
 * is a name, whatever it spells (a pattern named `description`, a property named `x-id`), and the
 * value of `enum` or `const` is data (a `title` member there is a value). An outside reading found
 * the pipeline rules' equality took such names for keywords: two schemas differing in a pattern
 * property named `description` were "the same".
 */
import canonicalize from 'canonicalize'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { sameSchema } from '../src/formats/nats/schemas.js'

/** JSON Schema's annotations, AsyncAPI's, and the keywords draft-07 does not define that the validators leave out (docs/nats.md). */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'default',
  'examples',
  'example',
  'readOnly',
  'writeOnly',
  'deprecated',
  '$comment',
  'summary',
  'externalDocs',
  'nullable',
  'id',
  '$id',
  '$async',
  '$anchor',
  '$dynamicAnchor',
])
const NAME_MAPS = ['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas', 'dependencies']
const DATA = ['enum', 'const']

/** The oracle: a schema's normal form (no references here), compared as canonical JSON. */
function normal(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(normal)
  if (schema === null || typeof schema !== 'object') return schema
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key) || key.startsWith('x-')) continue
    if (DATA.includes(key)) out[key] = value
    else if (NAME_MAPS.includes(key) && value !== null && typeof value === 'object' && !Array.isArray(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([name, member]) => [name, normal(member)]))
    else out[key] = normal(value)
  }
  return out
}
const oracleSame = (a: unknown, b: unknown) => canonicalize(normal(a)) === canonicalize(normal(b))
const same = (a: unknown, b: unknown) => sameSchema({} as never, a, b)

// Names and data that spell keywords: what a reading by position must keep.
const NAMES = ['description', 'title', 'x-id', 'default', 'type', 'a']
const data = fc.oneof(fc.constantFrom(1, 'a', null, true), fc.dictionary(fc.constantFrom(...NAMES), fc.constantFrom(1, 'b'), { maxKeys: 2 }))
const leaf = fc.record(
  {
    type: fc.constantFrom('string', 'number', 'object'),
    minimum: fc.constantFrom(0, 1),
    description: fc.constantFrom('one', 'two'),
    'x-note': fc.constantFrom('n', 'm'),
    nullable: fc.boolean(),
    enum: fc.array(data, { minLength: 1, maxLength: 2 }),
    const: data,
  },
  { requiredKeys: [] },
)
// Bounded: at most three levels of nested schemas, each map and list of one or two.
const { schema } = fc.letrec<{ schema: Record<string, unknown> }>((tie) => ({
  schema: fc.oneof(
    { maxDepth: 3, depthIdentifier: 'schema' },
    leaf,
    fc
      .record(
        {
          properties: fc.dictionary(fc.constantFrom(...NAMES), tie('schema'), { maxKeys: 2 }),
          patternProperties: fc.dictionary(fc.constantFrom(...NAMES), tie('schema'), { maxKeys: 1 }),
          $defs: fc.dictionary(fc.constantFrom(...NAMES), tie('schema'), { maxKeys: 1 }),
          dependencies: fc.dictionary(fc.constantFrom(...NAMES), fc.oneof(fc.constant(['a']), tie('schema')), { maxKeys: 1 }),
          items: tie('schema'),
          allOf: fc.array(tie('schema'), { maxLength: 2 }),
        },
        { requiredKeys: [] },
      )
      .chain((node) => leaf.map((l) => ({ ...l, ...node }))),
  ),
}))

/** `schema` with annotations added and changed where keywords stand (the oracle's reading: still the same schema). */
function annotated(value: unknown, salt: number): unknown {
  if (Array.isArray(value)) return value.map((v) => annotated(v, salt))
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = { title: `t${salt}`, 'x-salt': salt, $comment: 'c' }
  for (const [key, member] of Object.entries(value)) {
    if (DATA.includes(key)) out[key] = member
    else if (NAME_MAPS.includes(key) && member !== null && typeof member === 'object' && !Array.isArray(member))
      out[key] = Object.fromEntries(Object.entries(member).map(([name, m]) => [name, annotated(m, salt + 1)]))
    else if (!ANNOTATIONS.has(key) && !key.startsWith('x-')) out[key] = annotated(member, salt + 1)
  }
  return out
}

describe('NATS schema equality (pipelines, binding proofs) reads names and data as such', () => {
  it('agrees with the oracle on random pairs, and on a schema against itself with annotations changed', () => {
    let different = 0
    fc.assert(
      fc.property(schema, schema, fc.nat(9), (a, b, salt) => {
        expect(same(a, annotated(a, salt))).toBe(true)
        const verdict = same(a, b)
        expect(verdict).toBe(oracleSame(a, b))
        if (!verdict) different++
      }),
      { numRuns: 400, seed: 20261206 },
    )
    // Random pairs are mostly different (the annotated copy is the equal case): both verdicts are reached.
    expect(different).toBeGreaterThan(100)
  })

  it.each([
    ['a pattern property named description', { patternProperties: { description: { type: 'string' } } }, { patternProperties: {} }],
    ['a definition named x-id', { $defs: { 'x-id': { type: 'string' } } }, { $defs: {} }],
    ['a dependency named title', { dependencies: { title: ['a'] } }, { dependencies: {} }],
    ['const objects differing in a title member', { const: { title: 'a' } }, { const: { title: 'b' } }],
    ['enum objects differing in a description member', { enum: [{ description: 1 }] }, { enum: [{ description: 2 }] }],
    ['a const holding $ref text', { const: { $ref: '#/a' } }, { const: { $ref: '#/b' } }],
  ])('%s: different schemas', (_, a, b) => {
    expect(oracleSame(a, b)).toBe(false)
    expect(same(a, b)).toBe(false)
  })
})
