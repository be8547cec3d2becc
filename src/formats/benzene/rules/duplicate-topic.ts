import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { entryLabel, isObject } from '../../../runtime/benzene/document.js'
import { benzeneRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass with a map per list: O(entries). */

export const duplicateTopic = benzeneRule({
  code: 'BENZENE_DUPLICATE_TOPIC',
  description: 'The same `(topic, version)` appears twice among `requests` (or among `events`).',
  check({ doc }, report) {
    if (!isObject(doc)) return
    for (const list of ['requests', 'events'] as const) {
      const entries = doc[list]
      if (!Array.isArray(entries)) continue
      const first = new Map<string, number>()
      entries.forEach((entry, i) => {
        if (!isObject(entry) || typeof entry.topic !== 'string') return
        const version = typeof entry.version === 'string' ? entry.version : undefined
        const label = entryLabel({ topic: entry.topic, version })
        const seen = first.get(label)
        if (seen === undefined) first.set(label, i)
        else {
          report(
            joinPointer('', list, i),
            `${list}[${i}] repeats ${version === undefined ? `unversioned topic ${JSON.stringify(entry.topic)}` : `topic ${JSON.stringify(entry.topic)} version ${JSON.stringify(version)}`} already declared at ${list}[${seen}].`,
            { topic: entry.topic, version, first: joinPointer('', list, seen) },
            [{ pointer: joinPointer('', list, seen), message: `${list}[${seen}] declares it first.` }],
          )
        }
      })
    }
  },
})
