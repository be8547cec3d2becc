/**
 * `contracts diff` (Benzene) compares a schema with readOnly or writeOnly members as each direction's
 * validators read it (docs/benzene.md, "Diff"; src/formats/benzene/diff/readings.ts): a request's
 * (and an event message's) do not require readOnly members, a response's do not require writeOnly
 * ones. An outside pass against the generated modules over HTTP found a readOnly request member made
 * required reported as breaking clients with a request the new service accepts as witness (and the
 * mirror for services, and for writeOnly response members), and a member made readOnly or writeOnly
 * reported as an unknown change for both sides where it breaks exactly one. Each case is checked
 * against the generated validators of both versions, and has its near case that still breaks.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { DiffFinding } from '../src/core/diff/types.js'
import { compile } from '../src/index.js'
import { diffFiles } from './helpers/benzene-diff.js'
import { loadModule } from './helpers/load-module.js'
import { createLocalSender } from '../src/runtime/index.js'

const dir = join(import.meta.dirname, '.tmp/benzene-diff-readings', String(process.pid))
let made = 0

type Schemas = Record<string, Record<string, unknown>>
/** One request topic (`Req` in, `Res` out) and one event (`Evt`), with these component schemas. */
const document = (schemas: Schemas) => ({
  openapi: '3.0.1',
  info: { title: 'readings', version: '' },
  requests: [{ topic: 'shop:order', request: { $ref: '#/components/schemas/Req' }, response: { $ref: '#/components/schemas/Res' } }],
  events: [{ topic: 'shop:ordered', message: { $ref: '#/components/schemas/Evt' } }],
  components: { schemas },
})
const REQ = (n: Record<string, unknown>, required: string[]) => ({
  type: 'object',
  properties: { a: { type: 'string' }, n: { type: 'integer', ...n } },
  ...(required.length > 0 ? { required } : {}),
})
const RES = (w: Record<string, unknown>, required: string[]) => ({
  type: 'object',
  properties: { s: { type: 'string' }, w: { type: 'string', ...w } },
  ...(required.length > 0 ? { required } : {}),
})
const EVT = { type: 'object', properties: { s: { type: 'string' } } }

/** The diff of two versions, and each version's validators of the request and the response. */
async function versions(old: Schemas, next: Schemas) {
  mkdirSync(dir, { recursive: true })
  const files = [old, next].map((schemas) => {
    const file = join(dir, `v${made++}.spec.json`)
    writeFileSync(file, JSON.stringify(document(schemas), null, 2))
    return file
  })
  const findings = await diffFiles(files[0]!, files[1]!)
  const modules = await Promise.all(files.map(async (file) => loadModule((await compile(file)).code!, 'benzene-diff-readings')))
  /**
   * Whether version `i`'s generated topic client takes `value` as its request (it sends it: a local
   * sender answers a response the version takes) or as the response to a request it sends.
   */
  const accepts = async (i: 0 | 1, place: 'request' | 'response', value: unknown) => {
    const client = modules[i]!.order as { send(sender: unknown, request: unknown): Promise<{ status: string }> }
    const sent = place === 'request' ? value : { a: 'x', n: 1 }
    const answer = place === 'request' ? { s: 'x', w: 'y' } : value
    return (await client.send(createLocalSender({ 'shop:order': () => answer }), sent)).status === 'ok'
  }
  return { findings, accepts }
}

const breaking = (findings: DiffFinding[]) => findings.filter((f) => f.level === 'breaking')
const kinds = (f: DiffFinding) => [...new Set(f.audiences.map((a) => a.kind))].sort()

describe('readOnly and writeOnly members, read by direction', () => {
  it('a readOnly request member made required, or no longer required: no request changes, nobody breaks', async () => {
    for (const [from, to] of [
      [['a'], ['a', 'n']],
      [['a', 'n'], ['a']],
    ]) {
      const { findings, accepts } = await versions(
        { Req: REQ({ readOnly: true }, from!), Res: RES({}, []), Evt: EVT },
        { Req: REQ({ readOnly: true }, to!), Res: RES({}, []), Evt: EVT },
      )
      // The validators agree: a request without `n` passes both.
      expect([await accepts(0, 'request', { a: 'x' }), await accepts(1, 'request', { a: 'x' })]).toEqual([true, true])
      expect(breaking(findings)).toEqual([])
    }
  })

  it('a writeOnly response member made required: no response changes, nobody breaks', async () => {
    const { findings, accepts } = await versions(
      { Req: REQ({}, ['a']), Res: RES({ writeOnly: true }, []), Evt: EVT },
      { Req: REQ({}, ['a']), Res: RES({ writeOnly: true }, ['w']), Evt: EVT },
    )
    expect([await accepts(0, 'response', {}), await accepts(1, 'response', {})]).toEqual([true, true])
    expect(breaking(findings)).toEqual([])
  })

  it('a required request member made readOnly breaks the service only (a new client leaves it out), with a witness the old service refuses', async () => {
    const { findings, accepts } = await versions(
      { Req: REQ({}, ['a', 'n']), Res: RES({}, []), Evt: EVT },
      { Req: REQ({ readOnly: true }, ['a', 'n']), Res: RES({}, []), Evt: EVT },
    )
    const [found] = breaking(findings)
    expect([found!.rule, kinds(found!)]).toEqual(['schema-required-removed', ['service']])
    const { value } = (found!.data as { witness: { value: unknown } }).witness
    expect([await accepts(0, 'request', value), await accepts(1, 'request', value)]).toEqual([false, true])
    expect(breaking(findings)).toHaveLength(1)
  })

  it('near cases: a plain request member made required still breaks clients; a readOnly member made required in a response breaks the service', async () => {
    const plain = await versions({ Req: REQ({}, ['a']), Res: RES({}, []), Evt: EVT }, { Req: REQ({}, ['a', 'n']), Res: RES({}, []), Evt: EVT })
    expect(breaking(plain.findings).map((f) => [f.rule, kinds(f)])).toEqual([['schema-required-added', ['client']]])
    // readOnly is required in responses as written: the service that sent none breaks.
    const shared = { type: 'object', properties: { id: { type: 'string', readOnly: true } } }
    const both = await versions(
      { Req: { $ref: '#/components/schemas/Shared' } as never, Res: { $ref: '#/components/schemas/Shared' } as never, Evt: EVT, Shared: shared },
      {
        Req: { $ref: '#/components/schemas/Shared' } as never,
        Res: { $ref: '#/components/schemas/Shared' } as never,
        Evt: EVT,
        Shared: { ...shared, required: ['id'] },
      },
    )
    expect(breaking(both.findings).map((f) => [f.rule, kinds(f)])).toEqual([['schema-required-added', ['service']]])
  })
})
