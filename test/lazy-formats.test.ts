/**
 * The built-in formats are registered lazily (`lazyFormat`, src/formats/index.ts): a compiler picks
 * a file's format by name and pattern alone and imports the format's code on the first file it
 * claims. Here: the registrations agree with the formats they load; a compiler loads a format once,
 * and only for a file it claims; a format given whole still works; and what a process of the built
 * package (dist/) really loads, followed with a loader hook that lists every module: importing
 * the package, or a plugin asked about an unrelated import, loads no format, and a compile loads
 * the format of its file alone.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { ContractCompiler, PersistentCache, lazyFormat, natsFormat, type ContractFormat, type NatsModel } from '../src/index.js'
import { formats } from '../src/formats/index.js'
import { isLazyFormat, type LazyFormat } from '../src/core/format.js'

const root = join(import.meta.dirname, '..')
const fixtures = join(root, 'fixtures')
const benzeneFile = join(fixtures, 'benzene/valid/payments.spec.json')
const natsFile = join(fixtures, 'nats/valid/ledger.asyncapi.yaml')
const daspFile = join(fixtures, 'dasp/counter.dasp.json')

/** Every file name under fixtures/ and examples/, and names made to sit at each pattern's edges. */
const walk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.name === 'node_modules' || e.name === 'dist' ? [] : e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
  )
const names = [
  ...walk(fixtures),
  ...walk(join(root, 'examples')),
  'asyncapi.yaml',
  'asyncapi.yml',
  'asyncapi.json',
  'x/asyncapi.yaml',
  'x\\asyncapi.json',
  'a.asyncapi.yml',
  'myasyncapi.yaml',
  'a.asyncapi.yaml.bak',
  '.spec.json',
  'a.spec.jsonc',
  'a.dasp.json',
  'a.dasp-ext.json',
  'a.dasp.json/x',
]

describe('lazy registration', () => {
  it('each built-in format is registered lazily, under its own name and pattern, and claims exactly what the format claims', async () => {
    expect(names.length).toBeGreaterThan(200)
    expect(formats.map((f) => f.name)).toEqual(['benzene', 'nats', 'dasp'])
    for (const registered of formats) {
      expect(isLazyFormat(registered)).toBe(true)
      const format = await (registered as LazyFormat).implementation()
      expect(isLazyFormat(format)).toBe(false)
      expect(format.name).toBe(registered.name)
      expect([registered.pattern?.source, registered.pattern?.flags]).toEqual([format.pattern?.source, format.pattern?.flags])
      for (const name of names) expect(registered.match(name), `${registered.name} ${name}`).toBe(format.match(name))
      // Loaded once: the same format object every time.
      expect(await (registered as LazyFormat).implementation()).toBe(format)
      // Its options alone: the very query keys and option resolution the format has.
      const asks = await (registered as LazyFormat).options!()
      expect(asks.queryKeys).toEqual(format.queryKeys)
      expect(asks.resolveOptions).toBe(format.resolveOptions)
    }
  })

  it('a compile the persistent cache answers loads the format options alone; a model of it, or a miss, loads the format', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lazy-formats-cache-'))
    try {
      const counting = () => {
        const loads: Record<string, number> = {}
        const counted = formats.map((f) => {
          const lazy = f as LazyFormat<any, any, any, any>
          const count = (what: string) => (loads[what] = (loads[what] ?? 0) + 1)
          return lazyFormat({
            name: lazy.name,
            pattern: lazy.pattern!,
            load: () => (count(lazy.name), lazy.implementation()),
            options: () => (count(`${lazy.name} options`), lazy.options!()),
          })
        })
        const compiler = new ContractCompiler({ formats: counted, cache: new PersistentCache({ dir, root: fixtures }) })
        return { loads, counted, compiler }
      }
      const first = counting()
      const compiled = await first.compiler.compile(natsFile, { declarations: false })
      expect(first.loads).toEqual({ 'nats options': 1, nats: 1 })
      // A second process's compiler: answered from disk, the same result, and no format loaded.
      const second = counting()
      const served = await second.compiler.compile(natsFile, { declarations: false })
      expect([second.compiler.persistent!.hits, second.compiler.compilations]).toEqual([1, 0])
      expect([served.code, served.format, served.diagnostics]).toEqual([compiled.code, 'nats', compiled.diagnostics])
      expect(second.loads).toEqual({ 'nats options': 1 })
      // The model of it (the topology reads one) loads the format then.
      expect((await second.compiler.model<NatsModel>(natsFile, second.counted[1]!)).model?.contract.id).toBe('ledger')
      expect(second.loads).toEqual({ 'nats options': 1, nats: 1 })
      // A query the cache has not seen is a miss: compiled, with the format.
      const unknown = await second.compiler.compile(benzeneFile, { query: 'nope', declarations: false })
      expect(unknown.diagnostics.map((d) => d.code)).toEqual(['CONTRACTS_UNKNOWN_QUERY'])
      expect(second.loads).toEqual({ 'nats options': 1, nats: 1, 'benzene options': 1, benzene: 1 })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('a compiler loads a format on the first file it claims, once, and never one it has not needed', async () => {
    const loads: Record<string, number> = { benzene: 0, nats: 0, dasp: 0 }
    const counted = formats.map((f) => {
      const lazy = f as LazyFormat<any, any, any, any>
      return lazyFormat({
        name: lazy.name,
        pattern: lazy.pattern!,
        load: () => {
          loads[lazy.name]!++
          return lazy.implementation()
        },
      })
    })
    const compiler = new ContractCompiler({ formats: counted })
    expect(compiler.formatOf(natsFile)?.name).toBe('nats')
    expect(compiler.formatOf(daspFile)?.name).toBe('dasp')
    expect((await compiler.compile(join(fixtures, 'benzene/valid/x.json'))).diagnostics.map((d) => d.code)).toEqual(['CONTRACTS_UNKNOWN_FORMAT'])
    expect(loads).toEqual({ benzene: 0, nats: 0, dasp: 0 })
    const first = await compiler.compile(benzeneFile)
    expect(first.code).toBeDefined()
    await compiler.compile(benzeneFile, { query: 'includeReserved' })
    await compiler.inspect(benzeneFile)
    expect(loads).toEqual({ benzene: 1, nats: 0, dasp: 0 })
    const { model } = await compiler.model<NatsModel>(natsFile, counted[1]!)
    expect(model?.contract.id).toBe('ledger')
    expect(loads).toEqual({ benzene: 1, nats: 1, dasp: 0 })
  })

  it('`model` answers for a format named as registered or as loaded, and for no other', async () => {
    const compiler = new ContractCompiler()
    const loaded = await natsFormat.implementation()
    await compiler.compile(natsFile)
    expect((await compiler.model(natsFile, natsFormat)).model?.contract.id).toBe('ledger')
    expect((await compiler.model(natsFile, loaded)).model?.contract.id).toBe('ledger')
    const other = await new ContractCompiler().model(benzeneFile, loaded)
    expect([other.format, other.model]).toEqual(['benzene', undefined])
  })

  it('a format given whole (a third-party one) is used as it is', async () => {
    const whole = await natsFormat.implementation()
    const compiler = new ContractCompiler({ formats: [whole] })
    expect(compiler.formatOf(natsFile)).toBe(whole)
    const result = await compiler.compile(natsFile)
    expect([result.format, result.code !== undefined]).toEqual(['nats', true])
    expect((await compiler.model(natsFile, whole)).model?.contract.id).toBe('ledger')
  })

  it('a format that cannot be loaded, or loads under another name, fails the files it claims (CONTRACTS_INTERNAL), nothing else', async () => {
    const broken = lazyFormat({
      name: 'broken',
      pattern: /\.broken\.json$/,
      load: () => Promise.reject(new Error('no such module')),
    })
    const misnamed = lazyFormat({ name: 'other', pattern: /\.spec\.json$/, load: async () => (await natsFormat.implementation()) as ContractFormat })
    const compiler = new ContractCompiler({ formats: [broken, ...formats] })
    const failed = await compiler.compile(join(fixtures, 'a.broken.json'))
    expect([failed.format, failed.diagnostics.map((d) => d.code)]).toEqual(['broken', ['CONTRACTS_INTERNAL']])
    expect(failed.diagnostics[0]!.message).toContain('no such module')
    expect((await compiler.compile(benzeneFile)).code).toBeDefined()
    const wrong = await new ContractCompiler({ formats: [misnamed] }).compile(benzeneFile)
    expect(wrong.diagnostics.map((d) => d.code)).toEqual(['CONTRACTS_INTERNAL'])
    expect(wrong.diagnostics[0]!.message).toContain('loaded as "nats"')
  })
})

/**
 * What a fresh process of the built package loads: `node` with a loader hook that appends each
 * module's URL to a file. A format's code is recognised by its check function, which only that
 * format's code defines (in tsc's files and in the bundled chunks alike).
 */
describe('what a process of the built package loads', () => {
  const work = mkdtempSync(join(tmpdir(), 'lazy-formats-'))
  afterAll(() => rmSync(work, { recursive: true, force: true }))
  const hook = `data:text/javascript,${encodeURIComponent(
    `import { register } from 'node:module'
register('data:text/javascript,' + encodeURIComponent(\`import { appendFileSync } from 'node:fs'
export async function load(url, context, next) { appendFileSync(process.env.LOADED_LOG, url + '\\\\n'); return next(url, context) }\`))`,
  )}`
  const markers = { benzene: 'function checkBenzene(', nats: 'function checkNats(', dasp: 'function checkDasp(' }
  let runs = 0

  /** Every module URL a process loaded through the ES module loader (`args`: node's arguments after the hook). */
  function urlsLoaded(args: string[]): string[] {
    const log = join(work, `loaded-${runs++}.txt`)
    writeFileSync(log, '')
    execFileSync(process.execPath, ['--import', hook, ...args], { cwd: root, env: { ...process.env, LOADED_LOG: log }, stdio: 'pipe' })
    return readFileSync(log, 'utf8')
      .split('\n')
      .filter((url) => url !== '')
  }

  /** The formats whose code a process loaded (`args`: node's arguments after the hook). */
  function formatsLoaded(args: string[]): string[] {
    const files = urlsLoaded(args)
      .filter((url) => url.startsWith('file:') && fileURLToPath(url).startsWith(join(root, 'dist')))
      .map((url) => readFileSync(fileURLToPath(url), 'utf8'))
    expect(files.length).toBeGreaterThan(0)
    return Object.entries(markers)
      .filter(([, marker]) => files.some((text) => text.includes(marker)))
      .map(([name]) => name)
  }
  const module = (code: string) => ['--input-type=module', '-e', code]

  it('importing the package loads no format; a compile loads the format of its file, and no other', () => {
    expect(formatsLoaded(module(`await import('./dist/src/index.js')`))).toEqual([])
    const compile = (file: string) =>
      module(
        `const { compile } = await import('./dist/src/index.js'); const r = await compile(${JSON.stringify(file)}); if (r.code === undefined) process.exit(1)`,
      )
    expect(formatsLoaded(compile(benzeneFile))).toEqual(['benzene'])
    expect(formatsLoaded(compile(natsFile))).toEqual(['nats'])
    expect(formatsLoaded(compile(daspFile))).toEqual(['dasp'])
  })

  it('importing the package and a first compile of each format, and `contracts check` of each, resolve no package from node_modules (the chunks hold the few they import, scripts/bundle-cli.mjs)', () => {
    // The first package a process resolves costs it the resolver's start and each module read and
    // compiled apart: about 6% of a fresh process's import and first compile when the code frames'
    // `get-east-asian-width` was an import of its own (docs/performance.md, Cold start).
    for (const file of [natsFile, benzeneFile, daspFile]) {
      const urls = urlsLoaded(
        module(
          `const { compile } = await import('./dist/src/index.js'); const r = await compile(${JSON.stringify(file)}); if (r.code === undefined) process.exit(1)`,
        ),
      )
      expect(urls.some((url) => url.includes('/dist/chunks/'))).toBe(true)
      expect(
        urls.filter((url) => !url.startsWith('node:') && !url.startsWith('data:') && !fileURLToPath(url).startsWith(join(root, 'dist'))),
        file,
      ).toEqual([])
      // The command, bundled apart (scripts/bundle-cli.mjs), the same: `contracts check` read both
      // packages from node_modules, about a tenth of a small check's time.
      const checked = urlsLoaded([join(root, 'dist/cli.js'), 'check', file])
      expect(checked.some((url) => url.includes('/dist/cli-chunks/'))).toBe(true)
      expect(
        checked.filter((url) => !url.startsWith('node:') && !url.startsWith('data:') && !fileURLToPath(url).startsWith(join(root, 'dist'))),
        `contracts check ${file}`,
      ).toEqual([])
    }
  })

  it('a plugin, made and asked about imports no format claims, loads no format; a contract import loads its own', () => {
    const plugin = `const { default: contracts } = await import('./dist/plugins/rollup.js')
const plugin = contracts({ types: false, cache: false })
const resolve = async (id, importer) => (plugin.resolveId.filter && !plugin.resolveId.filter.id.test(id) ? null : plugin.resolveId.handler.call({}, id, importer))
const load = async (id) => (plugin.load.filter.id.test(id) ? plugin.load.handler.call({ addWatchFile() {}, warn() {} }, id) : null)
const importer = ${JSON.stringify(join(fixtures, 'benzene/valid/main.js'))}
for (const id of ['./util.js', 'lodash', './data.json', './x.spec.json.bak']) if ((await resolve(id, importer)) !== null) process.exit(2)
if ((await load(${JSON.stringify(join(fixtures, 'benzene/valid/util.js'))})) !== null) process.exit(3)`
    expect(formatsLoaded(module(plugin))).toEqual([])
    const contract = `${plugin}
const id = await resolve('./payments.spec.json', importer)
if (id === null || typeof (await load(id))?.code !== 'string') process.exit(4)`
    expect(formatsLoaded(module(contract))).toEqual(['benzene'])
  })

  it('a compile the persistent cache answers (a second build of unchanged contracts) loads no format', () => {
    const cache = join(work, 'cache')
    const compile = module(
      `const { ContractCompiler, PersistentCache, formats } = await import('./dist/src/index.js')
const compiler = new ContractCompiler({ formats, cache: new PersistentCache({ dir: ${JSON.stringify(cache)}, root: ${JSON.stringify(fixtures)} }) })
for (const file of ${JSON.stringify([benzeneFile, natsFile, daspFile])}) if ((await compiler.compile(file, { declarations: false })).code === undefined) process.exit(1)
console.log(compiler.persistent.hits)`,
    )
    expect(formatsLoaded(compile)).toEqual(['benzene', 'nats', 'dasp'])
    expect(formatsLoaded(compile)).toEqual([])
  })

  it('`contracts check` loads the format of the file it checks, and no other', () => {
    expect(formatsLoaded([join(root, 'dist/cli.js'), 'check', benzeneFile])).toEqual(['benzene'])
    expect(formatsLoaded([join(root, 'dist/cli.js'), 'check', natsFile])).toEqual(['nats'])
  })
})
