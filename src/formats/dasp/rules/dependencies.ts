import { MAX_DIAGNOSTICS_PER_CODE } from '../../../core/diagnostics.js'
import { identityKey, type DaspContext, type Definition } from '../context.js'
import { isObject } from '../load.js'
import { daspRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over the requested extensions' dependencies, each a map lookup; the cycle check is one strongly-connected-components pass, O(definitions + dependencies). */

/** A definition's complete dependencies: one the shape found malformed (DASP_DEFINITION_SHAPE) decides nothing here. */
const depsOf = (d: Definition): Array<{ uri: string; version: string; scope: string }> =>
  Array.isArray(d.value.dependencies)
    ? d.value.dependencies.filter(
        (dep: unknown) => isObject(dep) && typeof dep.uri === 'string' && typeof dep.version === 'string' && typeof dep.scope === 'string',
      )
    : []

/** Each dependency a requested extension's definition declares, with the extension and definition. */
function* requestedDependencies(ctx: DaspContext) {
  for (const e of ctx.requested) {
    const d = ctx.definitionOf(e.uri, e.version)
    if (d) for (const dep of depsOf(d)) yield { e, d, dep }
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
    for (const { d, dep } of requestedDependencies(ctx)) {
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
    // Strongly connected components of the dependency graph (Tarjan's algorithm, iterative):
    // a requested extension is on a cycle when its component has more than one member or a
    // dependency on itself. O(V + E) once, where a search from every requested extension,
    // copying its path at every step, was quadratic and worse. The cycle a diagnostic names
    // is found by one breadth-first search inside the component, for the first
    // MAX_DIAGNOSTICS_PER_CODE extensions reported (the rest are counted, not shown).
    const edges = (key: string): string[] => {
      const d = ctx.byIdentity.get(key)
      return d ? depsOf(d).map((dep) => identityKey(dep.uri, dep.version)) : []
    }
    const component = stronglyConnected(
      ctx.requested.map((e) => identityKey(e.uri, e.version)),
      edges,
    )
    const reported = new Set<string>()
    for (const start of ctx.requested) {
      const root = identityKey(start.uri, start.version)
      const members = component.get(root)
      if (!members || reported.has(root) || !(members.size > 1 || edges(root).includes(root))) continue
      reported.add(root)
      const path = reported.size <= MAX_DIAGNOSTICS_PER_CODE ? cyclePath(root, members, edges, ctx) : undefined
      report(
        `/extensions/${start.index}`,
        path ? `Required dependencies cycle: ${path.join(' -> ')}.` : `${start.uri} ${start.version} is on a cycle of required dependencies.`,
      )
    }
  },
})

/**
 * Tarjan's strongly connected components over the graph reachable from `roots`, iteratively
 * (no recursion: a chain of thousands of definitions is fine). Each node maps to its component.
 */
function stronglyConnected(roots: readonly string[], edges: (node: string) => string[]): Map<string, Set<string>> {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const onStack = new Set<string>()
  const stack: string[] = []
  const component = new Map<string, Set<string>>()
  for (const root of roots) {
    if (index.has(root)) continue
    const work: Array<{ node: string; next: string[]; at: number }> = []
    const open = (node: string) => {
      index.set(node, index.size)
      low.set(node, index.get(node)!)
      stack.push(node)
      onStack.add(node)
      work.push({ node, next: edges(node), at: 0 })
    }
    open(root)
    while (work.length > 0) {
      const frame = work[work.length - 1]!
      if (frame.at < frame.next.length) {
        const to = frame.next[frame.at++]!
        if (!index.has(to)) open(to)
        else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!))
        continue
      }
      work.pop()
      const parent = work[work.length - 1]
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!))
      if (low.get(frame.node) === index.get(frame.node)) {
        const members = new Set<string>()
        for (let member = stack.pop()!; ; member = stack.pop()!) {
          onStack.delete(member)
          members.add(member)
          component.set(member, members)
          if (member === frame.node) break
        }
      }
    }
  }
  return component
}

/** A shortest cycle from `root` back to itself inside its component, as the URIs along it. */
function cyclePath(root: string, members: ReadonlySet<string>, edges: (node: string) => string[], ctx: DaspContext): string[] {
  const uri = (key: string) => ctx.byIdentity.get(key)?.uri ?? key.split('\u0000')[0]!
  const parent = new Map<string, string>()
  const queue = [root]
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!
    for (const to of edges(node)) {
      if (to === root) {
        const path = [uri(root)]
        for (let at = node; at !== root; at = parent.get(at)!) path.splice(1, 0, uri(at))
        return [...path, uri(root)]
      }
      if (members.has(to) && !parent.has(to)) {
        parent.set(to, node)
        queue.push(to)
      }
    }
  }
  return [uri(root), uri(root)]
}
