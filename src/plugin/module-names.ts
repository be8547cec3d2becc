import { basename } from 'node:path'
import { terminalLine } from '../core/terminal-text.js'
import { parseModuleId, parseTopologyId, TOPOLOGY_QUERY } from './module-id.js'

/** unplugin's names for a virtual module's file in webpack (`_virtual_<id>`) and Rspack (`node_modules/.virtual/<id>`). */
const WEBPACK_PREFIX = '_virtual_'

/**
 * The request webpack and Rspack should show for a module this plugin made, or undefined for any
 * other. unplugin hands them the module as a file named after its encoded id
 * (`<project>/_virtual_%2Fabs%2Fpayments.spec.json.contract.js`, or under `node_modules/.virtual/`),
 * and a development build names the module by that file everywhere it prints one: the module id,
 * the `!*** ... ***!` comment, the stats listing and the `sourceURL` of an eval source map, all with
 * the project's absolute path inside. The request shown instead is the contract's own path and the
 * import's query (`/abs/payments.spec.json?topics=a`), which the bundler shortens relative to the
 * project (`./payments.spec.json?topics=a`), as the contract's error header does.
 */
export function contractRequest(resource: string): string | undefined {
  const name = basename(resource)
  let id: string
  try {
    id = decodeURIComponent(name.startsWith(WEBPACK_PREFIX) ? name.slice(WEBPACK_PREFIX.length) : name)
  } catch {
    return undefined
  }
  // A real file's name holds no encoded separator: only an encoded id (an absolute path) does.
  if (id === name || !id.includes('/')) return undefined
  const module = parseModuleId(id)
  if (module) return module.query ? `${module.file}?${module.query}` : module.file
  const lock = parseTopologyId(id)
  return lock === undefined ? undefined : `${lock}?${TOPOLOGY_QUERY}`
}

/** What webpack's and Rspack's `afterResolve` hand a plugin: the module about to be made, whose fields it may change. */
interface ResolveData {
  createData?: { resource?: string; userRequest?: string }
}
interface ModuleFactoryHooks {
  hooks: { afterResolve: { tap(name: string, fn: (data: ResolveData) => void): void } }
}
export interface NamingCompiler {
  hooks: { normalModuleFactory: { tap(name: string, fn: (factory: ModuleFactoryHooks) => void): void } }
}

/**
 * Names each contract module by its contract (see `contractRequest`): the module's `userRequest`,
 * which webpack and Rspack read for its name, id in development, comments and source URL; the
 * module's identity (its `request`, cache key) is left as it is.
 */
export function nameContractModules(compiler: NamingCompiler, plugin: string): void {
  compiler.hooks.normalModuleFactory.tap(plugin, (factory) => {
    factory.hooks.afterResolve.tap(plugin, (data) => {
      const created = data.createData
      const request = created?.resource === undefined ? undefined : contractRequest(created.resource)
      // Escaped as one terminal line: Rspack prints the name raw in its `ERROR in <name>` header (a
      // folder named `a\nerror FAKE: ...` printed a line of its own); a plain path is unchanged.
      if (request !== undefined) created!.userRequest = terminalLine(request)
    })
  })
}
