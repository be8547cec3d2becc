import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../../../runtime/benzene/document.js'
import { benzeneRule, type Report } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): O(entries). */

function forEachEntry(doc: unknown, visit: (entry: Record<string, unknown>, pointer: string) => void): void {
  if (!isObject(doc)) return
  for (const list of ['requests', 'events'] as const) {
    const entries = doc[list]
    if (Array.isArray(entries)) entries.forEach((entry, i) => isObject(entry) && visit(entry, joinPointer('', list, i)))
  }
}

function checkEmpty(doc: unknown, member: string, report: Report, message: string): void {
  forEachEntry(doc, (entry, pointer) => {
    if (entry[member] === '') report(joinPointer(pointer, member), message)
  })
}

export const emptyTopic = benzeneRule({
  code: 'BENZENE_EMPTY_TOPIC',
  description: 'A request or event has `topic: ""`.',
  check: ({ doc }, report) => checkEmpty(doc, 'topic', report, 'A topic id must not be empty.'),
})

export const emptyVersion = benzeneRule({
  code: 'BENZENE_EMPTY_VERSION',
  description: 'A request or event has `version: ""` (an unversioned entry omits `version`; Benzene Contract Document §2).',
  check: ({ doc }, report) =>
    checkEmpty(
      doc,
      'version',
      report,
      '`version` is empty. An unversioned topic omits `version` entirely; "" is not the same as absent (Benzene Contract Document §2).',
    ),
})
