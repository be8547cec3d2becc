/** The plugin's own decisions: which imports it claims, what it watches, its options and hook filters. */
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { rollup } from 'rollup'
import { describe, expect, it, vi } from 'vitest'
import contracts from 'unplugin-contracts/rollup'
import { ContractCompiler } from '../src/index.js'
import { formats } from '../src/formats/index.js'
import { unpluginFactory } from '../src/plugin/factory.js'
import { hookFilters } from '../src/plugin/filters.js'
import { parseModuleId, parseTopologyId, toModuleId, toTopologyId } from '../src/plugin/module-id.js'
import { resolveOptions } from '../src/plugin/options.js'
import { RUNTIME_FILES } from '../src/plugin/runtime-entries.js'

const app = join(import.meta.dirname, 'fixtures/app')
const importer = join(app, 'main.js')
const contract = join(app, 'payments.spec.json')

type ResolveHook = { filter?: { id: RegExp }; handler: (id: string, importer?: string) => Promise<string | null> }

/** The plugin's `resolveId` as a bundler calls it: its filter first (an id it does not match never reaches the handler), then the handler. */
function resolver(options?: Parameters<typeof unpluginFactory>[0], framework = 'rollup') {
  const plugin = unpluginFactory(options, { framework } as never) as { resolveId: ResolveHook }
  const { filter, handler } = plugin.resolveId
  return async (id: string, from = importer) => (filter && !filter.id.test(id) ? null : handler.call({} as never, id, from))
}

describe('resolveId', () => {
  it('claims contract imports, with their query, as JavaScript modules named after the contract', async () => {
    // A plain path: Rollup and Rolldown leave a `\0` module out of source maps and print its id as it is.
    const resolve = resolver()
    expect(await resolve('./payments.spec.json')).toBe(`${contract}.contract.js`)
    expect(await resolve('./payments.spec.json?topics=payments:capture')).toBe(`${contract}.contract.js?topics=payments:capture`)
    expect(await resolve('./data.json')).toBeNull()
    expect(await resolve('./payments.spec.json.bak')).toBeNull()
  })

  it("marks the id virtual (\\0) in Vite's dev server, and where a file of the module's very name exists", async () => {
    const { createServer } = await import('vite')
    const { default: viteContracts } = await import('unplugin-contracts/vite')
    const server = await createServer({
      configFile: false,
      logLevel: 'silent',
      root: app,
      server: { middlewareMode: true, ws: false },
      plugins: [viteContracts({ types: false })],
    })
    try {
      expect((await server.environments.client.pluginContainer.resolveId('./payments.spec.json', importer))?.id).toBe(`\0${contract}.contract.js`)
    } finally {
      await server.close()
    }
    const shadow = join(import.meta.dirname, '.tmp/plugin-shadow')
    rmSync(shadow, { recursive: true, force: true })
    mkdirSync(shadow, { recursive: true })
    copyFileSync(contract, join(shadow, 'payments.spec.json'))
    writeFileSync(join(shadow, 'payments.spec.json.contract.js'), 'export const mine = 1\n')
    expect(await resolver()('./payments.spec.json', join(shadow, 'main.js'))).toBe(`\0${join(shadow, 'payments.spec.json')}.contract.js`)
  })

  it("gives esbuild the path from its working directory (in the plugin's namespace); webpack and Rspack the absolute path without \\0 (named apart)", async () => {
    const esbuild = unpluginFactory(undefined, { framework: 'esbuild' } as never) as { esbuild: { config(options: object): void }; resolveId: ResolveHook }
    esbuild.esbuild.config({ absWorkingDir: app })
    expect(await esbuild.resolveId.handler('./payments.spec.json', importer)).toBe('./payments.spec.json.contract.js')
    expect(await esbuild.resolveId.handler('../valid.spec.json', importer)).toBe('../valid.spec.json.contract.js')
    expect(await resolver(undefined, 'webpack')('./payments.spec.json')).toBe(`${contract}.contract.js`)
    expect(await resolver(undefined, 'rspack')('./payments.spec.json')).toBe(`${contract}.contract.js`)
  })

  it('reads back the file and query of every id it gives, inside the root, at it, above it, or absolute', () => {
    const cases = [join(app, 'payments.spec.json'), join(app, 'asyncapi.yaml'), '/elsewhere/x.dasp.json', join(app, 'a b/%2e%2e/x#.spec.json')]
    for (const file of cases)
      for (const form of [
        { virtualPrefix: true },
        { virtualPrefix: false },
        { virtualPrefix: true, root: app },
        { virtualPrefix: false, root: join(app, 'deeper/still') },
      ])
        for (const query of ['', 'topics=a:b', 'x=%2F..%2F'])
          expect(parseModuleId(toModuleId(file, query, form), form.root), `${file} ${JSON.stringify(form)}`).toEqual({ file, query })
    const lock = join(app, 'bundle.lock.json')
    expect(parseTopologyId(toTopologyId(lock, { virtualPrefix: true, root: app }), app)).toBe(lock)
    // A relative id with no root to read it against names no file.
    expect(parseModuleId('\0./x.spec.json.contract.js')).toBeUndefined()
  })

  it('respects include and exclude', async () => {
    expect(await resolver({ exclude: [/payments/] })('./payments.spec.json')).toBeNull()
    expect(await resolver({ include: ['**/orders.spec.json'] })('./payments.spec.json')).toBeNull()
    expect(await resolver({ include: ['**/payments.spec.json'] })('./payments.spec.json')).not.toBeNull()
  })

  it("leaves a dependency's import of its own contract file alone (it means the JSON)", async () => {
    expect(await resolver()('./payments.spec.json', join(app, 'node_modules/@acme/lib/index.js'))).toBeNull()
  })

  it("resolves the runtime to this package's own build", async () => {
    expect(await resolver()('unplugin-contracts/runtime')).toMatch(/dist\/src\/runtime\/index\.js$/)
  })
})

describe('warnings', () => {
  it('a Rollup build of a contract warns of nothing', async () => {
    // Was a defect (fixed): every such build warned that the runtime's module-exports.js held "an
    // annotation that Rollup cannot interpret" (a pure annotation quoted in a JSDoc comment).
    const warnings: string[] = []
    const bundle = await rollup({ input: importer, plugins: [contracts({ types: false })], onwarn: (warning) => warnings.push(warning.message) })
    await bundle.generate({ format: 'es' })
    await bundle.close()
    expect(warnings).toEqual([])
  })
})

describe('watching', () => {
  it('the contract is a watch file of the build', async () => {
    const bundle = await rollup({ input: importer, plugins: [contracts({ types: false })] })
    expect(bundle.watchFiles).toContain(contract)
    await bundle.close()
  })
})

describe('options', () => {
  it('fills in the defaults, from one place', () => {
    const { options, problems } = resolveOptions(undefined)
    expect(problems).toEqual([])
    expect(options).toMatchObject({
      include: undefined,
      exclude: [],
      types: 'sidecar',
      cache: true,
      cacheMaxBytes: 256 * 1024 * 1024,
      benzene: {},
      nats: undefined,
    })
    // (Not printed on failure: a test library would call the compiler's own `inspect` to show it.)
    expect(options.compiler.formats === formats).toBe(true)
    expect(resolveOptions({ types: false, include: ['**/a.spec.json', /b/], nats: { names: {} } }).options).toMatchObject({ types: false, nats: { names: {} } })
  })

  it('an option the plugin does not have is a warning naming the ones it has, and is ignored', () => {
    const { options, problems } = resolveOptions({ typs: false, exclude: [/x/] })
    expect(problems).toEqual([
      {
        code: 'CONTRACTS_UNKNOWN_PLUGIN_OPTION',
        severity: 'warning',
        message:
          'Unknown plugin option "typs", ignored (the options are include, exclude, types, cache, cacheMaxBytes, workers, compiler, benzene, nats, diff).',
        data: { option: 'typs', known: ['include', 'exclude', 'types', 'cache', 'cacheMaxBytes', 'workers', 'compiler', 'benzene', 'nats', 'diff'] },
      },
    ])
    expect(options.types).toBe('sidecar')
    expect(options.exclude).toEqual([/x/])
    // The plugin is made, and says so once.
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      expect(unpluginFactory({ typs: false } as never, { framework: 'rollup' } as never)).toBeDefined()
      expect(warn.mock.calls).toEqual([[`unplugin-contracts: warning CONTRACTS_UNKNOWN_PLUGIN_OPTION: ${problems[0]!.message}`]])
    } finally {
      warn.mockRestore()
    }
  })

  it('a value an option cannot take is an error, and the plugin is not made', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ types: true }, "types: true is not 'sidecar' or false"],
      [{ include: 5 }, 'include: 5 is not a glob, a RegExp or a list of them'],
      [{ exclude: [/x/, 7] }, 'exclude: [{},7] is not a glob, a RegExp or a list of them'],
      [{ compiler: {} }, 'compiler: {} is not a ContractCompiler'],
      [{ benzene: 'x' }, 'benzene: "x" is not an object of Benzene options'],
      [{ nats: [] }, 'nats: [] is not an object of NATS options'],
      [{ cache: 'x'.slice(1) }, 'cache: "" is not true, false or a folder'],
      [{ cache: 1 }, 'cache: 1 is not true, false or a folder'],
      [{ cacheMaxBytes: 0 }, 'cacheMaxBytes: 0 is not a positive whole number of bytes'],
      [{ cacheMaxBytes: 1.5 }, 'cacheMaxBytes: 1.5 is not a positive whole number of bytes'],
      [{ workers: -1 }, 'workers: -1 is not true, false or a whole number of threads'],
      [{ workers: '2' }, 'workers: "2" is not true, false or a whole number of threads'],
      [
        { cache: false, compiler: new ContractCompiler() },
        'cache applies to the compiler the plugin makes; a compiler given keeps its own cache (new ContractCompiler({ cache: new PersistentCache({ dir, root }) }))',
      ],
    ]
    for (const [given, message] of cases) {
      const { problems } = resolveOptions(given)
      expect(
        problems.map((p) => [p.code, p.severity, p.message]),
        JSON.stringify(given),
      ).toEqual([['CONTRACTS_INVALID_PLUGIN_OPTION', 'error', `Plugin option ${message}.`]])
      expect(() => unpluginFactory(given as never, { framework: 'rollup' } as never)).toThrow(
        `error CONTRACTS_INVALID_PLUGIN_OPTION: Plugin option ${message}.`,
      )
    }
    expect(resolveOptions('sidecar').problems.map((p) => p.code)).toEqual(['CONTRACTS_INVALID_PLUGIN_OPTION'])
  })
})

describe('hook filters', () => {
  const compiler = new ContractCompiler()
  const names = ['fixtures', 'examples', 'test/fixtures'].flatMap((dir) =>
    readdirSync(join(import.meta.dirname, '..', dir), { recursive: true, encoding: 'utf8' }).map((name) => `/repo/${dir}/${name}`),
  )
  const tricky = [
    'asyncapi.yaml',
    'x/asyncapi.json',
    'asyncapi.yml',
    'my-asyncapi.yaml',
    'a.asyncapi.yml',
    '.spec.json',
    'a.spec.json.bak',
    'a.spec.jsonx',
    'a.dasp.json',
    'a.dasp-ext.json',
    'x.json',
    'C:\\app\\asyncapi.yaml',
  ]

  it("each built-in format's pattern claims exactly the names its `match` claims", () => {
    expect(names.length).toBeGreaterThan(200)
    for (const format of formats)
      for (const name of [...names, ...tricky]) expect(format.pattern!.test(name), `${format.name} ${name}`).toBe(format.match(name))
  })

  it('resolveId: every contract a format claims (with any query), the topology import, the runtime and its packages; nothing else', () => {
    const { resolveId } = hookFilters(formats, false)
    for (const name of [...names, ...tricky]) {
      const claimed = compiler.formatOf(name) !== undefined
      expect(resolveId!.id.test(name), name).toBe(claimed)
      expect(resolveId!.id.test(`${name}?topics=a,b&t=1`), name).toBe(claimed)
    }
    for (const id of [
      'unplugin-contracts/runtime',
      'unplugin-contracts/runtime/nats',
      'canonicalize',
      're2js',
      './bundle.lock.json?topology',
      'bundle.lock.json?topology',
      // Near misses, for the load to refuse (CONTRACTS_UNKNOWN_QUERY) rather than the bundler's JSON.
      './bundle.lock.json?topology=1',
      './bundle.lock.json?x&topology',
    ])
      expect(resolveId!.id.test(id), id).toBe(true)
    for (const id of [
      './bundle.lock.json',
      './bundle.lock.json?raw',
      './bundle.lock.json?topologyx',
      './bundle.lock.json?notopology',
      'unplugin-contracts',
      'unplugin-contracts/runtime/x',
      'vue',
      './data.json',
      're2js/x',
    ])
      expect(resolveId!.id.test(id), id).toBe(false)
  })

  it("load: the ids resolveId gives (contracts with their query, topologies), and for esbuild the runtime's files", () => {
    const contract = join(app, 'payments.spec.json')
    const ids = [
      toModuleId(contract, '', { virtualPrefix: true }),
      toModuleId(contract, 'topics=a', { virtualPrefix: false }),
      toModuleId('/b/asyncapi.yaml', '', { virtualPrefix: true }),
      toTopologyId('/b/bundle.lock.json', { virtualPrefix: true }),
      // Relative to the root, as a build writes them (a document at the root itself included).
      toModuleId('/b/asyncapi.yaml', '', { virtualPrefix: true, root: '/b' }),
      toModuleId('/b/asyncapi.yaml', 'a=1', { virtualPrefix: false, root: '/b' }),
      toModuleId(contract, '', { virtualPrefix: true, root: '/elsewhere' }),
      toTopologyId('/b/bundle.lock.json', { virtualPrefix: true, root: '/b' }),
    ]
    const runtime = [...RUNTIME_FILES]
    for (const esbuild of [false, true]) {
      const { load } = hookFilters(formats, esbuild)
      for (const id of ids) expect(load.id.test(id), id).toBe(true)
      for (const id of runtime) expect(load.id.test(id), id).toBe(esbuild)
      for (const id of [contract, `${contract}.js`, '/b/data.json.contract.jsx', '/b/x.json.contract.js', '/b/bundle.lock.json'])
        expect(load.id.test(id), id).toBe(false)
    }
  })

  it('a format without a pattern leaves resolveId unfiltered', () => {
    const { pattern: _, ...unpatterned } = formats[0]!
    expect(hookFilters([unpatterned], false).resolveId).toBeUndefined()
    expect(hookFilters([unpatterned], false).load.id.test(toModuleId('/x/anything.contract.js', '', { virtualPrefix: true }))).toBe(true)
  })
})
