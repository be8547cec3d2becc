/**
 * Module ids for compiled contracts. A contract import `./payments.spec.json?topics=a` becomes
 * `\0/abs/payments.spec.json.contract.js?topics=a`: the `\0` marks it virtual (Rollup convention,
 * kept out of other plugins' way) and the `.contract.js` ending keeps JSON plugins, which match
 * `.json` and `.json?`, from claiming it. esbuild, webpack and Rspack get the same id without `\0`:
 * esbuild needs a real location (the module's directory is the contract's), and webpack and Rspack
 * print the id of a virtual module in their messages.
 */
export const MODULE_SUFFIX = '.contract.js'

export function toModuleId(file: string, query: string, virtualPrefix: boolean): string {
  return `${virtualPrefix ? '\0' : ''}${file}${MODULE_SUFFIX}${query ? '?' + query : ''}`
}

export function parseModuleId(id: string): { file: string; query: string } | undefined {
  const bare = id.startsWith('\0') ? id.slice(1) : id
  const q = bare.indexOf('?')
  const path = q === -1 ? bare : bare.slice(0, q)
  if (!path.endsWith(MODULE_SUFFIX)) return undefined
  return { file: path.slice(0, -MODULE_SUFFIX.length), query: q === -1 ? '' : bare.slice(q + 1) }
}

/** `./x.spec.json?topics=a` -> [`./x.spec.json`, `topics=a`]. */
export function splitQuery(specifier: string): [string, string] {
  const q = specifier.indexOf('?')
  return q === -1 ? [specifier, ''] : [specifier.slice(0, q), specifier.slice(q + 1)]
}

/**
 * The topology of a bundle, imported as `./bundle.lock.json?topology`: `\0/abs/bundle.lock.json.topology.js`
 * (no `\0` for esbuild), a module of its own kind beside the contracts'.
 */
export const TOPOLOGY_SUFFIX = '.topology.js'
/** The lock a topology is imported from, and the query that asks for it. */
export const TOPOLOGY_LOCK = 'bundle.lock.json'
export const TOPOLOGY_QUERY = 'topology'

export function isTopologyImport(specifier: string, query: string): boolean {
  return query === TOPOLOGY_QUERY && (specifier === TOPOLOGY_LOCK || specifier.endsWith(`/${TOPOLOGY_LOCK}`))
}

export function toTopologyId(lockFile: string, virtualPrefix: boolean): string {
  return `${virtualPrefix ? '\0' : ''}${lockFile}${TOPOLOGY_SUFFIX}`
}

export function parseTopologyId(id: string): string | undefined {
  const bare = id.startsWith('\0') ? id.slice(1) : id
  return bare.endsWith(TOPOLOGY_SUFFIX) ? bare.slice(0, -TOPOLOGY_SUFFIX.length) : undefined
}
