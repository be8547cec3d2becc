import canonicalize from 'canonicalize'
import { isAbsoluteUri } from '../../../runtime/dasp/uri.js'
import { identityKey, type Definition } from '../context.js'
import { isObject } from '../load.js'
import { daspRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over the selected contracts, the requested extensions and the definitions with their dependencies. */

/** The selected contracts, each a reference with an identity and a content pin. */
export const REF_KEYS = ['core', 'profile', 'binding'] as const

/**
 * An identity is an RFC 3986 `absolute-URI` (section 4.3), parsed by its grammar
 * (runtime/dasp/uri.ts, the one CloudEvents URI values are checked with): a scheme, an authority
 * or path of URI characters, `%` with two hex digits, no fragment. Raw non-ASCII, spaces, `%zz`,
 * `#` and a malformed IP literal are refused: peers compare identities exactly, so only one
 * spelling may exist. Linear.
 */
export const isIdentityUri = (value: unknown) => isAbsoluteUri(value) && value.length > value.indexOf(':') + 1

export const versionRule = daspRule({
  code: 'DASP_UNSUPPORTED_VERSION',
  description: 'The selection is for a DASP version other than draft-01.',
  check(ctx, report) {
    if (typeof ctx.selection.dasp === 'string' && ctx.selection.dasp !== 'draft-01')
      report('/dasp', `DASP ${JSON.stringify(ctx.selection.dasp)} is not supported; these contracts are draft-01.`)
  },
})

export const identityRule = daspRule({
  code: 'DASP_IDENTITY',
  description:
    'An identity that is not an absolute URI with a non-empty version (a selected contract, a requested extension, a definition, or a dependency a definition names).',
  check(ctx, report) {
    const checkId = (uri: unknown, version: unknown, pointer: string, file = ctx.input.selection) => {
      if (!isIdentityUri(uri) || typeof version !== 'string' || version === '')
        report.in(
          file,
          pointer,
          `An identity is an absolute URI (RFC 3986: a scheme, only URI characters, valid %-escapes, no fragment) and a non-empty version string${typeof uri === 'string' ? `; ${JSON.stringify(uri)} is not` : ''}.`,
        )
    }
    for (const key of REF_KEYS) if (isObject(ctx.selection[key])) checkId(ctx.selection[key].uri, ctx.selection[key].version, `/${key}`)
    for (const e of ctx.requested) checkId(e.uri, e.version, `/extensions/${e.index}`)
    for (const d of ctx.definitions) {
      checkId(d.uri, d.version, '/identity', d.file)
      // A dependency names an extension by the same identity (DASP-EXT-002); a member of another type is the shape's error.
      if (!Array.isArray(d.value.dependencies)) continue
      d.value.dependencies.forEach((dep: unknown, i: number) => {
        if (isObject(dep) && typeof dep.uri === 'string' && typeof dep.version === 'string') checkId(dep.uri, dep.version, `/dependencies/${i}`, d.file)
      })
    }
  },
})

/**
 * DASP-EXT-008: "Published version content MUST be immutable": two definitions of one identity and
 * version must be the same definition. Compared as canonical JSON (RFC 8785), so key order and
 * number spelling do not count; the first listed is the one used, and the later one is reported.
 * Complexity: O(total size of the definitions): one canonical text each, one map lookup.
 */
export const immutableVersion = daspRule({
  code: 'DASP_VERSION_CONFLICT',
  description: 'Two definitions of one identity and version whose content differs (DASP-EXT-008: published version content is immutable).',
  check(ctx, report) {
    const first = new Map<string, { definition: Definition; text: string | undefined }>()
    for (const d of ctx.definitions) {
      const key = identityKey(d.uri, d.version)
      const text = canonicalize(d.raw)
      const seen = first.get(key)
      if (seen === undefined) first.set(key, { definition: d, text })
      else if (seen.text !== text)
        report.in(
          d.file,
          '/identity',
          `${d.uri} ${d.version} is also defined, differently, in ${seen.definition.file.file}; a published version's content never changes (a change is a new version).`,
          { uri: d.uri, version: d.version, first: seen.definition.file.file },
        )
    }
  },
})
