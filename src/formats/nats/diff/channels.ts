/**
 * Channels and their subjects. Channels pair by id; a channel only in the old version and one only
 * in the new one with an equal subject language are a rename (info), otherwise a removal and an
 * addition. A paired channel's languages are compared by inclusion both ways (subject-inclusion.ts):
 * narrowed breaks its publishers, widened breaks the subscribers that parse its subjects, each with
 * a witness subject. Each old filter is checked against the new channel (templateIntersects).
 *
 * Cost: O(channels x positions x tokenTypeContains) for the paired ones; the rename pairing
 * compares removed and added channels of the same subject length only, at most RENAME_BUDGET
 * comparisons in all (past it, the rest are removals and additions).
 */
import type { TokenType } from '../../../runtime/nats/tokens.js'
import { positions } from '../address.js'
import { templateIntersects, type Language } from '../languages.js'
import type { ChannelModel } from '../model.js'
import { q, type Findings, type Version } from './context.js'
import { audiencesOf, partiesOf } from './parties.js'
import { compareChannelTerms } from './channel-terms.js'
import { ptr } from './source.js'
import canonicalize from 'canonicalize'
import { shapeOf, subjectsIncluded, type SubjectShape } from './subject-inclusion.js'

const RENAME_BUDGET = 100_000

export function typesOf(v: Version, channel: ChannelModel): Record<string, TokenType | undefined> {
  const out: Record<string, TokenType | undefined> = Object.create(null) as Record<string, TokenType | undefined>
  for (const param of Object.keys(channel.parameters)) out[param] = v.model.tokenTypes[channel.parameters[param]!]
  return out
}

/** The channel's subject shape (once per channel model), undefined for a channel without an address. */
export function shape(v: Version, channel: ChannelModel): SubjectShape | undefined {
  let known = v.shapes.get(channel)
  if (known === undefined) v.shapes.set(channel, (known = (channel.tokens && shapeOf(channel.tokens, typesOf(v, channel))) ?? null))
  return known ?? undefined
}

/** The channel's language as positions (for filters and native subjects), undefined without a typed address. */
export function languageOf(v: Version, channel: ChannelModel): Language | undefined {
  if (!channel.tokens) return undefined
  const types = typesOf(v, channel)
  if (channel.tokens.some((t) => typeof t !== 'string' && !types[t.param])) return undefined
  return positions(channel.tokens, types as Record<string, TokenType>) as Language
}

/** Do the two channels have the same subjects? */
export function sameLanguage(ov: Version, oc: ChannelModel, nv: Version, nc: ChannelModel): boolean {
  const a = shape(ov, oc)
  const b = shape(nv, nc)
  if (!a || !b) return oc.address === undefined && nc.address === undefined
  return subjectsIncluded(a, b).included && subjectsIncluded(b, a).included
}

export function diffChannels(f: Findings): void {
  const { old, next } = f
  const removed = old.model.channels.filter((c) => !next.channels.has(c.id))
  const added = next.model.channels.filter((c) => !old.channels.has(c.id))
  const renamed = pairRenames(old, removed, next, added)
  for (const c of removed) {
    const to = renamed.get(c)
    if (to) {
      f.renamed.set(c.id, to.id)
      // A renamed channel is a paired one: what it promises beside its subjects is compared as
      // under one id (an outside pass found a publisher identity added with a rename unreported).
      compareChannelTerms(f, c, to)
      compareFilters(f, c, to)
      f.add({
        rule: 'channel-renamed',
        level: 'info',
        audiences: [],
        old: ptr.channel(c.id),
        new: ptr.channel(to.id),
        message: `Channel ${q(c.id)} is now ${q(to.id)} with the same subjects${c.address === undefined ? '' : ` (${q(c.address)})`}.`,
        scope: { channel: c.id, in: 'old' },
      })
      continue
    }
    const parties = partiesOf(old, c.id)
    f.add({
      rule: 'channel-removed',
      level: 'breaking',
      audiences: [...audiencesOf(parties, 'sends', c.id), ...audiencesOf(parties, 'receives', c.id)],
      old: ptr.channel(c.id),
      message: `Channel ${q(c.id)}${c.address === undefined ? '' : ` (${q(c.address)})`} was removed: its publishers and subscribers lose it.`,
      scope: { channel: c.id, in: 'old' },
    })
  }
  const renamedTo = new Set(renamed.values())
  for (const c of added) {
    if (renamedTo.has(c)) continue
    f.add({
      rule: 'channel-added',
      level: 'info',
      audiences: [],
      new: ptr.channel(c.id),
      message: `Channel ${q(c.id)}${c.address === undefined ? '' : ` (${q(c.address)})`} was added.`,
    })
  }
  for (const oc of old.model.channels) {
    const nc = next.channels.get(oc.id)
    if (nc) compareChannel(f, oc, nc)
  }
}

function pairRenames(old: Version, removed: ChannelModel[], next: Version, added: ChannelModel[]): Map<ChannelModel, ChannelModel> {
  const out = new Map<ChannelModel, ChannelModel>()
  const byLength = new Map<number, ChannelModel[]>()
  for (const c of added) {
    const length = c.tokens?.length ?? -1
    const list = byLength.get(length)
    if (list) list.push(c)
    else byLength.set(length, [c])
  }
  let budget = RENAME_BUDGET
  const taken = new Set<ChannelModel>()
  for (const c of removed) {
    if (c.address === undefined) continue
    for (const candidate of byLength.get(c.tokens?.length ?? -1) ?? []) {
      if (--budget < 0) return out
      if (taken.has(candidate) || candidate.address === undefined) continue
      if (sameLanguage(old, c, next, candidate)) {
        out.set(c, candidate)
        taken.add(candidate)
        break
      }
    }
  }
  return out
}

function compareChannel(f: Findings, oc: ChannelModel, nc: ChannelModel): void {
  const { old, next } = f
  const id = nc.id
  compareChannelTerms(f, oc, nc)
  if ((oc.address === undefined) !== (nc.address === undefined)) {
    const parties = [...partiesOf(old, id), ...partiesOf(next, id)]
    f.add({
      rule: 'channel-address-changed',
      level: 'breaking',
      audiences: dedupe([...audiencesOf(parties, 'sends', id), ...audiencesOf(parties, 'receives', id)]),
      old: ptr.channel(id),
      new: ptr.channel(id),
      message:
        nc.address === undefined
          ? `Channel ${q(id)} lost its address ${q(oc.address!)}: it is now a reply channel of unknown address.`
          : `Channel ${q(id)} now has the address ${q(nc.address)}: it was a reply channel of unknown address.`,
      scope: { channel: id, in: 'new' },
    })
  }
  // The same address over the same parameters naming token types defined alike: the same subjects,
  // spelled the same, and each filter written as before still meets them (the checker held the old
  // version's filters to its channel). Most channels of a diff are such; their languages are not
  // compared again (inclusion both ways, and every filter's template).
  if (sameSubjects(f, oc, nc)) {
    compareFilters(f, oc, nc, true)
    return
  }
  const a = shape(old, oc)
  const b = shape(next, nc)
  if (a && b) {
    const narrowed = subjectsIncluded(a, b)
    const widened = subjectsIncluded(b, a)
    const where = { old: addressPointer(oc), new: addressPointer(nc) }
    if (!narrowed.included) {
      const parties = [...partiesOf(old, id), ...partiesOf(next, id)]
      f.add({
        rule: 'subject-narrowed',
        level: 'breaking',
        audiences: dedupe(audiencesOf(parties, 'sends', id)),
        ...where,
        message: `Channel ${q(id)} no longer accepts every subject of ${q(oc.address!)}: its publishers break (${narrowed.witness ? `${q(narrowed.witness)} is no longer a subject of ${q(nc.address!)}` : `now ${q(nc.address!)}`}).`,
        ...(narrowed.witness ? { data: { witness: narrowed.witness } } : {}),
        scope: { channel: id, in: 'new' },
      })
    }
    if (!widened.included) {
      const parties = [...partiesOf(old, id), ...partiesOf(next, id)]
      f.add({
        rule: 'subject-widened',
        level: 'breaking',
        audiences: dedupe(audiencesOf(parties, 'receives', id)),
        ...where,
        message: `Channel ${q(id)} now has subjects ${q(oc.address!)} did not: subscribers that parse its subjects break (${widened.witness ? `${q(widened.witness)} is new in ${q(nc.address!)}` : `now ${q(nc.address!)}`}).`,
        ...(widened.witness ? { data: { witness: widened.witness } } : {}),
        scope: { channel: id, in: 'new' },
      })
    }
    // Written differently: the address, which token type each parameter names, or a named type's
    // definition (an enum of hex letters rewritten as a one-letter hex token denotes the same tokens).
    const respelled =
      oc.address !== nc.address || sortedEntries(oc.parameters) !== sortedEntries(nc.parameters) || definitions(old, oc) !== definitions(next, nc)
    if (narrowed.included && widened.included && respelled) {
      f.add({
        rule: 'subject-spelling-changed',
        level: 'info',
        audiences: [],
        ...where,
        message:
          oc.address === nc.address
            ? `Channel ${q(id)}'s parameters name token types written differently (other types, or the same types redefined), which denote the same tokens: it has the same subjects.`
            : `Channel ${q(id)} is spelled differently (${q(oc.address!)} to ${q(nc.address!)}) but has the same subjects.`,
      })
    }
  }
  compareFilters(f, oc, nc)
}

/**
 * Whether two channels have the same address, the same parameters, and each parameter's token type
 * defined alike in both versions (JSON-equal, compared once per type name and diff): then their
 * subjects are the same, spelled the same.
 */
function sameSubjects(f: Findings, oc: ChannelModel, nc: ChannelModel): boolean {
  if (oc.address !== nc.address || oc.address === undefined) return false
  const params = Object.keys(oc.parameters)
  if (params.length !== Object.keys(nc.parameters).length) return false
  for (const param of params) {
    const type = oc.parameters[param]!
    if (!Object.hasOwn(nc.parameters, param) || nc.parameters[param] !== type || !f.sameTokenType(type)) return false
  }
  return true
}

function compareFilters(f: Findings, oc: ChannelModel, nc: ChannelModel, sameSubjects = false): void {
  const { old, next } = f
  const id = nc.id
  // Same subjects: a filter whose template is unchanged meets them as it did; only the others are compared.
  if (sameSubjects && oc.filters.every((filter) => nc.filters.some((x) => x.name === filter.name && x.template === filter.template))) return
  const language = languageOf(next, nc)
  const newTypes = typesOf(next, nc)
  const oldTypes = typesOf(old, oc)
  const receivers = () => dedupe(audiencesOf([...partiesOf(old, oc.id), ...partiesOf(next, id)], 'receives', id))
  for (const filter of oc.filters) {
    const now = nc.filters.find((x) => x.name === filter.name)
    const at = ptr.profile('channels', oc.id, 'filters', filter.name)
    const nowAt = ptr.profile('channels', id, 'filters', filter.name)
    if (!now) {
      f.add({
        rule: 'subject-filter-removed',
        level: 'breaking',
        audiences: receivers(),
        old: at,
        new: ptr.profileChannel(id),
        message: `Filter ${q(filter.name)} (${q(filter.template)}) of channel ${q(id)} was removed: subscribers that use it lose it.`,
        scope: { channel: id, in: 'new' },
      })
    }
    if (!language) continue
    // The old template, as subscribers keep using it, against the new channel: its placeholders read the new domains where they still exist.
    const types = Object.assign(Object.create(null) as Record<string, TokenType>, oldTypes, newTypes) as Record<string, TokenType>
    const typed = filter.tokens.every((t) => typeof t === 'string' || types[t.param])
    if (typed && !templateIntersects(filter.tokens, types, language)) {
      f.add({
        rule: 'subject-filter-disjoint',
        level: 'breaking',
        audiences: receivers(),
        old: at,
        new: now ? nowAt : addressPointer(nc),
        message: `Filter ${q(filter.name)} (${q(filter.template)}) no longer matches any subject of channel ${q(id)} (${q(nc.address ?? '')}): subscriptions made with it receive nothing.`,
        scope: { channel: id, in: 'new' },
      })
    } else if (now && now.template !== filter.template) {
      f.add({
        rule: 'subject-filter-changed',
        level: 'info',
        audiences: [],
        old: at,
        new: nowAt,
        message: `Filter ${q(filter.name)} of channel ${q(id)} changed from ${q(filter.template)} to ${q(now.template)}; the old template still matches subjects of the channel.`,
      })
    }
  }
}

/** A parameter map as text, independent of the order its keys are written in. */
/** The token types a channel's parameters name, as written (canonical JSON, an enum's values in sorted order: order is not meaning), by parameter. */
function definitions(v: Version, channel: ChannelModel): string {
  const types = typesOf(v, channel)
  const sorted = Object.fromEntries(
    Object.entries(types).map(([param, type]) => [param, type?.kind === 'enum' ? { ...type, values: [...type.values].sort() } : type]),
  )
  return canonicalize(sorted) ?? ''
}

const sortedEntries = (map: Record<string, string>) => JSON.stringify(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))

export function addressPointer(c: ChannelModel): string {
  return c.address === undefined ? ptr.channel(c.id) : ptr.of('channels', c.id, 'address')
}

export function dedupe<T extends { kind: string; name?: string }>(list: readonly T[]): T[] {
  const seen = new Set<string>()
  return list.filter((a) => {
    const key = `${a.kind}\u0000${a.name ?? ''}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
