import { enclosingPointer } from '../../../core/diff/enclosing.js'
import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { CLIENT, EVERYONE, type Findings, HOST, pinKey, quote, SAVED_SESSION } from './findings.js'
import { locate, type DaspVersion, type RequestEntry } from './sides.js'

/** A requested extension in one version paired with its counterpart in the other. */
export interface ExtensionPair {
  old: RequestEntry
  next: RequestEntry
}

/** A URI loosened for the near misses people make (never used to pair: only to say what happened). */
const looseUri = (uri: string) => uri.normalize('NFC').toLowerCase().replace(/\/+$/, '')

const at = (e: RequestEntry, ...tokens: Array<string | number>) => joinPointer('', 'extensions', e.index, ...tokens)
const name = (e: RequestEntry) => `${quote(e.uri)} ${quote(e.version)} (${quote(e.scope)})`

/**
 * Pairs the requested extensions of two versions: the same identity and scope first, then the same
 * URI and scope (another version), the same identity (another scope), and the same URI. What is left
 * was added or removed. Linear: each pass is one map of queues (identities are compared exactly,
 * DASP-EXT-002: a URI that differs by case or a trailing slash is another extension).
 */
export function pairExtensions(old: DaspVersion, next: DaspVersion): { pairs: ExtensionPair[]; removed: RequestEntry[]; added: RequestEntry[] } {
  const keys: Array<(e: RequestEntry) => string> = [
    (e) => JSON.stringify([e.uri, e.version, e.scope]),
    (e) => JSON.stringify([e.uri, e.scope]),
    (e) => JSON.stringify([e.uri, e.version]),
    (e) => JSON.stringify([e.uri]),
  ]
  let left = old.requested
  let right = next.requested
  const pairs: ExtensionPair[] = []
  for (const key of keys) {
    // A queue is a list and the index of its first unpaired entry (shift() would make repeats quadratic).
    const queues = new Map<string, { entries: RequestEntry[]; first: number }>()
    for (const e of left) {
      const k = key(e)
      const queue = queues.get(k)
      if (queue) queue.entries.push(e)
      else queues.set(k, { entries: [e], first: 0 })
    }
    const unmatched: RequestEntry[] = []
    for (const e of right) {
      const queue = queues.get(key(e))
      if (queue && queue.first < queue.entries.length) pairs.push({ old: queue.entries[queue.first++]!, next: e })
      else unmatched.push(e)
    }
    left = [...queues.values()].flatMap((q) => q.entries.slice(q.first))
    right = unmatched
  }
  return { pairs, removed: left, added: right }
}

/** Extensions added, removed, at another version or scope, and their definitions' pins. */
export function compareRequested(old: DaspVersion, next: DaspVersion, paired: ReturnType<typeof pairExtensions>, out: Findings): void {
  // An identity that differs only by case, Unicode normalization or a trailing slash is still another
  // extension (DASP-EXT-002 compares exactly); the pair is named so the edit is easy to recognise.
  const removedByLoose = new Map<string, RequestEntry>()
  for (const e of paired.removed) if (!removedByLoose.has(looseUri(e.uri))) removedByLoose.set(looseUri(e.uri), e)
  const addedByLoose = new Map<string, RequestEntry>()
  for (const e of paired.added) if (!addedByLoose.has(looseUri(e.uri))) addedByLoose.set(looseUri(e.uri), e)
  const nearMiss = (other: RequestEntry | undefined, self: RequestEntry) =>
    other && other.uri !== self.uri
      ? {
          hint: ` Identities compare exactly: ${quote(other.uri)} differs only by case, Unicode normalization or a trailing slash.`,
          data: { nearMiss: other.uri },
        }
      : { hint: '', data: undefined }
  for (const e of paired.added) {
    const near = nearMiss(removedByLoose.get(looseUri(e.uri)), e)
    out.add({
      rule: 'dasp-extension-added',
      level: 'breaking',
      audiences: [HOST],
      // A member one version lacks is located there at the list that would hold it.
      old: locate(old.selection, enclosingPointer(old.selection.value, at(e))),
      new: locate(next.selection, at(e)),
      message: `Extension ${name(e)} is newly requested; a host that does not support it must refuse the request.${near.hint}`,
      ...(near.data ? { data: near.data } : {}),
    })
  }
  for (const e of paired.removed) {
    const near = nearMiss(addedByLoose.get(looseUri(e.uri)), e)
    out.add({
      rule: 'dasp-extension-removed',
      level: 'breaking',
      audiences: [CLIENT, SAVED_SESSION],
      old: locate(old.selection, at(e)),
      new: locate(next.selection, enclosingPointer(next.selection.value, at(e))),
      message: `Extension ${name(e)} is no longer requested; clients that request it are refused and saved sessions whose floor holds it cannot reopen.${near.hint}`,
      ...(near.data ? { data: near.data } : {}),
    })
  }
  for (const { old: a, next: b } of paired.pairs) {
    if (a.version !== b.version)
      out.add({
        rule: 'dasp-extension-version-changed',
        level: 'breaking',
        audiences: [...EVERYONE],
        old: locate(old.selection, at(a, 'version')),
        new: locate(next.selection, at(b, 'version')),
        message: `Extension ${quote(a.uri)} is requested at version ${quote(b.version)} instead of ${quote(a.version)}; versions compare exactly and a saved one cannot be silently replaced.`,
      })
    if (a.scope !== b.scope)
      out.add({
        rule: 'dasp-extension-scope-changed',
        level: 'breaking',
        audiences: [...EVERYONE],
        old: locate(old.selection, at(a, 'scope')),
        new: locate(next.selection, at(b, 'scope')),
        message: `Extension ${quote(a.uri)} is requested in scope ${quote(b.scope)} instead of ${quote(a.scope)}.`,
      })
    // Another version is another definition: its pin differing is the version change, said once.
    if (a.version === b.version && a.definition && b.definition && pinKey(a.definition.value.content) !== pinKey(b.definition.value.content))
      out.add({
        rule: 'dasp-pin-changed',
        level: 'breaking',
        audiences: [...EVERYONE],
        old: locate(a.definition, '/content'),
        new: locate(b.definition, '/content'),
        message: `The content pin of extension ${quote(a.uri)} ${quote(a.version)} changed; the pin is authenticated with the selection and saved with each session.`,
      })
  }
}
