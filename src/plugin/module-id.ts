import { isAbsolute, relative, resolve, sep } from 'node:path'

/**
 * Module ids for compiled contracts. A contract import `./payments.spec.json?topics=a` becomes
 * `/abs/payments.spec.json.contract.js?topics=a`: the `.contract.js` ending keeps JSON plugins, which
 * match `.json` and `.json?`, from claiming it. Its form depends on the bundler (factory.ts decides):
 * - a `\0` in front (Rollup's mark of a virtual module) only in Vite's dev server, or where a file of
 *   that very name exists: Rollup and Rolldown leave a `\0` module out of source maps and print its
 *   id as it is into the bundle, while a plain path they map and print relative to the project;
 * - the path relative to the project's root (`./src/...`, `../shared/...`) for esbuild, which writes
 *   the paths of a plugin's namespace as they are (its comments, its metafile).
 * Absolute paths in ids put the build folder into what a build writes: two checkouts built
 * different bytes and a published library carried its build folder's path.
 */
export const MODULE_SUFFIX = '.contract.js'

/** How a plugin instance writes its module ids. */
export interface IdForm {
  /** Rollup's `\0` in front. */
  virtualPrefix: boolean
  /** The folder the ids' paths are relative to; absolute paths when undefined. */
  root?: string | undefined
}

/** The path an id holds for `file`: relative to the form's root (with `/`), or as it is. */
function idPath(file: string, form: IdForm): string {
  if (form.root === undefined) return file
  const path = relative(form.root, file)
  // Another drive (Windows) has no relative path: the absolute one stays. A relative one starts with
  // `./` or `../`, so a format's name pattern anchored after a separator (`asyncapi.yaml`) finds one.
  if (isAbsolute(path)) return path
  const posix = path.split(sep).join('/')
  return posix.startsWith('../') ? posix : `./${posix}`
}

/** The absolute file an id's path names (`root` resolves a relative one: the form's root). */
function idFile(path: string, root: string | undefined): string | undefined {
  if (isAbsolute(path)) return path
  return root === undefined ? undefined : resolve(root, path)
}

export function toModuleId(file: string, query: string, form: IdForm): string {
  return `${form.virtualPrefix ? '\0' : ''}${idPath(file, form)}${MODULE_SUFFIX}${query ? '?' + query : ''}`
}

/** The contract and query of a module id; `root` is the one ids were made relative to (an absolute id needs none). */
export function parseModuleId(id: string, root?: string): { file: string; query: string } | undefined {
  const bare = id.startsWith('\0') ? id.slice(1) : id
  const q = bare.indexOf('?')
  const path = q === -1 ? bare : bare.slice(0, q)
  if (!path.endsWith(MODULE_SUFFIX)) return undefined
  const file = idFile(path.slice(0, -MODULE_SUFFIX.length), root)
  return file === undefined ? undefined : { file, query: q === -1 ? '' : bare.slice(q + 1) }
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

/**
 * Whether an import asks for a bundle's topology: a `bundle.lock.json` whose query names `topology`
 * (`?topology`, or a near miss such as `?topology=1` or `?topology&x`, which the load refuses with
 * `CONTRACTS_UNKNOWN_QUERY`: left to the bundler, esbuild, webpack and Rspack imported the lock's raw
 * JSON instead). A lock imported with no `topology` in its query (`?raw`, `?url`) is the bundler's.
 */
export function isTopologyImport(specifier: string, query: string): boolean {
  if (specifier !== TOPOLOGY_LOCK && !specifier.endsWith(`/${TOPOLOGY_LOCK}`)) return false
  return query === TOPOLOGY_QUERY || new URLSearchParams(query).has(TOPOLOGY_QUERY)
}

/** The topology module's id; a query other than `topology` itself is kept, for the load to refuse. */
export function toTopologyId(lockFile: string, form: IdForm, query = TOPOLOGY_QUERY): string {
  return `${form.virtualPrefix ? '\0' : ''}${idPath(lockFile, form)}${TOPOLOGY_SUFFIX}${query === TOPOLOGY_QUERY ? '' : `?${query}`}`
}

/** The lock of a topology module's id (its query aside: `topologyQuery`). */
export function parseTopologyId(id: string, root?: string): string | undefined {
  const bare = (id.startsWith('\0') ? id.slice(1) : id).split('?')[0]!
  return bare.endsWith(TOPOLOGY_SUFFIX) ? idFile(bare.slice(0, -TOPOLOGY_SUFFIX.length), root) : undefined
}

/** The import query a topology module's id kept (`toTopologyId`): `topology` when it was exactly that. */
export function topologyQuery(id: string): string {
  const q = id.indexOf('?')
  return q === -1 ? TOPOLOGY_QUERY : id.slice(q + 1)
}
