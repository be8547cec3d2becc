import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../../../runtime/benzene/document.js'
import { benzeneRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): O(entries). */

export const emptyTransports = benzeneRule({
  code: 'BENZENE_EMPTY_TRANSPORTS',
  description: '`transports` is an empty array; the specification omits it when empty (Benzene Contract Document §1).',
  check({ doc }, report) {
    if (isObject(doc) && Array.isArray(doc.transports) && doc.transports.length === 0) {
      report('/transports', '`transports` is omitted when empty, never written as [] (Benzene Contract Document §1).')
    }
  },
})

export const emptyHttpMappings = benzeneRule({
  code: 'BENZENE_EMPTY_HTTP_MAPPINGS',
  description: '`httpMappings` is an empty array; the specification omits it when empty (Benzene Contract Document §2).',
  check({ doc }, report) {
    if (!isObject(doc) || !Array.isArray(doc.requests)) return
    doc.requests.forEach((entry, i) => {
      if (isObject(entry) && Array.isArray(entry.httpMappings) && entry.httpMappings.length === 0) {
        report(
          joinPointer('', 'requests', i, 'httpMappings'),
          '`httpMappings` is omitted when a topic has no HTTP exposure, never written as [] (Benzene Contract Document §2).',
        )
      }
    })
  },
})
