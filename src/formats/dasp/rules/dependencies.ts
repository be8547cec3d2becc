import { MAX_DIAGNOSTICS_PER_CODE } from '../../../core/diagnostics.js'
import { findCycles, shortestCycle, type Digraph } from '../../../core/graph.js'
import { identityKey, type DaspContext, type Definition } from '../context.js'
import { isObject } from '../load.js'
import { daspRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over the requested extensions' dependencies, each a map lookup; the cycle check is one pass of core's cycle finder, O(definitions + dependencies), and one breadth-first search per cycle named. */

/**
 * A definition's dependencies whose identity can be read, whatever their scope: whether one has a
 * definition, or closes a cycle, depends on its URI and version alone, so a malformed scope (the
 * shape's error) hides neither verdict.
 */
const identifiedDepsOf = (d: Definition): Array<{ uri: string; version: string; scope?: unknown }> =>
  Array.isArray(d.value.dependencies)
    ? d.value.dependencies.filter((dep: unknown) => isObject(dep) && typeof dep.uri === 'string' && typeof dep.version === 'string')
    : []

/** A definition's complete dependencies, their scope too: one the shape found malformed (DASP_DEFINITION_SHAPE) decides nothing here. */
const depsOf = (d: Definition): Array<{ uri: string; version: string; scope: string }> =>
  identifiedDepsOf(d).filter((dep): dep is { uri: string; version: string; scope: string } => typeof dep.scope === 'string')

/** Each dependency a requested extension's definition declares, with the extension and definition (`identified`: any readable identity, see identifiedDepsOf). */
function* requestedDependencies(ctx: DaspContext, identified = false) {
  for (const e of ctx.requested) {
    const d = ctx.definitionOf(e.uri, e.version)
    if (d) for (const dep of identified ? identifiedDepsOf(d) : depsOf(d)) yield { e, d, dep }
  }
}

export const dependencyMissing = daspRule({
  code: 'DASP_DEPENDENCY_MISSING',
  description: 'The request lacks a required dependency at its exact version and scope.',
  check(ctx, report) {
    for (const { e, dep } of requestedDependencies(ctx)) {
      if (!ctx.mayBeRequested(dep.uri, dep.version, dep.scope)) {
        const other = ctx.requestedWithUri(dep.uri)
        report(
          `/extensions/${e.index}`,
          `${e.uri} ${e.version} requires ${String(dep.uri)} ${String(dep.version)} in ${String(dep.scope)} scope${other ? `; the request has ${other.version} in ${String(other.scope)} scope` : ''}. The full dependency set is requested, never added silently.`,
          { dependency: dep },
        )
      }
    }
  },
})

export const dependencyUnsupported = daspRule({
  code: 'DASP_DEPENDENCY_UNSUPPORTED',
  description: "A required dependency has no definition among the selection's definitions.",
  check(ctx, report) {
    // A definitions entry that gave nothing to read might be the dependency's definition.
    if (ctx.someDefinitionUnreadable) return
    for (const { d, dep } of requestedDependencies(ctx, true)) {
      if (!ctx.definitionOf(dep.uri, dep.version))
        report.in(d.file, '/dependencies', `Dependency ${dep.uri} ${dep.version} has no definition here: an unsupported dependency fails selection.`, {
          dependency: dep,
        })
    }
  },
})

export const dependencyCycle = daspRule({
  code: 'DASP_DEPENDENCY_CYCLE',
  description: 'The required dependencies of the selected extensions form a cycle.',
  check(ctx, report) {
    // Core's cycle finder (src/core/graph.ts): the strongly connected components of the dependency
    // graph, once, O(V + E); a requested extension is on a cycle when its component has more than
    // one member or it depends on itself. The cycle a diagnostic names is a shortest one through
    // the extension inside its component, found for the first MAX_DIAGNOSTICS_PER_CODE extensions
    // reported (the rest are counted, not shown).
    const graph: Digraph<string, string> = {
      edges: (key) => {
        const d = ctx.byIdentity.get(key)
        return d ? identifiedDepsOf(d).map((dep) => identityKey(dep.uri, dep.version)) : []
      },
      target: (key) => key,
    }
    const uri = (key: string) => ctx.byIdentity.get(key)?.uri ?? key.split('\u0000')[0]!
    const components = findCycles(
      ctx.requested.map((e) => identityKey(e.uri, e.version)),
      graph,
    )
    const reported = new Set<string>()
    for (const start of ctx.requested) {
      const root = identityKey(start.uri, start.version)
      if (reported.has(root) || !components.onCycle(root)) continue
      reported.add(root)
      const members = components.componentOf(root)!
      const path = reported.size <= MAX_DIAGNOSTICS_PER_CODE ? (shortestCycle(root, graph, (key) => members.has(key)) ?? [root, root]).map(uri) : undefined
      report(
        `/extensions/${start.index}`,
        path ? `Required dependencies cycle: ${path.join(' -> ')}.` : `${start.uri} ${start.version} is on a cycle of required dependencies.`,
      )
    }
  },
})
