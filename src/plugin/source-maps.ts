/**
 * Whether the bundler will use the source map of a module the plugin loads. A map is made when
 * first read (`CompileResult.map`), so one the bundler will not use is best never handed to it:
 *
 * - esbuild gets a load hook's map from unplugin inlined into the module's text (base64 of the map
 *   and of the whole contract), which esbuild then reads again: without its `sourcemap` option, a
 *   module's text doubled for nothing;
 * - webpack and Rspack ask their loaders for maps only with a `devtool` (the loader context's
 *   `sourceMap`);
 * - a Vite build makes maps only with `build.sourcemap` (its own plugins decide so, per
 *   environment); a dev server always serves them;
 * - Rollup and Rolldown learn the output options (`sourcemap`) after every module is loaded: the
 *   map is always handed over.
 */
import type { EncodedSourceMap } from '@jridgewell/gen-mapping'
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path'
import type { UnpluginContextMeta } from 'unplugin'

/** What the load hook's `this` may tell of source maps, per bundler. */
interface LoadHookContext {
  /** Vite: the environment the module is loaded for. */
  environment?: { config?: { command?: string; build?: { sourcemap?: unknown } } }
  /** webpack and Rspack: the loader's context. */
  getNativeBuildContext?(): unknown
}

/** `esbuildSourcemap`: esbuild's `sourcemap` build option, as its `config` hook saw it. */
export function bundlerUsesMap(framework: UnpluginContextMeta['framework'], hook: LoadHookContext, esbuildSourcemap: unknown): boolean {
  switch (framework) {
    case 'esbuild':
      return esbuildSourcemap !== undefined && esbuildSourcemap !== false
    case 'webpack':
    case 'rspack': {
      const native = hook.getNativeBuildContext?.() as { loaderContext?: { sourceMap?: unknown } } | undefined
      return native?.loaderContext?.sourceMap !== false
    }
    case 'vite': {
      const config = hook.environment?.config
      return config?.command !== 'build' || !!config.build?.sourcemap
    }
    default:
      return true
  }
}

/** What esbuild's `config` hook is given that says where its output goes. */
export interface EsbuildOutputOptions {
  absWorkingDir?: string | undefined
  outdir?: string | undefined
  outfile?: string | undefined
}

/** The folder esbuild writes its output (and its source maps) to: `outdir`, the folder of `outfile`, else the working directory. */
export function esbuildOutputDir(options: EsbuildOutputOptions): string {
  const cwd = options.absWorkingDir ?? process.cwd()
  return resolve(cwd, options.outdir ?? (options.outfile !== undefined ? dirname(options.outfile) : '.'))
}

/**
 * A contract module's map as esbuild should get it. esbuild copies the `sources` of a module
 * outside its `file` namespace into the bundle's map as they are (it rebases only files' maps on
 * the output folder): the contract's absolute path went into every published map. Here each source
 * is written relative to the output folder, as esbuild writes the sources of files, and the map's
 * `file` is the module's name alone.
 */
export function esbuildMap(map: EncodedSourceMap, outputDir: string): EncodedSourceMap {
  const sources = map.sources.map((source) => {
    if (source === null || !isAbsolute(source)) return source
    const path = relative(outputDir, source)
    return isAbsolute(path) ? path : path.split(sep).join('/')
  })
  return { ...map, ...(map.file ? { file: map.file.split(/[\\/]/).pop() } : {}), sources }
}
