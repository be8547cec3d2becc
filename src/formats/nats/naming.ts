import { isValidIdentifier } from '../../core/emit.js'

/** Names the module exports besides channels. */
export const NATS_MODULE_EXPORTS = new Set([
  'contract',
  'channels',
  'operations',
  'streams',
  'consumers',
  'tokenTypes',
  'adapters',
  'interactions',
  'pipelines',
  'workflows',
  'default',
])

/** Export names are plain identifiers without `$` (generated code keeps `$` names for itself) that the module does not take. */
export const isChannelExportName = (name: string): boolean => isValidIdentifier(name) && !name.includes('$') && !NATS_MODULE_EXPORTS.has(name)

/**
 * The derived name of a channel id: camelCase of its ASCII words (`payment-captured` and
 * `payment_captured` -> `paymentCaptured`), `_` before a leading digit (`2fa` -> `_2fa`), `channel`
 * when it has no words (`---`), and `Channel` after a reserved word or a module export (`delete`
 * -> `deleteChannel`, `channels` -> `channelsChannel`).
 */
export function channelExportName(id: string): string {
  // Most ids are already one lowerCamel word.
  let name = /^[a-z][A-Za-z0-9]*$/.test(id) ? id : camel(id.split(/[^A-Za-z0-9]+/).filter(Boolean))
  if (name === '') return 'channel'
  if (/^[0-9]/.test(name)) name = `_${name}`
  return isChannelExportName(name) ? name : `${name}Channel`
}

function camel(words: string[]): string {
  return words.map((w, i) => (i === 0 ? w[0]!.toLowerCase() : w[0]!.toUpperCase()) + w.slice(1)).join('')
}

/** A channel's export name, or why a name given for it by hand cannot be used. */
export type ChannelName = { id: string; exportName: string } | { id: string; problem: string }

/**
 * Export names for channels. Names are not conformance, so a derived name never fails the build;
 * they are chosen in two steps:
 * 1. the `names` option (channel id -> export name): a given name must be an export name (above)
 *    and two channels cannot be given one name (a problem, naming the channel: the user asked);
 * 2. the derived name (`channelExportName`). Channels sharing one (`note-log`, `note_log`) take it
 *    in order: an id that is the name itself first, then the others in the code-unit order of
 *    their ids; the first gets it plain (`noteLog`), the next with a number (`noteLog2`,
 *    `noteLog3`, ... skipping every name already taken). Reordering the document renames nothing.
 * O(channels log channels).
 */
export function nameChannels(ids: readonly string[], names: Readonly<Record<string, string>> | undefined): ChannelName[] {
  const out = new Map<string, ChannelName>()
  const taken = new Set<string>()
  const givenBy = new Map<string, string>()
  for (const id of ids) {
    if (names === undefined || !Object.hasOwn(names, id)) continue
    const name = names[id]!
    if (!isChannelExportName(name)) out.set(id, { id, problem: `the name ${JSON.stringify(name)} given for it is not an identifier the module can export` })
    else if (givenBy.has(name))
      out.set(id, { id, problem: `the name ${JSON.stringify(name)} given for it is given for channel ${JSON.stringify(givenBy.get(name))} too` })
    else {
      givenBy.set(name, id)
      taken.add(name)
      out.set(id, { id, exportName: name })
    }
  }
  const groups = new Map<string, string[]>()
  for (const id of ids) {
    if (out.has(id)) continue
    const base = channelExportName(id)
    const group = groups.get(base)
    if (group) group.push(id)
    else groups.set(base, [id])
  }
  // Names no collision touches first, so a numbered name never takes one of them.
  for (const [base, group] of groups) {
    if (group.length === 1 && !taken.has(base)) {
      taken.add(base)
      out.set(group[0]!, { id: group[0]!, exportName: base })
    }
  }
  for (const [base, group] of groups) {
    if (out.has(group[0]!)) continue
    // An id that is its own name keeps it; then ids in code-unit order (unless a given name took it).
    const rank = (id: string) => (id === base ? 0 : 1)
    const sorted = [...group].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))
    let n = 1
    for (const id of sorted) {
      let name = base
      while (taken.has(name)) name = `${base}${++n}`
      taken.add(name)
      out.set(id, { id, exportName: name })
    }
  }
  return ids.map((id) => out.get(id)!)
}
