import { existsSync, readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import type { UnpluginFactory } from 'unplugin'
import { createFilter } from 'unplugin-utils'
import type { CompileOptions, CompileResult } from '../core/compile.js'
import { hasErrors, type Diagnostic } from '../core/diagnostics.js'
import { packageRoot } from '../core/package-info.js'
import { codeFrame } from '../core/code-frame.js'
import { formatDiagnostic, formatDiagnostics, sourceReader } from '../core/report.js'
import { resolveOptions, type PluginOptions } from './options.js'
import { isTopologyImport, parseModuleId, parseTopologyId, splitQuery, toModuleId, toTopologyId } from './module-id.js'
import { topologyModule } from './topology-module.js'
import { createNativeResolve } from './native-resolve.js'
import { DEV_PAGE, DevRegistry } from './dev-page.js'
import { writeQueries, writeSidecar } from './sidecar.js'
import type { WriteResult } from '../core/safe-write.js'
import { writeRefusedDiagnostic } from '../core/write-refused.js'

export const PLUGIN_NAME = 'unplugin-contracts'
/** How long a dev server waits after a contract's last save before writing its sidecars (`typesLater`). */
const TYPES_DELAY = 50
const NODE_MODULES = /[\\/]node_modules[\\/]/
/**
 * Generated modules (and apps) import the runtime of this very plugin, wherever the app resolves
 * packages from: `unplugin-contracts/runtime` and its subpaths map to this package's build.
 */
const RUNTIME_ENTRIES = new Map(
  Object.entries({
    '': 'index',
    '/http': 'benzene/http',
    '/drift': 'benzene/drift',
    '/nats': 'nats/index',
    '/dasp': 'dasp/index',
    '/linear-pattern': 'shared/linear-pattern',
  }).map(([sub, file]) => [`unplugin-contracts/runtime${sub}`, join(packageRoot, 'dist/src/runtime', `${file}.js`)]),
)
/**
 * The packages the runtime imports, mapped to their ES module builds: the plugin resolves them
 * itself, so a bundle of generated code is complete without a node-resolve plugin (Rollup).
 */
const RUNTIME_DEPENDENCIES = new Map(['canonicalize', 're2js'].map((name) => [name, esmEntry(name)]))
const RUNTIME_FILES = new Set([...RUNTIME_ENTRIES.values(), ...RUNTIME_DEPENDENCIES.values()])
const RUNTIME_DIR = join(packageRoot, 'dist/src/runtime')

function esmEntry(name: string): string {
  // Not `resolve(name + '/package.json')`: a package's `exports` need not list its manifest.
  const folders = createRequire(join(packageRoot, 'package.json')).resolve.paths(name) ?? []
  const manifest = folders.map((folder) => join(folder, name, 'package.json')).find((file) => existsSync(file))
  if (manifest === undefined) throw new Error(`unplugin-contracts: cannot find the package ${name}`)
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { exports?: Record<string, unknown>; module?: string }
  const root = pkg.exports?.['.'] as { import?: string | { default?: string } } | undefined
  const file = typeof root?.import === 'string' ? root.import : (root?.import?.default ?? pkg.module)
  if (typeof file !== 'string') throw new Error(`unplugin-contracts: ${name} has no ES module build`)
  return join(dirname(manifest), file)
}

export const unpluginFactory: UnpluginFactory<PluginOptions | undefined> = (raw, meta) => {
  const options = resolveOptions(raw)
  const { compiler } = options
  // Files are claimed by the compiler's formats first (resolveId); include/exclude narrow that further.
  const filter = createFilter(options.include, options.exclude)
  const esbuild = meta.framework === 'esbuild'
  // The `\0` of a virtual id is Rollup's convention (Vite and Rolldown share it); webpack and Rspack
  // name virtual modules after the id (`_virtual_%00...` in their messages) and esbuild needs a real path.
  const rollupIds = meta.framework === 'rollup' || meta.framework === 'rolldown' || meta.framework === 'vite'
  /** Dependency file -> ids of the modules compiled from it, for hot updates. */
  const dependents = new Map<string, Set<string>>()
  /** Contract -> query -> declarations, of the query imports this build served (`writeQueries`). */
  const queries = new Map<string, Map<string, string>>()
  /** What this (dev) server compiled, for the `/__contracts/` page. */
  const registry = new DevRegistry()
  /** A dev server's pending and running sidecar writes, by contract and query (`typesLater`). */
  const typeTimers = new Map<string, ReturnType<typeof setTimeout>>()
  const typeWrites = new Map<string, Promise<void>>()
  let logger: { warn(message: string): void } | undefined

  /**
   * Whether a Vite dev server runs this instance. Then a module is served without its declarations
   * and the sidecars are written just after (`typesLater`): in the 100-topic dev-loop case the
   * declarations and their write were a fifth of every edit's wait, for a file the editor reads
   * whenever it is written. A build writes them before its modules are done, as before.
   */
  let serving = false
  const compileOptions = (file: string, query: string): CompileOptions => {
    const { topics, ...benzene } = options.benzene
    return {
      query,
      declarations: options.types !== false && !serving,
      benzene: { ...benzene, topics: typeof topics === 'function' ? topics(file) : topics },
      ...(options.nats ? { nats: options.nats } : {}),
    }
  }
  /** The compile whose result carries the declarations the sidecars need. */
  const declared = (file: string, query: string) => compiler.compile(file, { ...compileOptions(file, query), declarations: true })

  /** Watches `dependency` for the module `id`: a change regenerates it (dev) or rebuilds (watch mode). */
  function watch(this: { addWatchFile(file: string): void }, dependency: string, id: string): void {
    this.addWatchFile(dependency)
    let ids = dependents.get(dependency)
    if (!ids) dependents.set(dependency, (ids = new Set()))
    ids.add(id)
  }

  const native = createNativeResolve(meta)
  /** A path (relative, absolute, or root-relative in Vite), as opposed to an alias or a package specifier. */
  const isPathSpecifier = (specifier: string) => specifier.startsWith('.') || isAbsolute(specifier) || (viteRoot !== undefined && specifier.startsWith('/'))

  /** Vite's project root: `/x.spec.json` there means `<root>/x.spec.json`, as Vite resolves `/x.json`. */
  let viteRoot: string | undefined

  const resolveContract = (specifier: string, importer: string | undefined): string | undefined => {
    if (viteRoot !== undefined && specifier.startsWith('/') && existsSync(join(viteRoot, specifier))) return join(viteRoot, specifier)
    if (isAbsolute(specifier)) return specifier
    const from = importer ? (parseModuleId(importer)?.file ?? importer) : join(process.cwd(), 'index.js')
    if (specifier.startsWith('.')) return resolve(dirname(from), specifier)
    try {
      // A contract shipped in a package: `@acme/contracts/payments.spec.json`.
      return createRequire(from).resolve(specifier)
    } catch {
      return undefined
    }
  }

  return {
    name: PLUGIN_NAME,
    enforce: 'pre',

    async resolveId(source, importer) {
      const runtime = RUNTIME_ENTRIES.get(source)
      if (runtime) return runtime
      const dependency = importer !== undefined && importer.startsWith(RUNTIME_DIR) ? RUNTIME_DEPENDENCIES.get(source) : undefined
      if (dependency) return dependency
      const [specifier, query] = splitQuery(source)
      const topology = isTopologyImport(specifier, query)
      if (!topology && !compiler.formatOf(specifier)) return null
      // A dependency that imports its own `x.spec.json` means the JSON, as its author built it.
      if (importer !== undefined && NODE_MODULES.test(parseModuleId(importer)?.file ?? importer)) return null
      // Inside the bundler's own resolution of this very specifier (started below): let it answer.
      if (native.isPending(specifier, importer)) return null
      const from = importer ? (parseModuleId(importer)?.file ?? importer) : undefined
      const file = isPathSpecifier(specifier)
        ? resolveContract(specifier, importer)
        : ((await native.resolve(this as never, specifier, from)) ?? resolveContract(specifier, importer))
      if (topology) return file ? toTopologyId(file, rollupIds) : null
      if (!file || !filter(file)) return null
      return toModuleId(file, query, rollupIds)
    },

    loadInclude(id) {
      return parseModuleId(id) !== undefined || parseTopologyId(id) !== undefined || (esbuild && RUNTIME_FILES.has(id))
    },

    async load(id) {
      // esbuild puts every path this plugin resolves in its namespace, so it must load the runtime too.
      if (RUNTIME_FILES.has(id)) return readFile(id, 'utf8')
      const lock = parseTopologyId(id)
      if (lock !== undefined) {
        const { code, dependencies, diagnostics } = await topologyModule(lock, compiler)
        for (const dependency of dependencies) watch.call(this, dependency, id)
        if (code === undefined) return fail(this, contractError({ file: lock, diagnostics, dependencies } as unknown as CompileResult, meta.framework))
        return { code, moduleType: 'js' }
      }
      const parsed = parseModuleId(id)
      if (!parsed) return null
      const result = await compiler.compile(parsed.file, compileOptions(parsed.file, parsed.query))
      if (parsed.query === '') registry.record(result)
      for (const dependency of result.dependencies.length ? result.dependencies : [parsed.file]) watch.call(this, dependency, id)
      for (const warning of result.diagnostics.filter((d) => d.severity === 'warning')) this.warn(formatDiagnostic(warning, sourceReader(result.dependencies)))
      if (hasErrors(result.diagnostics) || result.code === undefined) return fail(this, contractError(result, meta.framework))
      if (options.types !== false) {
        if (serving) typesLater(parsed)
        else {
          // A sidecar that cannot be written safely (a link, a file the project did not write) fails
          // the build: neither an overwrite nor declarations silently missing.
          const refused = await writeTypes(result, parsed)
          if (refused.length > 0)
            return fail(this, contractError({ ...result, diagnostics: refused }, meta.framework, `The declarations of ${result.file} were not written`))
        }
      }
      return { code: result.code, map: result.map as never, moduleType: 'js' }
    },

    esbuild: { loader: 'js' },

    vite: {
      configResolved(config) {
        viteRoot = config.root
      },
      configureServer(server) {
        serving = true
        logger = server.config.logger
        // The dev page: what this server compiled, and the topology of each NATS bundle.
        server.middlewares.use(DEV_PAGE, (req, res, next) => {
          if (req.method !== 'GET') return next()
          const path = (req.url ?? '/').split('?')[0]
          if (path === '/version') {
            res.setHeader('content-type', 'text/plain')
            res.end(String(registry.version))
            return
          }
          if (path !== '/' && path !== '') return next()
          registry.opened = true
          registry.page(server.config.root, compiler).then(
            (html) => {
              res.setHeader('content-type', 'text/html; charset=utf-8')
              res.end(html)
            },
            (error: unknown) => next(error),
          )
        })
      },
      // A change to a contract or to any file it depends on invalidates the modules compiled from it.
      async hotUpdate({ file, modules }) {
        const ids = dependents.get(file)
        if (!ids) return
        // The dev page (once someone opened it) shows the new verdict even when no page re-imports the module.
        if (registry.opened)
          for (const id of ids) {
            const parsed = parseModuleId(id)
            if (parsed && parsed.query === '') registry.record(await compiler.compile(parsed.file, compileOptions(parsed.file, '')))
          }
        const graph = this.environment.moduleGraph
        const affected = [...ids].flatMap((id) => graph.getModuleById(id) ?? [])
        for (const mod of affected) graph.invalidateModule(mod)
        return [...modules, ...affected]
      },
    },
  }

  /**
   * A dev server's sidecars for `parsed`, written once its saves pause (`TYPES_DELAY` after the
   * last one served), one write at a time per contract. A contract that does not compile has no
   * declarations: nothing is written (the overlay shows why). A failed or refused write is a warning
   * (the module is served already; a build fails on it instead).
   */
  function typesLater(parsed: { file: string; query: string }): void {
    const key = `${parsed.file}?${parsed.query}`
    clearTimeout(typeTimers.get(key))
    const timer = setTimeout(() => {
      typeTimers.delete(key)
      const previous = typeWrites.get(key) ?? Promise.resolve()
      const next = previous
        .then(async () => {
          const result = await declared(parsed.file, parsed.query)
          if (result.dts === undefined) return
          for (const refusal of await writeTypes(result, parsed)) logger?.warn(`unplugin-contracts: ${formatDiagnostic(refusal)}`)
        })
        .catch((error: unknown) => logger?.warn(`unplugin-contracts: the declarations of ${parsed.file} were not written: ${String(error)}`))
      typeWrites.set(key, next)
    }, TYPES_DELAY)
    typeTimers.set(key, timer)
  }

  /**
   * Fails the module. Thrown, because webpack's `this.error()` records and returns; but handed to
   * esbuild's `this.error()`, because esbuild prints a thrown error with a note pointing into the
   * plugin machinery ("This error came from the onLoad callback registered here").
   */
  function fail(context: { error(error: Error): void }, error: Error): string {
    if (!esbuild) throw error
    context.error(error)
    return ''
  }

  /**
   * Sidecar types describe the module as imported without a query, whatever this import asked for.
   * Returns the writes refused (`CONTRACTS_WRITE_REFUSED`), none when all went well.
   */
  async function writeTypes(result: CompileResult, parsed: { file: string; query: string }): Promise<Diagnostic[]> {
    const refused: Diagnostic[] = []
    const collect = (written: WriteResult) => {
      if (!written.ok) refused.push(...written.refused.map(writeRefusedDiagnostic))
    }
    const plain = parsed.query === '' ? result : await declared(parsed.file, '')
    if (plain.dts !== undefined) collect(writeSidecar(parsed.file, plain.dts))
    if (parsed.query !== '' && result.dts !== undefined) {
      let seen = queries.get(parsed.file)
      if (!seen) queries.set(parsed.file, (seen = new Map()))
      if (seen.get(parsed.query) === result.dts) return refused
      seen.set(parsed.query, result.dts)
      // Everything seen so far, in one synchronous write: the last write is complete.
      collect(writeQueries(parsed.file, seen))
    }
    return refused
  }
}

/**
 * An error every bundler shows once, with no stack and no virtual module id.
 *
 * - Its message carries every diagnostic's code, `file:line:column` (1-based, as editors count) and
 *   code frame: webpack, Rspack and esbuild show nothing else.
 * - In Vite it also carries `loc` (1-based: the overlay makes `file:line:column` a link that opens
 *   the editor there) and the first diagnostic's `frame`, which the overlay shows beside the message;
 *   the message then leaves that frame out, so that `vite build` does not print it twice. `loc` only
 *   for a file the compile read, and always with our frame: Vite, given a location without a frame,
 *   reads the file itself, and a refused file (a link to /proc/self/environ) must not be read.
 * - Rollup and Rolldown get no `loc` (they print it 0-based, beside our 1-based positions).
 * - `stack` is empty: what is wrong is in the contract, not in the plugin's call stack (webpack
 *   prints a stack as "details", a second copy of the message; Vite shows it in the overlay).
 * - `message` and `id` ignore later writes: Rollup prefixes a load error with `Could not load
 *   \0<virtual id>` and sets `id` to the virtual module id.
 */
function contractError(result: CompileResult, framework: string, headline = `Contract ${result.file} is invalid`): Error {
  const errors = result.diagnostics.filter((d) => d.severity === 'error')
  const first = errors[0]
  const read = sourceReader(result.dependencies)
  const text = first ? read(first.file) : undefined
  const located = framework === 'vite' && first !== undefined && text !== undefined
  const shown = located ? (d: Diagnostic) => (d === first ? formatDiagnostic(d) : formatDiagnostic(d, read)) : (d: Diagnostic) => formatDiagnostic(d, read)
  const message = `${headline} (${errors.length} error${errors.length === 1 ? '' : 's'}):\n\n${formatDiagnostics(errors, read, 10, shown)}`
  const error = new Error(message)
  Object.defineProperties(error, {
    message: { get: () => message, set: () => {}, enumerable: false, configurable: true },
    id: { get: () => result.file, set: () => {}, enumerable: true, configurable: true },
    stack: { value: '', writable: true, configurable: true },
  })
  return Object.assign(error, {
    plugin: PLUGIN_NAME,
    diagnostics: errors,
    ...(first ? { code: first.code } : {}),
    ...(located ? { loc: { file: first.file, line: first.line, column: first.column }, frame: codeFrame(text, first.line, first.column) } : {}),
  })
}
