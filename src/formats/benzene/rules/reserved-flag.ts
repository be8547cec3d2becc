import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../../../runtime/benzene/document.js'
import type { BenzeneRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): O(entries). */

export const reservedFlag: BenzeneRule = {
  code: 'BENZENE_RESERVED_NOT_TRUE',
  description: '`reserved` is written as `false`; the specification writes it only when true (Benzene Contract Document §2).',
  check({ doc, report }) {
    if (!isObject(doc) || !Array.isArray(doc.requests)) return
    doc.requests.forEach((entry, i) => {
      if (isObject(entry) && entry.reserved === false) {
        report(joinPointer('', 'requests', i, 'reserved'), '`reserved` is written only when true; omit it for a domain topic (Benzene Contract Document §2).')
      }
    })
  },
}
