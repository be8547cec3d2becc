import type { FilterPattern } from 'unplugin-utils'
import type { BenzeneOptions } from '../formats/benzene/options.js'

export interface PluginOptions {
  /** Files to handle (picomatch globs or RegExps). Default: every file a contract format claims (`*.spec.json`, `*.asyncapi.yaml`/`.yml`, `asyncapi.yaml`, `*.dasp.json`). */
  include?: FilterPattern
  /** Files to leave alone. Default: `node_modules`. */
  exclude?: FilterPattern
  /**
   * `'sidecar'` (default) writes `<name>.d.json.ts` beside each contract, for TypeScript's
   * `allowArbitraryExtensions`, only when its content changes. `false` writes nothing.
   */
  types?: 'sidecar' | false
  /**
   * The compiler (and so the cache) to use; by default each plugin instance has its own. Sharing one
   * lets several plugin instances, or a benchmark, see the same cache and its `compilations` count.
   */
  compiler?: import('../core/compile.js').ContractCompiler
  /**
   * Benzene options; `topics` may also be a function of the contract's absolute path so that one
   * plugin instance can scope several documents differently. The import query wins over these.
   */
  benzene?: Omit<BenzeneOptions, 'topics'> & { topics?: BenzeneOptions['topics'] | ((file: string) => readonly string[] | undefined) }
}
