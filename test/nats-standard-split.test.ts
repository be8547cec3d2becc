/**
 * The AsyncAPI 3.1.0 schema cut to what a NATS contract reaches (src/formats/nats/rules/standard-split.ts)
 * judges as the full official schema does: on every AsyncAPI document of the fixtures and on
 * generated one-edit mutations of them, whenever `needsFullSchema` lets the cut schema answer, its
 * first-error verdict and error, and its all-errors list, are the full schema's.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { natsStandardSchema, needsFullSchema, withoutAnnotations } from '../src/formats/nats/rules/standard-split.js'
import type { ValidateFunction } from 'ajv'
import { random } from './helpers/seeded-random.js'

const root = join(import.meta.dirname, '..')
const require = createRequire(import.meta.url)
const official = require('@asyncapi/specs/schemas/3.1.0-without-$id.json') as object
const { schema: cutSchema, cut } = natsStandardSchema(official)

/** The validator of `schema` with the compiler's options (src/formats/nats/rules/standard.ts). */
function validator(schema: object, allErrors: boolean): ValidateFunction {
  const Ajv = require('ajv').default
  const addFormats = require('ajv-formats')
  const ajv = new Ajv({ strict: false, validateFormats: true, allErrors, code: { optimize: false } })
  addFormats(ajv)
  ajv.addFormat('uri-reference', true)
  return ajv.compile(schema)
}

/** Every YAML file under `dir` (bounded depth) that reads as an AsyncAPI document. */
function asyncapiDocuments(dir: string, depth = 0, out: Array<[string, unknown]> = []): Array<[string, unknown]> {
  if (depth > 12) return out
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`
    if (entry.isDirectory()) asyncapiDocuments(rel, depth + 1, out)
    else if (entry.name.endsWith('.yaml')) {
      let doc: unknown
      try {
        doc = parse(readFileSync(join(root, rel), 'utf8'), { uniqueKeys: false })
      } catch {
        continue // not YAML at all: never reaches the schema
      }
      if (typeof doc === 'object' && doc !== null && 'asyncapi' in doc) out.push([rel, doc])
    }
  }
  return out
}

type Path = Array<string | number>
/** Every container's path in `doc`. */
function containers(doc: unknown, path: Path = [], out: Path[] = []): Path[] {
  if (typeof doc !== 'object' || doc === null) return out
  out.push(path)
  for (const [key, value] of Object.entries(doc)) containers(value, [...path, Array.isArray(doc) ? Number(key) : key], out)
  return out
}

/** Values an edit puts somewhere: wrong types, members the schema knows, bindings of NATS and of other protocols, schema formats. */
const REPLACEMENTS: unknown[] = [
  7,
  'text',
  null,
  true,
  [],
  {},
  { $ref: '#/components/schemas/Nothing' },
  { nats: { queue: 'workers', bindingVersion: '0.1.0' } },
  { nats: { queue: 7 } },
  { nats: { bindingVersion: '9.9.9' } },
  { kafka: { bindingVersion: '0.5.0', key: { type: 'string' } } },
  { kafka: { key: 7 } },
  { amqp: { is: 'queue', queue: { name: 3 } } },
  { http: { method: 'GRAB' } },
  { ws: {} },
  { schemaFormat: 'application/vnd.apache.avro;version=1.9.0', schema: { type: 'record', name: 3 } },
  { schemaFormat: 'application/vnd.oai.openapi;version=3.0.0', schema: { type: 'object', nullable: 'yes' } },
  { schemaFormat: 'application/schema+json;version=draft-07', schema: { type: 'strin' } },
  { schemaFormat: 'application/vnd.aai.asyncapi+json;version=3.1.0', schema: { type: 'strin' } },
  { schemaFormat: 'application/x-unknown', schema: {} },
  { type: 'object', properties: { http: { type: 'string' }, kafka: { type: 'integer' } } },
]
const BINDINGS: unknown[] = REPLACEMENTS.slice(6, 15)
const MEMBER_NAMES = [
  'bindings',
  'kafka',
  'nats',
  'http',
  'schemaFormat',
  'payload',
  'serverBindings',
  'extra',
  'x-extra',
  'description',
  '$ref',
  'address',
  'type',
]

/** `count` one-edit mutations of `doc`: a member replaced, removed or added, at a seeded position. */
function mutations(doc: unknown, seed: number, count: number): unknown[] {
  const next = random(seed)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!
  const paths = containers(doc)
  // Servers, channels, operations and messages: where a bindings object is checked.
  const bindable = paths.filter((path) => /^(servers|channels|operations|messages)$/.test(String(path.at(-2))) && !Array.isArray(path.at(-1)))
  const out: unknown[] = []
  for (let i = 0; i < count; i++) {
    const copy = structuredClone(doc) as Record<string | number, unknown>
    let at: Record<string | number, unknown> = copy
    const kind = next()
    for (const key of kind < 0.25 && bindable.length > 0 ? pick(bindable) : pick(paths)) at = at[key] as Record<string | number, unknown>
    const keys = Object.keys(at)
    if (kind < 0.25 && bindable.length > 0) at.bindings = structuredClone(pick(BINDINGS))
    else if (kind < 0.55 && keys.length > 0) at[pick(keys)] = structuredClone(pick(REPLACEMENTS))
    else if (kind < 0.7 && keys.length > 0) {
      if (Array.isArray(at)) at.splice(Number(pick(keys)), 1)
      else delete at[pick(keys)]
    } else if (Array.isArray(at)) at.push(structuredClone(pick(REPLACEMENTS)))
    else at[pick(MEMBER_NAMES)] = structuredClone(pick(REPLACEMENTS))
    out.push(copy)
  }
  return out
}

describe('the AsyncAPI 3.1.0 schema cut for NATS contracts', () => {
  const fullFirst = validator(official, false)
  const cutFirst = validator(withoutAnnotations(cutSchema) as object, false)
  const fullAll = validator(official, true)
  const cutAll = validator(withoutAnnotations(cutSchema) as object, true)
  const documents = asyncapiDocuments('fixtures')

  /** Checks one document; returns which validator answered and the verdict. */
  function agree(name: string, doc: unknown): { full: boolean; valid: boolean } {
    const full = needsFullSchema(doc, cut)
    const expected = fullFirst(doc)
    if (!full) {
      const valid = cutFirst(doc)
      expect([name, valid, cutFirst.errors ?? null]).toEqual([name, expected, fullFirst.errors ?? null])
      const all = cutAll(doc)
      expect([name, all, cutAll.errors ?? null]).toEqual([name, fullAll(doc), fullAll.errors ?? null])
    }
    return { full, valid: expected }
  }

  it('cuts the other protocols and schema formats, and keeps NATS and the AsyncAPI formats', () => {
    expect(cut.protocols).toContain('kafka')
    expect(cut.protocols).not.toContain('nats')
    expect(cut.schemaFormats).toContain('application/vnd.apache.avro;version=1.9.0')
    expect(cut.schemaFormats).toContain('application/vnd.oai.openapi;version=3.0.0')
    expect(cut.schemaFormats).not.toContain('application/vnd.aai.asyncapi+json;version=3.1.0')
    // The official schema object is not changed.
    expect(JSON.stringify(official)).toContain('bindings-kafka-0.5.0-server')
  })

  it('gives the full schema verdicts and errors on every fixture', () => {
    expect(documents.length).toBeGreaterThan(200)
    const seen = { cut: 0, full: 0, refused: 0 }
    for (const [name, doc] of documents) {
      const { full, valid } = agree(name, doc)
      seen[full ? 'full' : 'cut']++
      if (!valid) seen.refused++
    }
    expect(seen.cut).toBeGreaterThan(200)
    // The Avro payload fixture needs the full schema.
    expect(seen.full).toBeGreaterThan(0)
    expect(seen.refused).toBeGreaterThan(3)
  })

  it('gives the full schema verdicts and errors on generated mutations', () => {
    const bases = documents.filter(([name]) => /fixtures\/nats\/(valid|shop|client|invalid)\//.test(name)).slice(0, 40)
    const seen = { cut: 0, full: 0, refused: 0, accepted: 0 }
    bases.forEach(([name, doc], i) => {
      for (const [j, mutation] of mutations(doc, 1000 + i, 60).entries()) {
        const { full, valid } = agree(`${name} mutation ${j} (seed ${1000 + i})`, mutation)
        seen[full ? 'full' : 'cut']++
        seen[valid ? 'accepted' : 'refused']++
      }
    })
    // Each side of the gate and each verdict were exercised.
    expect(seen.cut).toBeGreaterThan(1000)
    expect(seen.full).toBeGreaterThan(50)
    expect(seen.refused).toBeGreaterThan(100)
    expect(seen.accepted).toBeGreaterThan(100)
  })

  it('sends a document to the full schema for a cut protocol in any bindings position or a cut schema format anywhere', () => {
    const base = { asyncapi: '3.1.0', info: { title: 't', version: '1' } }
    expect(needsFullSchema(base, cut)).toBe(false)
    expect(needsFullSchema({ ...base, servers: { s: { host: 'h', protocol: 'nats', bindings: { nats: {} } } } }, cut)).toBe(false)
    expect(needsFullSchema({ ...base, servers: { s: { host: 'h', protocol: 'kafka', bindings: { kafka: {} } } } }, cut)).toBe(true)
    expect(needsFullSchema({ ...base, components: { channelBindings: { b: { amqp: {} } } } }, cut)).toBe(true)
    expect(
      needsFullSchema({ ...base, components: { messages: { m: { payload: { schemaFormat: 'application/vnd.apache.avro+yaml;version=1.9.0' } } } } }, cut),
    ).toBe(true)
    // A payload property named for a protocol is no binding.
    expect(needsFullSchema({ ...base, components: { schemas: { s: { properties: { kafka: { type: 'string' } } } } } }, cut)).toBe(false)
    // A value reached twice (a YAML alias) is walked once, and a cycle ends.
    const shared: Record<string, unknown> = { bindings: { nats: {} } }
    shared.self = shared
    expect(needsFullSchema({ ...base, a: shared, b: shared }, cut)).toBe(false)
  })

  it('keeps data named like an annotation when it drops annotations', () => {
    const schema = {
      description: 'gone',
      properties: { description: { type: 'string', title: 'gone' }, examples: { enum: [{ description: 'kept' }] } },
      items: [{ $comment: 'gone', const: { title: 'kept' } }],
      dependencies: { a: ['description'], b: { examples: [1] } },
    }
    expect(withoutAnnotations(schema)).toEqual({
      properties: { description: { type: 'string' }, examples: { enum: [{ description: 'kept' }] } },
      items: [{ const: { title: 'kept' } }],
      dependencies: { a: ['description'], b: {} },
    })
  })
})
