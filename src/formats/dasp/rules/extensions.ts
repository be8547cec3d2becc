import canonicalize from 'canonicalize'
import { isObject } from '../load.js'
import { daspRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over the requested extensions, identities and near misses looked up in maps. */

export const unknownExtension = daspRule({
  code: 'DASP_UNKNOWN_EXTENSION',
  description: 'A requested extension has no definition with exactly that URI and version (a near miss names the closest definition).',
  check(ctx, report) {
    // A definitions entry that gave nothing to read might be the one asked for: no verdict.
    if (ctx.someDefinitionUnreadable) return
    for (const e of ctx.requested) {
      if (ctx.definitionOf(e.uri, e.version)) continue
      const near = ctx.closestDefinition(e.uri, e.version)
      report(
        `/extensions/${e.index}`,
        `No definition is exactly ${e.uri} ${e.version}${near ? `; did you mean ${near.uri} ${near.version}? Identities are compared exactly` : ''}.`,
        near ? { closest: { uri: near.uri, version: near.version } } : undefined,
      )
    }
  },
})

const sameRef = (a: unknown, b: unknown) =>
  isObject(a) && isObject(b) && a.uri === b.uri && a.version === b.version && canonicalize(a.content) === canonicalize(b.content)

export const supportRule = daspRule({
  code: 'DASP_UNSUPPORTED_CONTRACT',
  description: "A requested extension's definition does not support the selected core, profile or binding exactly (URI, version and content pin).",
  check(ctx, report) {
    for (const e of ctx.requested) {
      const d = ctx.definitionOf(e.uri, e.version)
      const supports = d && isObject(d.value.supports) ? d.value.supports : undefined
      if (!supports) continue
      for (const [key, list] of [
        ['core', 'core'],
        ['profile', 'profiles'],
        ['binding', 'bindings'],
      ] as const) {
        const candidates = supports[list]
        if (key === 'profile' && candidates === 'any') continue
        // A list that is missing (DASP_DEFINITION_INCOMPLETE) or malformed, or a selected contract
        // that is (DASP_SHAPE), cannot be compared; that rule says so.
        if (!Array.isArray(candidates) || !isObject(ctx.selection[key])) continue
        if (ctx.unreadableWithin(d!.file, `/supports/${list}`) || ctx.unreadableWithin(ctx.input.selection, `/${key}`)) continue
        if (!candidates.some((ref: unknown) => sameRef(ref, ctx.selection[key]))) {
          report(
            `/extensions/${e.index}`,
            `${e.uri} ${e.version} does not support the selected ${key} ${ctx.selection[key]?.uri} ${ctx.selection[key]?.version} with that content pin.`,
            { contract: key },
          )
        }
      }
    }
  },
})

export const duplicateUri = daspRule({
  code: 'DASP_DUPLICATE_URI',
  description: 'Two versions of one extension URI in one request.',
  check(ctx, report) {
    const first = new Map<string, { version: string; index: number }>()
    for (const e of ctx.requested) {
      const seen = first.get(e.uri)
      if (seen && seen.version !== e.version)
        report(
          `/extensions/${e.index}/version`,
          `${e.uri} is requested at ${seen.version} (extensions/${seen.index}) and at ${e.version}; peers select one exact version.`,
        )
      else if (!seen) first.set(e.uri, { version: e.version, index: e.index })
    }
  },
})
