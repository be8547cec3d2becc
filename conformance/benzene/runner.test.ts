/**
 * Runs the Benzene conformance cases (contract-document-cases.json, contract-hash-cases.json)
 * against the compiler, and the independent Python implementation against the same files.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import canonicalize from 'canonicalize'
import { afterAll, describe, expect, it } from 'vitest'
import { compile, inspect } from '../../src/index.js'
import { schemaClosure } from '../../src/runtime/benzene/closure.js'
import type { BenzeneDocument } from '../../src/runtime/benzene/document.js'
import { contractHash } from '../../src/runtime/benzene/hash-node.js'
import { normalizeProjection, serviceLevel, topicScoped, wholeService, type Projection } from '../../src/runtime/benzene/projection.js'
import { selectScope } from '../../src/runtime/benzene/scope.js'

const here = new URL('.', import.meta.url).pathname
const documentCases = JSON.parse(readFileSync(join(here, 'contract-document-cases.json'), 'utf8'))
const hashCases = JSON.parse(readFileSync(join(here, 'contract-hash-cases.json'), 'utf8'))
const tmp = mkdtempSync(join(tmpdir(), 'benzene-conformance-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

type Case = Record<string, any>
const documentOf = (file: Case, doc: unknown): BenzeneDocument => (typeof doc === 'string' ? file.documents[doc] : doc) as BenzeneDocument

function writeCase(name: string, doc: unknown): string {
  const path = join(tmp, name.replace(/[^a-z0-9]+/gi, '-') + '.spec.json')
  writeFileSync(path, JSON.stringify(doc, null, 2))
  return path
}

function entry(doc: BenzeneDocument, topic: string, version?: string) {
  const found = doc.requests.filter((e) => e.topic === topic && e.version === version)
  expect(found).toHaveLength(1)
  return found[0]!
}

describe('contract-document-cases.json', () => {
  for (const c of documentCases.cases as Case[]) {
    const doc = documentOf(documentCases, c.document)
    it(`${c.kind} (seed ${c.section}): ${c.name}`, async () => {
      if (c.kind === 'parse') {
        const result = await inspect(writeCase(c.name, doc), { benzene: { includeReserved: true } })
        const found = result.diagnostics.filter((d) => d.severity === 'error').map((d) => ({ code: d.code, pointer: d.pointer }))
        if (c.expect.valid) {
          expect(found).toEqual([])
          // A valid document's listed diagnostics are its warnings, exactly.
          if (c.expect.diagnostics)
            expect(sortPairs(result.diagnostics.filter((d) => d.severity === 'warning').map((d) => ({ code: d.code, pointer: d.pointer })))).toEqual(
              sortPairs(c.expect.diagnostics),
            )
        } else expect(sortPairs(found)).toEqual(sortPairs(c.expect.diagnostics))
        for (const d of result.diagnostics) expect(d.line).toBeGreaterThan(0)
      } else if (c.kind === 'scope') {
        const request = { topics: c.includeList, includeReserved: c.includeReserved }
        const scope = selectScope(doc, request)
        const result = await inspect(writeCase(c.name, doc), { benzene: request })
        if (c.expect.error) {
          expect({ unknownTopics: scope.unknownTopics, validTopics: scope.validTopics }).toEqual(c.expect.error)
          const error = result.diagnostics.find((d) => d.code === 'BENZENE_UNKNOWN_TOPIC')
          expect(error?.data).toEqual(c.expect.error)
          for (const topic of c.expect.error.unknownTopics) expect(error?.message).toContain(topic)
        } else {
          expect(scope.unknownTopics).toEqual([])
          expect(scope.entries.map((e) => e.topic)).toEqual(c.expect.topics)
          expect(result.diagnostics).toEqual([])
        }
      } else if (c.kind === 'closure') {
        const e = entry(doc, c.topic, c.version)
        expect(schemaClosure([e.request, e.response], doc.components.schemas)).toEqual(c.expect.schemas)
        // The module and `contracts inspect` expose the same closure.
        const result = await inspect(writeCase(c.name, doc), { benzene: { topics: [c.topic] } })
        const key = c.version === undefined || doc.requests.filter((r) => r.topic === c.topic).length === 1 ? c.topic : `${c.topic}@${c.version}`
        expect((result.data as any).closure[key]).toEqual(c.expect.schemas)
      } else {
        throw new Error(`unknown case kind ${c.kind}`)
      }
    })
  }
})

function sortPairs(list: Array<{ code: string; pointer: string }>) {
  return [...list].sort((a, b) => (a.pointer + a.code).localeCompare(b.pointer + b.code))
}

function projectionOf(doc: BenzeneDocument, spec: Case | string): Projection {
  if (spec === 'whole-service') return wholeService(doc)
  if ((spec as Case).topics) return serviceLevel(doc, (spec as Case).topics)
  return topicScoped(doc, entry(doc, (spec as Case).topic, (spec as Case).version))
}

describe('contract-hash-cases.json', () => {
  const computed = new Map<string, string>()
  for (const c of hashCases.cases as Case[]) {
    it(c.name, async () => {
      const doc = documentOf(hashCases, c.document)
      const projection = projectionOf(doc, c.projection)
      expect(canonicalize(normalizeProjection(projection))).toBe(c.expect.canonical)
      const hash = contractHash(projection)
      expect(hash).toBe(c.expect.hash)
      computed.set(c.name, hash)
      if (c.expect.sameHashAs) expect(hash).toBe(hashCases.cases.find((o: Case) => o.name === c.expect.sameHashAs).expect.hash)
      if (c.expect.differentHashFrom) expect(hash).not.toBe(hashCases.cases.find((o: Case) => o.name === c.expect.differentHashFrom).expect.hash)
    })
  }

  it('the compiler embeds and prints the same hashes as the cases', async () => {
    const doc = hashCases.documents.payments
    const file = writeCase('payments-hash', doc)
    const byName = (name: string) => hashCases.cases.find((c: Case) => c.name === name).expect.hash
    const whole = byName('whole-service: strips example, messageEndpoint, transports, reserved entries (flag or prefix) and the flag')
    const result = await compile(file)
    expect(result.code).toContain(JSON.stringify(whole))
    expect(result.code).toContain(JSON.stringify(byName('topic-scoped: one entry, no events, closure-narrowed components')))
    const scoped = await compile(file, { query: 'topics=payments:capture' })
    expect(scoped.code).toContain(`export const contractHash = ${JSON.stringify(byName('service-level: requests filtered, events and components whole'))}`)
    const reserved = await inspect(file, { benzene: { topics: ['benzene:spec'] } })
    expect((reserved.data as any).hashes.topics['benzene:spec']).toBe(
      byName('topic-scoped: a reserved topic asked for explicitly keeps its entry without the flag'),
    )
  })
})

describe('independent implementation', () => {
  it('benzene_independent.py --check agrees with every case file', () => {
    const out = execFileSync('python3', [join(here, 'independent', 'benzene_independent.py'), '--check'], { encoding: 'utf8' })
    expect(out).toMatch(/^\d+ passed, 0 failed$/m)
  })
})
