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
 * The selected settings' values, one finding per setting that was changed, set or unset. Persistent
 * on either side means saved sessions break. Linear in the settings' sizes (each value canonicalized once).
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
    // Saved sessions recorded it if it persisted where it was set (DASP-EXT-005): judged on each side that sets it.
    const persistent = (had && persistence(a, setting) !== 'connection') || (has && persistence(b, setting) !== 'connection')
    const where = (e: RequestEntry, present: boolean) =>
      present ? joinPointer('', 'extensions', e.index, 'settings', setting) : joinPointer('', 'extensions', e.index, 'settings')
    const what = !had ? `is now set to ${quote(after)}` : !has ? `is no longer set (was ${quote(before)})` : `changed from ${quote(before)} to ${quote(after)}`
    out.add({
      rule: persistent ? 'dasp-persistent-setting-changed' : 'dasp-connection-setting-changed',
      level: 'breaking',
      audiences: persistent ? [...EVERYONE] : [CLIENT, HOST],
      old: locate(old.selection, where(a, had)),
      new: locate(next.selection, where(b, has)),
      message: persistent
        ? `Setting ${quote(setting)} of ${quote(a.uri)}, saved with each session, ${what}; saved sessions cannot reopen with another value.`
        : `Connection setting ${quote(setting)} of ${quote(a.uri)} ${what}; both peers confirm the exact settings.`,
    })
  }
}
