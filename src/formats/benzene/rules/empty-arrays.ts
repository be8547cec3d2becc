import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../../../runtime/benzene/document.js'
import { benzeneRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): O(entries). */

/**
 * Benzene Contract Document §1 and §2: `transports` and `httpMappings` are "omitted when empty
 * (never an empty array)", a rule for producers with no MUST, and `[]` means what its absence means
 * (no transport, no HTTP exposure): a warning, the document is read as if the member were absent.
 */
export const emptyTransports = benzeneRule({
  code: 'BENZENE_EMPTY_TRANSPORTS',
  severity: 'warning',
  description: '`transports` is an empty array; the specification omits it when empty (Benzene Contract Document §1); read as absent.',
  check({ doc }, report) {
    if (isObject(doc) && Array.isArray(doc.transports) && doc.transports.length === 0) {
      report('/transports', '`transports` is omitted when empty, never written as [] (Benzene Contract Document §1); read as absent.')
    }
  },
})

export const emptyHttpMappings = benzeneRule({
  code: 'BENZENE_EMPTY_HTTP_MAPPINGS',
  severity: 'warning',
  description:
    '`httpMappings` is an empty array; the specification omits it when empty (Benzene Contract Document §2); read as absent, though the contract hash covers it as written.',
  check({ doc }, report) {
    if (!isObject(doc) || !Array.isArray(doc.requests)) return
    doc.requests.forEach((entry, i) => {
      if (isObject(entry) && Array.isArray(entry.httpMappings) && entry.httpMappings.length === 0) {
        report(
          joinPointer('', 'requests', i, 'httpMappings'),
          '`httpMappings` is omitted when a topic has no HTTP exposure, never written as [] (Benzene Contract Document §2): read as no HTTP exposure, though the contract hash covers it as written (§6), so it differs from the same document without it.',
        )
      }
    })
  },
})
