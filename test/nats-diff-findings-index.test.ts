/**
 * The NATS differ's indexes, held to the plain walks they replace: relaying payload findings to
 * interactions reads them by channel (interactions.ts `relayPayloads`), run on drafts that exercise
 * what the index could get wrong (findings of several channels interleaved, `info` ones, channels
 * with no finding, an interaction new in this version) and compared with the scan written here.
 * A message's place (payloads.ts `messageAt`) is kept per version, with the value the walk read,
 * and held to the walk by pointer that the payload and headers comparisons made each.
 */
import { enclosingPointer, existingPointer } from '../src/core/diff/enclosing.js'
import { describe, expect, it } from 'vitest'
import type { DiffAudience, DiffLevel } from '../src/core/diff/types.js'
import { Findings, compareFindings, version as versionOf, type Draft, type Version } from '../src/formats/nats/diff/context.js'
import { relayPayloads } from '../src/formats/nats/diff/interactions.js'
import { localPointer, memberOfMessage, messageAt, reachesOtherFile, valueAt } from '../src/formats/nats/diff/payloads.js'
import type { NatsModel } from '../src/formats/nats/model.js'
import type { DiffFinding, DiffSide } from '../src/core/diff/types.js'
import { joinPointer } from '../src/runtime/shared/json-pointer.js'
import { random } from './helpers/seeded-random.js'

const RANK: Record<DiffLevel, number> = { info: 0, warning: 1, breaking: 2 }

/** The relay as a scan of every payload finding per interaction and side (what `relayPayloads` did before its index). */
function plainRelay(f: Findings, payloadDrafts: readonly Draft[]): void {
  const channelOf = (op: unknown) => (typeof op === 'string' ? f.next.operations.get(op)?.channel : undefined)
  const receivers = new Set(['subscriber', 'responder', 'requester'])
  for (const i of f.next.model.interactions) {
    if (!f.old.model.interactions.some((o) => o.id === i.id)) continue
    for (const [member, request] of [
      ['requestOperation', true],
      ['resultOperation', false],
    ] as const) {
      const channel = channelOf(i.data[member])
      if (channel === undefined) continue
      const hits = payloadDrafts.filter((d) => d.level !== 'info' && d.data?.channel === channel)
      if (hits.length === 0) continue
      let level: DiffLevel = 'info'
      const audiences = new Map<string, DiffAudience>()
      for (const d of hits) {
        if (RANK[d.level] > RANK[level]) level = d.level
        for (const a of d.audiences) {
          const audience: DiffAudience = receivers.has(a.kind) === request ? { kind: 'peer', name: `${i.id} (peers)` } : { kind: 'invoker', name: i.id }
          audiences.set(audience.kind, audience)
        }
      }
      f.add({
        rule: 'nats-interaction-payload-changed',
        level,
        audiences: [...audiences.values()].sort((a, b) => (a.kind < b.kind ? -1 : 1)),
        old: `/x-nats-contract/interactions/${i.id}/${member}`,
        new: `/x-nats-contract/interactions/${i.id}/${member}`,
        message: `Interaction ${JSON.stringify(i.id)}: the ${request ? 'request' : 'result'} messages of ${JSON.stringify(String(i.data[member]))} on channel ${JSON.stringify(channel)} changed (${[...new Set(hits.map((d) => d.rule))].sort().join(', ')}): ${request ? 'peers receive, and the executor sends,' : 'peers send, and the executor receives,'} what the findings on that channel say.`,
        data: { interaction: i.id, channel, rules: [...new Set(hits.map((d) => d.rule))].sort() },
      })
    }
  }
}

/** A version with what the relay reads: operations by id and interactions. */
function version(file: string, interactions: string[], operations: Record<string, string>): Version {
  return {
    model: { interactions: interactions.map((id) => ({ id, data: { requestOperation: `${id}Request`, resultOperation: `${id}Result` } })) },
    operations: new Map(Object.entries(operations).map(([id, channel]) => [id, { id, channel }])),
  } as unknown as Version
}

const audience = (kind: string, name: string): DiffAudience => ({ kind, name }) as DiffAudience

/** Payload findings on channels a to d, interleaved, at every level, some for channels no interaction uses. */
function payloadDrafts(): Draft[] {
  const drafts: Draft[] = []
  const levels: DiffLevel[] = ['breaking', 'info', 'warning', 'breaking', 'info']
  const kinds = ['publisher', 'subscriber', 'responder', 'requester']
  for (let i = 0; i < 40; i++) {
    const channel = ['a', 'b', 'c', 'd', 'e'][i % 5]!
    drafts.push({
      rule: `schema-rule-${i % 3}`,
      level: levels[i % levels.length]!,
      audiences: [audience(kinds[i % 4]!, `${channel}:op${i}`)],
      old: `/components/schemas/S${i}`,
      new: `/components/schemas/S${i}`,
      message: `finding ${i}`,
      data: { channel, message: 'm' },
      scope: { channel, in: 'new' },
    })
  }
  return drafts
}

describe('the NATS differ reads findings by index as the plain scans do', () => {
  it('relays to each interaction the findings of its channels, in their order, without the info ones', () => {
    const operations = { xRequest: 'a', xResult: 'b', yRequest: 'c', yResult: 'a', zRequest: 'e', zResult: 'q' }
    const make = () => new Findings(version('old.yaml', ['x', 'y', 'gone'], operations), version('new.yaml', ['x', 'y', 'z'], operations))
    const drafts = payloadDrafts()
    const indexed = make()
    relayPayloads(indexed, drafts)
    const plain = make()
    plainRelay(plain, drafts)
    expect(indexed.drafts.length).toBeGreaterThan(0)
    expect(indexed.drafts).toEqual(plain.drafts)
    // x's result channel b has only info findings and z is new: neither is relayed; y relays c's and a's.
    expect(indexed.drafts.map((d) => d.data?.interaction)).toEqual(['x', 'y', 'y'])
  })
})

describe("a message's place, kept per version", () => {
  it('is the pointer and value the plain walk by pointer reads, payload and headers included', () => {
    // A chain of local references, one past the hops the walk follows, one broken, one into an array, one escaped.
    const messages: Record<string, unknown> = { plain: { payload: { type: 'string' }, headers: { type: 'object' } } }
    for (let i = 0; i < 40; i++) messages[`hop${i}`] = { $ref: `#/components/messages/hop${i + 1}` }
    messages.hop40 = { payload: { type: 'number' } }
    const doc = {
      channels: {
        'a/b~c': {
          messages: {
            direct: { payload: { type: 'integer' } },
            chained: { $ref: '#/components/messages/plain' },
            long: { $ref: '#/components/messages/hop0' },
            broken: { $ref: '#/components/messages/none' },
            listed: { $ref: '#/components/list/1' },
            escaped: { $ref: '#/components/messages/a~1b%7E0' },
          },
        },
      },
      components: { messages: { ...messages, 'a/b~': { payload: true } }, list: [{}, { payload: { type: 'null' } }] },
    }
    const v = { doc: { file: 'doc.yaml', value: doc }, messages: new Map() } as unknown as Version
    for (const name of ['direct', 'chained', 'long', 'broken', 'listed', 'escaped', 'absent']) {
      const plainPointer = (() => {
        let pointer = joinPointer('', 'channels', 'a/b~c', 'messages', name)
        for (let hops = 0; hops < 32; hops++) {
          const node = valueAt(doc, pointer)
          const next =
            node !== null && typeof node === 'object' && typeof (node as { $ref?: unknown }).$ref === 'string'
              ? localPointer((node as { $ref: string }).$ref)
              : undefined
          if (next === undefined) break
          pointer = next
        }
        return pointer
      })()
      const at = messageAt(v, 'a/b~c', name)
      expect(at.pointer).toBe(plainPointer)
      expect(messageAt(v, 'a/b~c', name)).toBe(at)
      for (const member of ['payload', 'headers']) expect(memberOfMessage(doc, at, member)).toBe(valueAt(doc, joinPointer(plainPointer, member)))
    }
    expect(memberOfMessage(doc, messageAt(v, 'a/b~c', 'long'), 'payload')).toBeUndefined()
    expect(memberOfMessage(doc, messageAt(v, 'a/b~c', 'escaped'), 'payload')).toBe(true)
  })
})

describe('findings deduplicated without a key text (context.ts `located`)', () => {
  /** A version whose document places every pointer at line 1 (what `located` reads of it). */
  const placed = (file: string) => ({ doc: { file, value: { a: 1 }, at: (pointer: string) => ({ file, pointer, line: 1, column: 1 }) } }) as unknown as Version

  /** The plain dedupe: a JSON text of what the finding shows as its key, the first draft of each kept. */
  function plainLocated(f: Findings, drafts: readonly Draft[]): DiffFinding[] {
    const seen = new Set<string>()
    const out: DiffFinding[] = []
    for (const d of drafts) {
      const key = JSON.stringify([d.rule, d.level, d.old, d.new, d.message, d.audiences])
      if (seen.has(key)) continue
      seen.add(key)
      const finding: DiffFinding = { rule: d.rule, level: d.level, audiences: d.audiences, message: d.message }
      // Placed as `located` places them (this test is about which drafts are kept).
      finding.old = f.old.doc.at(d.old !== undefined ? existingPointer(f.old.doc.value, d.old) : enclosingPointer(f.old.doc.value, d.new ?? ''))
      finding.new = f.next.doc.at(d.new !== undefined ? existingPointer(f.next.doc.value, d.new) : enclosingPointer(f.next.doc.value, d.old ?? ''))
      if (d.data !== undefined) finding.data = d.data
      out.push(finding)
    }
    return out.sort(compareFindings)
  }

  it('keeps the findings a JSON key of each draft kept, on drafts that differ in one member at a time', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const next = random(seed)
      const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!
      const drafts: Draft[] = []
      for (let i = 0; i < 1500; i++) {
        const audiences = Array.from({ length: Math.floor(next() * 2) }, () => {
          const name = pick([undefined, 'a'])
          return name === undefined ? ({ kind: pick(['publisher', 'subscriber']) } as DiffAudience) : audience(pick(['publisher', 'subscriber']), name)
        })
        drafts.push({
          rule: pick(['r1', 'r2']),
          level: pick(['warning', 'breaking'] as const),
          audiences,
          ...(next() < 0.8 ? { old: pick(['/a', '']) } : {}),
          ...(next() < 0.8 ? { new: pick(['/a', '']) } : {}),
          message: pick(['one', '']),
          data: { i },
        })
      }
      const f = new Findings(placed('old.yaml'), placed('new.yaml'))
      const located = f.located(drafts)
      expect(located).toEqual(plainLocated(f, drafts))
      // The domains are small: most drafts repeat one before them.
      expect(located.length).toBeLessThan(drafts.length / 2)
    }
  })
})

describe('whether a payload reaches another file (payloads.ts `reachesOtherFile`)', () => {
  const side = () =>
    ({
      file: '/c/doc.yaml',
      model: { channels: [], operations: [], streams: [], consumers: [] } as unknown as NatsModel,
      read: async () => '',
    }) as DiffSide<NatsModel>
  const versionFor = (doc: unknown) =>
    versionOf(side(), { file: '/c/doc.yaml', value: doc, at: (pointer) => ({ file: '/c/doc.yaml', pointer, line: 1, column: 1 }) })
  const payload = { type: 'object', properties: { a: { $ref: '#/components/schemas/A' } } }

  it('answers no without a walk where no reference of the document names another file', () => {
    const doc = {
      components: { schemas: { A: { $ref: '#/components/schemas/B' }, B: { type: 'string' }, Escaped: { $ref: '#/components/schemas/a%7E1b' } } },
      payload,
    }
    const v = versionFor(doc)
    expect(v.namesOtherFile).toBe(false)
    expect(reachesOtherFile(v, '/payload')).toBe(false)
    expect(v.refSummaries.size).toBe(0)
  })

  it('walks where one does, and says yes only for a payload that reaches it', () => {
    for (const other of ['./other.yaml#/S', 'other.yaml', '#/components/schemas/%E0%A4%A']) {
      const doc = { components: { schemas: { A: { type: 'string' }, Far: { $ref: other } } }, payload, far: { $ref: '#/components/schemas/Far' } }
      const v = versionFor(doc)
      expect(v.namesOtherFile, other).toBe(true)
      expect(reachesOtherFile(v, '/payload'), other).toBe(false)
      expect(reachesOtherFile(v, '/far'), other).toBe(true)
    }
  })
})
