import { pinText } from '../../../runtime/dasp/pins.js'
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

export const supportRule = daspRule({
  code: 'DASP_UNSUPPORTED_CONTRACT',
  description: "A requested extension's definition does not support the selected core, profile or binding exactly (URI, version and content pin).",
  check(ctx, report) {
    const selection = ctx.input.selection
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
        // A list that is missing (DASP_DEFINITION_INCOMPLETE) or malformed as a whole, or a selected
        // contract that is (DASP_SHAPE), cannot be compared; that rule says so.
        const selected = ctx.selection[key]
        if (!Array.isArray(candidates) || !isObject(selected) || ctx.unreadable(d!.file, `/supports/${list}`) || ctx.unreadable(selection, `/${key}`)) continue
        // Unsupported only when every listed contract provably differs from the selected one in its
        // URI, version or content pin: a listed entry malformed there might be the one selected,
        // while an unknown or malformed member beside those (a shape error of its own) hides nothing.
        // A content pin is read as every comparison reads it (pinText): hex digits in either case
        // name the same bytes, which the differ and the runtime already took as one pin.
        const differs = (ref: unknown, i: number) =>
          (['uri', 'version', 'content'] as const).some((member) => {
            const listed = isObject(ref) ? ref[member] : undefined
            const written = ctx.differs(
              { file: d!.file, pointer: `/supports/${list}/${i}/${member}`, value: listed },
              { file: selection, pointer: `/${key}/${member}`, value: selected[member] },
            )
            return written && (member !== 'content' || pinText(listed) !== pinText(selected[member]))
          })
        if (candidates.every((ref: unknown, i: number) => !ctx.unreadable(d!.file, `/supports/${list}/${i}`) && differs(ref, i))) {
          report(
            `/extensions/${e.index}`,
            `${e.uri} ${e.version} does not support the selected ${key} ${String(selected.uri)} ${String(selected.version)} with that content pin.`,
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
