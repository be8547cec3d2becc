import { ANY_SCOPE } from '../context.js'
import { isObject } from '../load.js'
import { daspRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): one set lookup per policy entry (context.ts: `mayBeRequested`). */

export const policyRule = daspRule({
  code: 'DASP_POLICY',
  description: 'The selection omits or weakens what policy.requires demands (the exact extension, version and scope).',
  check(ctx, report) {
    const requires = isObject(ctx.selection.policy) && Array.isArray(ctx.selection.policy.requires) ? ctx.selection.policy.requires : []
    requires.forEach((r: unknown, i: number) => {
      // An entry without a readable identity or scope is the shape's problem; an unreadable request entry might be the one required.
      if (!isObject(r) || typeof r.uri !== 'string' || typeof r.version !== 'string' || ctx.unreadable(ctx.input.selection, `/policy/requires/${i}/scope`))
        return
      if (!ctx.mayBeRequested(r.uri, r.version, r.scope === undefined ? ANY_SCOPE : r.scope)) {
        report(
          `/policy/requires/${i}`,
          `Policy requires ${String(r.uri)} ${String(r.version)}${r.scope ? ` in ${String(r.scope)} scope` : ''}; the selection does not request it so, and a host refuses it.`,
          { required: r },
        )
      }
    })
  },
})
