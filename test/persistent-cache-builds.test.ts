/**
 * The persistent cache in real builds (issue 33): a second Vite and Rollup build of an app reads it
 * (no compile), an edited locked file of a NATS bundle recompiles the contract that locks it, the
 * plugin's `cache` option puts the folder where it says (Vite's and webpack's cache folders by
 * default, a named folder), and `cache: false` writes nothing.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ContractCompiler, PersistentCache } from 'unplugin-contracts'
import { bundlers, freshDir } from './helpers/bundlers.js'
import { contracts } from './helpers/cli.js'
import { ShopBundle } from './helpers/nats-bundle.js'
import { sha256 } from '../src/core/input-host.js'

const repo = join(import.meta.dirname, '..')
const work = join(import.meta.dirname, '.tmp/persistent-cache-builds', String(process.pid))
afterAll(() => rmSync(work, { recursive: true, force: true }))

let made = 0
/**
 * An app of its own (a `package.json`, so the default folders are its own): a Benzene contract, the
 * NATS shop bundle (orders imported) and a DASP selection with its definitions.
 */
function app(): { root: string; main: string; bundle: ShopBundle; out: (name: string) => string } {
  const root = join(work, `app${made++}`)
  rmSync(root, { recursive: true, force: true })
  mkdirSync(root, { recursive: true })
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'cache-app', private: true, type: 'module' }))
  cpSync(join(repo, 'fixtures/benzene/valid/payments.spec.json'), join(root, 'payments.spec.json'))
  for (const part of ['counter.dasp.json', 'extensions', 'pins']) cpSync(join(repo, 'fixtures/dasp', part), join(root, 'dasp', part), { recursive: true })
  cpSync(join(repo, 'fixtures/nats/shop'), join(root, 'shop'), { recursive: true })
  writeFileSync(
    join(root, 'main.js'),
    [
      "export { capture } from './payments.spec.json'",
      "export { selectionRequest } from './dasp/counter.dasp.json'",
      "export * as orders from './shop/orders/asyncapi/asyncapi.yaml'",
    ].join('\n') + '\n',
  )
  return { root, main: join(root, 'main.js'), bundle: new ShopBundle(join(root, 'shop')), out: (name) => freshDir(join(work, 'out', `${made++}-${name}`)) }
}

const entries = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.entry')) : [])

describe.each(['vite', 'rollup'])('a second %s build', (name) => {
  const build = bundlers[name]!

  it('reads the cache: no contract is compiled, and the bundle is the same; an edited locked file recompiles its contract', async () => {
    const a = app()
    const dir = join(a.root, 'cache')
    const compilerIn = () => {
      const cache = new PersistentCache({ dir, root: a.root })
      return { cache, compiler: new ContractCompiler({ cache }) }
    }
    const first = compilerIn()
    const bundle = readFileSync(await build(a.main, a.out('1'), { compiler: first.compiler }), 'utf8')
    expect(first.compiler.compilations).toBe(3)
    expect(entries(dir)).toHaveLength(3)

    const second = compilerIn()
    expect(readFileSync(await build(a.main, a.out('2'), { compiler: second.compiler }), 'utf8')).toBe(bundle)
    expect(second.compiler.compilations).toBe(0)
    expect(second.cache).toMatchObject({ hits: 3, misses: 0 })

    // A file the orders document does not read itself, but its bundle locks: edited and relocked.
    a.bundle.edit('payments/workflows/refund.yaml', /$/, '\n# edited\n').relock()
    const third = compilerIn()
    await build(a.main, a.out('3'), { compiler: third.compiler })
    expect(third.compiler.compilations).toBe(1)
    expect(third.cache).toMatchObject({ hits: 2, misses: 1, writes: 1 })
  })
})

describe('the plugin option `cache`', () => {
  // The suite runs with the default cache off (vitest.config.ts); these tests are about the default.
  const off = process.env.UNPLUGIN_CONTRACTS_CACHE
  beforeAll(() => void delete process.env.UNPLUGIN_CONTRACTS_CACHE)
  afterAll(() => {
    if (off !== undefined) process.env.UNPLUGIN_CONTRACTS_CACHE = off
  })

  it('Vite: by default in Vite’s cache folder; then served from there (a forged entry shows it is read)', async () => {
    const a = app()
    await bundlers.vite!(a.main, a.out('1'), { types: false })
    const dir = join(a.root, 'node_modules/.vite/unplugin-contracts')
    const [name] = entries(dir).filter((n) => readFileSync(join(dir, n), 'utf8').includes('"file":"payments.spec.json"'))
    expect(name).toBeDefined()
    expect(existsSync(join(a.root, 'node_modules/.cache/unplugin-contracts'))).toBe(false)

    // An entry whose digest is right is trusted to be the compile's: a second build serves it.
    const path = join(dir, name!)
    const [header, , json] = readFileSync(path, 'utf8').split('\n')
    const body = JSON.parse(json!) as { result: { code: string } }
    body.result.code += '\nexport const fromTheCache = true\n'
    const text = JSON.stringify(body)
    writeFileSync(path, `${header}\n${sha256(text)}\n${text}`)
    writeFileSync(a.main, "export { fromTheCache } from './payments.spec.json'\n")
    const built = readFileSync(await bundlers.vite!(a.main, a.out('2'), { types: false }), 'utf8')
    expect(built).toMatch(/fromTheCache = true/)
  })

  it('a folder named by the option: relative to the root (Vite), or absolute (Rollup)', async () => {
    const a = app()
    await bundlers.vite!(a.main, a.out('relative'), { types: false, cache: 'build-cache' })
    expect(entries(join(a.root, 'build-cache'))).toHaveLength(3)
    await bundlers.rollup!(a.main, a.out('absolute'), { types: false, cache: join(a.root, 'rollup-cache') })
    expect(entries(join(a.root, 'rollup-cache'))).toHaveLength(3)
    expect(existsSync(join(a.root, 'node_modules'))).toBe(false)
  })

  it('`cache: false` writes nothing anywhere in the app', async () => {
    const a = app()
    const before = readdirSync(a.root, { recursive: true }).sort()
    await bundlers.vite!(a.main, join(work, `out-${made++}`), { types: false, cache: false })
    await webpackBuild(a.root, a.main, join(work, `out-${made++}`), { types: false, cache: false })
    expect(readdirSync(a.root, { recursive: true }).sort()).toEqual(before)
  })

  it('outside any package (no package.json from the root up), no folder named: nothing kept and no node_modules made there, by the plugin and the CLI; a named folder is used', async () => {
    // A contract checked from a home or downloads folder: the default folder used to be made in it.
    const outside = mkdtempSync(join(tmpdir(), 'contracts-no-package-'))
    try {
      for (let dir = outside; dirname(dir) !== dir; dir = dirname(dir)) expect(existsSync(join(dir, 'package.json')), dir).toBe(false)
      cpSync(join(repo, 'fixtures/benzene/valid/payments.spec.json'), join(outside, 'payments.spec.json'))
      writeFileSync(join(outside, 'main.js'), "export { capture } from './payments.spec.json'\n")
      await webpackBuild(outside, join(outside, 'main.js'), join(work, `out-${made++}`), { types: false })
      const env = { ...process.env }
      delete env.UNPLUGIN_CONTRACTS_CACHE
      expect(contracts(['check', 'payments.spec.json'], outside, env).status).toBe(0)
      expect(contracts(['types', 'payments.spec.json'], outside, env).status).toBe(0)
      expect(readdirSync(outside).sort()).toEqual(['main.js', 'payments.spec.d.json.ts', 'payments.spec.json'])
      // Named, the folder is used as anywhere else.
      await webpackBuild(outside, join(outside, 'main.js'), join(work, `out-${made++}`), { types: false, cache: 'plugin-cache' })
      expect(entries(join(outside, 'plugin-cache'))).toHaveLength(1)
      expect(contracts(['check', '--cache-dir', 'cli-cache', 'payments.spec.json'], outside, env).status).toBe(0)
      expect(entries(join(outside, 'cli-cache'))).toHaveLength(1)
      expect(existsSync(join(outside, 'node_modules'))).toBe(false)
    } finally {
      rmSync(outside, { recursive: true, force: true })
    }
  })

  it('webpack: in `node_modules/.cache/unplugin-contracts` of the app; with a filesystem cache, in its `cacheDirectory`', async () => {
    const a = app()
    await webpackBuild(a.root, a.main, join(work, `out-${made++}`), { types: false })
    expect(entries(join(a.root, 'node_modules/.cache/unplugin-contracts'))).toHaveLength(3)
    const cacheDirectory = join(a.root, 'webpack-cache')
    await webpackBuild(a.root, a.main, join(work, `out-${made++}`), { types: false }, { type: 'filesystem', cacheDirectory })
    expect(entries(join(cacheDirectory, 'unplugin-contracts'))).toHaveLength(3)
  })
})

/** A webpack build of `main` (context: `root`), with webpack's own `cache` option when given. */
async function webpackBuild(root: string, main: string, out: string, options: Record<string, unknown>, cache?: unknown): Promise<void> {
  const { default: webpack } = await import('webpack')
  const { default: contracts } = await import('unplugin-contracts/webpack')
  const compiler = webpack({
    mode: 'production',
    context: root,
    entry: main,
    target: 'node',
    ...(cache ? { cache } : {}),
    output: { path: out, filename: 'main.js', library: { type: 'module' }, module: true, chunkFormat: 'module' },
    experiments: { outputModule: true },
    optimization: { minimize: false },
    plugins: [contracts(options)],
  } as never)
  await new Promise<void>((done, fail) =>
    compiler.run((error, stats) => compiler.close(() => (error || stats?.hasErrors() ? fail(error ?? new Error(stats!.toString('errors-only'))) : done()))),
  )
}
