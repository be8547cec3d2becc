/**
 * The AsyncAPI validator precompiled at build time (scripts/precompile-asyncapi.mjs, in dist/) gives
 * the verdicts of the one compiled at run time, on every NATS document of the fixtures and on
 * one-member edits of them, and refuses by the same keyword of the same schema first.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

const root = join(import.meta.dirname, '..')
const require = createRequire(import.meta.url)

/**
 * A validator's first error without its `instancePath`: the precompiled validators are read for
 * their verdict only and do not build the paths of nested values (scripts/precompile-asyncapi.mjs,
 * `verdictOnly`); which keyword of which schema refused is still theirs to agree on.
 */
function firstError(validate: { errors?: Array<{ instancePath?: string }> | null }): unknown {
  const error = validate.errors?.[0]
  if (!error) return error
  const { instancePath: _path, ...rest } = error
  return rest
}

function documents(): Array<[string, unknown]> {
  const dirs = ['fixtures/nats/valid', 'fixtures/nats/invalid']
  const out: Array<[string, unknown]> = []
  for (const dir of dirs)
    for (const f of readdirSync(join(root, dir))) {
      if (!f.endsWith('.yaml')) continue
      // Fixtures that are not YAML mappings at all (duplicate keys, ...) never reach the schema.
      try {
        out.push([`${dir}/${f}`, parse(readFileSync(join(root, dir, f), 'utf8'))])
      } catch {
        continue
      }
    }
  for (const app of ['orders', 'payments', 'shipping']) {
    const rel = `fixtures/nats/shop/${app}/asyncapi/asyncapi.yaml`
    out.push([rel, parse(readFileSync(join(root, rel), 'utf8'))])
  }
  // Edits the schema decides: a wrong type, a member it does not allow, a bad format, a missing member.
  const base = out[0]![1] as Record<string, any>
  out.push(['edit: info.version a number', { ...base, info: { ...base.info, version: 2 } }])
  out.push(['edit: an unknown root member', { ...base, extra: true }])
  out.push(['edit: a contact email that is not one', { ...base, info: { ...base.info, contact: { email: 'not an email' } } }])
  out.push(['edit: no info', { ...base, info: undefined }])
  // Deep in the document, where the paths the precompiled validators leave unbuilt would be longest.
  out.push(['edit: a channel address a number', { ...base, channels: { ...base.channels, deep: { address: 5 } } }])
  out.push([
    'edit: an operation action unknown',
    { ...base, operations: { ...base.operations, deep: { action: 'sideways', channel: { $ref: '#/channels/deep' } } } },
  ])
  out.push(['edit: a message header not a schema', { ...base, components: { ...base.components, messages: { deep: { headers: 3 } } } }])
  return out
}

describe('the precompiled AsyncAPI validator', () => {
  it('agrees with the run-time compile, verdict and first error, on every document', () => {
    const precompiled = require(join(root, 'dist/src/formats/nats/asyncapi-validators.cjs'))
    const Ajv = require('ajv').default
    const addFormats = require('ajv-formats')
    const ajv = new Ajv({ strict: false, validateFormats: true, allErrors: false })
    addFormats(ajv)
    ajv.addFormat('uri-reference', true)
    // A pattern is the pattern rules' (NATS_PATTERN_INVALID), as the run-time compile leaves it (rules/standard.ts).
    ajv.addFormat('regex', true)
    const runtime = ajv.compile(require('@asyncapi/specs/schemas/3.1.0-without-$id.json'))
    const docs = documents()
    expect(docs.length).toBeGreaterThan(50)
    let refused = 0
    for (const [name, doc] of docs) {
      const a = precompiled(doc)
      const b = runtime(doc)
      expect([name, a, a ? null : firstError(precompiled)]).toEqual([name, b, b ? null : firstError(runtime)])
      if (!a) refused++
    }
    // Both verdicts were exercised.
    expect(refused).toBeGreaterThan(3)
    expect(refused).toBeLessThan(docs.length)
  })

  it('the precompiled cut validator (NATS contracts) agrees with the run-time compile wherever the compiler runs it', async () => {
    const cut = require(join(root, 'dist/src/formats/nats/asyncapi-nats-validator.cjs'))
    const { needsFullSchema } = await import('../src/formats/nats/rules/standard-split.js')
    const Ajv = require('ajv').default
    const addFormats = require('ajv-formats')
    const ajv = new Ajv({ strict: false, validateFormats: true, allErrors: false })
    addFormats(ajv)
    ajv.addFormat('uri-reference', true)
    // A pattern is the pattern rules' (NATS_PATTERN_INVALID), as the run-time compile leaves it (rules/standard.ts).
    ajv.addFormat('regex', true)
    const runtime = ajv.compile(require('@asyncapi/specs/schemas/3.1.0-without-$id.json'))
    let answered = 0
    for (const [name, doc] of documents()) {
      if (needsFullSchema(doc, cut.cut)) continue
      answered++
      const a = cut(doc)
      expect([name, a, a ? null : firstError(cut)]).toEqual([name, runtime(doc), a ? null : firstError(runtime)])
    }
    expect(answered).toBeGreaterThan(50)
  })

  it('the precompiled profile validator agrees with the run-time compile on every x-nats-contract object and edits of it', async () => {
    const precompiled = require(join(root, 'dist/src/formats/nats/profile-validator.cjs'))
    const { profileSchema } = await import('../src/formats/nats/profile-schema.js')
    const Ajv = require('ajv').default
    const runtime = new Ajv({ strict: false, validateFormats: false, allErrors: false }).compile(profileSchema)
    const profiles = documents().flatMap(([name, doc]) => {
      const profile = (doc as Record<string, any> | undefined)?.['x-nats-contract']
      return profile === undefined ? [] : [[name, profile] as const]
    })
    const base = profiles[0]![1]
    const edits: Array<readonly [string, unknown]> = [
      ['edit: version a number', { ...base, version: 2 }],
      ['edit: an unknown member', { ...base, extra: true }],
      ['edit: no contract', { ...base, contract: undefined }],
      ['edit: channels a list', { ...base, channels: [] }],
    ]
    let refused = 0
    for (const [name, profile] of [...profiles, ...edits]) {
      const a = precompiled(profile)
      const b = runtime(profile)
      expect([name, a, a ? null : firstError(precompiled)]).toEqual([name, b, b ? null : firstError(runtime)])
      if (!a) refused++
    }
    expect(profiles.length).toBeGreaterThan(40)
    expect(refused).toBeGreaterThan(3)
  })
})

describe('the precompiled JSON Schema meta-schema validator', () => {
  it('agrees with ajv.validateSchema on payload schemas, valid and broken', () => {
    const precompiled = require(join(root, 'dist/src/core/meta-schema-validator.cjs'))
    const Ajv = require('ajv').default
    const ajv = new Ajv({ strict: false, validateFormats: false })
    const schemas: unknown[] = [
      {},
      true,
      { type: 'object', properties: { a: { type: 'string', pattern: '^a' } }, required: ['a'] },
      { type: ['string', 'null'], enum: ['x', null] },
      { allOf: [{ $ref: '#/definitions/x' }], definitions: { x: { minimum: 1 } } },
      { type: 'strin' },
      { required: 'a' },
      { properties: [] },
      { minLength: -1 },
      { items: 3 },
      { enum: [] },
    ]
    let refused = 0
    for (const schema of schemas) {
      expect([schema, precompiled(schema)]).toEqual([schema, ajv.validateSchema(schema)])
      if (!precompiled(schema)) refused++
    }
    expect(refused).toBeGreaterThan(3)
  })
})

describe("the precompiled validators with this machine's code cache (src/core/code-cache.ts)", () => {
  it('give the verdicts of the files required as they are', async () => {
    const cacheRoot = mkdtempSync(join(tmpdir(), 'code-cache-verdicts-'))
    const file = join(root, 'dist/src/formats/nats/asyncapi-validators.cjs')
    const loader = join(root, 'dist/src/core/lazy-require.js')
    // A first process makes the cache when it exits.
    const first = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', `import { loadBuilt } from ${JSON.stringify(loader)}; loadBuilt(${JSON.stringify(file)})`],
      {
        env: { ...process.env, UNPLUGIN_CONTRACTS_CACHE_DIR: cacheRoot },
      },
    )
    expect(first.status).toBe(0)
    const previous = process.env.UNPLUGIN_CONTRACTS_CACHE_DIR
    process.env.UNPLUGIN_CONTRACTS_CACHE_DIR = cacheRoot
    try {
      const { loadBuilt } = await import('../dist/src/core/lazy-require.js')
      const asyncapi = loadBuilt(file)
      expect(asyncapi.cache).toBe('used')
      const cached = asyncapi.exports as ((doc: unknown) => boolean) & { errors?: unknown[] }
      const required = require(file)
      for (const [name, doc] of documents()) {
        const a = cached(doc)
        expect([name, a, a ? null : cached.errors?.[0]]).toEqual([name, required(doc), a ? null : required.errors?.[0]])
      }
    } finally {
      if (previous === undefined) delete process.env.UNPLUGIN_CONTRACTS_CACHE_DIR
      else process.env.UNPLUGIN_CONTRACTS_CACHE_DIR = previous
      rmSync(cacheRoot, { recursive: true, force: true })
    }
  })
})
