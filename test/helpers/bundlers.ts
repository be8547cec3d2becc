/**
 * Builds one entry with each real bundler and the plugin as users install it (the package's own
 * `exports`), to an ES module that Node can import. A failed build rejects with the bundler's
 * whole error text, so tests can check what a user would see.
 */
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { PluginOptions } from 'unplugin-contracts'

/** `minify`: webpack and Rspack drop dead code only when they minify (their tree-shaking is usedExports plus the minifier). */
export interface BuildOptions {
  minify?: boolean
  root?: string
  /** Specifier prefix -> folder, in the bundler's own alias option (Rollup has none of its own). */
  alias?: Record<string, string>
  /** A tsconfig.json whose `paths` the bundler resolves with, where it can by itself (Vite, Rolldown, esbuild, Rspack). */
  tsconfig?: string
}
export type BuildFn = (entry: string, outDir: string, options?: PluginOptions, build?: BuildOptions) => Promise<string>

/** What each bundler resolves by itself, without a plugin: the forms a contract import must work in there too. */
export const resolves: Record<string, { alias: boolean; tsconfig: boolean }> = {
  vite: { alias: true, tsconfig: true },
  rollup: { alias: false, tsconfig: false },
  rolldown: { alias: true, tsconfig: true },
  esbuild: { alias: true, tsconfig: true },
  webpack: { alias: true, tsconfig: false },
  rspack: { alias: true, tsconfig: true },
}

export const bundlers: Record<string, BuildFn> = {
  async vite(entry, outDir, options, bundler) {
    const { build } = await import('vite')
    const { default: contracts } = await import('unplugin-contracts/vite')
    await build({
      configFile: false,
      logLevel: 'silent',
      root: bundler?.root ?? join(entry, '..'),
      resolve: { alias: bundler?.alias, tsconfigPaths: bundler?.tsconfig !== undefined },
      plugins: [contracts(options)],
      build: { outDir, emptyOutDir: true, minify: false, lib: { entry, formats: ['es'], fileName: () => 'main.js' } },
    })
    return join(outDir, 'main.js')
  },

  async rollup(entry, outDir, options) {
    const { rollup } = await import('rollup')
    const { default: contracts } = await import('unplugin-contracts/rollup')
    const bundle = await rollup({ input: entry, plugins: [contracts(options)], onwarn: () => {} })
    await bundle.write({ file: join(outDir, 'main.js'), format: 'es' })
    await bundle.close()
    return join(outDir, 'main.js')
  },

  async rolldown(entry, outDir, options, build) {
    const { rolldown } = await import('rolldown')
    const { default: contracts } = await import('unplugin-contracts/rolldown')
    const bundle = await rolldown({
      input: entry,
      plugins: [contracts(options)],
      logLevel: 'silent',
      resolve: { alias: build?.alias },
      ...(build?.tsconfig ? { tsconfig: build.tsconfig } : {}),
    })
    await bundle.write({ file: join(outDir, 'main.js'), format: 'es' })
    await bundle.close()
    return join(outDir, 'main.js')
  },

  async esbuild(entry, outDir, options, bundler) {
    const { build } = await import('esbuild')
    const { default: contracts } = await import('unplugin-contracts/esbuild')
    await build({
      entryPoints: [entry],
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      outfile: join(outDir, 'main.js'),
      plugins: [contracts(options)],
      logLevel: 'silent',
      ...(bundler?.alias ? { alias: bundler.alias } : {}),
      ...(bundler?.tsconfig ? { tsconfig: bundler.tsconfig } : {}),
    })
    return join(outDir, 'main.js')
  },

  async webpack(entry, outDir, options, build) {
    const { default: webpack } = await import('webpack')
    const { default: contracts } = await import('unplugin-contracts/webpack')
    return runCompiler(webpack(webpackLikeConfig(entry, outDir, contracts(options), build)), join(outDir, 'main.js'))
  },

  async rspack(entry, outDir, options, build) {
    const { rspack } = await import('@rspack/core')
    const { default: contracts } = await import('unplugin-contracts/rspack')
    return runCompiler(rspack(webpackLikeConfig(entry, outDir, contracts(options), build, true)) as never, join(outDir, 'main.js'))
  },
}

/** webpack and Rspack take the same configuration: a Node ES module, unminified unless asked. */
function webpackLikeConfig(entry: string, outDir: string, plugin: unknown, build: BuildOptions = {}, rspack = false): any {
  return {
    mode: 'production',
    resolve: { alias: build.alias, ...(rspack && build.tsconfig ? { tsConfig: build.tsconfig } : {}) },
    context: join(entry, '..'),
    entry,
    target: 'node',
    output: { path: outDir, filename: 'main.js', library: { type: 'module' }, module: true, chunkFormat: 'module' },
    experiments: { outputModule: true },
    optimization: { minimize: build.minify === true },
    plugins: [plugin],
  }
}

interface WebpackLikeCompiler {
  run(callback: (error: Error | null, stats?: { hasErrors(): boolean; toString(options?: unknown): string }) => void): void
  close(callback: (error?: Error | null) => void): void
}

function runCompiler(compiler: WebpackLikeCompiler, outFile: string): Promise<string> {
  return new Promise((resolve, reject) => {
    compiler.run((error, stats) => {
      compiler.close(() => {
        if (error) reject(error)
        else if (stats?.hasErrors()) reject(new Error(stats.toString({ all: false, errors: true, errorDetails: true })))
        else resolve(outFile)
      })
    })
  })
}

export function freshDir(path: string): string {
  rmSync(path, { recursive: true, force: true })
  mkdirSync(path, { recursive: true })
  return path
}
