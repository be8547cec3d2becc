import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../../../runtime/shared/json-value.js'
import { CLIENT, type Findings, quote } from './findings.js'
import { locate, type DaspVersion } from './sides.js'

interface Requirement {
  index: number
  uri: unknown
  version: unknown
  scope: unknown
}

function requirements(v: DaspVersion): Map<string, Requirement> {
  const policy = v.selection.value.policy
  const list: unknown[] = isObject(policy) && Array.isArray(policy.requires) ? policy.requires : []
  const out = new Map<string, Requirement>()
  list.forEach((r, index) => {
    if (!isObject(r)) return
    const key = JSON.stringify([r.uri, r.version, r.scope ?? null])
    if (!out.has(key)) out.set(key, { index, uri: r.uri, version: r.version, scope: r.scope })
  })
  return out
}

/** What a version requests, to look a requirement up in: by identity and scope, and by identity alone (a requirement may name no scope). */
function requestIndex(v: DaspVersion): Set<string> {
  const out = new Set<string>()
  for (const e of v.requested) {
    out.add(JSON.stringify([e.uri, e.version, e.scope]))
    out.add(JSON.stringify([e.uri, e.version]))
  }
  return out
}

const carries = (index: Set<string>, r: Requirement) =>
  index.has(r.scope === undefined ? JSON.stringify([r.uri, r.version]) : JSON.stringify([r.uri, r.version, r.scope]))

/**
 * Host policy (`policy.requires`, DASP-EXT-004): a requirement added breaks clients whose old request
 * omits it, since the host must refuse such a request; one removed breaks nobody. Linear: one map per
 * version and one index of the old request.
 */
export function comparePolicy(old: DaspVersion, next: DaspVersion, out: Findings): void {
  const before = requirements(old)
  const after = requirements(next)
  const at = (r: Requirement) => joinPointer('', 'policy', 'requires', r.index)
  const oldRequest = requestIndex(old)
  const name = (r: Requirement) => `${quote(r.uri)} ${quote(r.version)}${r.scope === undefined ? '' : ` (${quote(r.scope)})`}`
  for (const [key, r] of after) {
    if (before.has(key)) continue
    const met = carries(oldRequest, r)
    out.add({
      rule: 'dasp-policy-requirement-added',
      level: met ? 'info' : 'breaking',
      audiences: met ? [] : [CLIENT],
      old: locate(old.selection, '/policy/requires'),
      new: locate(next.selection, at(r)),
      message: met
        ? `Host policy now requires ${name(r)}, which the old selection already requested.`
        : `Host policy now requires ${name(r)}; the host refuses a client whose request omits it, as the old selection's does.`,
    })
  }
  for (const [key, r] of before)
    if (!after.has(key))
      out.add({
        rule: 'dasp-policy-requirement-removed',
        level: 'info',
        audiences: [],
        old: locate(old.selection, at(r)),
        new: locate(next.selection, '/policy/requires'),
        message: `Host policy no longer requires ${name(r)}.`,
      })
}
