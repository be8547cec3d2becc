import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../../../runtime/benzene/document.js'
import { benzeneRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): O(entries). */

/**
 * Benzene Contract Document §2: `reserved` is "written only when true ... Never written as false —
 * its absence also means not-reserved": a producer's rule with no MUST, and `false` means what its
 * absence means. A warning; the entry is a domain topic.
 */
export const reservedFlag = benzeneRule({
  code: 'BENZENE_RESERVED_NOT_TRUE',
  severity: 'warning',
  description: '`reserved` is written as `false`; the specification writes it only when true (Benzene Contract Document §2); read as absent.',
  check({ doc }, report) {
    if (!isObject(doc) || !Array.isArray(doc.requests)) return
    doc.requests.forEach((entry, i) => {
      if (isObject(entry) && entry.reserved === false) {
        report(
          joinPointer('', 'requests', i, 'reserved'),
          '`reserved` is written only when true; omit it for a domain topic (Benzene Contract Document §2). Read as absent: a domain topic.',
        )
      }
    })
  },
})

/**
 * Benzene Contract Document §3: an event entry has no `reserved` field; a reserved event topic is
 * known by its `benzene:` prefix alone. A flag written there anyway is ignored (the entry is not
 * left out of the default output because of it), and said so.
 */
export const eventReservedFlag = benzeneRule({
  code: 'BENZENE_EVENT_RESERVED',
  severity: 'warning',
  description: '`reserved` on an event entry, which has no such field (Benzene Contract Document §3); it is ignored.',
  check({ doc }, report) {
    if (!isObject(doc) || !Array.isArray(doc.events)) return
    doc.events.forEach((entry, i) => {
      if (isObject(entry) && 'reserved' in entry) {
        report(
          joinPointer('', 'events', i, 'reserved'),
          'Event entries have no `reserved` field (Benzene Contract Document §3): it is ignored. An event is reserved only when its topic starts with `benzene:`.',
        )
      }
    })
  },
})
