/**
 * The producer corpus (fixtures/benzene/producers/): Benzene contracts converted from OpenAPI 3.0
 * documents that real producers (ASP.NET Core's generator, Swashbuckle, NSwag, Benzene itself)
 * committed to public repositories, each with samples of what the producer's service sends, labelled
 * valid or invalid by the specifications. This is an acceptance gate, not a description of the
 * current generator: every sample gets the generated validator's verdict (requests through a
 * client's `send`, responses through a local sender's reply) and the verdict of an independent
 * OpenAPI 3.0 reading (helpers/openapi30-oracle.ts), and both must equal the label. Every payload
 * the generated validator accepts must type-check against the generated declarations, and the
 * invalid payloads the types are meant to refuse (`types: "refuse"`) must be refused: one
 * `tsc --strict` run for the whole corpus. Each document is compiled once.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { createLocalSender, ok } from '../src/runtime/index.js'
import { loadModule } from './helpers/load-module.js'
import { OpenApi30Oracle, type Direction } from './helpers/openapi30-oracle.js'
import { typecheck } from './helpers/typecheck.js'

const corpus = join(import.meta.dirname, '../fixtures/benzene/producers')
const work = join(import.meta.dirname, '.tmp/producer-corpus')
const names = readdirSync(corpus).filter((n) => existsSync(join(corpus, n, `${n}.spec.json`)))

interface Sample {
  topic: string
  direction: Direction
  payload: unknown
  valid: boolean
  why: string
  /** The payload is invalid in a way the generated types are meant to refuse too. */
  types?: 'refuse'
}
interface Source {
  producer: string
  repository: string
  path: string
  commit: string
  license?: string
  note: string
}
/** A verdict: accepted (true), refused (false), or what went wrong instead. */
type Verdict = boolean | string
interface Checked {
  sample: Sample
  generated: Verdict
  oracle: Verdict
}
interface Document {
  name: string
  spec: { requests: Array<Record<string, any>>; components: { schemas: Record<string, any> } }
  source: Source
  original: Record<string, any>
  samples: Sample[]
  errors: string[]
  warnings: string[]
  dts: string
  checked: Checked[]
}

const read = (name: string, file: string) => JSON.parse(readFileSync(join(corpus, name, file), 'utf8'))
const documents = new Map<string, Document>()

/** The request that carries a response sample: the topic's first valid request sample, or `{}` for `Void`. */
function carrier(doc: Document, topic: string): { payload: unknown } | undefined {
  const sample = doc.samples.find((s) => s.topic === topic && s.direction === 'request' && s.valid)
  if (sample) return { payload: sample.payload }
  const entry = doc.spec.requests.find((r) => r.topic === topic)
  return entry?.request?.$ref === '#/components/schemas/Void' ? { payload: {} } : undefined
}

async function generatedVerdict(mod: Record<string, any>, doc: Document, sample: Sample): Promise<Verdict> {
  const client = mod.topics[sample.topic]
  if (!client) return `no client for ${sample.topic}`
  if (sample.direction === 'request') {
    // The handler answers with no body, which the client does not check: only the request is judged.
    const result = await client.send(createLocalSender({ [client.topic]: () => undefined }), sample.payload)
    if (result.status === 'ok') return true
    if (result.status === 'validation-error') return false
    return `request: status ${result.status} ${JSON.stringify(result.errors)}`
  }
  const request = carrier(doc, sample.topic)
  if (!request) return 'no valid request sample to carry the response'
  const result = await client.send(createLocalSender({ [client.topic]: () => ok(sample.payload) }), request.payload)
  if (result.status === 'ok') return true
  const errors = result.errors as Array<{ code?: string }>
  if (result.status === 'unexpected-error' && errors.length > 0 && errors.every((e) => e.code?.startsWith('response:'))) return false
  return `response: the carrying request came back ${result.status} ${JSON.stringify(result.errors)}`
}

function oracleVerdict(oracle: OpenApi30Oracle, doc: Document, sample: Sample): Verdict {
  const entry = doc.spec.requests.find((r) => r.topic === sample.topic)
  if (!entry) return `no entry for ${sample.topic}`
  return oracle.validator(entry[sample.direction], sample.direction)(sample.payload)
}

beforeAll(async () => {
  for (const name of names) {
    const result = await compile(join(corpus, name, `${name}.spec.json`))
    const doc: Document = {
      name,
      spec: read(name, `${name}.spec.json`),
      source: read(name, 'source.json'),
      original: read(name, 'original.json'),
      samples: read(name, 'samples.json'),
      errors: result.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code} ${d.pointer}: ${d.message}`),
      warnings: result.diagnostics.filter((d) => d.severity !== 'error').map((d) => `${d.code} ${d.pointer}: ${d.message}`),
      dts: result.dts ?? '',
      checked: [],
    }
    documents.set(name, doc)
    if (result.code === undefined || doc.errors.length > 0) continue
    const mod = await loadModule(result.code, `producer-${name}`)
    const oracle = new OpenApi30Oracle(doc.spec.components.schemas)
    for (const sample of doc.samples)
      doc.checked.push({ sample, generated: await generatedVerdict(mod, doc, sample), oracle: oracleVerdict(oracle, doc, sample) })
  }
})

afterAll(() => {
  const warnings = [...documents.values()].flatMap((d) => d.warnings.map((w) => `${d.name}: ${w}`))
  if (warnings.length > 0) console.info(`producer corpus warnings:\n${warnings.join('\n')}`)
})

/** A sample, for a failure message: where it is, what it is, why it is labelled so, and the verdicts. */
const describeSample = (doc: Document, { sample, generated, oracle }: Checked) =>
  `${doc.name} #${doc.samples.indexOf(sample)} ${sample.topic} ${sample.direction} ${JSON.stringify(sample.payload)} -- label ${sample.valid}, oracle ${oracle}, generated ${generated} (${sample.why})`

// ---- What the corpus holds ----

type Schema = Record<string, any>
/** Every schema object of a document, inline ones included. */
function schemasOf(spec: Document['spec']): Schema[] {
  const found: Schema[] = []
  const walk = (s: unknown) => {
    if (typeof s !== 'object' || s === null) return
    if (Array.isArray(s)) return s.forEach(walk)
    found.push(s as Schema)
    for (const [key, value] of Object.entries(s)) {
      if (key === 'properties' && typeof value === 'object' && value !== null) Object.values(value).forEach(walk)
      else if (['items', 'additionalProperties', 'not', 'allOf', 'anyOf', 'oneOf'].includes(key)) walk(value)
    }
  }
  for (const entry of spec.requests) [entry.request, entry.response].forEach(walk)
  Object.values(spec.components.schemas).forEach(walk)
  return found
}
const refName = (s: Schema) => (typeof s.$ref === 'string' ? s.$ref.slice('#/components/schemas/'.length) : undefined)

/** `nullable: true` beside a `type` and a composition: ASP.NET Core's `{type: object, oneOf: [X], nullable: true}`. */
const nullableBesideComposition = (s: Schema) =>
  s.nullable === true && typeof s.type === 'string' && ['oneOf', 'anyOf', 'allOf'].some((k) => Array.isArray(s[k]))
/** A discriminator whose mapping keys are integers written as strings. */
const integerMapping = (s: Schema) => typeof s.discriminator?.mapping === 'object' && Object.keys(s.discriminator.mapping).some((k) => /^-?\d+$/.test(k))
/** `oneOf`/`anyOf` [Parent, Child...] with no discriminator of its own: Parent has one, a Child extends Parent. */
function parentAndChildren(s: Schema, schemas: Record<string, Schema>): boolean {
  const members = (s.oneOf ?? s.anyOf) as Schema[] | undefined
  if (!Array.isArray(members) || s.discriminator) return false
  const refs = members.map(refName)
  return refs.some(
    (parent) =>
      parent !== undefined &&
      schemas[parent]?.discriminator !== undefined &&
      refs.some((child) => child !== undefined && (schemas[child]?.allOf ?? []).some((m: Schema) => refName(m) === parent)),
  )
}

describe('the producer corpus', () => {
  it('holds at least 10 documents, each traced to a public repository at an exact commit, converted from OpenAPI 3.0', () => {
    expect(names.length).toBeGreaterThanOrEqual(10)
    for (const doc of documents.values()) {
      expect(doc.source.producer, doc.name).toMatch(/\S/)
      expect(doc.source.repository, doc.name).toMatch(/^[\w.-]+\/[\w.-]+$/)
      expect(doc.source.path, doc.name).toMatch(/\S/)
      expect(doc.source.commit, doc.name).toMatch(/^[0-9a-f]{40}$/)
      expect(doc.source.note, doc.name).toMatch(/\S/)
      expect(String(doc.original.openapi), doc.name).toMatch(/^3\.0\.\d+$/)
    }
  })

  it('carries the shapes real producers write: nullable beside a type and a composition, integer mapping keys, oneOf [parent, children]', () => {
    const all = [...documents.values()]
    const having = (test: (s: Schema, doc: Document) => boolean) => all.filter((doc) => schemasOf(doc.spec).some((s) => test(s, doc))).map((d) => d.name)
    expect(having(nullableBesideComposition)).not.toEqual([])
    expect(having(integerMapping)).not.toEqual([])
    expect(having((s, doc) => parentAndChildren(s, doc.spec.components.schemas))).not.toEqual([])
    // Each shape is exercised by samples on both sides.
    for (const name of ['aspnetcore-schemas-by-ref', 'swashbuckle-nswag-client-example']) {
      const samples = documents.get(name)!.samples
      expect(samples.some((s) => s.valid) && samples.some((s) => !s.valid), name).toBe(true)
    }
  })

  it.each(names)('%s: valid and invalid samples, each for a topic of the contract', (name) => {
    const doc = documents.get(name)!
    expect(doc.samples.some((s) => s.valid)).toBe(true)
    expect(doc.samples.some((s) => !s.valid)).toBe(true)
    const topics = new Set(doc.spec.requests.map((r) => r.topic))
    for (const sample of doc.samples) {
      expect(topics.has(sample.topic), sample.topic).toBe(true)
      expect(['request', 'response']).toContain(sample.direction)
      expect(sample.why).toMatch(/\S/)
      if (sample.types === 'refuse') expect(sample.valid).toBe(false)
    }
  })
})

describe('verdicts', () => {
  it.each(names)('%s compiles with no error diagnostics', (name) => {
    expect(documents.get(name)!.errors).toEqual([])
  })

  it.each(names)('%s: the independent OpenAPI 3.0 reading gives every sample its label', (name) => {
    const doc = documents.get(name)!
    const wrong = doc.checked.filter((c) => c.oracle !== c.sample.valid).map((c) => describeSample(doc, c))
    expect(wrong).toEqual([])
  })

  it.each(names)('%s: the generated validator gives every sample its label', (name) => {
    const doc = documents.get(name)!
    const wrong = doc.checked.filter((c) => c.generated !== c.sample.valid).map((c) => describeSample(doc, c))
    expect(wrong).toEqual([])
  })
})

describe('types', () => {
  it('every payload the generated validator accepts type-checks, and the invalid ones the types should refuse are refused (tsc --strict, one run)', () => {
    const modules: Record<string, string> = {}
    const sources: Record<string, string> = {}
    for (const doc of documents.values()) {
      if (doc.errors.length > 0) continue
      const id = `producer_${doc.name.replace(/\W/g, '_')}`
      modules[id] = doc.dts
      const lines = [
        `import { topics } from './${id}.js'`,
        'type Client = { send(...args: any[]): Promise<unknown> }',
        'type Req<C extends Client> = Parameters<C["send"]>[1]',
        'type Res<C extends Client> = Extract<Awaited<ReturnType<C["send"]>>, { isSuccessful: true }> extends { payload: infer P } ? P : never',
      ]
      doc.checked.forEach(({ sample, generated }, n) => {
        // The request type and the response type as the sidecar declares them for the topic.
        const type = `${sample.direction === 'request' ? 'Req' : 'Res'}<(typeof topics)[${JSON.stringify(sample.topic)}]>`
        const value = JSON.stringify(sample.payload)
        if (generated === true) lines.push(`export const accepted${n}: ${type} = ${value}`)
        if (sample.types === 'refuse') lines.push(`// @ts-expect-error ${sample.why.replace(/\s+/g, ' ')}`, `export const refused${n}: ${type} = ${value}`)
      })
      sources[`${id}.use.ts`] = lines.join('\n') + '\n'
    }
    const r = typecheck(work, modules, sources)
    expect(r.output).toBe('')
    expect(r.status).toBe(0)
  })
})
