import { createHash } from 'node:crypto'
import { existsSync, lstatSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { createFilter } from 'unplugin-utils'
import type { CompileOptions, CompileResult, ContractCompiler } from '../core/compile.js'
import { PersistentCache, defaultCacheDir, defaultCacheOff } from '../core/persistent-cache.js'
import { unreported, type Diagnostic } from '../core/diagnostics.js'
import { formatDiagnostic } from '../core/report.js'
import type { WriteResult } from '../core/safe-write.js'
import { writeRefusedDiagnostic } from '../core/write-refused.js'
import { CompilePool, poolSize } from './compile-pool.js'
import { DevRegistry } from './dev-page.js'
import { parseModuleId } from './module-id.js'
import { resolveOptions, type OptionProblem, type ResolvedPluginOptions } from './options.js'
import { SidecarWriter } from './sidecar.js'
import { isPackageFile, PackageDeclarations, projectFolder } from './package-declarations.js'
import { errorsKey } from './errors.js'

/** How long a dev server waits after a contract's last save before writing its sidecars (`typesLater`). */
const TYPES_DELAY = 50

/** A contract import as the plugin serves it: the contract and the import's query. */
export interface Served {
  file: string
  query: string
}

/**
 * The state of one plugin instance, which its hooks (src/plugin/factory.ts) share. One compile per
 * module and edit: a module is served from `compile`, and its sidecars are written from the same
 * result (`CompileResult.dts` is written on first read), in a build before the module is done, in
 * a dev server once the saves pause.
 */
export class PluginContext {
  readonly options: ResolvedPluginOptions
  readonly compiler: ContractCompiler
  /** What `resolveOptions` found wrong with the options (the factory throws the errors and warns of the rest). */
  readonly problems: readonly OptionProblem[]
  /** `include` / `exclude`, among the files a format claims. */
  readonly included: (file: string) => boolean
  /** Contracts imported with an empty query (`./x.spec.json?`): their `-queries.d.ts` declares `*\/x.spec.json?` as the plain module. */
  readonly emptyQueries = new Set<string>()
  /** A dev server's query imports that a module of the app made (`contract?query`, seen with an importer by `resolveId`): the ones it declares. */
  readonly importedQueries = new Set<string>()
  /** The one writer of sidecars and query declarations (it keeps the query imports served, for their file). */
  readonly sidecars = new SidecarWriter()
  /** The declarations of the contracts the app imports from packages, written into the project instead of beside them. */
  readonly packages = new PackageDeclarations()
  /** Folder -> the project folder of a module in it (`projectFolder`). */
  private readonly projectFolders = new Map<string, string>()
  /**
   * The project folders whose `contracts-packages.d.ts` a build has made out of date: written once at
   * its end (`writePackageDeclarations`). The file holds every package contract's declarations, so a
   * write per module rewrote it whole each time: n imports, n writes of a file growing to n entries.
   */
  private readonly packageRootsPending = new Set<string>()
  /** What this (dev) server compiled, for the `/__contracts/` page. */
  readonly registry = new DevRegistry()
  /** Dependency file -> ids of the modules compiled from it: a change to the file invalidates them (`hotUpdate`). */
  private readonly dependents = new Map<string, Set<string>>()
  /** A dev server's pending sidecar writes, by contract and query: each save starts the wait again (`typesLater`). */
  private readonly typeTimers = new Map<string, ReturnType<typeof setTimeout>>()
  /** The last sidecar write started, by contract and query: the next one waits for it, so two never interleave. */
  private readonly typeWrites = new Map<string, Promise<void>>()
  /** Vite's project root: `/x.spec.json` there means `<root>/x.spec.json`, as Vite resolves `/x.json`. */
  viteRoot: string | undefined
  /**
   * Whether a Vite dev server runs this instance. Then a module is served at once and its sidecars
   * are written just after (`typesLater`): in the 100-topic dev-loop case the declarations and their
   * write were a fifth of every edit's wait, for a file the editor reads whenever it is written.
   */
  serving = false
  /** The dev server's logger: what goes wrong after a module was served is a warning there. */
  logger: { warn(message: string): void } | undefined
  /** The project root as the bundler says (Vite's `root`, webpack's `context`, esbuild's `absWorkingDir`); else the working directory. */
  root: string | undefined
  /** The bundler's own cache folder plus `/unplugin-contracts`, when it has one (`cache: true` keeps the compiled results there). */
  bundlerCacheDir: (() => string | undefined) | undefined
  /** Worker threads for a build's compiles (option `workers`): the plugin's own compiler only. */
  readonly pool: CompilePool
  /** Whether the persistent cache was set up (on the first compile, once the bundler has said where). */
  private cacheReady = false

  /** The `diff` option's comparer, made on the first save (its code loaded then). */
  private differ: Promise<{ saved(file: string): Promise<void> }> | undefined

  /**
   * `diff: '<ref>'`: compares a saved contract with its version at the ref and warns of what breaks,
   * in the dev server's terminal; never throws. The promise settles once it is compared.
   */
  async devDiff(file: string): Promise<void> {
    const ref = this.options.diff
    if (ref === undefined) return
    this.differ ??= import('./dev-diff.js').then(({ DevDiff }) => {
      const warn = (message: string) => (this.logger ? this.logger.warn(message) : console.warn(message))
      const report = (file: string, warning: string | undefined) => this.registry.diffed(file, warning)
      return new DevDiff(ref, { warn, report, root: this.viteRoot ?? this.root ?? process.cwd() })
    })
    try {
      await (await this.differ).saved(file)
    } catch (error) {
      this.logger?.warn(`unplugin-contracts: the diff against ${ref} was not made: ${String(error)}`)
    }
  }

  constructor(raw: unknown) {
    const { options, problems } = resolveOptions(raw)
    this.options = options
    this.problems = problems
    this.compiler = options.compiler
    this.included = createFilter(options.include, options.exclude)
    this.pool = new CompilePool(options.ownCompiler ? poolSize(options.workers) : 0, () => {
      const persistent = this.compiler.persistent
      return persistent && { dir: persistent.dir, root: persistent.root, maxBytes: persistent.maxBytes }
    })
  }

  /** What a compile of `file` is asked: the import query and the format options (a `topics` function called for this file). */
  compileOptions(file: string, query: string): CompileOptions {
    const { topics, ...benzene } = this.options.benzene
    return {
      query,
      // Only what the result shows: the declarations are written when read, from the same compile.
      declarations: this.options.types !== false,
      benzene: { ...benzene, topics: typeof topics === 'function' ? topics(file) : topics },
      ...(this.options.nats ? { nats: this.options.nats } : {}),
    }
  }

  /**
   * The compile of a served module. In a build, one that no cache answers may go to a worker thread
   * (`CompilePool`); `maps: false` when the bundler will not use the module's source map (a worker
   * then does not find its lines, unless the persistent cache keeps them).
   */
  async compile(served: Served, maps = true): Promise<CompileResult> {
    this.setUpCache()
    const options = this.compileOptions(served.file, served.query)
    if (this.serving || !this.pool.takes()) return this.compiler.compile(served.file, options)
    const answered = await this.compiler.answered(served.file, options, maps)
    if (answered) return answered
    return this.pool.compile(
      { file: served.file, options, maps: maps || this.compiler.persistent !== undefined },
      () => this.compiler.compile(served.file, options),
      (made) => this.compiler.adopt(served.file, options, made),
    )
  }

  /**
   * Gives the plugin's own compiler its persistent cache (option `cache`), in the folder the bundler
   * named by now (its hooks that say so run before the first module is loaded).
   */
  setUpCache(): void {
    if (this.cacheReady) return
    this.cacheReady = true
    const { cache, cacheMaxBytes, ownCompiler } = this.options
    if (!ownCompiler || cache === false || (cache === true && defaultCacheOff())) return
    const root = this.root ?? process.cwd()
    const dir = typeof cache === 'string' ? resolve(root, cache) : (this.bundlerCacheDir?.() ?? defaultCacheDir(root))
    // Outside any package, with no folder named or given by the bundler: nothing kept (defaultCacheDir).
    if (dir === undefined) return
    // A dev server serves a module at once and writes its declarations once the saves pause: its
    // entries get them then, not on the turn after each save.
    this.compiler.persistent = new PersistentCache({ dir, root, maxBytes: cacheMaxBytes, declarationsWhenRead: this.serving })
  }

  /** Watches `dependency` for the module `id` (`this` is the hook's): a change regenerates it (dev) or rebuilds (watch mode). */
  watch(hook: { addWatchFile(file: string): void }, dependency: string, id: string): void {
    hook.addWatchFile(dependency)
    let ids = this.dependents.get(dependency)
    if (!ids) this.dependents.set(dependency, (ids = new Set()))
    ids.add(id)
  }

  /**
   * Watches a path where the compile for `id` looked and found no file: one made there later
   * changes the verdict. Vite's dev server watches its whole root and brings the creation to
   * `hotUpdate` (its `addWatchFile` would make the path an import of the module, which fails while
   * nothing is there); Rollup's and Rolldown's watch modes watch a missing path for its creation;
   * webpack and Rspack take it as a missing dependency of the compilation.
   */
  watchAbsent(hook: { addWatchFile(file: string): void; getNativeBuildContext?: () => unknown }, path: string, id: string, framework: string): void {
    // esbuild watches a listed path that is not there yet too: its creation rebuilds.
    if (framework === 'rollup' || framework === 'rolldown' || framework === 'esbuild') hook.addWatchFile(path)
    else if (framework === 'webpack' || framework === 'rspack') {
      const native = hook.getNativeBuildContext?.() as { compilation?: { missingDependencies?: { add(path: string): void } } } | undefined
      native?.compilation?.missingDependencies?.add(path)
    }
    let ids = this.dependents.get(path)
    if (!ids) this.dependents.set(path, (ids = new Set()))
    ids.add(id)
  }

  /** The ids of the modules compiled from `file` (none when it is not a dependency of any). */
  modulesOf(file: string): ReadonlySet<string> | undefined {
    return this.dependents.get(file)
  }

  /** The folder module ids are relative to where they are (module-id.ts): the project root, else the working directory. */
  idRoot(): string {
    return this.root ?? process.cwd()
  }

  /** A path (relative, absolute, or root-relative in Vite), as opposed to an alias or a package specifier. */
  isPath(specifier: string): boolean {
    return specifier.startsWith('.') || isAbsolute(specifier) || (this.viteRoot !== undefined && specifier.startsWith('/'))
  }

  /** The file a contract specifier names, from its importer (a package's contract through Node's resolution). */
  resolveContract(specifier: string, importer: string | undefined): string | undefined {
    if (this.viteRoot !== undefined && specifier.startsWith('/') && existsSync(join(this.viteRoot, specifier))) return join(this.viteRoot, specifier)
    if (isAbsolute(specifier)) return specifier
    const from = importer ? (parseModuleId(importer, this.idRoot())?.file ?? importer) : join(process.cwd(), 'index.js')
    if (specifier.startsWith('.')) return resolve(dirname(from), specifier)
    try {
      // A contract shipped in a package: `@acme/contracts/payments.spec.json`.
      return createRequire(from).resolve(specifier)
    } catch {
      return undefined
    }
  }

  /**
   * Writes the sidecars of a served module from its compile: the sidecar (declarations of the import
   * without a query, whatever this import asked for) and, for a query import, the contract's query
   * declarations. Returns the writes refused (`CONTRACTS_WRITE_REFUSED`), none when all went well.
   */
  async writeTypes(result: CompileResult, served: Served): Promise<Diagnostic[]> {
    const refused: Diagnostic[] = []
    const collect = (written: WriteResult) => {
      if (!written.ok) refused.push(...written.refused.map(writeRefusedDiagnostic))
    }
    // A package's contract: nothing is written beside it (package-declarations.ts); the project's
    // file declares it by the specifiers the app imported it by.
    if (isPackageFile(served.file)) {
      if (result.dts !== undefined)
        for (const root of this.packages.declare(served.file, served.query, result.dts)) {
          // A dev server writes once the saves pause (typesLater); a build at its end.
          if (this.serving) collect(this.packages.write(root))
          else this.packageRootsPending.add(root)
        }
      return refused
    }
    const plain = served.query === '' ? result : await this.compile({ file: served.file, query: '' })
    if (plain.dts !== undefined) collect(this.sidecars.sidecar(served.file, plain.dts))
    if (served.query === '' && plain.dts !== undefined && this.emptyQueries.has(served.file) && this.sidecars.query(served.file, '', plain.dts))
      collect(this.sidecars.writeQueries(served.file))
    // Everything seen so far, in one synchronous write: the last write is complete. A dev server
    // declares only the query imports a module of the app made (`importedQuery`): any client on the
    // loopback may ask it for a module with a query of its own, and each one asked was written into
    // the source tree, without bound.
    if (this.serving && served.query !== '' && !this.importedQueries.has(`${served.file}?${served.query}`)) return refused
    if (served.query !== '' && result.dts !== undefined && this.sidecars.query(served.file, served.query, result.dts))
      collect(this.sidecars.writeQueries(served.file))
    return refused
  }

  /** The errors a build reported, by contract (`errorsKey`): cleared when a build starts. */
  readonly shownErrors = new Map<string, string>()

  /**
   * Whether this build reported `result`'s errors already, for another module of the same contract
   * (`./x.spec.json` and `./x.spec.json?topics=a` both fail on one `$ref`): each is then printed once.
   * A dev server answers every request in full (its overlay shows the one module it was asked for).
   */
  errorsShown(result: { file: string; diagnostics: readonly Diagnostic[] }): boolean {
    if (this.serving) return false
    const key = errorsKey(result.diagnostics)
    if (this.shownErrors.get(result.file) === key) return true
    this.shownErrors.set(result.file, key)
    return false
  }

  /** A dev server's warnings printed, by contract file: each warning's code, place and message. */
  readonly shownWarnings = new Map<string, Set<string>>()
  /** The warnings a build printed, whichever contract's: cleared with `shownWarnings` when a build starts. */
  readonly buildWarnings = new Set<string>()

  /**
   * The warnings of `result` not printed yet, and now counted as printed: each once a build however
   * many modules load the contract (`./x.spec.json` and `./x.spec.json?topics=a`) and however many
   * contracts report it (two documents of a NATS bundle, each reaching a pattern in one locked
   * file); in a dev server once for each contract after each change of it or of a file it read
   * (`warningsChanged`), however often the module is loaded again (a failed module is loaded once
   * for Vite's pre-transform and again for the page's request, since Vite keeps no failed transform).
   */
  warningsToShow(result: { file: string; diagnostics: readonly Diagnostic[] }): Diagnostic[] {
    const warnings = result.diagnostics.filter((d) => d.severity === 'warning')
    if (warnings.length === 0) return []
    if (!this.serving) return unreported(warnings, this.buildWarnings)
    let shown = this.shownWarnings.get(result.file)
    if (!shown) this.shownWarnings.set(result.file, (shown = new Set()))
    return unreported(warnings, shown)
  }

  /** The digest of each file's text as the dev server's last change event of it read it. */
  private readonly changedTexts = new Map<string, string>()

  /**
   * A dev server's change event for `file` (a contract, or a file a contract's compile read), with
   * its text when it could be read: the `contracts` compiled from it print their warnings again on
   * their next load, unless the text is the one the last event read. One save can bring two events (a
   * write, then its times set; an editor's truncate, then its write), and the second must not make
   * the module's second load (Vite's pre-transform, then the page's request) print them again.
   */
  warningsChanged(file: string, text: string | undefined, contracts: Iterable<string>): void {
    if (text !== undefined) {
      const digest = createHash('sha256').update(text).digest('hex')
      if (this.changedTexts.get(file) === digest) return
      this.changedTexts.set(file, digest)
    } else this.changedTexts.delete(file)
    for (const contract of contracts) this.shownWarnings.delete(contract)
  }

  /**
   * A contract import `resolveId` gave a module for, as the declarations need it: a dev server's
   * query import made by a module of the app (`importedQueries`; Vite resolves a request for a URL
   * with `<root>/index.html` as the importer), and an import with an empty query (`./x.spec.json?`,
   * `emptyQueries`: the plain module, whose import TypeScript resolves only as the query `""`).
   */
  recordImport(file: string, query: string, questionMark: boolean, importer: string | undefined, packageSource?: string): void {
    const fromModule = importer !== undefined && importer !== join(this.viteRoot ?? '', 'index.html')
    if (!fromModule || this.options.types === false) return
    if (packageSource !== undefined && isPackageFile(file))
      this.packages.record(
        file,
        query,
        packageSource,
        projectFolder(parseModuleId(importer, this.idRoot())?.file ?? importer, this.idRoot(), this.projectFolders),
      )
    if (this.serving && query !== '') this.importedQueries.add(`${file}?${query}`)
    if (query === '' && questionMark) {
      this.emptyQueries.add(file)
      if (this.serving) this.typesLater({ file, query: '' })
    }
  }

  /** A build's end: the empty-query declarations not written with their module (loaded before the `?` import was seen). */
  async writeEmptyQueries(): Promise<Diagnostic[]> {
    const refused: Diagnostic[] = []
    for (const file of this.emptyQueries) {
      if (this.sidecars.has(file, '')) continue
      const result = await this.compile({ file, query: '' })
      if (result.dts !== undefined) refused.push(...(await this.writeTypes(result, { file, query: '' })))
    }
    return refused
  }

  /** A build's end: each `contracts-packages.d.ts` its modules made out of date, written once. Returns the writes refused. */
  writePackageDeclarations(): Diagnostic[] {
    const refused: Diagnostic[] = []
    for (const root of this.packageRootsPending) {
      const written = this.packages.write(root)
      if (!written.ok) refused.push(...written.refused.map(writeRefusedDiagnostic))
    }
    this.packageRootsPending.clear()
    return refused
  }

  /**
   * A dev server's sidecars for `served`, written once its saves pause (`TYPES_DELAY` after the
   * last one served), one write at a time per contract and query. The compile is the one the module
   * was served from (the cache answers while the contract is unchanged). A contract that does not
   * compile has no declarations: nothing is written (the overlay shows why); one deleted (not there
   * when the saves pause) has its sidecar and query declarations removed, where they are the
   * project's. A failed or refused write is a warning (the module is served already; a build fails
   * on it instead).
   */
  typesLater(served: Served): void {
    const key = `${served.file}?${served.query}`
    clearTimeout(this.typeTimers.get(key))
    const timer = setTimeout(() => {
      this.typeTimers.delete(key)
      const previous = this.typeWrites.get(key) ?? Promise.resolve()
      const next = previous
        .then(async () => {
          const result = await this.compile(served)
          // Deleted (and not made again while the saves paused): its sidecars go too, if they are ours.
          // (A package's contract has nothing beside it to remove: package-declarations.ts.)
          if (result.dts === undefined && !isPackageFile(served.file) && lstatSync(served.file, { throwIfNoEntry: false }) === undefined)
            for (const removal of this.sidecars.remove(served.file))
              if (!removal.ok)
                for (const refusal of removal.refused) this.logger?.warn(`unplugin-contracts: ${formatDiagnostic(writeRefusedDiagnostic(refusal))}`)
          if (result.dts === undefined) return
          for (const refusal of await this.writeTypes(result, served)) this.logger?.warn(`unplugin-contracts: ${formatDiagnostic(refusal)}`)
        })
        .catch((error: unknown) => this.logger?.warn(`unplugin-contracts: the declarations of ${served.file} were not written: ${String(error)}`))
      this.typeWrites.set(key, next)
    }, TYPES_DELAY)
    this.typeTimers.set(key, timer)
  }
}
