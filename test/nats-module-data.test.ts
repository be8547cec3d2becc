/**
 * NATS modules carry channels, operations and native resources as compact data that the runtime
 * reads (src/runtime/nats/module-data.ts, written by src/formats/nats/module-tables.ts). Every
 * descriptor read back is the model's, member for member and in the same order, as the module
 * spelled it out before (issue 33); the readers never throw; and a module is no larger than its
 * document (min+gzip), with room to spare.
 */
import { readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { gzipSync } from 'node:zlib'
import { transform } from 'esbuild'
import { load } from 'js-yaml'
import { describe, expect, it } from 'vitest'
import { ContractCompiler } from '../src/index.js'
import { natsFormat } from '../src/formats/nats/index.js'
import type { NatsModel } from '../src/formats/nats/model.js'
import { filterLiteral } from '../src/formats/nats/module-tables.js'
import { channel, channelMap, filterTemplate, nativeTable, operationTable } from '../src/runtime/nats/module-data.js'
import { natsDocument } from '../bench/generate.js'
import { loadModule } from './helpers/load-module.js'

const root = join(import.meta.dirname, '..')

/** Every NATS document under `dir` (sorted). */
function documents(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name)
      if (statSync(path).isDirectory()) return documents(path)
      return natsFormat.match(path) ? [path] : []
    })
}

/** A value as JSON would spell it, member order included (functions left out). */
const spelled = (value: unknown) => JSON.stringify(value)

describe('descriptors read back from the compact data are the model', () => {
  const files = ['fixtures/nats', 'examples'].flatMap((dir) => documents(join(root, dir)))
  it.each(files.map((file) => [relative(root, file), file]))('%s', async (_name, file) => {
    const compiler = new ContractCompiler()
    const result = await compiler.compile(file)
    if (result.code === undefined) return
    const { model } = (await compiler.model(file, natsFormat)) as { model: NatsModel }
    const module = await loadModule(result.code, 'nats-module-data')
    expect(Object.keys(module.channels)).toEqual(model.channels.map((c) => c.id))
    for (const c of model.channels) {
      const read = module[c.exportName]
      expect(module.channels[c.id]).toBe(read)
      expect(Object.isFrozen(read)).toBe(true)
      expect(Object.keys(read)).toEqual([
        'id',
        'address',
        'parameters',
        ...(c.address === undefined ? [] : ['subject']),
        'filters',
        ...(read.validatePayload ? ['validatePayload'] : []),
        // A channel whose messages carry a headers schema checks them too (NATS message headers).
        ...(c.messages.some((m) => m.headers !== undefined) ? ['validateHeaders'] : []),
        'source',
      ])
      if (read.validateHeaders !== undefined) expect(typeof read.validateHeaders).toBe('function')
      expect(read.id).toBe(c.id)
      expect(read.address).toBe(c.address)
      expect(spelled(read.source)).toBe(spelled(c.source))
      const parameters = Object.keys(c.parameters).sort()
      expect(Object.keys(read.parameters)).toEqual(parameters)
      for (const name of parameters) expect(read.parameters[name]).toBe(module.tokenTypes[c.parameters[name]!])
      expect(Object.keys(read.filters)).toEqual(c.filters.map((f) => f.name))
      for (const f of c.filters) expect(read.filters[f.name].template).toBe(f.template)
      if (c.address !== undefined) expect(read.subject.address).toBe(c.address)
    }
    expect(Object.keys(module.operations)).toEqual(model.operations.map((o) => o.id))
    for (const o of model.operations) {
      const { validatePayload, ...read } = module.operations[o.id]
      expect(spelled(read)).toBe(spelled(o))
      expect(Object.isFrozen(module.operations[o.id].source)).toBe(true)
      expect(validatePayload === undefined || typeof validatePayload === 'function').toBe(true)
    }
    for (const section of ['streams', 'consumers'] as const) {
      expect(Object.keys(module[section])).toEqual(model[section].map((r) => r.key))
      for (const r of model[section]) expect(spelled(module[section][r.key])).toBe(spelled(r))
    }
  })
})

describe('filters relative to their address', () => {
  it.each([
    ['svc.{region}.*.x', 'svc.{region}.{id}.x', '"..*."'],
    ['svc.>', 'svc.{region}.{id}.x', '".\\u003e"'],
    ['svc.{region}.{id}.x', 'svc.{region}.{id}.x', '"..."'],
    ['other.*', 'svc.{region}', '"other.*"'],
    ['svc.{region}.{id}.x.more', 'svc.{region}', '"..{id}.x.more"'],
    ['svc.x', undefined, '"svc.x"'],
  ])('%s beside %s', (template, address, literal) => {
    expect(filterLiteral(template, address)).toBe(literal)
    expect(filterTemplate(JSON.parse(literal), address)).toBe(template)
  })

  it('a template that would not read back is written in full', () => {
    expect(filterLiteral('a..b', 'a.x.b')).toBe('["a..b"]')
    expect(filterTemplate(['a..b'], 'a.x.b')).toBe('a..b')
  })
})

describe('the readers never throw', () => {
  it('on data of the wrong kinds they give frozen descriptors with what they could read', () => {
    const junk = [undefined, null, 0, 'x', [], {}, [1, 2], { ids: 'x' }, { ids: [1], codes: 5, lines: 'no' }]
    for (const value of junk) {
      expect(() =>
        channel(value as never, value as never, value as never, value as never, value as never, value as never, value as never, value as never),
      ).not.toThrow()
      expect(Object.isFrozen(operationTable('f', value as never))).toBe(true)
      expect(Object.isFrozen(nativeTable('f', 'streams', value as never))).toBe(true)
      expect(Object.isFrozen(channelMap(value as never))).toBe(true)
    }
    // A key that is no string reads as '', and the first of two entries of one key is kept.
    expect(nativeTable('f', 'streams', [[1, 2], 'row', [null]] as never)).toEqual({
      '': { authority: 2, config: undefined, key: '', source: { column: 0, file: 'f', line: 0, pointer: '/x-nats-contract/streams//config' } },
    })
    const read = channel({}, 'f.yaml', 'c', 'a.{p}', 3, 4, ['f', '.*'], 0)
    expect(read.parameters).toEqual({ p: undefined })
    expect(read.filters).toHaveProperty('f')
    // A placeholder without a token type: no subject can be made, and reading it does not throw.
    expect(read.subject).toBeUndefined()
    expect(read.source).toEqual({ file: 'f.yaml', pointer: '/channels/c', line: 3, column: 4 })
  })
})

describe('module size', () => {
  it('a 200-channel contract module, minified and gzipped, is smaller than its document as minified JSON, gzipped', async () => {
    const text = natsDocument(200)
    const { writeFileSync, mkdirSync } = await import('node:fs')
    const dir = join(import.meta.dirname, '.tmp/nats-module-data')
    mkdirSync(dir, { recursive: true })
    const file = join(dir, 'n200.asyncapi.yaml')
    writeFileSync(file, text)
    const result = await new ContractCompiler().compile(file)
    expect(result.diagnostics).toEqual([])
    const module = gzipSync((await transform(result.code!, { minify: true, format: 'esm' })).code).length
    const document = gzipSync(JSON.stringify(load(text))).length
    // Measured 0.93 when written; 29.3 KB against 17.5 KB (1.67) before the compact data.
    expect(module / document).toBeLessThan(1)
  })

  it("with a payload schema of its own on every channel, the default (data) module is smaller than its document; 'code' is not", async () => {
    const text = natsDocument(200, { payloads: true })
    const { writeFileSync, mkdirSync } = await import('node:fs')
    const dir = join(import.meta.dirname, '.tmp/nats-module-data')
    mkdirSync(dir, { recursive: true })
    const file = join(dir, 'n200p.asyncapi.yaml')
    writeFileSync(file, text)
    const compiler = new ContractCompiler()
    const document = gzipSync(JSON.stringify(load(text))).length
    const size = async (code: string) => gzipSync((await transform(code, { minify: true, format: 'esm' })).code).length / document
    const [data, code] = [await compiler.compile(file), await compiler.compile(file, { nats: { validators: 'code' } })]
    expect([data.diagnostics, code.diagnostics]).toEqual([[], []])
    // Measured 0.93 (data) and 1.23 (code) when written, as bench/nats-compile.ts measures 500 channels.
    expect(await size(data.code!)).toBeLessThan(1)
    expect(await size(code.code!)).toBeGreaterThan(1)
  })
})

describe("validators: 'data' (the schema interpreter) and 'code' give the same verdicts and errors", () => {
  /** Values around a schema: an instance of it, and one change each (a member dropped, of another type, one more). */
  function around(schema: unknown, components: Record<string, unknown>, depth = 0): unknown[] {
    const s = (isRecord(schema) && typeof schema.$ref === 'string' ? components[schema.$ref.split('/').pop()!] : schema) as Record<string, unknown>
    const generic: unknown[] = [null, true, 0, 1.5, -1, 'x', '', [], {}, ['x'], { x: 1 }]
    if (!isRecord(s) || depth > 3) return generic
    const type = Array.isArray(s.type) ? s.type[0] : s.type
    if (Array.isArray(s.enum)) return [...s.enum, ...generic]
    if (type === 'string') return ['a', 'abc', 'ABC-12', 'user@example.com', 'x'.repeat(300), 3]
    if (type === 'integer' || type === 'number') return [0, 1, 2, 999, 5000, 1.5, -3, '1']
    if (type === 'boolean') return [true, false, 'true']
    if (type === 'array') return [[], [0], ['a', 'a'], ...around(s.items, components, depth + 1).map((v) => [v])]
    if (type !== 'object' || !isRecord(s.properties)) return generic
    const base: Record<string, unknown> = {}
    for (const [name, sub] of Object.entries(s.properties)) base[name] = around(sub, components, depth + 1)[0]
    const out: unknown[] = [base, { ...base, extra: 1 }]
    for (const [name, sub] of Object.entries(s.properties)) {
      const { [name]: _dropped, ...without } = base
      out.push(without)
      for (const value of around(sub, components, depth + 1).slice(1, 4)) out.push({ ...base, [name]: value })
    }
    return [...out, ...generic]
  }
  const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

  const documents: Array<[string, string]> = [
    ['natsDocument(60, { payloads: true })', 'generated'],
    ['fixtures/nats/patterns/lookaheads.asyncapi.yaml', join(root, 'fixtures/nats/patterns/lookaheads.asyncapi.yaml')],
    ['fixtures/nats/patterns/unproven.asyncapi.yaml', join(root, 'fixtures/nats/patterns/unproven.asyncapi.yaml')],
    ['fixtures/nats/valid/ledger.asyncapi.yaml', join(root, 'fixtures/nats/valid/ledger.asyncapi.yaml')],
    ['fixtures/nats/wire/wire.asyncapi.yaml', join(root, 'fixtures/nats/wire/wire.asyncapi.yaml')],
  ]
  it.each(documents)('%s', async (_name, given) => {
    let file = given
    if (given === 'generated') {
      const { writeFileSync, mkdirSync } = await import('node:fs')
      const dir = join(import.meta.dirname, '.tmp/nats-module-data')
      mkdirSync(dir, { recursive: true })
      writeFileSync((file = join(dir, 'p60.asyncapi.yaml')), natsDocument(60, { payloads: true }))
    }
    const compiler = new ContractCompiler()
    const code = await compiler.compile(file, { nats: { validators: 'code' } })
    const data = await compiler.compile(file)
    expect(data.diagnostics).toEqual(code.diagnostics)
    expect(data.code).toContain('$dataValidator(')
    expect(data.dts).toBe(code.dts)
    const { model } = (await compiler.model(file, natsFormat)) as { model: NatsModel }
    const [a, b] = [await loadModule(code.code!, 'nats-code'), await loadModule(data.code!, 'nats-data')]
    let checked = 0
    for (const c of model.channels) {
      const [va, vb] = [a[c.exportName].validatePayload, b[c.exportName].validatePayload]
      expect(typeof vb).toBe(typeof va)
      if (!va) continue
      for (const message of c.messages)
        for (const value of around(message.payload, model.schemas)) {
          expect([vb(value), vb.errors], `${c.id} ${JSON.stringify(value)}`).toEqual([va(value), va.errors])
          checked++
        }
    }
    expect(checked).toBeGreaterThan(20)
  })
})

describe('option validators', () => {
  it("takes 'code' or 'data'; anything else is NATS_INVALID_OPTION", async () => {
    const file = join(root, 'fixtures/nats/valid/ledger.asyncapi.yaml')
    const compiler = new ContractCompiler()
    const refused = await compiler.compile(file, { nats: { validators: 'fast' as never } })
    expect(refused.diagnostics.map((d) => [d.code, d.message])).toEqual([['NATS_INVALID_OPTION', `Option validators: "fast" is not 'code' or 'data'.`]])
    // The default is the data form; 'code' writes validator functions instead.
    expect((await compiler.compile(file, { nats: { validators: 'data' } })).code).toBe((await compiler.compile(file)).code)
    expect((await compiler.compile(file)).code).toContain('$dataValidator(')
    expect((await compiler.compile(file, { nats: { validators: 'code', names: {} } })).code).not.toContain('$dataValidator(')
  })
})
