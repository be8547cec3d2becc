import type { BenzeneModelCode } from './codes.js'
import { isValidIdentifier } from '../../core/emit.js'

/** Export names are plain identifiers without `$`: generated code keeps `$` names for itself. */
const isExportName = (name: string) => isValidIdentifier(name) && !name.includes('$')
import { joinPointer } from '../../runtime/shared/json-pointer.js'
import { entryLabel } from '../../runtime/benzene/document.js'

/** Names the generated module exports besides topic clients; a topic may not take them. */
export const MODULE_EXPORTS = new Set(['topics', 'events', 'contract', 'contractHash', 'messageEndpoint', 'default'])

/** camelCase of words: `get-all` -> `getAll`, `Get_By_Id` -> `getById`. */
function camel(words: string[], capitalizeFirst: boolean): string {
  return words.map((word, i) => (i === 0 && !capitalizeFirst ? word[0]!.toLowerCase() : word[0]!.toUpperCase()) + word.slice(1)).join('')
}

const words = (text: string) => text.split(/[^A-Za-z0-9]+/).filter(Boolean)

/** An identifier from words: `_` before a leading digit (`2fa-verify` -> `_2faVerify`), `topic` when there are none (`:::`). */
function identifier(parts: string[]): string {
  const name = camel(parts, false)
  if (name === '') return 'topic'
  return /^[0-9]/.test(name) ? `_${name}` : name
}

function versionSuffix(entry: { version?: string }, severalVersions: boolean): string {
  return severalVersions && entry.version !== undefined ? camel(words(entry.version), true) : ''
}

/**
 * The default export name of an entry: camelCase of the last `:` segment of its topic
 * (`payments:capture` -> `capture`, `payments:get-all` -> `getAll`, `auth:2fa-verify` ->
 * `_2faVerify`), followed by its version in PascalCase when the same topic is in scope with several
 * versions (`capture` v2 -> `captureV2`; the unversioned entry keeps the plain name).
 */
export function defaultExportName(entry: { topic: string; version?: string }, severalVersions: boolean): string {
  // A last segment without letters or digits (`orders:`) says nothing: the whole topic names it.
  const last = words(entry.topic.slice(entry.topic.lastIndexOf(':') + 1))
  return identifier(last.length > 0 ? last : words(entry.topic)) + versionSuffix(entry, severalVersions)
}

/** The qualified name: every segment of the topic (`orders:get` -> `ordersGet`), and the version as above. */
function qualifiedExportName(entry: { topic: string; version?: string }, severalVersions: boolean): string {
  return identifier(words(entry.topic)) + versionSuffix(entry, severalVersions)
}

export interface NamedEntry<E> {
  entry: E
  /** Index in `requests[]` or `events[]`. */
  index: number
  exportName: string
  /** Key in the `topics` map: the topic id, or `topic@version` when the topic has several versions in scope. */
  mapKey: string
}

type Report = (code: BenzeneModelCode, pointer: string, message: string, data?: Record<string, unknown>) => void

/**
 * Export names for in-scope entries of one list. Naming is not conformance (Benzene Contract
 * Document §5.5), so a default name never fails the build; it is chosen in three steps, each only
 * for the entries the step before could not name:
 * 1. the `names` option, most specific key first (`topic@version`, then `topic`): a name given
 *    there must be an identifier the module does not take, and two entries cannot be given one
 *    name (both diagnostics, naming the topics: the user asked for it);
 * 2. the short name (`defaultExportName`), when no other entry's short name, no given name and
 *    nothing of the module's is the same;
 * 3. the qualified name (`ordersGet` beside `customersGet`), and when even that is shared, a
 *    number after it (`ordersGet2`), counted in the code-unit order of the entries' labels, so
 *    reordering the document renames nothing.
 * O(entries log entries).
 */
export function nameEntries<E extends { topic: string; version?: string }>(
  entries: ReadonlyArray<{ entry: E; index: number }>,
  list: 'requests' | 'events',
  names: Readonly<Record<string, string>> | undefined,
  report: Report,
): NamedEntry<E>[] {
  const versions = new Map<string, number>()
  for (const { entry } of entries) versions.set(entry.topic, (versions.get(entry.topic) ?? 0) + 1)
  const taken = (name: string) => !isExportName(name) || (list === 'requests' && MODULE_EXPORTS.has(name))
  const chosen = new Map<{ entry: E; index: number }, string>()
  const given = new Map<string, E>()
  const failed = new Set<{ entry: E; index: number }>()
  // 1. Names given in the `names` option.
  for (const item of entries) {
    const { entry, index } = item
    const label = entryLabel(entry)
    const several = (versions.get(entry.topic) ?? 0) > 1
    const name = names && (ownValue(names, label) ?? (several ? undefined : ownValue(names, entry.topic)))
    if (name === undefined) continue
    const pointer = joinPointer('', list, index, 'topic')
    if (taken(name)) {
      const why = isExportName(name) ? 'is taken by the module itself' : 'is not a JavaScript identifier of letters, digits and `_`'
      report(
        'BENZENE_INVALID_EXPORT_NAME',
        pointer,
        `Export name ${JSON.stringify(name)} for topic ${JSON.stringify(label)} ${why}. Choose another in the \`names\` option.`,
        {
          topic: entry.topic,
          version: entry.version,
          exportName: name,
        },
      )
      failed.add(item)
      continue
    }
    const other = given.get(name)
    if (other) {
      report(
        'BENZENE_EXPORT_COLLISION',
        pointer,
        `Topics ${JSON.stringify(entryLabel(other))} and ${JSON.stringify(label)} are both given the export name ${JSON.stringify(name)} in the \`names\` option.`,
        { exportName: name, topics: [entryLabel(other), label] },
      )
      failed.add(item)
      continue
    }
    given.set(name, entry)
    chosen.set(item, name)
  }
  // 2. Short names, where unique and free.
  const rest = entries.filter((item) => !chosen.has(item) && !failed.has(item))
  const several = (entry: E) => (versions.get(entry.topic) ?? 0) > 1
  // Each entry's short name made once: counted here, chosen below.
  const defaults = rest.map(({ entry }) => defaultExportName(entry, several(entry)))
  const short = new Map<string, number>()
  for (const name of defaults) short.set(name, (short.get(name) ?? 0) + 1)
  const used = new Set(given.keys())
  const qualified: Array<{ entry: E; index: number }> = []
  for (let i = 0; i < rest.length; i++) {
    const item = rest[i]!
    const name = defaults[i]!
    if (short.get(name) === 1 && !used.has(name) && !taken(name)) {
      chosen.set(item, name)
      used.add(name)
    } else qualified.push(item)
  }
  // 3. Qualified names, numbered where still shared, in label order.
  qualified.sort((a, b) => compareCodeUnits(entryLabel(a.entry), entryLabel(b.entry)))
  const bases = qualified.map((item) => qualifiedExportName(item.entry, several(item.entry)))
  const counts = new Map<string, number>()
  for (const base of bases) counts.set(base, (counts.get(base) ?? 0) + 1)
  // The next number to try per base: each base's numbers are tried once in all, so this is linear.
  const next = new Map<string, number>()
  qualified.forEach((item, i) => {
    const base = bases[i]!
    let name = base
    if (counts.get(base)! > 1 || used.has(base) || taken(base)) {
      let n = next.get(base) ?? 2
      while (used.has(`${base}${n}`)) n++
      next.set(base, n + 1)
      name = `${base}${n}`
    }
    chosen.set(item, name)
    used.add(name)
  })
  return entries.flatMap((item) => {
    const exportName = chosen.get(item)
    if (exportName === undefined) return []
    return [{ entry: item.entry, index: item.index, exportName, mapKey: several(item.entry) ? entryLabel(item.entry) : item.entry.topic }]
  })
}

const compareCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

function ownValue(names: Readonly<Record<string, string>>, key: string): string | undefined {
  return Object.hasOwn(names, key) ? names[key] : undefined
}
