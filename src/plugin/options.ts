import type { FilterPattern } from 'unplugin-utils'
import { ContractCompiler } from '../core/compile.js'
import { checkRef } from '../core/diff/git.js'
import { DEFAULT_CACHE_MAX_BYTES } from '../core/persistent-cache.js'
import { formats } from '../formats/index.js'
import type { BenzeneOptions } from '../formats/benzene/options.js'
import type { NatsOptions } from '../formats/nats/options.js'
import { PLUGIN_CODES, type PluginCode } from './codes.js'

/** The plugin's options; each is documented, with its default, in docs/options.md (one section per option). */
export interface PluginOptions {
  /**
   * Files to handle (picomatch globs or RegExps), among those a contract format claims
   * (`*.spec.json`, `*.asyncapi.yaml`/`.yml`/`.json`, `asyncapi.yaml`/`.json`, `*.dasp.json`).
   * @default every file a format claims
   */
  include?: FilterPattern
  /**
   * Contract files to leave alone. A contract in a package (`@acme/contracts/x.spec.json`) that the
   * app imports is compiled; what a dependency imports from its own files is always left alone.
   * @default []
   */
  exclude?: FilterPattern
  /**
   * `'sidecar'` writes `<name>.d.<ext>.ts` beside each contract (for TypeScript's
   * `allowArbitraryExtensions`), only when its content changes; `false` writes nothing.
   * @default 'sidecar'
   */
  types?: 'sidecar' | false
  /**
   * Compiled results kept on disk, so that the next build (or a CI job that restores the folder)
   * compiles only the contracts that changed: `true` keeps them in the bundler's cache folder
   * (Vite's `cacheDir`, webpack's `cache.cacheDirectory`, Rspack's `cache.storage.directory`, each
   * plus `/unplugin-contracts`) or else in `node_modules/.cache/unplugin-contracts` of the nearest
   * package (outside any package, nowhere); a string is the folder (relative to the project root); `false` keeps nothing and writes
   * nothing. Not with `compiler` (a compiler given keeps the cache it was made with).
   * @default true
   */
  cache?: boolean | string
  /**
   * The bound on the cache folder's size in bytes: past it, the least recently used entries go.
   * @default 268435456 (256 MiB)
   */
  cacheMaxBytes?: number
  /**
   * Compiles off the bundler's thread, in a build of more than a few contracts: worker threads
   * (at most this many, and at most one fewer than the machine's cores; `true`: up to 4, on a
   * machine of at least 4 cores) compile while the bundler works. The results are the same. `false` compiles every contract on the
   * bundler's thread. A dev server and a `compiler` given always compile on the bundler's thread.
   * @default true
   */
  workers?: boolean | number
  /**
   * The compiler (and so the cache) to use. Sharing one lets several plugin instances, or a
   * benchmark, see the same cache and its `compilations` count. It is used as it is: a persistent
   * cache is its own (`new ContractCompiler({ cache: new PersistentCache(...) })`).
   * @default a new compiler of the built-in formats per plugin instance
   */
  compiler?: ContractCompiler
  /**
   * Benzene options (docs/options.md); `topics` may also be a function of the contract's absolute
   * path, so that one plugin instance can scope several documents differently. The import query
   * wins over these.
   * @default {}
   */
  benzene?: Omit<BenzeneOptions, 'topics'> & { topics?: BenzeneOptions['topics'] | ((file: string) => readonly string[] | undefined) }
  /**
   * NATS options (docs/options.md): `names`, channel export names chosen by hand.
   * @default undefined
   */
  nats?: NatsOptions
  /**
   * Vite dev only: a git ref (`'HEAD'`, `'main'`) to compare each saved contract with, as
   * `contracts diff --against <ref>` does; the breaking findings, and whom they break, are printed as
   * a warning in the terminal. Never fails the build or the served module. `false`: no diff.
   * @default false
   */
  diff?: string | false
}

/** The options with every default filled in. */
export interface ResolvedPluginOptions {
  include: FilterPattern | undefined
  exclude: FilterPattern
  types: 'sidecar' | false
  cache: boolean | string
  cacheMaxBytes: number
  workers: boolean | number
  compiler: ContractCompiler
  /** Whether `compiler` is the plugin's own (then the plugin gives it the persistent cache). */
  ownCompiler: boolean
  benzene: NonNullable<PluginOptions['benzene']>
  nats: NatsOptions | undefined
  /** The git ref saved contracts are compared with in a dev server, or undefined. */
  diff: string | undefined
}

/** A problem with the options as given: a diagnostic without a file (the options are not in one). */
export interface OptionProblem {
  code: PluginCode
  severity: 'error' | 'warning'
  message: string
  data: Record<string, unknown>
}

/** Every default, in the one place they are (docs/options.md mirrors them); the compiler is made per plugin instance. */
export const DEFAULT_OPTIONS = {
  include: undefined,
  exclude: [],
  types: 'sidecar',
  cache: true,
  cacheMaxBytes: DEFAULT_CACHE_MAX_BYTES,
  workers: true,
  benzene: {},
  nats: undefined,
  diff: undefined,
} as const satisfies Omit<ResolvedPluginOptions, 'compiler' | 'ownCompiler'>

export const DEFAULT_EXCLUDE: FilterPattern = DEFAULT_OPTIONS.exclude

/** The options the plugin has, in the order docs/options.md gives them. */
export const PLUGIN_OPTIONS = ['include', 'exclude', 'types', 'cache', 'cacheMaxBytes', 'workers', 'compiler', 'benzene', 'nats', 'diff'] as const

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
const isPattern = (value: unknown) => typeof value === 'string' || value instanceof RegExp
const shown = (value: unknown) =>
  value instanceof RegExp ? String(value) : typeof value === 'function' ? 'a function' : (JSON.stringify(value) ?? String(value))

/**
 * The plugin's options with the defaults filled in, checked as a format checks its own: an option
 * the plugin does not have is a warning that names the ones it has (`CONTRACTS_UNKNOWN_PLUGIN_OPTION`,
 * then ignored), a value an option cannot take is an error (`CONTRACTS_INVALID_PLUGIN_OPTION`). What
 * is under `benzene` and `nats` is checked by those formats on each compile, with their own codes.
 */
export function resolveOptions(raw: unknown = {}): { options: ResolvedPluginOptions; problems: OptionProblem[] } {
  const problems: OptionProblem[] = []
  const invalid = (option: string, value: unknown, expected: string) =>
    problems.push({
      code: 'CONTRACTS_INVALID_PLUGIN_OPTION',
      severity: PLUGIN_CODES.CONTRACTS_INVALID_PLUGIN_OPTION.severity,
      message: `Plugin option ${option}: ${shown(value)} is not ${expected}.`,
      data: { option, value },
    })
  if (!isPlainObject(raw)) {
    invalid('(all)', raw, 'an object of options')
    raw = {}
  }
  const given = raw as Record<string, unknown>
  const valid = (option: keyof PluginOptions) => !problems.some((p) => p.severity === 'error' && p.data.option === option)
  for (const option of Object.keys(given))
    if (!(PLUGIN_OPTIONS as readonly string[]).includes(option))
      problems.push({
        code: 'CONTRACTS_UNKNOWN_PLUGIN_OPTION',
        severity: PLUGIN_CODES.CONTRACTS_UNKNOWN_PLUGIN_OPTION.severity,
        message: `Unknown plugin option ${JSON.stringify(option)}, ignored (the options are ${PLUGIN_OPTIONS.join(', ')}).`,
        data: { option, known: [...PLUGIN_OPTIONS] },
      })
  for (const option of ['include', 'exclude'] as const) {
    const value = given[option]
    if (value !== undefined && value !== null && !isPattern(value) && !(Array.isArray(value) && value.every(isPattern)))
      invalid(option, value, 'a glob, a RegExp or a list of them')
  }
  if (given.types !== undefined && given.types !== 'sidecar' && given.types !== false) invalid('types', given.types, "'sidecar' or false")
  if (given.cache !== undefined && typeof given.cache !== 'boolean' && !(typeof given.cache === 'string' && given.cache !== ''))
    invalid('cache', given.cache, 'true, false or a folder')
  const maxBytes = given.cacheMaxBytes
  if (maxBytes !== undefined && !(Number.isSafeInteger(maxBytes) && (maxBytes as number) > 0))
    invalid('cacheMaxBytes', maxBytes, 'a positive whole number of bytes')
  const workers = given.workers
  if (workers !== undefined && typeof workers !== 'boolean' && !(Number.isSafeInteger(workers) && (workers as number) >= 0))
    invalid('workers', workers, 'true, false or a whole number of threads')
  const compiler = given.compiler as { compile?: unknown; formatOf?: unknown } | undefined
  if (compiler !== undefined && (typeof compiler?.compile !== 'function' || typeof compiler.formatOf !== 'function'))
    invalid('compiler', compiler, 'a ContractCompiler')
  // The plugin does not change a compiler it is given: a cache asked for here would silently not be.
  else if (compiler !== undefined)
    for (const option of ['cache', 'cacheMaxBytes'] as const)
      if (given[option] !== undefined && valid(option))
        problems.push({
          code: 'CONTRACTS_INVALID_PLUGIN_OPTION',
          severity: 'error',
          message: `Plugin option ${option} applies to the compiler the plugin makes; a compiler given keeps its own cache (new ContractCompiler({ cache: new PersistentCache({ dir, root }) })).`,
          data: { option, value: given[option] },
        })
  for (const option of ['benzene', 'nats'] as const)
    if (given[option] !== undefined && !isPlainObject(given[option]))
      invalid(option, given[option], `an object of ${option === 'benzene' ? 'Benzene' : 'NATS'} options`)
  if (given.diff !== undefined && given.diff !== false) {
    let refused = typeof given.diff !== 'string'
    try {
      if (!refused) checkRef(given.diff as string)
    } catch {
      refused = true
    }
    if (refused) invalid('diff', given.diff, "a git ref ('HEAD', a branch, a tag or a commit) or false")
  }
  const ownCompiler = !valid('compiler') || given.compiler === undefined
  return {
    options: {
      include: valid('include') ? ((given.include as FilterPattern | undefined) ?? DEFAULT_OPTIONS.include) : DEFAULT_OPTIONS.include,
      exclude: valid('exclude') ? ((given.exclude as FilterPattern | undefined) ?? DEFAULT_EXCLUDE) : DEFAULT_EXCLUDE,
      types: valid('types') ? ((given.types as ResolvedPluginOptions['types'] | undefined) ?? DEFAULT_OPTIONS.types) : DEFAULT_OPTIONS.types,
      cache: valid('cache') ? ((given.cache as boolean | string | undefined) ?? DEFAULT_OPTIONS.cache) : DEFAULT_OPTIONS.cache,
      cacheMaxBytes: valid('cacheMaxBytes') ? ((maxBytes as number | undefined) ?? DEFAULT_OPTIONS.cacheMaxBytes) : DEFAULT_OPTIONS.cacheMaxBytes,
      workers: valid('workers') ? ((workers as boolean | number | undefined) ?? DEFAULT_OPTIONS.workers) : DEFAULT_OPTIONS.workers,
      compiler: ownCompiler ? new ContractCompiler({ formats }) : (given.compiler as ContractCompiler),
      ownCompiler,
      benzene: valid('benzene') ? ((given.benzene as ResolvedPluginOptions['benzene'] | undefined) ?? DEFAULT_OPTIONS.benzene) : DEFAULT_OPTIONS.benzene,
      nats: valid('nats') ? (given.nats as NatsOptions | undefined) : DEFAULT_OPTIONS.nats,
      diff: valid('diff') && typeof given.diff === 'string' ? given.diff : DEFAULT_OPTIONS.diff,
    },
    problems,
  }
}
