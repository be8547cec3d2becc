/**
 * The members that change no message: `info`, the `openapi` marker, examples (Benzene Contract
 * Document §1-3), members the specification does not define (consumers ignore them), and component
 * schemas appearing or going (a payload that names another schema is the payload rules' finding).
 * All info: they may still change a contract hash, which hashes.ts reports. Values compared in
 * their canonical form (key order means nothing). O(document size).
 */
import type { DiffFinding } from '../../../core/diff/types.js'
import { isObject } from '../../../runtime/benzene/document.js'
import { canonical } from '../../../runtime/benzene/hash.js'
import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import type { Pair } from './entries.js'
import { client, quote, service } from './findings.js'
import type { BenzeneVersion } from './side.js'

const TOP_LEVEL = new Set(['openapi', 'info', 'messageEndpoint', 'transports', 'requests', 'events', 'components'])
const REQUEST_MEMBERS = new Set(['topic', 'version', 'reserved', 'httpMappings', 'request', 'response', 'example'])
const EVENT_MEMBERS = new Set(['topic', 'version', 'message', 'example'])

const everyone = () => [client(), service()]

type Members = Record<string, unknown>

/** Each member of `keys` whose value differs (present in one version only, or with another canonical form), in sorted order. */
function changedMembers(was: Members, is: Members, keys: (key: string) => boolean): string[] {
  const names = new Set([...Object.keys(was), ...Object.keys(is)].filter(keys))
  return [...names].sort().filter((key) => {
    const a = Object.hasOwn(was, key) ? was[key] : undefined
    const b = Object.hasOwn(is, key) ? is[key] : undefined
    if (a === undefined || b === undefined) return a !== b
    return a !== b && canonical(a) !== canonical(b)
  })
}

/** A finding for a member of the object at `base` in each version: located at the member where it exists, else at the object. */
function memberFinding(
  old: BenzeneVersion,
  next: BenzeneVersion,
  rule: string,
  base: { old: string; new: string },
  key: string,
  was: Members,
  is: Members,
  what: string,
): DiffFinding {
  const inOld = Object.hasOwn(was, key)
  const inNew = Object.hasOwn(is, key)
  const verb = !inOld ? 'was added' : !inNew ? 'was removed' : 'changed'
  return {
    rule,
    level: 'info',
    audiences: everyone(),
    old: old.at(inOld ? joinPointer(base.old, key) : base.old),
    new: next.at(inNew ? joinPointer(base.new, key) : base.new),
    message: `${what} ${verb}; no message changes.`,
    data: { member: key },
  }
}

export function documentFindings(
  old: BenzeneVersion,
  next: BenzeneVersion,
  requests: readonly Pair<Members>[],
  events: readonly Pair<Members>[],
): DiffFinding[] {
  const out: DiffFinding[] = []
  const top = { old: '', new: '' }
  const was = old.doc as Members
  const is = next.doc as Members
  for (const key of changedMembers(was, is, (k) => k === 'openapi')) {
    out.push(memberFinding(old, next, 'benzene-openapi-changed', top, key, was, is, 'The `openapi` marker'))
  }
  for (const key of changedMembers(was, is, (k) => !TOP_LEVEL.has(k))) {
    out.push(memberFinding(old, next, 'benzene-unknown-member-changed', top, key, was, is, `The top-level member ${quote(key)}`))
  }
  const infoWas = isObject(was.info) ? was.info : {}
  const infoIs = isObject(is.info) ? is.info : {}
  for (const key of changedMembers(infoWas, infoIs, () => true)) {
    out.push(memberFinding(old, next, 'benzene-info-changed', { old: '/info', new: '/info' }, key, infoWas, infoIs, `The member ${quote(key)} of \`info\``))
  }
  const componentsWas = isObject(was.components) ? was.components : {}
  const componentsIs = isObject(is.components) ? is.components : {}
  for (const key of changedMembers(componentsWas, componentsIs, (k) => k !== 'schemas')) {
    const base = { old: '/components', new: '/components' }
    out.push(memberFinding(old, next, 'benzene-unknown-member-changed', base, key, componentsWas, componentsIs, `The member ${quote(key)} of \`components\``))
  }
  for (const [list, pairs, known] of [
    ['request', requests, REQUEST_MEMBERS],
    ['event', events, EVENT_MEMBERS],
  ] as const) {
    for (const p of pairs) {
      const base = { old: p.old.pointer, new: p.new.pointer }
      const entryWas = p.old.entry
      const entryIs = p.new.entry
      for (const key of changedMembers(entryWas, entryIs, (k) => k === 'example')) {
        out.push(memberFinding(old, next, 'benzene-example-changed', base, key, entryWas, entryIs, `The example of ${list} topic ${quote(p.new.label)}`))
      }
      for (const key of changedMembers(entryWas, entryIs, (k) => !known.has(k))) {
        const what = `The member ${quote(key)} of ${list} topic ${quote(p.new.label)}`
        out.push(memberFinding(old, next, 'benzene-unknown-member-changed', base, key, entryWas, entryIs, what))
      }
    }
  }
  out.push(...componentPresence(old, next))
  return out
}

/** Component schemas in one version only. */
function componentPresence(old: BenzeneVersion, next: BenzeneVersion): DiffFinding[] {
  const was = isObject(old.doc.components?.schemas) ? old.doc.components.schemas : {}
  const is = isObject(next.doc.components?.schemas) ? next.doc.components.schemas : {}
  const out: DiffFinding[] = []
  for (const name of Object.keys(was)) {
    if (Object.hasOwn(is, name)) continue
    out.push({
      rule: 'benzene-component-removed',
      level: 'info',
      audiences: everyone(),
      old: old.at(joinPointer('', 'components', 'schemas', name)),
      new: next.at('/components/schemas'),
      message: `The component schema ${quote(name)} is gone; no payload names it any more.`,
      data: { schema: name },
    })
  }
  for (const name of Object.keys(is)) {
    if (Object.hasOwn(was, name)) continue
    out.push({
      rule: 'benzene-component-added',
      level: 'info',
      audiences: everyone(),
      old: old.at('/components/schemas'),
      new: next.at(joinPointer('', 'components', 'schemas', name)),
      message: `The component schema ${quote(name)} is new.`,
      data: { schema: name },
    })
  }
  return out
}
