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

/**
 * The default export name of an entry: camelCase of the last `:` segment of its topic
 * (`payments:capture` -> `capture`, `payments:get-all` -> `getAll`), followed by its version in
 * PascalCase when the same topic is in scope with several versions (`capture` v2 -> `captureV2`;
 * the unversioned entry keeps the plain name).
 */
export function defaultExportName(entry: { topic: string; version?: string }, severalVersions: boolean): string {
  const base = camel(words(entry.topic.slice(entry.topic.lastIndexOf(':') + 1)), false)
  return severalVersions && entry.version !== undefined ? base + camel(words(entry.version), true) : base
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
 * Export names for in-scope entries of one list. The `names` option wins, most specific key first
 * (`topic@version`, then `topic`); a name that is not an identifier, is taken by the module, or
 * is shared by two entries is a diagnostic naming both topics.
 */
export function nameEntries<E extends { topic: string; version?: string }>(
  entries: ReadonlyArray<{ entry: E; index: number }>,
  list: 'requests' | 'events',
  names: Readonly<Record<string, string>> | undefined,
  report: Report,
): NamedEntry<E>[] {
  const versions = new Map<string, number>()
  for (const { entry } of entries) versions.set(entry.topic, (versions.get(entry.topic) ?? 0) + 1)
  const byName = new Map<string, NamedEntry<E>>()
  const named: NamedEntry<E>[] = []
  for (const { entry, index } of entries) {
    const pointer = joinPointer('', list, index, 'topic')
    const label = entryLabel(entry)
    const severalVersions = (versions.get(entry.topic) ?? 0) > 1
    const chosen = names && (ownValue(names, label) ?? (severalVersions ? undefined : ownValue(names, entry.topic)))
    const name = chosen ?? defaultExportName(entry, severalVersions)
    const hint = `Name it with the option names: { ${JSON.stringify(label)}: "<exportName>" }.`
    if (!isExportName(name) || (list === 'requests' && MODULE_EXPORTS.has(name))) {
      const why = isExportName(name) ? 'is taken by the module itself' : 'is not a JavaScript identifier of letters, digits and `_`'
      report(
        'BENZENE_INVALID_EXPORT_NAME',
        pointer,
        `Export name ${JSON.stringify(name)} for topic ${JSON.stringify(label)} ${why}. ${chosen !== undefined ? 'Choose another in the `names` option.' : hint}`,
        { topic: entry.topic, version: entry.version, exportName: name },
      )
      continue
    }
    const other = byName.get(name)
    if (other) {
      report(
        'BENZENE_EXPORT_COLLISION',
        pointer,
        `Topics ${JSON.stringify(entryLabel(other.entry))} and ${JSON.stringify(label)} would both be exported as ${JSON.stringify(name)}. ${hint}`,
        {
          exportName: name,
          topics: [entryLabel(other.entry), label],
        },
      )
      continue
    }
    const item = { entry, index, exportName: name, mapKey: severalVersions ? label : entry.topic }
    byName.set(name, item)
    named.push(item)
  }
  return named
}

function ownValue(names: Readonly<Record<string, string>>, key: string): string | undefined {
  return Object.hasOwn(names, key) ? names[key] : undefined
}
