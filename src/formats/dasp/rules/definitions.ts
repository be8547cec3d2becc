import { escapeToken } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../load.js'
import { daspRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over each definition's parts, records, settings and supports; whether a part was malformed is a set lookup per level of its pointer (context.ts). */

/** What a setting's `persistence` may state: it stays a session requirement, or is fresh per connection. */
const PERSISTENCE: readonly unknown[] = ['session', 'connection']

const REQUIRED_PARTS = [
  'identity',
  'status',
  'content',
  'supports',
  'dependencies',
  'scopes',
  'operations',
  'settings',
  'attributes',
  'processing',
  'records',
  'examples',
  'evidenceLimits',
]
const RECORD_PARTS = ['saved', 'retry', 'replay', 'reconnect', 'upgrade']

export const definitionComplete = daspRule({
  code: 'DASP_DEFINITION_INCOMPLETE',
  description:
    "A definition lacks a part DASP-EXT-002 requires (dependencies: [] states none; scopeRelations when there are several scopes; the five record rules; each setting's persistence, session or connection).",
  check(ctx, report) {
    for (const d of ctx.definitions) {
      // A part that is there but malformed is the shape's problem, not a missing part.
      const stated = (pointer: string, present: boolean) => present || ctx.unreadable(d.file, pointer)
      for (const part of REQUIRED_PARTS)
        if (!stated(`/${part}`, part in d.value))
          report.in(
            d.file,
            '',
            `The definition of ${d.uri} ${d.version} lacks ${part}${part === 'dependencies' ? ' (write [] to state that there are none)' : ''}.`,
            { part },
          )
      if (Array.isArray(d.value.scopes) && d.value.scopes.length > 1 && !stated('/scopeRelations', typeof d.value.scopeRelations === 'string'))
        report.in(d.file, '/scopes', 'A definition with several scopes defines their relationship (scopeRelations).', { part: 'scopeRelations' })
      if (isObject(d.value.records))
        for (const part of RECORD_PARTS)
          if (!stated(`/records/${part}`, part in d.value.records))
            report.in(d.file, '/records', `The definition's records lack the ${part} rule.`, { part: `records.${part}` })
      // "It MUST state which settings remain session requirements and which are fresh connection
      // settings": a setting without it would silently drop out of the session floor.
      if (isObject(d.value.settings))
        for (const [name, spec] of Object.entries(d.value.settings))
          if (isObject(spec) && !stated(`/settings/${escapeToken(name)}/persistence`, PERSISTENCE.includes(spec.persistence as string)))
            report.in(
              d.file,
              `/settings/${escapeToken(name)}${'persistence' in spec ? '/persistence' : ''}`,
              `Setting ${name} states whether it is a session requirement or a fresh connection setting: persistence "session" or "connection".`,
              { part: `settings.${name}.persistence` },
            )
      if (isObject(d.value.supports))
        for (const key of ['core', 'profiles', 'bindings'])
          if (!stated(`/supports/${key}`, key in d.value.supports)) report.in(d.file, '/supports', `supports lacks ${key}.`, { part: `supports.${key}` })
    }
  },
})
