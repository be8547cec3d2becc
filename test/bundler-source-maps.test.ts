/**
 * A contract module's source map goes to a bundler that makes maps, and only there: with maps
 * asked for, the bundle's map leads back to the contract document; without, the bundler is handed
 * the module's code alone (esbuild would get a map inlined into the module's text, base64 of the
 * map and of the whole contract, and read it again for nothing).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ContractCompiler } from 'unplugin-contracts'
import { formats } from '../src/formats/index.js'
import { bundlerUsesMap } from '../src/plugin/source-maps.js'
import { freshDir } from './helpers/bundlers.js'

const app = join(import.meta.dirname, 'fixtures/app')
const contract = join(app, 'payments.spec.json')
const out = (name: string) => freshDir(join(import.meta.dirname, '.tmp/bundler-source-maps', name))

/** The sources of a written map that are the contract (bundlers name them relative, or with their own scheme). */
const contractSources = (map: { sources: string[]; sourcesContent?: Array<string | null> }) =>
  map.sources.flatMap((source, i) => (source.endsWith('payments.spec.json') ? [map.sourcesContent?.[i]] : []))

async function esbuildBuild(dir: string, sourcemap: boolean) {
  const { build } = await import('esbuild')
  const { default: contracts } = await import('unplugin-contracts/esbuild')
  return build({
    entryPoints: [join(app, 'main.js')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    outfile: join(dir, 'main.js'),
    plugins: [contracts({ types: false, cache: false })],
    logLevel: 'silent',
    metafile: true,
    ...(sourcemap ? { sourcemap: true } : {}),
  })
}

describe('esbuild', () => {
  it('with `sourcemap`, the bundle maps back to the contract', async () => {
    const dir = out('esbuild-maps')
    await esbuildBuild(dir, true)
    const map = JSON.parse(readFileSync(join(dir, 'main.js.map'), 'utf8'))
    expect(contractSources(map)).toEqual([readFileSync(contract, 'utf8')])
  })

  it('without it, the module esbuild reads is the compiled code alone', async () => {
    const result = await esbuildBuild(out('esbuild-no-maps'), false)
    const compiled = await new ContractCompiler({ formats }).compile(contract, { declarations: false })
    const [, input] = Object.entries(result.metafile.inputs).find(([path]) => path.endsWith('payments.spec.json.contract.js'))!
    expect(input.bytes).toBe(Buffer.byteLength(compiled.code!))
  })
})

describe('webpack', () => {
  async function webpackBuild(dir: string, devtool: string | false) {
    const { default: webpack } = await import('webpack')
    const { default: contracts } = await import('unplugin-contracts/webpack')
    const compiler = webpack({
      mode: 'production',
      devtool,
      context: app,
      entry: './main.js',
      target: 'node',
      optimization: { minimize: false },
      output: { path: dir, filename: 'main.js', library: { type: 'module' }, module: true, chunkFormat: 'module' },
      experiments: { outputModule: true },
      plugins: [contracts({ types: false, cache: false })],
    })
    await new Promise<void>((done, fail) =>
      compiler.run((error, stats) => compiler.close(() => (error || stats?.hasErrors() ? fail(error ?? new Error(stats!.toString('errors-only'))) : done()))),
    )
  }

  it('with a `devtool`, the bundle maps back to the contract', async () => {
    const dir = out('webpack-maps')
    await webpackBuild(dir, 'source-map')
    const map = JSON.parse(readFileSync(join(dir, 'main.js.map'), 'utf8'))
    expect(contractSources(map)).toEqual([readFileSync(contract, 'utf8')])
  })
})

/**
 * Rollup and Rolldown (and so a Vite build) leave a module whose id starts with `\0` out of the
 * bundle's map: the contract modules had such ids, and no bundle of these three mapped back to the
 * contract, with the plugin's map handed over or not. Their ids are plain paths now (module-id.ts).
 */
describe('Rollup, Rolldown and a Vite build', () => {
  const builds = {
    async rollup(dir: string) {
      const { rollup } = await import('rollup')
      const { default: contracts } = await import('unplugin-contracts/rollup')
      const bundle = await rollup({ input: join(app, 'main.js'), plugins: [contracts({ types: false, cache: false })], onwarn: () => {} })
      await bundle.write({ file: join(dir, 'main.js'), format: 'es', sourcemap: true })
      await bundle.close()
    },
    async rolldown(dir: string) {
      const { rolldown } = await import('rolldown')
      const { default: contracts } = await import('unplugin-contracts/rolldown')
      const bundle = await rolldown({ input: join(app, 'main.js'), plugins: [contracts({ types: false, cache: false })], logLevel: 'silent' })
      await bundle.write({ file: join(dir, 'main.js'), format: 'es', sourcemap: true })
      await bundle.close()
    },
    async vite(dir: string) {
      const { build } = await import('vite')
      const { default: contracts } = await import('unplugin-contracts/vite')
      await build({
        configFile: false,
        logLevel: 'silent',
        root: app,
        plugins: [contracts({ types: false, cache: false })],
        build: {
          outDir: dir,
          emptyOutDir: true,
          minify: false,
          sourcemap: true,
          lib: { entry: join(app, 'main.js'), formats: ['es'], fileName: () => 'main.js' },
        },
      })
    },
  }
  for (const [bundler, build] of Object.entries(builds))
    it(`${bundler}: with source maps, the bundle maps back to the contract`, async () => {
      const dir = out(`${bundler}-maps`)
      await build(dir)
      const map = JSON.parse(readFileSync(join(dir, 'main.js.map'), 'utf8'))
      expect(contractSources(map)).toEqual([readFileSync(contract, 'utf8')])
    })
})

// Vite learns `build.sourcemap` per environment; the load hook's `this.environment` tells it.
describe('the decision, per bundler', () => {
  const vite = (command: string, sourcemap: unknown) => ({ environment: { config: { command, build: { sourcemap } } } })
  const loader = (sourceMap: boolean) => ({ getNativeBuildContext: () => ({ loaderContext: { sourceMap } }) })

  it('Vite: a build with `build.sourcemap`, and every dev server', () => {
    expect(bundlerUsesMap('vite', vite('build', false), undefined)).toBe(false)
    expect(bundlerUsesMap('vite', vite('build', 'hidden'), undefined)).toBe(true)
    expect(bundlerUsesMap('vite', vite('serve', false), undefined)).toBe(true)
  })

  it('webpack and Rspack: as the loader context says', () => {
    for (const framework of ['webpack', 'rspack'] as const) {
      expect(bundlerUsesMap(framework, loader(false), undefined)).toBe(false)
      expect(bundlerUsesMap(framework, loader(true), undefined)).toBe(true)
    }
  })

  it('esbuild: as its `sourcemap` option says; Rollup and Rolldown, which learn the output options last: always', () => {
    expect(bundlerUsesMap('esbuild', {}, undefined)).toBe(false)
    expect(bundlerUsesMap('esbuild', {}, false)).toBe(false)
    expect(bundlerUsesMap('esbuild', {}, 'external')).toBe(true)
    expect(bundlerUsesMap('rollup', {}, undefined)).toBe(true)
    expect(bundlerUsesMap('rolldown', {}, undefined)).toBe(true)
  })
})
