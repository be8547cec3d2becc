/**
 * The editor schemas (schemas/) as the editors docs/editors.md names read them, against what
 * `contracts check` says of the same text. test/editor-schemas.test.ts holds ajv's verdicts to the
 * checker's; two editors read some documents otherwise than ajv does, and the schemas must give
 * the checker's verdict there too:
 *
 * - VS Code's JSON support (vscode-json-languageservice) takes a number written with a decimal
 *   point (`6.0`, `1.2e1`) as no integer (its parser: `isInteger = text.indexOf('.') === -1`),
 *   where the checker reads the value (6, 12). Emulated here: `type: integer` never holds for
 *   such a number.
 * - The YAML language server merges a `<<` key (YAML 1.1 merge keys) before it judges members,
 *   required ones and `additionalProperties`, and judges the literal key only by `propertyNames`.
 *   The build merges it too (with the warning YAML_MERGE_KEY), so the schemas say nothing of it.
 *
 * Both were found by running those editors' validators (vscode-json-languageservice 5.7,
 * yaml-language-server 2.0) on the repository's contracts, on the families of
 * test/editor-schemas.test.ts and on these cases: they agree with ajv everywhere else.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv } from 'ajv'
import { parse as parseYaml } from 'yaml'
import { describe, expect, it } from 'vitest'
import { ContractCompiler } from '../src/index.js'
import { editorSchemas } from '../scripts/editor-schemas.js'
import { sampleOf, type Schema } from './helpers/schema-family.js'

const root = join(import.meta.dirname, '..')
const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true, code: { optimize: false } })
const readSchema = (file: string): Schema => JSON.parse(readFileSync(join(root, 'schemas', file), 'utf8')) as Schema

/** Every subschema of `schema` (members, items, branches), with its pointer in the schema. */
function* subschemas(schema: unknown, at = ''): Generator<[string, Schema]> {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return
  const node = schema as Schema
  yield [at, node]
  for (const [name, member] of Object.entries<unknown>(node.properties ?? {})) yield* subschemas(member, `${at}/properties/${name}`)
  for (const key of ['items', 'additionalProperties', 'propertyNames', 'not', 'if', 'then', 'else'])
    if (typeof node[key] === 'object') yield* subschemas(node[key], `${at}/${key}`)
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    for (const [i, branch] of ((node[key] ?? []) as unknown[]).entries()) yield* subschemas(branch, `${at}/${key}/${i}`)
}

/** `schema` as VS Code's JSON support applies it to a document whose numbers are all written with a decimal point: `type: integer` never holds. */
function withPointedNumbers(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withPointedNumbers)
  if (typeof schema !== 'object' || schema === null) return schema
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema))
    out[key] =
      key === 'properties'
        ? Object.fromEntries(Object.entries(value as object).map(([name, member]) => [name, withPointedNumbers(member)]))
        : key === 'enum' || key === 'const' || key === 'required'
          ? value
          : withPointedNumbers(value)
  const types = out.type === undefined ? [] : Array.isArray(out.type) ? out.type : [out.type]
  if (types.includes('integer')) {
    const rest = types.filter((t) => t !== 'integer')
    if (rest.length === 0) {
      delete out.type
      out.not = {}
    } else out.type = rest
  }
  return out
}

const pointed = (text: string, member: string, value: string) => {
  const pattern = new RegExp(`("${member}": )\\d+`)
  expect(text).toMatch(pattern)
  return text.replace(pattern, `$1${value}`)
}

describe('the editor schemas as VS Code reads a JSON number written with a decimal point', () => {
  it('the emulation refuses what VS Code refuses: 6.0 for a bare `type: integer`', () => {
    expect(ajv.validate(withPointedNumbers({ type: 'integer' }) as Schema, 6)).toBe(false)
    expect(ajv.validate(withPointedNumbers({ type: 'number' }) as Schema, 6)).toBe(true)
  })

  it('the checker accepts 6.0 and 1.2e1 for an integer member (JSON numbers, values 6 and 12)', async () => {
    const file = join(root, 'conformance/nats/subjects.asyncapi.json')
    const text = pointed(pointed(readFileSync(file, 'utf8'), 'minLength', '6.0'), 'maxLength', '1.2e1')
    const { diagnostics } = await new ContractCompiler({ overlay: { text: (path) => (path === file ? text : undefined) } }).compile(file, {
      declarations: false,
    })
    expect(diagnostics).toEqual([])
    const schema = readSchema('asyncapi-nats.schema.json')
    expect(ajv.validate(withPointedNumbers(schema) as Schema, JSON.parse(text)), JSON.stringify(ajv.errors)).toBe(true)
  })

  it.each(editorSchemas().map((s) => s.file))('%s: a document with every member, each number written with a point, is valid', (file) => {
    const schema = readSchema(file)
    const doc = sampleOf(schema)
    expect(ajv.validate(schema, doc), JSON.stringify(ajv.errors)).toBe(true)
    expect(ajv.validate(withPointedNumbers(schema) as Schema, doc), JSON.stringify(ajv.errors)).toBe(true)
  })

  it('a fraction is still refused where the checker asks for an integer (6.5)', () => {
    const schema = readSchema('asyncapi-nats.schema.json')
    const doc = JSON.parse(pointed(readFileSync(join(root, 'conformance/nats/subjects.asyncapi.json'), 'utf8'), 'minLength', '6.5'))
    expect(ajv.validate(schema, doc)).toBe(false)
    expect(ajv.validate(withPointedNumbers(schema) as Schema, doc)).toBe(false)
    // ...and a whole number too large for ajv's multipleOf (1e21) keeps its verdict: valid as an integer.
    const huge = JSON.parse(pointed(readFileSync(join(root, 'conformance/nats/subjects.asyncapi.json'), 'utf8'), 'maxLength', '1e21'))
    expect(ajv.validate(schema, huge), JSON.stringify(ajv.errors)).toBe(true)
  })
})

describe('a YAML merge key (`<<`) in x-nats-contract', () => {
  const file = join(root, 'fixtures/nats/valid/ledger.asyncapi.yaml')
  const original = readFileSync(file, 'utf8')
  const line = "    entryId: { kind: token, alphabet: hex, first: any, minLength: 12, maxLength: 12, prefix: '' }"
  expect(original).toContain(line)
  const merged = original.replace(line, `${line.replace('entryId: ', 'entryId: &hex12 ')}\n    otherId: { <<: *hex12, prefix: o }`)
  const schema = readSchema('asyncapi-nats.schema.json')

  it('the build merges it, as the YAML language server does: no shape error, the warning YAML_MERGE_KEY at the key', async () => {
    const { diagnostics, code } = await new ContractCompiler({ overlay: { text: (path) => (path === file ? merged : undefined) } }).compile(file, {
      declarations: false,
    })
    expect(code).toBeDefined()
    expect(diagnostics.map((d) => `${d.code} ${d.pointer}`)).toEqual(['YAML_MERGE_KEY /x-nats-contract/tokenTypes/otherId'])
  })

  it('the YAML language server judges the merged document, which the schema accepts; no closed object refuses the key by propertyNames', () => {
    // What that editor judges the members by: the document with the merge made.
    const view = parseYaml(merged, { merge: true }) as Record<string, any>
    expect(view['x-nats-contract'].tokenTypes.otherId.kind).toBe('token')
    expect(view['x-nats-contract'].tokenTypes.otherId.prefix).toBe('o')
    expect(ajv.validate(schema, view), JSON.stringify(ajv.errors)).toBe(true)
    // The literal key, which that editor judges by propertyNames alone, is refused by none: the build merges it.
    const closed = [...subschemas(schema.properties['x-nats-contract'], '/properties/x-nats-contract')].filter(([, s]) => s.additionalProperties === false)
    expect(closed.length).toBeGreaterThan(20)
    for (const [at, s] of closed) expect(ajv.validate({ type: 'object', propertyNames: s.propertyNames ?? true }, { '<<': {} }), at).toBe(true)
  })
})

describe('the editor schemas need no network', () => {
  it.each(editorSchemas().map((s) => s.file))('%s has no $ref but to itself', (file) => {
    const refs = JSON.stringify(readSchema(file)).match(/"\$ref":"[^"]*"/g) ?? []
    for (const ref of refs) expect(ref).toMatch(/^"\$ref":"#/)
    expect(readSchema(file).$id).toBeUndefined()
  })
})
