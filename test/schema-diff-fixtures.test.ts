/**
 * The schema diff on the Benzene corpus (OpenAPI 3.0 documents as .NET producers write them, with
 * `nullable`, discriminators, `allOf` hierarchies and `$ref` everywhere): every component diffs
 * equal to itself, and simple real edits (a required member dropped, `nullable` flipped, a
 * property dropped from a closed object) fire their rule at the keyword's pointer.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { diffSchemas } from '../src/core/diff/schema-diff.js'
import { sideOf } from './helpers/schema-diff.js'

const corpus = join(import.meta.dirname, '../fixtures/benzene')
const files = [
  ...readdirSync(join(corpus, 'corpus'))
    .filter((f) => f.endsWith('.spec.json'))
    .map((f) => join(corpus, 'corpus', f)),
  join(corpus, 'valid/inheritance.spec.json'),
  join(corpus, 'valid/schema-features.spec.json'),
]

type Doc = { components: { schemas: Record<string, Record<string, unknown>> } }
const load = (file: string): Doc => JSON.parse(readFileSync(file, 'utf8')) as Doc
const pointer = (name: string) => `/components/schemas/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`
const diff = (file: string, old: Doc, next: Doc, name: string) =>
  diffSchemas(sideOf(old, pointer(name), { file }), sideOf(next, pointer(name), { file }), { dialect: 'openapi-3.0' })

describe('schema diff on the Benzene corpus', () => {
  it('every component diffs equal to itself (no change, not even unknown)', () => {
    let compared = 0
    for (const file of files) {
      const doc = load(file)
      for (const name of Object.keys(doc.components.schemas)) {
        expect(diff(file, doc, load(file), name), `${file} ${name}`).toEqual([])
        compared++
      }
    }
    expect(compared).toBeGreaterThan(100)
  })

  it('real edits fire their rule at the keyword', () => {
    let edits = 0
    for (const file of files) {
      const original = load(file)
      for (const [name, schema] of Object.entries(original.components.schemas)) {
        const required = Array.isArray(schema.required) ? (schema.required as string[]) : []
        if (required.length) {
          const next = load(file)
          next.components.schemas[name]!.required = required.slice(1)
          const changes = diff(file, original, next, name)
          expect(changes, `${file} ${name}`).toContainEqual(
            expect.objectContaining({ rule: 'schema-required-removed', effect: 'widens', new: { file, pointer: `${pointer(name)}/required` } }),
          )
          edits++
        }
        const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>
        const plain = Object.keys(properties).find((key) => typeof properties[key]!.type === 'string' && properties[key]!.$ref === undefined)
        if (plain !== undefined) {
          const next = load(file)
          const property = (next.components.schemas[name]!.properties as Record<string, Record<string, unknown>>)[plain]!
          const wasNullable = property.nullable === true
          if (wasNullable) delete property.nullable
          else property.nullable = true
          const changes = diff(file, original, next, name)
          const rule = wasNullable ? 'schema-nullable-removed' : 'schema-nullable-added'
          const found = changes.find((c) => c.rule === rule)
          expect(found, `${file} ${name} ${JSON.stringify(changes)}`).toBeDefined()
          expect(found!.effect).toBe(wasNullable ? 'narrows' : 'widens')
          expect((wasNullable ? found!.old : found!.new)!.pointer).toBe(`${pointer(name)}/properties/${plain}/nullable`)
          edits++
        }
        if (schema.additionalProperties === false && plain !== undefined && schema.allOf === undefined) {
          const next = load(file)
          delete (next.components.schemas[name]!.properties as Record<string, unknown>)[plain]
          const changes = diff(file, original, next, name)
          // A discriminated parent is also reached as an allOf member of its descendants, where
          // OpenAPI 3.0 merges property lists: there the same change is unknown, and the two readings join.
          const effect = schema.discriminator === undefined ? 'narrows' : expect.stringMatching(/^(narrows|unknown)$/)
          expect(changes, `${file} ${name}`).toContainEqual(expect.objectContaining({ rule: 'schema-property-removed', effect }))
          edits++
        }
      }
    }
    expect(edits).toBeGreaterThan(50)
  })

  it('a Pet hierarchy: a mapping retargeted to an equal schema is none, a narrower one narrows', () => {
    const file = join(corpus, 'valid/inheritance.spec.json')
    const old = load(file)
    const same = load(file)
    same.components.schemas.Kitty = JSON.parse(JSON.stringify(same.components.schemas.Cat))
    ;(same.components.schemas.Pet!.discriminator as { mapping: Record<string, string> }).mapping.Cat = '#/components/schemas/Kitty'
    const none = diff(file, old, same, 'Pet')
    expect(none.map((c) => [c.rule, c.effect])).toContainEqual(['schema-discriminator-mapping-changed', 'none'])
    expect(none.every((c) => c.effect === 'none')).toBe(true)
    const narrower = load(file)
    const lion = narrower.components.schemas.Lion!.allOf as Array<Record<string, unknown>>
    ;(lion[1]!.properties as Record<string, Record<string, unknown>>).maneLength!.maximum = 100
    const changes = diff(file, old, narrower, 'Pet')
    expect(changes).toContainEqual(
      expect.objectContaining({
        rule: 'schema-maximum-decreased',
        effect: 'narrows',
        new: { file, pointer: '/components/schemas/Lion/allOf/1/properties/maneLength/maximum' },
      }),
    )
  })
})
