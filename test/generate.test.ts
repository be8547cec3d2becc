/** The generated module and declarations: shape, determinism, escaping, naming. */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ContractCompiler, compile } from '../src/index.js'
import { tsc } from './helpers/cli.js'
import { loadModule } from './helpers/load-module.js'

const fixtures = join(import.meta.dirname, '../fixtures/benzene/valid')
const payments = join(fixtures, 'payments.spec.json')
const work = join(import.meta.dirname, '.tmp/generate')

const load = loadModule

beforeAll(() => {
  rmSync(work, { recursive: true, force: true })
  mkdirSync(work, { recursive: true })
})

describe('generated module', () => {
  it('matches the reviewed snapshots', async () => {
    const result = await compile(payments)
    await expect(result.code).toMatchFileSnapshot('__snapshots__/payments.spec.js')
    await expect(result.dts).toMatchFileSnapshot('__snapshots__/payments.spec.d.json.ts')
  })

  it('is the same bytes from another compiler and another directory', async () => {
    const first = await new ContractCompiler().compile(payments)
    const copy = join(work, 'elsewhere', 'payments.spec.json')
    mkdirSync(join(work, 'elsewhere'), { recursive: true })
    cpSync(payments, copy)
    const second = await new ContractCompiler().compile(copy)
    expect(second.code).toBe(first.code)
    expect(second.dts).toBe(first.dts)
  })

  it('loads, exports frozen clients and a prototype-free topics map', async () => {
    const mod = await load((await compile(payments)).code!, 'payments')
    expect(Object.keys(mod).sort()).toEqual(['capture', 'contract', 'contractHash', 'events', 'getAll', 'messageEndpoint', 'refund', 'topics'])
    expect(Object.isFrozen(mod.capture)).toBe(true)
    expect(mod.capture.version).toBe('v2')
    expect('version' in mod.refund).toBe(false)
    expect(Object.getPrototypeOf(mod.topics)).toBeNull()
    expect(Object.isFrozen(mod.topics)).toBe(true)
  })

  it('maps each client line back to its request entry', async () => {
    const result = await compile(payments)
    expect(result.map?.sources).toEqual([payments])
    expect(result.map?.sourcesContent?.[0]).toBe(readFileSync(payments, 'utf8'))
    expect(result.map?.mappings).toMatch(/[A-Za-z]/)
  })

  it('include-list from the query: only those topics, and the service-level hash', async () => {
    const all = await compile(payments)
    const scoped = await compile(payments, { query: 'topics=payments:refund,benzene:spec' })
    expect(scoped.diagnostics).toEqual([])
    const mod = await load(scoped.code!, 'scoped')
    expect(Object.keys(mod.topics)).toEqual(['benzene:spec', 'payments:refund'])
    expect(mod.spec.contractHash).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(mod.contractHash).not.toBe((await load(all.code!, 'all')).contractHash)
  })

  it('includeReserved admits reserved topics without changing the whole-service hash', async () => {
    const plain = await load((await compile(payments)).code!, 'plain')
    const withReserved = await load((await compile(payments, { query: 'includeReserved' })).code!, 'reserved')
    expect(Object.keys(withReserved.topics)).toEqual(['benzene:spec', 'benzene:healthcheck', 'payments:capture', 'payments:refund', 'payments:get-all'])
    expect(withReserved.contractHash).toBe(plain.contractHash)
    expect(withReserved.healthcheck.topic).toBe('benzene:healthcheck')
  })

  it('the names option renames an export; a name that is not an identifier or is taken fails', async () => {
    const renamed = await compile(payments, { benzene: { names: { 'payments:get-all': 'listPayments' } } })
    expect(renamed.code).toContain('export const listPayments = ')
    for (const bad of ['list-payments', 'topics', 'class']) {
      const result = await compile(payments, { benzene: { names: { 'payments:get-all': bad } } })
      expect(result.diagnostics.map((d) => [d.code, d.pointer])).toEqual([['BENZENE_INVALID_EXPORT_NAME', '/requests/4/topic']])
      expect(result.diagnostics[0]!.message).toContain('payments:get-all')
    }
  })
})

describe('strings from the document cannot break out', () => {
  const hostile = join(fixtures, 'hostile-names.spec.json')
  const doc = JSON.parse(readFileSync(hostile, 'utf8'))
  // fromEntries defines `__proto__` as an own key, as JSON.parse does; a literal would set the prototype.
  const names: Record<string, string> = Object.fromEntries([
    [doc.requests[0].topic, 'evil'],
    ['__proto__', 'proto'],
    [doc.requests[2].topic, 'third'],
  ])

  it('topic ids, schema and property names round-trip exactly through the module', async () => {
    const result = await compile(hostile, { benzene: { names } })
    expect(result.diagnostics).toEqual([])
    expect(result.code).not.toContain('</script>')
    expect(result.code).not.toContain('\u2028')
    const mod = await load(result.code!, 'hostile')
    expect(mod.evil.topic).toBe(doc.requests[0].topic)
    expect(mod.proto.topic).toBe('__proto__')
    expect(Object.keys(mod.topics)).toEqual([doc.requests[0].topic, '__proto__', doc.requests[2].topic])
    expect(mod.topics.__proto__).toBe(mod.proto)
    expect(({} as any).evil).toBeUndefined()
    expect(mod.evil.components).toEqual(['Weird Name*/', 'Weird_Name__', 'string'])
    expect(mod.third.topic).toBe('x:"+(globalThis.pwned=2)+"')
  })

  it('no document text executes, and validators judge __proto__, constructor and prototype as members', async () => {
    delete (globalThis as any).pwned
    const result = await compile(hostile, { benzene: { names } })
    const mod = await load(result.code!, 'hostile-run')
    const sender = {
      send: async (_topic: string, request: unknown) => ({ status: 'ok', isSuccessful: true, payload: request === undefined ? 'a' : 'b', errors: [] }),
    }
    // Optional members absent: valid, although every object inherits `constructor` and `__proto__`.
    expect((await mod.proto.send(sender, {})).status).not.toBe('validation-error')
    const wrong = await mod.proto.send(sender, JSON.parse('{"__proto__": 5, "constructor": "x", "prototype": [{"v\u2029": "nope"}]}'))
    expect(wrong.status).toBe('validation-error')
    expect(wrong.errors.map((e: any) => e.path).sort()).toEqual(['/__proto__', '/constructor', '/prototype/0/v\u2029'])
    const enumValue = await mod.third.send(sender, { 'v\u2029': '`${globalThis.pwned=5}`' })
    expect(enumValue.isSuccessful).toBe(true)
    expect((globalThis as any).pwned).toBeUndefined()
  })

  it('the declarations type-check, with schema names turned into distinct identifiers', async () => {
    const result = await compile(hostile, { benzene: { names } })
    const dir = join(work, 'hostile-types')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'hostile.d.ts'), result.dts!)
    writeFileSync(
      join(dir, 'use.ts'),
      "import { evil, proto, third, type Weird_Name__, type Weird_Name___2, type string_, type ___globalThis_pwned_1___ } from './hostile.js'\nexport const x: Weird_Name___2 = { x: 'a' }\nexport const y: Weird_Name__ = { y: 'b' }\nexport const s: string_ = 'c'\nexport const t: string = evil.topic + proto.topic + third.topic\nexport const v: ___globalThis_pwned_1___ = { 'v\\u2029': '\\u2028' }\n",
    )
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'ESNext', moduleResolution: 'bundler', types: [] }, files: ['use.ts'] }),
    )
    const r = tsc(['-p', '.'], dir)
    expect(r.output).toBe('')
    expect(result.dts).toContain('*\\/')
  })
})
