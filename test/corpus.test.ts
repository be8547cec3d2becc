/**
 * The Benzene corpus (fixtures/benzene/corpus/, written by make-corpus.py): documents shaped as
 * .NET producers emit them. Each one is checked (no error and no warning), its declarations are
 * type-checked with `tsc --strict` against its sample payloads, and its generated client
 * round-trips every valid sample through a real local HTTP service, while every invalid sample is
 * refused before sending, at the paths the samples name (and only on the way to them).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { createHttpSender } from '../src/runtime/benzene/http.js'
import { BenzeneHttpServer } from './helpers/benzene-http-server.js'
import { loadModule } from './helpers/load-module.js'
import { typecheck } from './helpers/typecheck.js'

const corpus = join(import.meta.dirname, '../fixtures/benzene/corpus')
const work = join(import.meta.dirname, '.tmp/corpus')
const names = readdirSync(corpus)
  .filter((f) => f.endsWith('.spec.json'))
  .map((f) => f.slice(0, -'.spec.json'.length))

/** Per topic key (`topic` or `topic@version`): valid [request, response] pairs, invalid [request, paths] pairs. */
type Samples = Record<string, { valid: Array<[unknown, unknown]>; invalid: Array<[unknown, string[]]> }>
const samplesOf = (name: string): Samples => JSON.parse(readFileSync(join(corpus, `${name}.samples.json`), 'utf8'))

let server: BenzeneHttpServer
const compiled = new Map<string, { mod: Record<string, any>; dts: string }>()

beforeAll(async () => {
  server = await new BenzeneHttpServer().start()
  for (const name of names) {
    const result = await compile(join(corpus, `${name}.spec.json`))
    expect(result.diagnostics, name).toEqual([])
    compiled.set(name, { mod: await loadModule(result.code!, `corpus-${name}`), dts: result.dts! })
  }
})
afterAll(() => server.stop())

/** The client for a samples key, found through the module's `topics` map (keyed the same way). */
const clientOf = (mod: Record<string, any>, key: string) => mod.topics[key]

describe('the Benzene corpus', () => {
  it('holds at least 15 documents, each with samples for every domain topic', () => {
    expect(names.length).toBeGreaterThanOrEqual(15)
    for (const name of names) {
      const { mod } = compiled.get(name)!
      expect(Object.keys(samplesOf(name)).sort(), name).toEqual(Object.keys(mod.topics).sort())
    }
  })

  it.each(names)('%s: valid samples round-trip over HTTP; invalid ones are refused before sending, at their paths', async (name) => {
    const { mod } = compiled.get(name)!
    const sender = createHttpSender({ baseUrl: server.url, endpoint: '/benzene/invoke' })
    for (const [key, { valid, invalid }] of Object.entries(samplesOf(name))) {
      const client = clientOf(mod, key)
      for (const [request, response] of valid) {
        server.handlers = { [client.topic]: () => ({ envelope: { statusCode: 'ok', isSuccessful: true, body: JSON.stringify(response) } }) }
        server.received.length = 0
        const result = await client.send(sender, request)
        expect([key, result.status, result.errors], JSON.stringify(request)).toEqual([key, 'ok', []])
        expect(result.payload).toEqual(response)
        expect(server.received.map((r) => [r.topic, r.body])).toEqual([[client.topic, request]])
        if (client.version !== undefined) expect(server.received[0]!.headers).toMatchObject({ 'benzene-version': client.version })
      }
      for (const [request, paths] of invalid) {
        server.received.length = 0
        const result = await client.send(sender, request)
        expect([key, result.status], JSON.stringify(request)).toEqual([key, 'validation-error'])
        // Every path the sample names is reported; any other reported path is on the way to one
        // (a nullable wrapper's `anyOf` reports at the property holding it).
        const reported = new Set<string>(result.errors.map((e: { path: string }) => e.path))
        for (const path of paths) expect(reported, JSON.stringify(request)).toContain(path)
        for (const path of reported)
          expect(
            paths.some((p) => p === path || p.startsWith(`${path}/`)),
            `${path} in ${JSON.stringify(request)}`,
          ).toBe(true)
        expect(server.received).toEqual([])
      }
    }
  })

  it('every valid sample type-checks against the generated declarations (tsc --strict), requests and responses', () => {
    const modules: Record<string, string> = {}
    const sources: Record<string, string> = {}
    for (const name of names) {
      const id = `corpus_${name}`
      modules[id] = compiled.get(name)!.dts
      const lines = [
        `import { topics } from './${id}.js'`,
        'type Client = { send(...args: any[]): Promise<unknown> }',
        'type Req<C extends Client> = Parameters<C["send"]>[1]',
        'type Res<C extends Client> = Extract<Awaited<ReturnType<C["send"]>>, { isSuccessful: true }> extends { payload: infer P } ? P : never',
      ]
      let n = 0
      for (const [key, { valid }] of Object.entries(samplesOf(name))) {
        const client = `(typeof topics)[${JSON.stringify(key)}]`
        for (const [request, response] of valid) {
          lines.push(`export const request${n}: Req<${client}> = ${JSON.stringify(request)}`)
          lines.push(`export const response${n++}: Res<${client}> = ${JSON.stringify(response)}`)
        }
      }
      sources[`${id}.use.ts`] = lines.join('\n') + '\n'
    }
    const r = typecheck(work, modules, sources)
    expect(r.output).toBe('')
    expect(r.status).toBe(0)
  })
})
