/**
 * Request and event entries paired across versions by `(topic, version)` (Benzene Contract Document
 * §2-3: absent and empty versions differ, and one topic may have several). What is left unpaired is
 * added or removed, except a topic with one entry in each version, whose version differs: that is the
 * version changing. Also the §5.1 reserved rule (flag OR `benzene:` prefix) on each pair.
 * O(entries).
 */
import type { DiffFinding } from '../../../core/diff/types.js'
import { isReserved } from '../../../runtime/benzene/scope.js'
import type { EventEntry, RequestEntry } from '../../../runtime/benzene/document.js'
import { client, quote, topicData } from './findings.js'
import type { BenzeneVersion, Indexed } from './side.js'

export interface Pair<E> {
  old: Indexed<E>
  new: Indexed<E>
}

export interface Paired<E> {
  pairs: Pair<E>[]
  /** Pairs of one topic whose version changed (also compared for their payloads). */
  versionChanged: Pair<E>[]
  removed: Indexed<E>[]
  added: Indexed<E>[]
}

function pair<E extends { topic: string }>(old: Map<string, Indexed<E>>, next: Map<string, Indexed<E>>): Paired<E> {
  const pairs: Pair<E>[] = []
  const removed: Indexed<E>[] = []
  const added: Indexed<E>[] = []
  for (const [label, entry] of old) {
    const other = next.get(label)
    if (other) pairs.push({ old: entry, new: other })
    else removed.push(entry)
  }
  for (const [label, entry] of next) if (!old.has(label)) added.push(entry)
  // A topic whose only entry on each side is unpaired: its version changed. A topic with several
  // versions on either side pairs each version on its own (the rest is removed or added), since
  // which old version a new one replaces cannot be told.
  const entriesOf = (entries: Map<string, Indexed<E>>) => {
    const count = new Map<string, number>()
    for (const { entry } of entries.values()) count.set(entry.topic, (count.get(entry.topic) ?? 0) + 1)
    return count
  }
  const oldCount = entriesOf(old)
  const newCount = entriesOf(next)
  const byTopic = (list: Indexed<E>[]) => {
    const out = new Map<string, Indexed<E>[]>()
    for (const item of list) {
      const same = out.get(item.entry.topic)
      if (same) same.push(item)
      else out.set(item.entry.topic, [item])
    }
    return out
  }
  const removedByTopic = byTopic(removed)
  const addedByTopic = byTopic(added)
  const versionChanged: Pair<E>[] = []
  for (const [topic, gone] of removedByTopic) {
    const come = addedByTopic.get(topic)
    if (gone.length === 1 && come?.length === 1 && oldCount.get(topic) === 1 && newCount.get(topic) === 1) versionChanged.push({ old: gone[0]!, new: come[0]! })
  }
  const moved = new Set(versionChanged.flatMap((p) => [p.old, p.new]))
  return { pairs, versionChanged, removed: removed.filter((e) => !moved.has(e)), added: added.filter((e) => !moved.has(e)) }
}

export const pairRequests = (old: BenzeneVersion, next: BenzeneVersion): Paired<RequestEntry> => pair(old.requests, next.requests)
export const pairEvents = (old: BenzeneVersion, next: BenzeneVersion): Paired<EventEntry> => pair(old.events, next.events)

const versionText = (version: string | undefined) => (version === undefined ? 'no version' : `version ${quote(version)}`)

/** The entries' own findings: removed, added, version changed, reserved changed. */
export function entryFindings(old: BenzeneVersion, next: BenzeneVersion, requests: Paired<RequestEntry>, events: Paired<EventEntry>): DiffFinding[] {
  const out: DiffFinding[] = []
  for (const [list, paired, kind] of [
    ['requests', requests, 'request'],
    ['events', events, 'event'],
  ] as const) {
    for (const gone of paired.removed) {
      const reserved = list === 'requests' && isReserved(gone.entry) ? ' reserved' : ''
      out.push({
        rule: `benzene-${kind}-removed`,
        level: 'breaking',
        audiences: [client(gone.label)],
        old: old.at(gone.pointer),
        message:
          kind === 'request'
            ? `The${reserved} request topic ${quote(gone.label)} is gone: clients that send it get no handler.`
            : `The event topic ${quote(gone.label)} is gone: clients that wait for it never receive it again.`,
        data: topicData(gone.entry),
      })
    }
    for (const come of paired.added) {
      out.push({
        rule: `benzene-${kind}-added`,
        level: 'info',
        audiences: [client(come.label)],
        new: next.at(come.pointer),
        message: `The ${kind} topic ${quote(come.label)} is new.`,
        data: topicData(come.entry),
      })
    }
    for (const moved of paired.versionChanged) {
      const topic = moved.old.entry.topic
      const pointer = (side: Indexed<unknown>, version: string | undefined) => (version === undefined ? side.pointer : `${side.pointer}/version`)
      out.push({
        rule: `benzene-${kind}-version-changed`,
        level: 'breaking',
        audiences: [client(moved.old.label)],
        old: old.at(pointer(moved.old, moved.old.entry.version)),
        new: next.at(pointer(moved.new, moved.new.entry.version)),
        message: `The ${kind} topic ${quote(topic)} changed from ${versionText(moved.old.entry.version)} to ${versionText(moved.new.entry.version)}: clients of the old one ${kind === 'request' ? 'get no handler' : 'no longer receive it'}.`,
        data: { topic, oldVersion: moved.old.entry.version, newVersion: moved.new.entry.version },
      })
    }
  }
  for (const p of [...requests.pairs, ...requests.versionChanged]) {
    const was = isReserved(p.old.entry)
    const is = isReserved(p.new.entry)
    if (was === is) continue
    const flag = (side: Indexed<RequestEntry>) => (side.entry.reserved === true ? `${side.pointer}/reserved` : side.pointer)
    out.push({
      rule: 'benzene-reserved-changed',
      level: is ? 'breaking' : 'info',
      audiences: [client(p.new.label)],
      old: old.at(flag(p.old)),
      new: next.at(flag(p.new)),
      message: is
        ? `The request topic ${quote(p.new.label)} is now reserved: clients generated by default leave it out, so its clients lose it when they regenerate.`
        : `The request topic ${quote(p.new.label)} is no longer reserved: clients generated by default now include it.`,
      data: { ...topicData(p.new.entry), reserved: is },
    })
  }
  return out
}
