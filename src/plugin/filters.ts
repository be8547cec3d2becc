/**
 * The plugin's hook filters (unplugin's object hooks, `{ filter, handler }`), built from each
 * format's file pattern (`ContractFormat.pattern`, a lazily registered format's too: no format is loaded for it). Vite, Rollup and Rolldown test them natively,
 * before calling into the plugin; for esbuild, webpack and Rspack unplugin tests them (webpack's
 * loader rule `include`, so a module no format claims never gets this plugin's loader). The
 * handlers still check what they are given: a filter only spares the calls that cannot matter.
 */
import type { RegisteredFormat } from '../core/format.js'
import { MODULE_SUFFIX, TOPOLOGY_LOCK, TOPOLOGY_QUERY, TOPOLOGY_SUFFIX } from './module-id.js'
import { RUNTIME_DEPENDENCIES, RUNTIME_ENTRIES, RUNTIME_FILES } from './runtime-entries.js'

export interface HookFilters {
  /** Import specifiers the plugin may resolve; none when a format gives no pattern (then every one is looked at). */
  resolveId?: { id: RegExp }
  /** Module ids the plugin loads. */
  load: { id: RegExp }
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
const exactly = (texts: Iterable<string>) => `^(?:${[...texts].map(escape).join('|')})$`

/**
 * The file names the formats claim, as one alternation without the end anchor, so that a query
 * or a module suffix can follow; undefined when a format has no pattern of that form.
 */
export function claimedNames(formats: readonly RegisteredFormat<any, any, any, any>[]): string | undefined {
  const sources: string[] = []
  for (const { pattern } of formats) {
    if (!pattern || pattern.flags.replace(/[gy]/g, '') !== '' || !pattern.source.endsWith('$') || pattern.source.endsWith('\\$')) return undefined
    sources.push(`(?:${pattern.source.slice(0, -1)})`)
  }
  return sources.length > 0 ? sources.join('|') : undefined
}

/**
 * - `resolveId`: a contract a format claims, with any query (`./x.spec.json?topics=a`); a bundle's
 *   topology (`./bundle.lock.json?topology`); the runtime's package subpaths and the packages the
 *   runtime imports (resolved to this package's build);
 * - `load`: the module ids `resolveId` gave (`<contract>.contract.js[?query]`, `<lock>.topology.js`)
 *   and, for esbuild, which has the plugin load every path it resolved, the runtime's files.
 */
export function hookFilters(formats: readonly RegisteredFormat<any, any, any, any>[], esbuild: boolean): HookFilters {
  const claimed = claimedNames(formats)
  // `?topology`, and a near miss the load refuses (`?topology=1`, `?x&topology`): see isTopologyImport.
  const topologyImport = `(?:^|/)${escape(TOPOLOGY_LOCK)}\\?(?:.*&)?${TOPOLOGY_QUERY}(?:[=&].*)?$`
  const runtime = exactly([...RUNTIME_ENTRIES.keys(), ...RUNTIME_DEPENDENCIES.keys()])
  const modules = `(?:${claimed ?? ''})${escape(MODULE_SUFFIX)}(?:\\?.*)?$`
  const topology = `${escape(TOPOLOGY_LOCK + TOPOLOGY_SUFFIX)}(?:\\?.*)?$`
  return {
    ...(claimed !== undefined ? { resolveId: { id: new RegExp(`${runtime}|${topologyImport}|(?:${claimed})(?:\\?.*)?$`) } } : {}),
    load: { id: new RegExp([modules, topology, ...(esbuild ? [exactly(RUNTIME_FILES)] : [])].join('|')) },
  }
}
