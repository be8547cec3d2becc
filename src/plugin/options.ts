import type { FilterPattern } from 'unplugin-utils'
import { ContractCompiler } from '../core/compile.js'
import { formats } from '../formats/index.js'
import type { BenzeneOptions } from '../formats/benzene/options.js'
import type { NatsOptions } from '../formats/nats/options.js'

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
   * The compiler (and so the cache) to use. Sharing one lets several plugin instances, or a
   * benchmark, see the same cache and its `compilations` count.
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
}

/** The options with every default filled in. */
export interface ResolvedPluginOptions {
  include: FilterPattern | undefined
  exclude: FilterPattern
  types: 'sidecar' | false
  compiler: ContractCompiler
  benzene: NonNullable<PluginOptions['benzene']>
  nats: NatsOptions | undefined
}

export const DEFAULT_EXCLUDE: FilterPattern = []

/** Fills in the defaults (the one place they are). */
export function resolveOptions(options: PluginOptions = {}): ResolvedPluginOptions {
  return {
    include: options.include,
    exclude: options.exclude ?? DEFAULT_EXCLUDE,
    types: options.types ?? 'sidecar',
    compiler: options.compiler ?? new ContractCompiler({ formats }),
    benzene: options.benzene ?? {},
    nats: options.nats,
  }
}
