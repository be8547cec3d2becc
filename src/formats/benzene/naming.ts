import { isValidIdentifier } from '../../core/emit.js'
import { entryLabel, type RequestEntry } from './document.js'

/** Names the generated module exports besides topic clients; a topic may not take them. */
export const MODULE_EXPORTS = new Set(['topics', 'contractHash', 'default'])

/**
 * The default export name of a topic: camelCase of its last `:` segment
 * (`payments:capture` -> `capture`, `payments:get-all` -> `getAll`, `orders:Get_By_Id` -> `getById`).
 */
export function defaultExportName(topic: string): string {
  const segment = topic.slice(topic.lastIndexOf(':') + 1)
  const words = segment.split(/[^A-Za-z0-9$]+/).filter(Boolean)
  return words
    .map((word, i) => (i === 0 ? word[0]!.toLowerCase() + word.slice(1) : word[0]!.toUpperCase() + word.slice(1)))
    .join('')
}

/** The `names` option wins, most specific key first: `topic@version`, then `topic`. */
export function exportNameOf(entry: RequestEntry, names: Readonly<Record<string, string>> | undefined): { name: string; chosen: boolean } {
  const chosen = names && (ownValue(names, entryLabel(entry)) ?? ownValue(names, entry.topic))
  return chosen !== undefined ? { name: chosen, chosen: true } : { name: defaultExportName(entry.topic), chosen: false }
}

function ownValue(names: Readonly<Record<string, string>>, key: string): string | undefined {
  return Object.hasOwn(names, key) ? names[key] : undefined
}

export function isUsableExportName(name: string): boolean {
  return isValidIdentifier(name) && !MODULE_EXPORTS.has(name)
}
