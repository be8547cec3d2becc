/**
 * How clients reach the service: the Benzene-message-over-HTTP endpoint and the wired transports
 * (Benzene Contract Document §1), and each request topic's HTTP routes (§2 `httpMappings`). Anything
 * gone is breaking for the clients that used it; anything new is info. O(entries + mappings).
 */
import type { DiffFinding } from '../../../core/diff/types.js'
import type { RequestEntry } from '../../../runtime/benzene/document.js'
import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import type { Pair } from './entries.js'
import { client, quote, topicData } from './findings.js'
import type { BenzeneVersion, Indexed } from './side.js'

export function endpointFindings(old: BenzeneVersion, next: BenzeneVersion): DiffFinding[] {
  const was = typeof old.doc.messageEndpoint === 'string' ? old.doc.messageEndpoint : undefined
  const is = typeof next.doc.messageEndpoint === 'string' ? next.doc.messageEndpoint : undefined
  if (was === is) return []
  const data = { old: was, new: is }
  if (is === undefined)
    return [
      {
        rule: 'benzene-message-endpoint-removed',
        level: 'breaking',
        audiences: [client()],
        old: old.at('/messageEndpoint'),
        message: `The message endpoint ${quote(was!)} is gone: clients can no longer send Benzene messages over HTTP.`,
        data,
      },
    ]
  if (was === undefined)
    return [
      {
        rule: 'benzene-message-endpoint-added',
        level: 'info',
        audiences: [client()],
        new: next.at('/messageEndpoint'),
        message: `The service now takes Benzene messages over HTTP at ${quote(is)}.`,
        data,
      },
    ]
  return [
    {
      rule: 'benzene-message-endpoint-changed',
      level: 'breaking',
      audiences: [client()],
      old: old.at('/messageEndpoint'),
      new: next.at('/messageEndpoint'),
      message: `The message endpoint moved from ${quote(was)} to ${quote(is)}: clients that send to the old path can no longer send.`,
      data,
    },
  ]
}

/** A transport list as written (absent: none), first index of each name. */
function transports(version: BenzeneVersion): Map<string, number> {
  const out = new Map<string, number>()
  const list = version.doc.transports
  if (Array.isArray(list)) list.forEach((t, i) => typeof t === 'string' && !out.has(t) && out.set(t, i))
  return out
}

export function transportFindings(old: BenzeneVersion, next: BenzeneVersion): DiffFinding[] {
  const was = transports(old)
  const is = transports(next)
  const out: DiffFinding[] = []
  for (const [name, i] of was) {
    if (is.has(name)) continue
    out.push({
      rule: 'benzene-transport-removed',
      level: 'breaking',
      audiences: [client()],
      old: old.at(joinPointer('', 'transports', i)),
      message: `The service no longer receives over transport ${quote(name)}: clients routed over it can no longer reach any topic.`,
      data: { transport: name },
    })
  }
  for (const [name, i] of is) {
    if (was.has(name)) continue
    out.push({
      rule: 'benzene-transport-added',
      level: 'info',
      audiences: [client()],
      new: next.at(joinPointer('', 'transports', i)),
      message: `The service now receives over transport ${quote(name)}.`,
      data: { transport: name },
    })
  }
  return out
}

/**
 * An entry's routes by `METHOD path`: methods compared without case (producers write `get` or `GET`;
 * HTTP servers route on the method whatever its spelling here), paths exactly.
 */
function routes(entry: RequestEntry): Map<string, { method: string; path: string; index: number }> {
  const out = new Map<string, { method: string; path: string; index: number }>()
  const list = entry.httpMappings
  if (!Array.isArray(list)) return out
  list.forEach((m, index) => {
    if (typeof m?.method !== 'string' || typeof m.path !== 'string') return
    const key = `${m.method.toUpperCase()} ${m.path}`
    if (!out.has(key)) out.set(key, { method: m.method, path: m.path, index })
  })
  return out
}

export function httpMappingFindings(old: BenzeneVersion, next: BenzeneVersion, pairs: readonly Pair<RequestEntry>[]): DiffFinding[] {
  const out: DiffFinding[] = []
  const listOrEntry = (side: Indexed<RequestEntry>) => (Array.isArray(side.entry.httpMappings) ? `${side.pointer}/httpMappings` : side.pointer)
  for (const p of pairs) {
    const was = routes(p.old.entry)
    const is = routes(p.new.entry)
    for (const [key, route] of was) {
      if (is.has(key)) continue
      out.push({
        rule: 'benzene-http-mapping-removed',
        level: 'breaking',
        audiences: [client(p.old.label)],
        old: old.at(joinPointer(p.old.pointer, 'httpMappings', route.index)),
        new: next.at(listOrEntry(p.new)),
        message: `The request topic ${quote(p.old.label)} is no longer reachable at ${quote(`${route.method} ${route.path}`)}: clients that call that route over HTTP can no longer reach it.`,
        data: { ...topicData(p.old.entry), method: route.method, path: route.path },
      })
    }
    for (const [key, route] of is) {
      if (was.has(key)) continue
      out.push({
        rule: 'benzene-http-mapping-added',
        level: 'info',
        audiences: [client(p.new.label)],
        old: old.at(listOrEntry(p.old)),
        new: next.at(joinPointer(p.new.pointer, 'httpMappings', route.index)),
        message: `The request topic ${quote(p.new.label)} is now reachable at ${quote(`${route.method} ${route.path}`)}.`,
        data: { ...topicData(p.new.entry), method: route.method, path: route.path },
      })
    }
  }
  return out
}
