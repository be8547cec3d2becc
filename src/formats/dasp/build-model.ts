import { sortedCopy } from '../../core/emit.js'
import type { DaspContext } from './context.js'
import { isObject } from './load.js'
import type { DaspModel, DaspSources } from './model.js'
import type { ContractRef, FloorDependency } from '../../runtime/dasp/index.js'

/**
 * A definition's dependencies as the request lists them: each (URI, version, scope) once, at its
 * first place (a repeat is DASP_DEPENDENCY_DUPLICATE's warning, and copying it would make the
 * request, and the floor saved from it, state one requirement twice). A valid selection's
 * definitions name each dependency by string identity (the rules refuse anything else).
 */
function dependenciesOf(list: unknown): FloorDependency[] {
  const seen = new Set<string>()
  return (Array.isArray(list) ? (list as Array<Record<string, unknown>>) : []).flatMap((dep) => {
    const key = `${String(dep.uri)}\u0000${String(dep.version)}\u0000${String(dep.scope)}`
    if (seen.has(key)) return []
    seen.add(key)
    return [{ uri: dep.uri, version: dep.version, scope: dep.scope } as FloorDependency]
  })
}

/**
 * The exact request of a valid selection, in a deterministic order (extensions by URI, version,
 * scope; object members sorted; pins canonical), with each extension's content pin and required dependencies from
 * its definition; the session floor; and the selected attributes.
 */
export function buildDaspModel(ctx: DaspContext): DaspModel {
  const s = ctx.selection
  // A valid selection's contracts have string identities (the rules refuse anything else).
  const ref = (r: Record<string, unknown>): ContractRef => ({ uri: r.uri as string, version: r.version as string, content: canonicalPin(r.content) })
  const extensions = ctx.requested
    .map((e) => {
      const d = ctx.definitionOf(e.uri, e.version)!
      return {
        uri: e.uri,
        version: e.version,
        content: canonicalPin(d.value.content),
        scope: e.scope as string,
        settings: sortedCopy(e.settings) as Record<string, unknown>,
        dependencies: dependenciesOf(d.value.dependencies),
        definition: d,
      }
    })
    .sort((a, b) => (a.uri + '\0' + a.version + '\0' + a.scope < b.uri + '\0' + b.version + '\0' + b.scope ? -1 : 1))
  const request = {
    dasp: s.dasp,
    core: ref(s.core),
    profile: ref(s.profile),
    binding: ref(s.binding),
    extensions: extensions.map(({ definition: _definition, ...e }) => e),
  }
  const floor = {
    core: request.core,
    profile: request.profile,
    binding: request.binding,
    extensions: extensions.map((e) => {
      const specs = isObject(e.definition.value.settings) ? e.definition.value.settings : {}
      const persistent = Object.fromEntries(Object.entries(e.settings).filter(([name]) => isObject(specs[name]) && specs[name].persistence === 'session'))
      const operations = Array.isArray(e.definition.value.operations) ? [...(e.definition.value.operations as string[])] : []
      return { uri: e.uri, version: e.version, content: e.content, scope: e.scope, settings: persistent, dependencies: e.dependencies, operations }
    }),
  }
  const seen = new Set<string>()
  const attributes = extensions.flatMap((e) =>
    (Array.isArray(e.definition.value.attributes) ? e.definition.value.attributes : []).flatMap((a: Record<string, any>) => {
      if (seen.has(a.name)) return []
      seen.add(a.name)
      return [
        {
          name: a.name,
          type: a.type,
          on: [...a.on],
          ...(a.required === true ? { required: true } : {}),
          class: a.class,
          extension: { uri: e.uri, version: e.version },
        },
      ]
    }),
  )
  const model: DaspModel = { file: ctx.input.selection.file, request, floor, attributes }
  const sources: DaspSources = {
    selection: ctx.input.selection.source,
    definitions: ctx.input.definitions.map(({ index, loaded }) => ({ index, source: loaded.source })),
  }
  // Non-enumerable: the parsed documents are already held by the compile, so this costs a reference.
  Object.defineProperty(model, 'sources', { value: sources, enumerable: false })
  return model
}

/**
 * A content pin as the authenticated selection carries it: members sorted, and hex digests (a
 * manifest's `sha256`, a `commit`) in lower case. They match in either case when checked, so
 * `AB…` and `ab…` are one pin; the request, which peers compare exactly, must spell it one way.
 */
function canonicalPin(content: unknown): unknown {
  if (!isObject(content)) return sortedCopy(content)
  const lower = (v: unknown) => (typeof v === 'string' && /^[0-9a-fA-F]+$/.test(v) ? v.toLowerCase() : v)
  return sortedCopy({
    ...content,
    ...('sha256' in content ? { sha256: lower(content.sha256) } : {}),
    ...('commit' in content ? { commit: lower(content.commit) } : {}),
  })
}
