/**
 * What a compile does once (issue 32): the query and the options are resolved once per call; the
 * declarations are written from the compile's own model when `dts` is first read, never by a second
 * compile; `compiler.model` reads the model a cached compile kept; a NATS bundle's locked files are
 * scanned for credentials once per bundle version, and what they hold is still reported on every
 * compile.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { ContractCompiler as CoreCompiler } from '../src/core/compile.js'
import type { ContractFormat } from '../src/core/format.js'
import { ContractCompiler, natsFormat } from '../src/index.js'
import { ShopBundle } from './helpers/nats-bundle.js'

/**
 * Every file the NATS loader checks for credentials: each check first asks whether the fast YAML
 * path already knows the text holds none (a text without a credential's characters is then not
 * scanned at all: counting the scans would undercount the files checked).
 */
const checks = vi.hoisted(() => ({ count: 0 }))
vi.mock('../src/core/yaml-fast.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../src/core/yaml-fast.js')>()
  return {
    ...original,
    parsedFromCredentialFreeText: (...args: Parameters<typeof original.parsedFromCredentialFreeText>) => (
      checks.count++,
      original.parsedFromCredentialFreeText(...args)
    ),
  }
})

const work = join(import.meta.dirname, '.tmp/compile-once')
const file = join(work, 'one.fake.json')

/** What each stage of the fake format was asked, counted. */
const counts = { resolve: 0, load: 0, generate: 0, dts: 0 }
interface FakeModel {
  text: string
  n: number
}
/** A format of `*.fake.json` files whose stages count their calls; `broken` declarations throw (a bug). */
function fakeFormat(name = 'fake', broken = false): ContractFormat<string, string, FakeModel, { n: number }> {
  return {
    name,
    match: (f) => f.endsWith('.fake.json'),
    pattern: /\.fake\.json$/,
    queryKeys: ['n'],
    resolveOptions: (_raw, query) => (counts.resolve++, { options: { n: Number(query.get('n') ?? 0) }, diagnostics: [] }),
    load: async (f, host) => (counts.load++, { input: await host.readText(f), diagnostics: [] }),
    check: (input) => ({ checked: input, diagnostics: [] }),
    model: (checked, options) => ({ model: { text: checked.trim(), n: options.n }, diagnostics: [] }),
    generate: (model) => {
      counts.generate++
      return {
        code: `export default ${JSON.stringify(model)};\n`,
        get dts() {
          counts.dts++
          if (broken) throw new Error('no declarations')
          return `declare const model: ${JSON.stringify(model)};\nexport default model;\n`
        },
      }
    },
    inspect: (model) => ({ data: model, text: [model.text] }),
    hash: () => ({ usage: 'none' }),
  }
}

beforeEach(() => {
  rmSync(work, { recursive: true, force: true })
  mkdirSync(work, { recursive: true })
  writeFileSync(file, 'one\n')
  for (const key of Object.keys(counts) as Array<keyof typeof counts>) counts[key] = 0
})

describe('one compile', () => {
  it('resolves the query and the options once per call, and writes the declarations on first read, from that compile, once', async () => {
    const compiler = new CoreCompiler({ formats: [fakeFormat()] })
    const first = await compiler.compile(file)
    expect([compiler.compilations, counts.resolve, counts.generate, counts.dts]).toEqual([1, 1, 1, 0])
    expect(first.dts).toBe('declare const model: {"text":"one","n":0};\nexport default model;\n')
    expect(first.dts).toBe(first.dts)
    expect(counts.dts).toBe(1)
    // Asked without declarations: the same compile (no second entry), shown without `dts`.
    const bare = await compiler.compile(file, { declarations: false })
    expect([compiler.compilations, counts.resolve, counts.generate]).toEqual([1, 2, 1])
    expect(bare.dts).toBeUndefined()
    expect(bare.code).toBe(first.code)
    expect(await compiler.compile(file)).toBe(first)
    expect(counts.dts).toBe(1)
    // Another query is another compile.
    expect((await compiler.compile(file, { query: 'n=2' })).code).toContain('"n":2')
    expect([compiler.compilations, counts.resolve, counts.generate]).toEqual([2, 4, 2])
  })

  it('declarations that throw (a bug) are CONTRACTS_INTERNAL on the result, and no dts', async () => {
    const compiler = new CoreCompiler({ formats: [fakeFormat('fake', true)] })
    const result = await compiler.compile(file)
    expect(result.code).toBeDefined()
    expect(result.diagnostics).toEqual([])
    expect(result.dts).toBeUndefined()
    expect(result.diagnostics.map((d) => [d.code, d.message.includes('no declarations')])).toEqual([['CONTRACTS_INTERNAL', true]])
  })
})

describe('compiler.model', () => {
  it('is the model the cached compile kept, typed by the format asked for; none for another format', async () => {
    const fake = fakeFormat()
    const compiler = new CoreCompiler({ formats: [fake] })
    await compiler.compile(file)
    const loads = counts.load
    const a = await compiler.model(file, fake)
    const b = await compiler.model(file, fake)
    expect(a.model).toEqual({ text: 'one', n: 0 })
    expect(a.model).toBe(b.model)
    expect(a.model!.text).toBe('one') // typed: FakeModel
    expect([counts.load, counts.generate, compiler.compilations]).toEqual([loads, 1, 1])
    const other = await compiler.model(file, fakeFormat('other'))
    expect([other.format, other.model]).toEqual(['fake', undefined])
  })

  it('loads, checks and models a file the cache does not have, without generating code or caching', async () => {
    const fake = fakeFormat()
    const compiler = new CoreCompiler({ formats: [fake] })
    const a = await compiler.model(file, fake, { query: 'n=1' })
    const b = await compiler.model(file, fake, { query: 'n=1' })
    expect(a.model).toEqual({ text: 'one', n: 1 })
    expect(a.model).not.toBe(b.model)
    expect([counts.load, counts.generate, compiler.compilations]).toEqual([2, 0, 0])
    expect(a.dependencies).toEqual([file])
  })

  it('a NATS document: its NatsModel; a Benzene document: none, and the format says why', async () => {
    const compiler = new ContractCompiler()
    const ledger = join(import.meta.dirname, '../fixtures/nats/valid/ledger.asyncapi.yaml')
    const nats = await compiler.model(ledger, natsFormat)
    expect(nats.model?.contract.id).toBe('ledger')
    const benzene = await compiler.model(join(import.meta.dirname, '../fixtures/benzene/valid/payments.spec.json'), natsFormat)
    expect([benzene.format, benzene.model, benzene.diagnostics]).toEqual(['benzene', undefined, []])
  })
})

describe("a NATS bundle's locked files", () => {
  const seed = ('SU' + 'ABCDEFGHIJKLMNOP234567'.repeat(3)).slice(0, 58)

  it('are scanned for credentials once per bundle version; a credential is reported on every compile, a change after the scan too', async () => {
    const bundle = ShopBundle.copy('scan-once')
    bundle.write('native/notes.json', `{ "note": "${seed}" }\n`).relock(['native/notes.json'])
    const credentials = (result: { diagnostics: Array<{ code: string; data?: unknown }> }) =>
      result.diagnostics.filter((d) => d.code === 'NATS_BUNDLED_CREDENTIAL').map((d) => d.data)
    let before = checks.count
    const first = await new ContractCompiler().compile(bundle.doc('payments'))
    expect(credentials(first)).toEqual([{ path: 'native/notes.json', pointer: '/note' }])
    expect(checks.count - before).toBeGreaterThan(2)
    // Another compiler (no cached result): the same bundle version, so only the document itself is scanned.
    before = checks.count
    const second = await new ContractCompiler().compile(bundle.doc('payments'))
    expect(credentials(second)).toEqual([{ path: 'native/notes.json', pointer: '/note' }])
    expect(checks.count - before).toBe(1)
    // The file changed without a relock: its bytes are not the locked ones, whatever was scanned before.
    bundle.write('native/notes.json', '{ "note": "nothing" }\n')
    const changed = await new ContractCompiler().compile(bundle.doc('payments'))
    expect(credentials(changed)).toEqual([])
    expect(changed.diagnostics.map((d) => [d.code, (d.data as { path?: string } | undefined)?.path])).toContainEqual(['NATS_LOCK_DIGEST', 'native/notes.json'])
    // Relocked: a new bundle version, scanned again, and clean.
    bundle.relock(['native/notes.json'])
    before = checks.count
    expect((await new ContractCompiler().compile(bundle.doc('payments'))).diagnostics).toEqual([])
    expect(checks.count - before).toBeGreaterThan(2)
  })
})
