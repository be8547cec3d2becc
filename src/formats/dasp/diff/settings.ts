import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../../../runtime/shared/json-value.js'
import type { ExtensionPair } from './extensions.js'
import { canonical, CLIENT, EVERYONE, type Findings, HOST, quote } from './findings.js'
import { locate, type DaspVersion, type RequestEntry } from './sides.js'

/**
 * How a definition says a setting persists: `session` (saved with the session, DASP-EXT-005),
 * `connection` (a fresh connection setting), or unknown when the definition could not be read or
 * does not say (then treated as persistent: an unknown implication is not assumed safe).
 */
export function persistence(e: RequestEntry, setting: string): 'session' | 'connection' | 'unknown' {
  const settings = e.definition?.value.settings
  const spec = isObject(settings) && Object.hasOwn(settings, setting) ? settings[setting] : undefined
  return isObject(spec) && (spec.persistence === 'session' || spec.persistence === 'connection') ? spec.persistence : 'unknown'
}

/**
 * The selected settings' values, one finding per setting that was changed, set or unset (peers
 * confirm the exact complete settings, so each breaks clients and hosts). Saved sessions break when
 * the old floor recorded the setting (persistent in the old definition) and the new selection no
 * longer offers that value: the floor is the least a reopening selection must meet (DASP-EXT-005: "a
 * protection floor is the least protection permitted"; "current policy MAY impose stronger
 * requirements"), so a persistent setting newly set is a requirement beyond the floor, and a
 * session saved without it still reopens, as the runtime's `checkSessionFloor` decides.
 * Linear in the settings' sizes (each value canonicalized once).
 */
export function compareSettingValues(old: DaspVersion, next: DaspVersion, pair: ExtensionPair, out: Findings): void {
  const { old: a, next: b } = pair
  const names = new Set([...Object.keys(a.settings), ...Object.keys(b.settings)])
  for (const setting of names) {
    const had = Object.hasOwn(a.settings, setting)
    const has = Object.hasOwn(b.settings, setting)
    const before = had ? a.settings[setting] : undefined
    const after = has ? b.settings[setting] : undefined
    if (had && has && canonical(before) === canonical(after)) continue
    // A session requirement on either side; saved sessions recorded it only where the old side set it as one.
    const persistent = (had && persistence(a, setting) !== 'connection') || (has && persistence(b, setting) !== 'connection')
    const floorMissed = had && persistence(a, setting) !== 'connection'
    const where = (e: RequestEntry, present: boolean) =>
      present ? joinPointer('', 'extensions', e.index, 'settings', setting) : joinPointer('', 'extensions', e.index, 'settings')
    const what = !had ? `is now set to ${quote(after)}` : !has ? `is no longer set (was ${quote(before)})` : `changed from ${quote(before)} to ${quote(after)}`
    out.add({
      rule: persistent ? 'dasp-persistent-setting-changed' : 'dasp-connection-setting-changed',
      level: 'breaking',
      audiences: floorMissed ? [...EVERYONE] : [CLIENT, HOST],
      old: locate(old.selection, where(a, had)),
      new: locate(next.selection, where(b, has)),
      message: floorMissed
        ? `Setting ${quote(setting)} of ${quote(a.uri)}, saved with each session, ${what}; saved sessions cannot reopen without their saved value.`
        : persistent
          ? `Setting ${quote(setting)} of ${quote(a.uri)}, a session requirement, ${what}; both peers confirm the exact settings, and sessions saved without it still reopen (a requirement beyond their floor).`
          : `Connection setting ${quote(setting)} of ${quote(a.uri)} ${what}; both peers confirm the exact settings.`,
    })
  }
}
