import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../../../runtime/shared/json-value.js'
import { EVERYONE, type Findings, pinKey, quote } from './findings.js'
import { locate, type DaspVersion } from './sides.js'

/**
 * The selected core, profile and binding: identity (compared exactly, DASP-EXT-002) and pin. All
 * three are in the saved record's "exact contract identities and content references"
 * (DASP-EXT-005), and the session is saved with its profile.
 */
export function compareContracts(old: DaspVersion, next: DaspVersion, out: Findings): void {
  for (const key of ['core', 'profile', 'binding'] as const) {
    const a = old.selection.value[key]
    const b = next.selection.value[key]
    if (!isObject(a) || !isObject(b)) continue
    const at = (member?: string) => (member ? joinPointer('', key, member) : joinPointer('', key))
    const uriChanged = a.uri !== b.uri
    const versionChanged = a.version !== b.version
    if (uriChanged || versionChanged) {
      const member = uriChanged && versionChanged ? undefined : uriChanged ? 'uri' : 'version'
      out.add({
        rule: 'dasp-contract-changed',
        level: 'breaking',
        audiences: [...EVERYONE],
        old: locate(old.selection, at(member)),
        new: locate(next.selection, at(member)),
        message: `The selected ${key} changed from ${quote(a.uri)} ${quote(a.version)} to ${quote(b.uri)} ${quote(b.version)}; peers confirm it exactly and saved sessions keep it.`,
      })
      continue
    }
    if (pinKey(a.content) !== pinKey(b.content))
      out.add({
        rule: 'dasp-pin-changed',
        level: 'breaking',
        audiences: [...EVERYONE],
        old: locate(old.selection, at('content')),
        new: locate(next.selection, at('content')),
        message: `The content pin of the selected ${key} ${quote(a.uri)} ${quote(a.version)} changed; the pin is authenticated with the selection and saved with each session.`,
      })
  }
}
