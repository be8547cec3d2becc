import { AUTHORITY_ATTRIBUTE, ENCRYPTED_CARRIER, isCommandType } from '../../../runtime/dasp/index.js'
import { isObject } from '../load.js'
import { daspRule } from './rule.js'

export const ENCRYPTED_DELIVERY = 'https://dasp-protocol.github.io/dasp/contracts/encrypted-delivery'
export const PROOF_OF_AUTHORITY = 'https://dasp-protocol.github.io/dasp/contracts/proof-of-authority'

/**
 * DASP-EXT-007: `dasp.encrypted` is an outer binding carrier, not a CloudEvents extension
 * attribute, and "its closed outer shape and protected header remain unchanged": no extension
 * places an attribute on it (an attribute travels on the inner core event). Any definition, any
 * attribute. O(attributes x event types).
 */
export const carrierAttribute = daspRule({
  code: 'DASP_CARRIER_ATTRIBUTE',
  description:
    'An attribute placed on the dasp.encrypted outer carrier, whose closed outer shape takes no attribute (DASP-EXT-007); it goes on the inner core event.',
  check(ctx, report) {
    for (const d of ctx.definitions) {
      ;(Array.isArray(d.value.attributes) ? d.value.attributes : []).forEach((a: unknown, i: number) => {
        if (!isObject(a) || !Array.isArray(a.on)) return
        a.on.forEach((type: unknown, j: number) => {
          if (type === ENCRYPTED_CARRIER)
            report.in(
              d.file,
              `/attributes/${i}/on/${j}`,
              `${typeof a.name === 'string' ? a.name : 'This attribute'} is placed on the ${ENCRYPTED_CARRIER} outer carrier, whose closed outer shape takes no attribute (DASP-EXT-007); place it on the inner core event.`,
            )
        })
      })
    }
  },
})

/**
 * DASP-EXT-007's two draft identities, as its table and text fix them: encrypted delivery has no
 * authority extension dependency, proof of authority no encrypted-delivery dependency (host policy
 * can require both); `daspauthority` is proof of authority's String attribute, on commands only
 * (the carrier is DASP_CARRIER_ATTRIBUTE's), outside semantic retry equality (so delivery
 * metadata, never a saved attribute, which duplicate comparison includes: DASP-EXT-006); and the
 * authority selection's closed object "does not acquire a version field" (no `version` setting).
 * O(dependencies + attributes + settings).
 */
export const draftIdentities = daspRule({
  code: 'DASP_DRAFT_IDENTITY',
  description:
    'A definition of a DASP-EXT-007 draft identity against its table: encrypted delivery depending on proof of authority or the reverse, daspauthority other than a delivery-class String attribute of proof of authority on commands only, or a version setting in the authority selection.',
  check(ctx, report) {
    const forbidden: Record<string, string> = { [ENCRYPTED_DELIVERY]: PROOF_OF_AUTHORITY, [PROOF_OF_AUTHORITY]: ENCRYPTED_DELIVERY }
    for (const d of ctx.definitions) {
      const other = d.version === 'draft-01' && Object.hasOwn(forbidden, d.uri) ? forbidden[d.uri] : undefined
      ;(Array.isArray(d.value.dependencies) ? d.value.dependencies : []).forEach((dep: unknown, i: number) => {
        if (other !== undefined && isObject(dep) && dep.uri === other)
          report.in(
            d.file,
            `/dependencies/${i}`,
            `${d.uri} draft-01 has no ${other === PROOF_OF_AUTHORITY ? 'authority' : 'encrypted-delivery'} dependency (DASP-EXT-007); host policy can require both instead.`,
          )
      })
      if (d.uri === PROOF_OF_AUTHORITY && d.version === 'draft-01' && isObject(d.value.settings) && Object.hasOwn(d.value.settings, 'version'))
        report.in(
          d.file,
          '/settings/version',
          'The authority selection contract keeps its existing closed object, which does not acquire a version field (DASP-EXT-007).',
        )
      ;(Array.isArray(d.value.attributes) ? d.value.attributes : []).forEach((a: unknown, i: number) => {
        if (!isObject(a) || a.name !== AUTHORITY_ATTRIBUTE) return
        if (d.uri !== PROOF_OF_AUTHORITY)
          report.in(d.file, `/attributes/${i}/name`, 'daspauthority is the attribute of proof of authority (DASP-EXT-007); another extension cannot define it.')
        if (typeof a.type === 'string' && a.type !== 'String')
          report.in(d.file, `/attributes/${i}/type`, `daspauthority is a String attribute (DASP-EXT-007), not ${JSON.stringify(a.type)}.`)
        if (a.class === 'saved')
          report.in(
            d.file,
            `/attributes/${i}/class`,
            'daspauthority stays outside semantic retry equality (DASP-EXT-007), so it is delivery metadata: a saved attribute is part of duplicate comparison (DASP-EXT-006).',
          )
        const on: unknown[] = Array.isArray(a.on) ? a.on : []
        on.forEach((type, j) => {
          if (typeof type !== 'string' || type === ENCRYPTED_CARRIER || isCommandType(type)) return
          report.in(d.file, `/attributes/${i}/on/${j}`, `daspauthority goes on commands only (DASP-EXT-007), not on ${JSON.stringify(type)}.`)
        })
      })
    }
  },
})
