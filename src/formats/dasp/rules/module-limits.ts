import { MAX_MODULE_LIST } from '../../../runtime/dasp/index.js'
import { isObject } from '../load.js'
import { daspRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over the requested extensions and their definitions' settings and attributes. */

/**
 * The generated module hands the runtime its lists (the requested extensions, each one's
 * persistent settings, dependencies and affected operations, the attribute rules), and the runtime takes at most MAX_MODULE_LIST entries
 * a list from a module, so that no list it is given makes its checks unbounded. Past that, an
 * outside pass found the module built without a word while its `sessionFloor` was `{}` (every
 * saved session refused on reopening) and every placement check `unreadable`: the build fails
 * instead, as unsupported.
 */
export const moduleLimits = daspRule({
  code: 'DASP_MODULE_LIMIT',
  description: `A selection whose module the runtime cannot check (unsupported): more than ${MAX_MODULE_LIST} requested extensions, more than ${MAX_MODULE_LIST} persistent settings, dependencies or affected operations in one, or more than ${MAX_MODULE_LIST} attribute rules.`,
  check(ctx, report) {
    const requested = ctx.requested
    if (requested.length > MAX_MODULE_LIST)
      report('/extensions', `${requested.length} extensions are requested; a generated module checks at most ${MAX_MODULE_LIST} (unsupported).`)
    let attributes = 0
    for (const e of requested) {
      const d = ctx.definitionOf(e.uri, e.version)
      if (!d) continue
      const specs = isObject(d.value.settings) ? d.value.settings : {}
      const settings = isObject(e.settings) ? Object.keys(e.settings) : []
      const persistent = settings.filter((name) => isObject(specs[name]) && specs[name].persistence === 'session').length
      if (persistent > MAX_MODULE_LIST)
        report(
          `/extensions/${e.index}/settings`,
          `${e.uri} ${e.version} has ${persistent} persistent settings; a generated module's session floor holds at most ${MAX_MODULE_LIST} an extension (unsupported).`,
        )
      // The floor holds each extension's dependency requirements and affected operations too.
      for (const list of ['dependencies', 'operations'] as const) {
        const n = Array.isArray(d.value[list]) ? (d.value[list] as unknown[]).length : 0
        if (n > MAX_MODULE_LIST)
          report(
            `/extensions/${e.index}`,
            `${e.uri} ${e.version} lists ${n} ${list} in its definition; a generated module's session floor holds at most ${MAX_MODULE_LIST} an extension (unsupported).`,
          )
      }
      if (Array.isArray(d.value.attributes)) attributes += d.value.attributes.length
    }
    if (attributes > MAX_MODULE_LIST)
      report(
        '/extensions',
        `The requested extensions define ${attributes} attributes; a generated module checks at most ${MAX_MODULE_LIST} attribute rules (unsupported).`,
      )
  },
})
