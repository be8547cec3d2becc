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

/** Whether the old request already carries what a new requirement demands (any scope when it names none). */
function requested(v: DaspVersion, r: Requirement): boolean {
  return v.requested.some((e) => e.uri === r.uri && e.version === r.version && (r.scope === undefined || e.scope === r.scope))
}

/**
 * Host policy (`policy.requires`, DASP-EXT-004): a requirement added breaks clients whose old request
 * omits it, since the host must refuse such a request; one removed breaks nobody. Linear (one map per version;
 * `requested` scans the request once per added requirement, bounded by policy x request, both small lists in practice).
 */
export function comparePolicy(old: DaspVersion, next: DaspVersion, out: Findings): void {
  const before = requirements(old)
  const after = requirements(next)
  const at = (r: Requirement) => joinPointer('', 'policy', 'requires', r.index)
  const name = (r: Requirement) => `${quote(r.uri)} ${quote(r.version)}${r.scope === undefined ? '' : ` (${quote(r.scope)})`}`
  for (const [key, r] of after) {
    if (before.has(key)) continue
    const met = requested(old, r)
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
