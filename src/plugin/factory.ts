import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import type { UnpluginFactory } from 'unplugin'
import { hasErrors } from '../core/diagnostics.js'
import { formatDiagnostic, sourceReader } from '../core/report.js'
import { PluginContext } from './context.js'
import { DEV_PAGE } from './dev-page.js'
import { contractError, PLUGIN_NAME } from './errors.js'
import { ContractProblems } from './webpack-errors.js'
import { nameContractModules, type NamingCompiler } from './module-names.js'
import { hookFilters } from './filters.js'
import {
  type IdForm,
  isTopologyImport,
  TOPOLOGY_QUERY,
  topologyQuery,
  MODULE_SUFFIX,
  TOPOLOGY_SUFFIX,
  parseModuleId,
  parseTopologyId,
  splitQuery,
  toModuleId,
  toTopologyId,
} from './module-id.js'
import { createNativeResolve } from './native-resolve.js'
import type { PluginOptions } from './options.js'
import { RUNTIME_DEPENDENCIES, RUNTIME_DIR, RUNTIME_ENTRIES, RUNTIME_FILES } from './runtime-entries.js'
import { bindImportsOnce } from './bind-imports.js'
import { bundlerUsesMap, esbuildMap, esbuildOutputDir } from './source-maps.js'
import { topologyModule, topologyQueryRefused } from './topology-module.js'
import { OutsideRootFiles } from './outside-root.js'
import { replayErrors, type ErrorReplay, type HotChannelLike } from './error-replay.js'
import { outsideServing, servingRule } from './dev-serving.js'
import { isPackageFile } from './package-declarations.js'

export { PLUGIN_NAME }

/** The folder of compiled results inside a bundler's cache folder. */
const CACHE_FOLDER = 'unplugin-contracts'

/**
 * The plugin: its hooks, over the state of one instance (`PluginContext`). Options are checked
 * first: an error stops the plugin from being made, a warning is printed once.
 */
export const unpluginFactory: UnpluginFactory<PluginOptions | undefined> = (raw, meta) => {
  const ctx = new PluginContext(raw)
  const errors = ctx.problems.filter((p) => p.severity === 'error')
  if (errors.length > 0) throw new Error(`${PLUGIN_NAME}: invalid options:\n${errors.map((p) => `  error ${p.code}: ${p.message}`).join('\n')}`)
  for (const warning of ctx.problems) console.warn(`${PLUGIN_NAME}: warning ${warning.code}: ${warning.message}`)
  const { compiler } = ctx
  const esbuild = meta.framework === 'esbuild'
  // Rollup's family (Vite and Rolldown share its conventions): see `idForm`.
  const rollupIds = meta.framework === 'rollup' || meta.framework === 'rolldown' || meta.framework === 'vite'
  /**
   * The form of the ids this instance gives (module-id.ts), for the module `path` an id names:
   * - Rollup, Rolldown and a Vite build: the absolute path, no `\0`. They leave a `\0` module out of
   *   the bundle's source map (their convention for helpers), so the map never led back to the
   *   contract, and print its id as it is where they print a module's path (Rolldown's comments):
   *   the build folder's absolute path in every bundle. A real path they write relative to the
   *   project, as any file's. `\0` still where a file of that name exists (the import of that file
   *   stays that file) and in Vite's dev server (its URLs, its module graph).
   * - esbuild: the path from its working directory (esbuild writes a plugin namespace's paths as
   *   they are), in the plugin's namespace.
   * - webpack and Rspack: the absolute path (they name the module apart: module-names.ts).
   */
  const idForm = (path: string): IdForm => ({
    virtualPrefix: rollupIds && (ctx.serving || existsSync(path)),
    root: esbuild ? ctx.idRoot() : undefined,
  })
  const native = createNativeResolve(meta)
  const filters = hookFilters(compiler.formats, esbuild)
  const webpackLike = meta.framework === 'webpack' || meta.framework === 'rspack'
  const problems = new ContractProblems()
  /** esbuild's `sourcemap` option (its `config` hook): without it, no module's map is made. */
  let esbuildSourcemap: unknown
  /** esbuild's output folder (its `config` hook): a module's map names the contract relative to it (source-maps.ts). */
  let esbuildOutput: string | undefined
  /** Vite dev: the dependencies outside the server's root, kept watched (src/plugin/outside-root.ts). */
  let outsideRoot: OutsideRootFiles | undefined
  /** Vite dev: the last error of a contract's module, sent again to a page that connects later (src/plugin/error-replay.ts). */
  let errorReplay: ErrorReplay | undefined

  /**
   * Fails the module. Thrown, because webpack's `this.error()` records and returns; but handed to
   * esbuild's `this.error()`, because esbuild prints a thrown error with a note pointing into the
   * plugin machinery ("This error came from the onLoad callback registered here").
   */
  /** In a Vite dev server: whether a request may read a file (dev-serving.ts). */
  let servable: ((file: string) => boolean) | undefined

  function fail(context: { error(error: Error): void }, error: Error, file: string): string {
    if (webpackLike) problems.record(error.message, file)
    if (!esbuild) throw error
    context.error(error)
    return ''
  }

  return {
    name: PLUGIN_NAME,
    enforce: 'pre',

    resolveId: {
      ...(filters.resolveId ? { filter: filters.resolveId } : {}),
      async handler(source, importer) {
        const runtime = RUNTIME_ENTRIES.get(source)
        if (runtime) return runtime
        const dependency = importer !== undefined && importer.startsWith(RUNTIME_DIR) ? RUNTIME_DEPENDENCIES.get(source) : undefined
        if (dependency) return dependency
        const [specifier, query] = splitQuery(source)
        const topology = isTopologyImport(specifier, query)
        if (!topology && !compiler.formatOf(specifier)) return null
        // A dependency that imports its own `x.spec.json` means the JSON, as its author built it.
        if (importer !== undefined && isPackageFile(parseModuleId(importer, ctx.idRoot())?.file ?? importer)) return null
        // Inside the bundler's own resolution of this very specifier (started below): let it answer.
        if (native.isPending(source, importer)) return null
        const from = importer ? (parseModuleId(importer, ctx.idRoot())?.file ?? importer) : undefined
        const file = ctx.isPath(specifier)
          ? ctx.resolveContract(specifier, importer)
          : ((await native.resolve(this as never, specifier, from)) ?? ctx.resolveContract(specifier, importer))
        if (topology) return file ? toTopologyId(file, idForm(file + TOPOLOGY_SUFFIX), query) : null
        if (!file || !ctx.included(file)) return null
        // A package's contract is declared by the specifier the app wrote (package-declarations.ts).
        ctx.recordImport(file, query, source.includes('?'), importer, ctx.isPath(specifier) ? undefined : source)
        return toModuleId(file, query, idForm(file + MODULE_SUFFIX))
      },
    },

    load: {
      filter: filters.load,
      async handler(id) {
        // esbuild puts every path this plugin resolves in its namespace, so it must load the runtime too.
        if (RUNTIME_FILES.has(id)) return readFile(id, 'utf8')
        const lock = parseTopologyId(id, ctx.idRoot())
        if (lock !== undefined && servable !== undefined && !servable(lock)) return fail(this, contractError(outsideServing(lock), meta.framework), lock)
        if (lock !== undefined) {
          const query = topologyQuery(id)
          if (query !== TOPOLOGY_QUERY) return fail(this, contractError(topologyQueryRefused(lock, query), meta.framework), lock)
          const { code, dependencies, diagnostics } = await topologyModule(lock, compiler)
          for (const dependency of dependencies) ctx.watch(this, dependency, id)
          if (code === undefined) return fail(this, contractError({ file: lock, diagnostics, dependencies }, meta.framework), lock)
          return { code, moduleType: 'js' }
        }
        const served = parseModuleId(id, ctx.idRoot())
        if (!served) return null
        // A dev server compiles only what Vite would serve (dev-serving.ts); nothing of the file is read.
        if (servable !== undefined && !servable(served.file)) return fail(this, contractError(outsideServing(served.file), meta.framework), served.file)
        // A map the bundler will not use is never made (the result's `map` is made when read).
        const maps = bundlerUsesMap(meta.framework, this as never, esbuildSourcemap)
        const result = await ctx.compile(served, maps)
        if (served.query === '') ctx.registry.record(result)
        for (const dependency of result.dependencies.length ? result.dependencies : [served.file]) {
          ctx.watch(this, dependency, id)
          outsideRoot?.seen(dependency)
        }
        // A file made later where the compile looked and found none (a bundle lock in a parent folder,
        // a DASP definition) changes the verdict: its creation regenerates the module too.
        for (const absent of result.absentDependencies) ctx.watchAbsent(this as never, absent, id, meta.framework)
        for (const warning of ctx.warningsToShow(result)) {
          const text = formatDiagnostic(warning, sourceReader(result.dependencies))
          if (webpackLike) problems.record(text, result.file)
          this.warn(text)
        }
        if (hasErrors(result.diagnostics) || result.code === undefined)
          return fail(this, contractError(result, meta.framework, undefined, ctx.errorsShown(result)), result.file)
        if (ctx.options.types !== false) {
          if (ctx.serving) ctx.typesLater(served)
          else {
            // A sidecar that cannot be written safely (a link, a file the project did not write) fails
            // the build: neither an overwrite nor declarations silently missing.
            const refused = await ctx.writeTypes(result, served)
            if (refused.length > 0)
              return fail(
                this,
                contractError({ ...result, diagnostics: refused }, meta.framework, `The declarations of ${result.file} were not written`),
                result.file,
              )
            // Declarations that could not be written (a bug, CONTRACTS_INTERNAL) fail the build too.
            if (hasErrors(result.diagnostics)) return fail(this, contractError(result, meta.framework), result.file)
          }
        }
        errorReplay?.reset()
        const code = meta.framework === 'webpack' ? bindImportsOnce(result.code) : result.code
        if (!maps) return { code, moduleType: 'js' }
        const map = esbuild && result.map !== undefined && esbuildOutput !== undefined ? esbuildMap(result.map, esbuildOutput) : result.map
        return { code, map: map as never, moduleType: 'js' }
      },
    },

    // A build starts (a watch build's next one too): its compiles may go to worker threads again.
    buildStart() {
      ctx.pool.open()
      ctx.shownErrors.clear()
      ctx.shownWarnings.clear()
      ctx.buildWarnings.clear()
    },

    // The build's compiles are done: its worker threads end (a watch build's next one starts them again).
    // The declarations of an empty query (`./x.spec.json?`) whose module was loaded before the import was
    // seen, then the package contracts' declarations (package-declarations.ts), each file written once.
    // A refused write fails the build, as a module's own does.
    async buildEnd() {
      outsideRoot?.close()
      const refused = ctx.serving ? [] : [...(await ctx.writeEmptyQueries()), ...ctx.writePackageDeclarations()]
      await ctx.pool.close()
      if (refused.length > 0) throw new Error(`${PLUGIN_NAME}: ${refused.map((d) => formatDiagnostic(d, sourceReader([]))).join('\n')}`)
    },

    esbuild: {
      loader: 'js',
      config(options) {
        esbuildSourcemap = options.sourcemap
        esbuildOutput = esbuildOutputDir(options)
        if (options.absWorkingDir !== undefined) ctx.root = options.absWorkingDir
      },
    },

    // Where each bundler keeps its own cache (and its project root): the compiled results go beside.
    // Read on the first compile: the bundler fills in its defaults after its plugins are applied.
    webpack(compiler) {
      ctx.root = compiler.options.context
      nameContractModules(compiler as unknown as NamingCompiler, PLUGIN_NAME)
      compiler.hooks.thisCompilation.tap(PLUGIN_NAME, (compilation) => {
        const contractProblem = (name: string) => (message: string, file: string) =>
          Object.assign(new compiler.webpack.WebpackError(message), { name, file, hideStack: true, stack: '' })
        compilation.hooks.processErrors.tap(PLUGIN_NAME, (errors) => problems.replace(errors, compiler.context, contractProblem('ContractError')))
        compilation.hooks.processWarnings.tap(PLUGIN_NAME, (warnings) => problems.replace(warnings, compiler.context, contractProblem('ContractWarning')))
      })
      ctx.bundlerCacheDir = () => {
        const cache = compiler.options.cache
        return typeof cache === 'object' && cache.type === 'filesystem' && cache.cacheDirectory ? join(cache.cacheDirectory, CACHE_FOLDER) : undefined
      }
    },

    rspack(compiler) {
      ctx.root = compiler.options.context
      nameContractModules(compiler as unknown as NamingCompiler, PLUGIN_NAME)
      // Rspack has no hook that maps the errors: they and the warnings are replaced in place once the compilation is sealed.
      compiler.hooks.thisCompilation.tap(PLUGIN_NAME, (compilation) => {
        compilation.hooks.afterSeal.tapPromise(PLUGIN_NAME, async () => {
          for (const [list, name] of [
            [compilation.errors, 'ContractError'],
            [compilation.warnings, 'ContractWarning'],
          ] as const) {
            const current = [...list]
            problems
              .replace(current, compiler.context, (message, file) => Object.assign(new Error(message), { name, file, hideStack: true, stack: '' }))
              .forEach((problem, i) => {
                if (problem !== current[i]) list.splice(i, 1, problem)
              })
          }
        })
      })
      ctx.bundlerCacheDir = () => {
        const cache = compiler.options.cache as { type?: string; storage?: { directory?: string } } | boolean | undefined
        return typeof cache === 'object' && cache.type === 'persistent' && cache.storage?.directory
          ? resolve(compiler.options.context ?? process.cwd(), cache.storage.directory, CACHE_FOLDER)
          : undefined
      }
    },

    vite: {
      configResolved(config) {
        ctx.viteRoot = config.root
        ctx.root = config.root
        ctx.bundlerCacheDir = () => join(config.cacheDir, CACHE_FOLDER)
      },
      async configureServer(server) {
        ctx.serving = true
        servable = await servingRule(server.config)
        ctx.logger = server.config.logger
        outsideRoot = new OutsideRootFiles(server.watcher, server.config.root)
        const hot = server.environments.client?.hot as HotChannelLike | undefined
        if (typeof hot?.send === 'function' && typeof hot.on === 'function') errorReplay = replayErrors(hot, PLUGIN_NAME)
        // The dev page: what this server compiled, and the topology of each NATS bundle.
        server.middlewares.use(DEV_PAGE, (req, res, next) => {
          if (req.method !== 'GET') return next()
          const path = (req.url ?? '/').split('?')[0]
          if (path === '/version') {
            res.setHeader('content-type', 'text/plain')
            res.end(String(ctx.registry.version))
            return
          }
          if (path !== '/' && path !== '') return next()
          ctx.registry.opened = true
          ctx.registry.page(server.config.root, compiler).then(
            (html) => {
              res.setHeader('content-type', 'text/html; charset=utf-8')
              res.end(html)
            },
            (error: unknown) => next(error),
          )
        })
      },
      // A page is loaded: an error sent before is another page's (or this page's before a reload, sent
      // again when its module fails again), never shown to one that may import no contract at all.
      transformIndexHtml() {
        errorReplay?.reset()
      },
      // A change to a contract or to any file it depends on invalidates the modules compiled from it.
      async hotUpdate({ type, file, modules, read }) {
        const ids = ctx.modulesOf(file)
        if (!ids) return
        outsideRoot?.changed(type, file)
        errorReplay?.reset()
        // An editor that saves in place truncates the file, then writes it, and the watcher's one
        // change event can come between the two (it drops a second change within 50 ms, so no later
        // event brings the written text). Vite's `read` waits, about 100 ms at most, until an emptied
        // file is written again: the reload goes out after that, and the page's request compiles the
        // whole text. Only for a change: a deleted file is not read (the compile says it is missing),
        // and a file that cannot be read is the compile's to report.
        let text: string | undefined
        if (type === 'update')
          try {
            text = await read()
          } catch {
            // Not read now: the compile reads it and reports what it finds.
          }
        // The contracts' warnings are printed again on their next load, once (unless the text is the same).
        ctx.warningsChanged(
          file,
          text,
          [...ids].flatMap((id) => parseModuleId(id, ctx.idRoot())?.file ?? []),
        )
        // `diff: '<ref>'`: a saved contract is compared with its git version after the update, off its path.
        if (ctx.options.diff !== undefined && compiler.formatOf(file) !== undefined) void ctx.devDiff(file)
        // The dev page (once someone opened it) shows the new verdict even when no page re-imports
        // the module; the compile is the one the module is then served from (the cache answers it).
        if (ctx.registry.opened)
          for (const id of ids) {
            const served = parseModuleId(id, ctx.idRoot())
            if (served && served.query === '') ctx.registry.record(await ctx.compile(served))
          }
        // The sidecars follow the save once the saves pause, whether or not a page asks for the module
        // again (an editor reads them, not the page): the compile is the one a request would be served.
        if (ctx.options.types !== false)
          for (const id of ids) {
            const served = parseModuleId(id, ctx.idRoot())
            if (served) ctx.typesLater(served)
          }
        const graph = this.environment.moduleGraph
        const affected = [...ids].flatMap((id) => graph.getModuleById(id) ?? [])
        for (const mod of affected) graph.invalidateModule(mod)
        return [...modules, ...affected]
      },
    },
  }
}
