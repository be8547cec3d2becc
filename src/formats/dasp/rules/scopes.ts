import { isObject } from '../load.js'
import { daspRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over the requested extensions, the definitions' scopes and dependencies, and the policy. */

/** The three scopes of DASP-EXT-003. */
const SCOPES = ['connection', 'session', 'command']

/**
 * DASP-EXT-003 has three scopes: connection, session and command. A requested scope must be one of
 * them and one its definition supports; a definition's scopes, its dependencies' scopes and a
 * policy's scopes are among the three too (a fourth would never match a selection).
 */
export const scopeRule = daspRule({
  code: 'DASP_SCOPE',
  description:
    "A requested scope the definition does not support, or a scope (requested, a definition's, a dependency's, a policy's) that is not connection, session or command.",
  check(ctx, report) {
    const notAScope = (scope: unknown) => `Scope ${JSON.stringify(scope)} is not connection, session or command (DASP-EXT-003).`
    for (const e of ctx.requested) {
      // A scope that is missing or not a string is the selection's shape problem.
      if (typeof e.scope !== 'string') continue
      const d = ctx.definitionOf(e.uri, e.version)
      if (!SCOPES.includes(e.scope)) report(`/extensions/${e.index}/scope`, notAScope(e.scope))
      else if (d && Array.isArray(d.value.scopes) && !ctx.unreadableWithin(d.file, '/scopes') && !d.value.scopes.includes(e.scope))
        report(`/extensions/${e.index}/scope`, `${e.uri} ${e.version} supports scopes ${d.value.scopes.join(', ')}, not ${e.scope}.`)
    }
    for (const d of ctx.definitions) {
      ;(Array.isArray(d.value.scopes) ? d.value.scopes : []).forEach((scope: unknown, i: number) => {
        if (typeof scope === 'string' && !SCOPES.includes(scope)) report.in(d.file, `/scopes/${i}`, notAScope(scope))
      })
      ;(Array.isArray(d.value.dependencies) ? d.value.dependencies : []).forEach((dep: unknown, i: number) => {
        if (isObject(dep) && typeof dep.scope === 'string' && !SCOPES.includes(dep.scope)) report.in(d.file, `/dependencies/${i}/scope`, notAScope(dep.scope))
      })
    }
    const requires = isObject(ctx.selection.policy) && Array.isArray(ctx.selection.policy.requires) ? ctx.selection.policy.requires : []
    requires.forEach((r: unknown, i: number) => {
      if (isObject(r) && typeof r.scope === 'string' && !SCOPES.includes(r.scope)) report(`/policy/requires/${i}/scope`, notAScope(r.scope))
    })
  },
})
