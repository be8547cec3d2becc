import { MAX_DIAGNOSTICS_PER_CODE } from '../../../core/diagnostics.js'
import { findCycles, shortestCycle, type Digraph } from '../../../core/graph.js'
import { identityKey, type DaspContext, type Definition, type RequestedExtension } from '../context.js'
import { isObject } from '../load.js'
import { daspRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over the requested extensions' dependencies, each a map lookup; the cycle check is one pass of core's cycle finder, O(definitions + dependencies), and one breadth-first search per cycle named. */

/**
 * A definition's dependencies whose identity can be read, whatever their scope: whether one has a
 * definition, or closes a cycle, depends on its URI and version alone, so a malformed scope (the
 * shape's error) hides neither verdict.
 */
const identifiedDepsOf = (d: Definition): Array<{ uri: string; version: string; scope?: unknown; index: number }> =>
  Array.isArray(d.value.dependencies)
    ? d.value.dependencies.flatMap((dep: unknown, index: number) =>
        isObject(dep) && typeof dep.uri === 'string' && typeof dep.version === 'string'
          ? [{ uri: dep.uri, version: dep.version, scope: dep.scope, index }]
          : [],
      )
    : []

/** A definition's complete dependencies, their scope too: one the shape found malformed (DASP_DEFINITION_SHAPE) decides nothing here. */
const depsOf = (d: Definition): Array<{ uri: string; version: string; scope: string; index: number }> =>
  identifiedDepsOf(d).filter((dep): dep is { uri: string; version: string; scope: string; index: number } => typeof dep.scope === 'string')

/** Each complete dependency a requested extension's definition declares, with the extension and definition. */
function* requestedDependencies(ctx: DaspContext): Generator<{ e: RequestedExtension; d: Definition; dep: ReturnType<typeof depsOf>[number] }> {
  for (const e of ctx.requested) {
    const d = ctx.definitionOf(e.uri, e.version)
    if (d) for (const dep of depsOf(d)) yield { e, d, dep }
  }
}

/**
 * The request "MUST contain the full required dependency set" (DASP-EXT-002): what each requested
 * extension requires, and what those require in turn. A dependency the request lacks is reported at
 * the requested extension that needs it; one it lacks further down (a definition here that is not
 * requested requires it) at the first requested extension whose chain reaches it, with the chain,
 * so that one run names the whole set to add rather than one level per run. Each definition not
 * requested is walked once: O(definitions + dependencies).
 */
export const dependencyMissing = daspRule({
  code: 'DASP_DEPENDENCY_MISSING',
  description: 'The request lacks a required dependency at its exact version and scope, or one a required dependency requires in turn.',
  check(ctx, report) {
    /** How a definition not requested was reached: the first link of the chain, the last, and its length (no chain copied per link). */
    interface Reached {
      label: string
      first: string
      depth: number
    }
    /** Each URI's versions the needed definitions require, with one definition requiring each: a request holds one version of a URI. */
    const versionsOf = new Map<string, Map<string, string>>()
    const required = (by: Definition, dep: { uri: string; version: string }) => {
      let versions = versionsOf.get(dep.uri)
      if (!versions) versionsOf.set(dep.uri, (versions = new Map()))
      if (!versions.has(dep.version)) versions.set(dep.version, `${by.uri} ${by.version}`)
    }
    /** When the needed definitions require another version of the same URI too: both cannot be requested (DASP_DUPLICATE_URI). */
    const conflict = (dep: { uri: string; version: string }) => {
      const other = [...(versionsOf.get(dep.uri) ?? [])].find(([version]) => version !== dep.version)
      return other
        ? ` ${other[1]} requires ${dep.uri} ${other[0]}: a request holds one version of a URI (DASP-EXT-002), so the two requirements cannot both be met.`
        : ''
    }
    const pending: Array<() => void> = []
    const missing = (e: RequestedExtension, dep: { uri: string; version: string; scope: string }, via?: Reached) =>
      // Reported once every requirement is known, so that a conflict with one found later is named.
      pending.push(() => report(...diagnostic(e, dep, via)))
    const diagnostic = (e: RequestedExtension, dep: { uri: string; version: string; scope: string }, via?: Reached) => {
      const other = ctx.requestedWithUri(dep.uri)
      const links = via
        ? `${via.first}, which requires ${via.depth > 2 ? `(through ${via.depth - 2} more) ` : ''}${via.depth > 1 ? `${via.label}, which requires ` : ''}`
        : ''
      return [
        `/extensions/${e.index}`,
        `${e.uri} ${e.version} requires ${links}${String(dep.uri)} ${String(dep.version)} in ${String(dep.scope)} scope${other ? `; the request has ${other.version} in ${String(other.scope)} scope` : ''}. The full dependency set is requested, never added silently.${conflict(dep)}`,
        {
          dependency: { uri: dep.uri, version: dep.version, scope: dep.scope },
          ...(via ? { through: { first: via.first, last: via.label, links: via.depth } } : {}),
        },
      ] as const
    }
    // Definitions not requested that a requested extension needs: walked once each, from the first requested extension reaching them.
    const walked = new Set<string>()
    const queue: Array<{ root: RequestedExtension; definition: Definition; via: Reached }> = []
    const walk = (root: RequestedExtension, dep: { uri: string; version: string }, previous?: Reached) => {
      const key = identityKey(dep.uri, dep.version)
      const definition = ctx.byIdentity.get(key)
      if (!definition || walked.has(key)) return
      walked.add(key)
      const label = `${dep.uri} ${dep.version}`
      queue.push({ root, definition, via: { label, first: previous?.first ?? label, depth: (previous?.depth ?? 0) + 1 } })
    }
    const reported = new Set<string>()
    const keyOf = (dep: { uri: string; version: string; scope: string }) => identityKey(dep.uri, dep.version) + '\u0000' + dep.scope
    for (const { e, d, dep } of requestedDependencies(ctx)) {
      required(d, dep)
      if (ctx.mayBeRequested(dep.uri, dep.version, dep.scope)) continue
      missing(e, dep)
      reported.add(keyOf(dep))
      walk(e, dep)
    }
    for (let next = 0; next < queue.length; next++) {
      const { root, definition, via } = queue[next]!
      for (const dep of depsOf(definition)) {
        required(definition, dep)
        if (ctx.mayBeRequested(dep.uri, dep.version, dep.scope)) continue
        const key = keyOf(dep)
        // Reported directly (a requested extension requires it) or already through another chain: once.
        if (reported.has(key)) continue
        reported.add(key)
        missing(root, dep, via)
        walk(root, dep, via)
      }
    }
    for (const emit of pending) emit()
  },
})

export const dependencyUnsupported = daspRule({
  code: 'DASP_DEPENDENCY_UNSUPPORTED',
  description: "A required dependency has no definition among the selection's definitions.",
  check(ctx, report) {
    // A definitions entry that gave nothing to read might be the dependency's definition.
    if (ctx.someDefinitionUnreadable) return
    // The requested extensions' definitions and every definition they need in turn, each read once:
    // a dependency a needed definition names and nothing defines is as unsupported as a direct one.
    const needed: Definition[] = []
    const seen = new Set<string>()
    const need = (d: Definition | undefined) => {
      if (!d || seen.has(identityKey(d.uri, d.version))) return
      seen.add(identityKey(d.uri, d.version))
      needed.push(d)
    }
    for (const e of ctx.requested) need(ctx.definitionOf(e.uri, e.version))
    for (let next = 0; next < needed.length; next++) {
      const d = needed[next]!
      for (const dep of identifiedDepsOf(d)) {
        const defined = ctx.definitionOf(dep.uri, dep.version)
        if (defined) {
          need(defined)
          continue
        }
        // The entry itself, and the closest definition when it is a near miss, as for a requested extension.
        const near = ctx.closestDefinition(dep.uri, dep.version)
        report.in(
          d.file,
          `/dependencies/${dep.index}`,
          `Dependency ${dep.uri} ${dep.version} has no definition here${near ? `; did you mean ${near.uri} ${near.version}? Identities are compared exactly` : ''}: an unsupported dependency fails selection.`,
          { dependency: { uri: dep.uri, version: dep.version, scope: dep.scope }, ...(near ? { closest: { uri: near.uri, version: near.version } } : {}) },
        )
      }
    }
  },
})

/**
 * A definition that lists one dependency (URI, version and scope) twice: the list states each
 * requirement once (DASP-EXT-002 asks for the full set with exact identities, and says nothing of a
 * repeat), so a repeat is a warning at the later entry, and the request lists the dependency once
 * (the model keeps the first). The same URI at another version or in another scope is no repeat:
 * DASP_DEPENDENCY_MISSING refuses it, as the request cannot hold both. One pass over each
 * definition's list, a set lookup per entry.
 */
export const dependencyDuplicate = daspRule({
  code: 'DASP_DEPENDENCY_DUPLICATE',
  severity: 'warning',
  description: 'A definition lists the same dependency (URI, version and scope) twice; the request lists it once.',
  check(ctx, report) {
    for (const d of ctx.definitions) {
      const first = new Map<string, number>()
      for (const dep of depsOf(d)) {
        const key = identityKey(dep.uri, dep.version) + '\u0000' + dep.scope
        const earlier = first.get(key)
        if (earlier === undefined) first.set(key, dep.index)
        else
          report.in(
            d.file,
            `/dependencies/${dep.index}`,
            `Dependency ${dep.uri} ${dep.version} in ${dep.scope} scope repeats /dependencies/${earlier}; the request lists it once.`,
            { dependency: { uri: dep.uri, version: dep.version, scope: dep.scope }, first: earlier },
          )
      }
    }
  },
})

/** The most links a cycle's message shows: a longer one shows its first and last links and how many are left out (a ring of 4,000 made 175 KB a message). */
export const CYCLE_LINKS_SHOWN = 32

/** A cycle's path (its first member again at the end) as text, at most CYCLE_LINKS_SHOWN links. */
function shownCycle(path: readonly string[]): string {
  if (path.length <= CYCLE_LINKS_SHOWN + 1) return path.join(' -> ')
  const half = CYCLE_LINKS_SHOWN / 2
  return [...path.slice(0, half), `(${path.length - CYCLE_LINKS_SHOWN} more)`, ...path.slice(path.length - half)].join(' -> ')
}

export const dependencyCycle = daspRule({
  code: 'DASP_DEPENDENCY_CYCLE',
  description: 'The required dependencies of the selected extensions, or of the dependencies they need, form a cycle (one diagnostic a cycle).',
  check(ctx, report) {
    // Core's cycle finder (src/core/graph.ts): the strongly connected components of the dependency
    // graph, once, O(V + E); a requested extension is on a cycle when its component has more than
    // one member or it depends on itself. Each component is reported once; the cycle a diagnostic
    // names is a shortest one through its first requested member inside the component, found for
    // the first MAX_DIAGNOSTICS_PER_CODE components (the rest are counted, not shown), its text at
    // most CYCLE_LINKS_SHOWN links.
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
    // One diagnostic a cycle, at its first requested member (in the request's order): a ring of n
    // requested extensions is one cycle, not n rotations of it.
    const reported = new Set<string>()
    // The path is found (a breadth-first search inside the component) only for the cycles a diagnostic shows.
    const cycleText = (key: string, members: ReadonlySet<string>) =>
      componentsNamed.size <= MAX_DIAGNOSTICS_PER_CODE ? shownCycle((shortestCycle(key, graph, (k) => members.has(k)) ?? [key, key]).map(uri)) : undefined
    const componentsNamed = new Set<ReadonlySet<string>>()
    for (const start of ctx.requested) {
      const root = identityKey(start.uri, start.version)
      if (reported.has(root) || !components.onCycle(root)) continue
      reported.add(root)
      const members = components.componentOf(root)!
      if (componentsNamed.has(members)) continue
      componentsNamed.add(members)
      const path = cycleText(root, members)
      report(
        `/extensions/${start.index}`,
        path ? `Required dependencies cycle: ${path}.` : `${start.uri} ${start.version} is on a cycle of required dependencies.`,
        { members: members.size },
      )
    }
    // A cycle further down, among definitions not requested that a requested extension needs (a -> b -> c -> b
    // with only a requested): named at the first requested extension reaching it, once per cycle, so that
    // requesting the missing dependencies is not followed by a cycle the first run could have named.
    const requestedKeys = new Set(ctx.requested.map((e) => identityKey(e.uri, e.version)))
    const seen = new Set<string>(requestedKeys)
    // A component holding a requested extension was named above.
    const named = componentsNamed
    const queue = ctx.requested.flatMap((e) => graph.edges(identityKey(e.uri, e.version)).map((key) => ({ key, root: e })))
    for (let next = 0; next < queue.length; next++) {
      const { key, root } = queue[next]!
      if (seen.has(key)) continue
      seen.add(key)
      if (components.onCycle(key)) {
        const members = components.componentOf(key)!
        if (!named.has(members)) {
          named.add(members)
          const path = cycleText(key, members)
          report(`/extensions/${root.index}`, `${root.uri} ${root.version} needs ${uri(key)}, whose required dependencies cycle${path ? `: ${path}` : ''}.`, {
            members: members.size,
          })
        }
      }
      for (const further of graph.edges(key)) if (!seen.has(further)) queue.push({ key: further, root })
    }
  },
})
