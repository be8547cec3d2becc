/**
 * An outside pass on `contracts diff` (NATS), kept as a differential test: its verdicts about
 * messages (payloads, headers, messages added, removed and swapped) held to what the generated
 * clients do on a real nats-server. Written from the docs (docs/nats.md, docs/diff.md) by a pass that
 * read none of the differ's code; it found the diff reading headers as JSON values rather than maps
 * of strings, `Nats-` names compared as every client checks none of them, witnesses no client can
 * send, a message added not proven from its own side, and changes inside one message judged without
 * its siblings (src/formats/nats/diff/header-maps.ts, message-cover.ts, sibling-cover.ts).
 *
 * For each (old, new) pair of one small contract (one channel `ev`, a core send `pub`, a core
 * receive `sub`): the diff of the two versions; then every value of a small universe of (payload,
 * headers), and every witness the diff gave, sent through the OLD client's `publish` to a NEW
 * subscriber (publishers' direction) and through the NEW client's to an OLD subscriber
 * (subscribers'). What `publish` refuses is not counted; what the handler gets is accepted, what goes
 * to `onError` refused. A break seen where the diff says nothing breaks that audience, a breaking
 * finding whose witness the clients do not show, or a breaking finding without a witness where the
 * clients show no break, is a disagreement. Peers of `pub` are the document's own `sub` here, which
 * takes the whole channel: the diff's reading of a send operation's peers (they took what it
 * carried) is stricter, so `operation-message-added` on `pub` is not held to this oracle.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { diffContracts } from '../src/core/diff/runner.js'
import { compile } from '../src/index.js'
import { loadDiffer } from '../src/formats/diffs.js'
import { formats } from '../src/formats/index.js'
import { bindContract, type ContractModule } from '../src/runtime/nats/client/index.js'
import { loadModule } from './helpers/load-module.js'
import { connectedNatsServer, reached } from './helpers/nats-connected.js'

const WORK = join(import.meta.dirname, '.tmp/probe-diff-client', String(process.pid))

type Json = any
type Finding = { rule: string; level: string; audiences: { kind: string; name: string }[]; message: string; data?: any }

function makeDoc(messages: Json, schemas: Json = {}, extra: Json = {}): Json {
  return {
    asyncapi: '3.1.0',
    info: { title: 'Probe', version: '1.0.0' },
    'x-nats-contract': {
      version: '0.2.0-draft',
      contract: 'probe',
      deployment: { binding: 'probe-dev', minimumServerVersion: '2.11.0' },
      tokenTypes: {},
      channels: { ev: {} },
      operations: { pub: { publish: { api: 'core', confirmation: 'none' } }, sub: { subscribe: { api: 'core' } } },
    },
    channels: { ev: { address: 'probe.ev', messages } },
    operations: {
      pub: { action: 'send', channel: { $ref: '#/channels/ev' }, ...(extra.pubMessages ? { messages: extra.pubMessages } : {}) },
      sub: { action: 'receive', channel: { $ref: '#/channels/ev' }, ...(extra.subMessages ? { messages: extra.subMessages } : {}) },
    },
    components: { schemas, ...(extra.componentMessages ? { messages: extra.componentMessages } : {}) },
  }
}

const P = { type: 'object', properties: { a: { type: 'string' } } }
const KIND = (k: string) => ({ type: 'object', required: ['kind'], properties: { kind: { const: k }, a: { type: 'string' } } })
const HO = (props: Json, more: Json = {}) => ({ type: 'object', properties: props, ...more })
const one = (headers: Json, payload: Json = P) => ({ m: { payload, ...(headers === undefined ? {} : { headers }) } })
type Pair = { name: string; old: Json; new: Json }
const pair = (name: string, oldM: Json, newM: Json, oldS: Json = {}, newS: Json = {}, extraOld: Json = {}, extraNew: Json = {}): Pair => ({
  name,
  old: makeDoc(oldM, oldS, extraOld),
  new: makeDoc(newM, newS, extraNew),
})
const REQ_X = HO({ x: { type: 'string' } }, { required: ['x'] })
const REQ_Y = HO({ y: { type: 'string' } }, { required: ['y'] })

// Pairs whose verdicts agree with the clients (pinned as holding).
const HOLDING: Pair[] = [
  pair('h-strint-to-string', one(HO({ x: { type: ['string', 'integer'] } })), one(HO({ x: { type: 'string' } }))),
  pair('h-string-to-integer', one(HO({ x: { type: 'string' } })), one(HO({ x: { type: 'integer' } }))),
  pair('h-required-added', one(HO({ x: { type: 'string' } })), one(REQ_X)),
  pair('h-enum-value-removed', one(HO({ x: { type: 'string', enum: ['a', 'b'] } })), one(HO({ x: { type: 'string', enum: ['a'] } }))),
  pair('h-enum-nonstring-removed', one(HO({ x: { enum: [1, 'a'] } })), one(HO({ x: { enum: ['a'] } }))),
  pair('h-closed', one(HO({ x: { type: 'string' } })), one(HO({ x: { type: 'string' } }, { additionalProperties: false }))),
  pair(
    'h-ap-integer-to-string',
    one(HO({ x: { type: 'string' } }, { additionalProperties: { type: 'integer' } })),
    one(HO({ x: { type: 'string' } }, { additionalProperties: { type: 'string' } })),
  ),
  pair('h-open-nats-prop-added', one(HO({ x: { type: 'string' } })), one(HO({ x: { type: 'string' }, 'Nats-Foo': { type: 'string', enum: ['a'] } }))),
  pair('h-schema-added-required', one(undefined), one(REQ_X)),
  pair('h-schema-removed-closed', one(HO({ x: { type: 'string' } }, { additionalProperties: false })), one(undefined)),
  pair(
    'h-ref-chain',
    one({ $ref: '#/components/schemas/H1' }),
    one({ $ref: '#/components/schemas/H1' }),
    { H1: { $ref: '#/components/schemas/H2' }, H2: { $ref: '#/components/schemas/H3' }, H3: REQ_X },
    { H1: { $ref: '#/components/schemas/H2' }, H2: { $ref: '#/components/schemas/H3' }, H3: HO({ x: { type: 'string' } }) },
  ),
  pair('p-required-added', one(undefined, P), one(undefined, { ...P, required: ['a'] })),
  pair('p-closed', one(undefined, P), one(undefined, { ...P, additionalProperties: false })),
  pair('m-removed', { m: { payload: KIND('a') }, n: { payload: KIND('b') } }, { m: { payload: KIND('a') } }),
  pair('m-renamed', { m: { payload: KIND('a') } }, { m2: { payload: KIND('a') } }),
  pair(
    'm-removed-pair-witness',
    { m1: { payload: KIND('a'), headers: REQ_X }, m2: { payload: KIND('b'), headers: REQ_Y }, m3: { payload: KIND('a'), headers: REQ_Y } },
    { m1: { payload: KIND('a'), headers: REQ_X }, m2: { payload: KIND('b'), headers: REQ_Y } },
  ),
  pair(
    'm-added-no-headers-beside-headers',
    { m: { payload: KIND('a'), headers: REQ_X } },
    { m: { payload: KIND('a'), headers: REQ_X }, n: { payload: KIND('a') } },
  ),
  pair(
    'op-sub-list-narrowed',
    { m: { payload: KIND('a') }, n: { payload: KIND('b') } },
    { m: { payload: KIND('a') }, n: { payload: KIND('b') } },
    {},
    {},
    {},
    { subMessages: [{ $ref: '#/channels/ev/messages/m' }] },
  ),
]

const CLOSED_X = HO({ x: { type: 'string' } }, { additionalProperties: false })
const CLOSED_X_NATS = HO({ x: { type: 'string' }, 'Nats-Foo': { type: 'string', enum: ['a'] } }, { additionalProperties: false })
const D = {
  natsAdded: pair('h-closed-nats-prop-added', one(CLOSED_X), one(CLOSED_X_NATS)),
  natsRemoved: pair('h-closed-nats-prop-removed', one(CLOSED_X_NATS), one(CLOSED_X)),
  leadingSpace: pair('h-leading-space-refused', one(HO({ x: { type: 'string' } })), one(HO({ x: { type: 'string', pattern: '^$|^[^ \\t]' } }))),
  trailingSpace: pair('h-trailing-space-refused', one(HO({ x: { type: 'string' } })), one(HO({ x: { type: 'string', pattern: '^$|[^ \\t]$' } }))),
  namesPrintable: pair('h-propertynames-printable', one(HO({})), one(HO({}, { propertyNames: { pattern: '^[!-9;-~]+$' } }))),
  namesNoColon: pair('h-propertynames-nocolon', one(HO({})), one(HO({}, { propertyNames: { pattern: '^[^:]*$' } }))),
  addedKind: pair('m-added', { m: { payload: KIND('a') } }, { m: { payload: KIND('a') }, n: { payload: KIND('b') } }),
  addedPair: pair(
    'm-added-pair-witness',
    { m1: { payload: KIND('a'), headers: REQ_X }, m2: { payload: KIND('b'), headers: REQ_Y } },
    { m1: { payload: KIND('a'), headers: REQ_X }, m2: { payload: KIND('b'), headers: REQ_Y }, m3: { payload: KIND('a'), headers: REQ_Y } },
  ),
  swapped: pair('m-swapped', { m: { payload: KIND('a') }, n: { payload: KIND('b') } }, { m: { payload: KIND('b') }, n: { payload: KIND('a') } }),
  carriedHeaders: pair(
    'm-carried-by-open',
    { m: { payload: KIND('a'), headers: REQ_X }, any: { payload: {} } },
    { m: { payload: KIND('a'), headers: REQ_Y }, any: { payload: {} } },
  ),
  carriedPayload: pair(
    'm-payload-carried-by-open',
    { m: { payload: { type: 'object', required: ['a'], properties: { a: { type: 'string' } } } }, any: { payload: {} } },
    { m: { payload: { type: 'object', required: ['b'], properties: { b: { type: 'string' } } } }, any: { payload: {} } },
  ),
  swappedHeaders: pair(
    'm-swapped-headers',
    { m: { payload: KIND('a'), headers: REQ_X }, n: { payload: KIND('b') } },
    { m: { payload: KIND('b') }, n: { payload: KIND('a'), headers: REQ_X } },
  ),
  headersMoved: pair(
    'm-headers-moved-to-other',
    { m: { payload: P, headers: REQ_X }, n: { payload: KIND('b') } },
    { m: { payload: P }, n: { payload: KIND('b'), headers: REQ_X } },
  ),
}

// ---------------------------------------------------------------------------------------------
// The values sent: payloads and header maps around the pairs' schemas (header values with white
// space at an end, and names with a colon, which no client sends, among them).

const PAYLOADS: Json[] = [{}, { a: 's' }, { a: 1 }, { b: 's' }, { kind: 'a' }, { kind: 'b' }, { kind: 'c' }, { kind: 'a', a: 's' }, 'str', 5, null, { n: 1.5 }]
const HEADERS: (Record<string, string> | undefined)[] = [
  undefined,
  {},
  { x: '1' },
  { x: 'a' },
  { x: 'b' },
  { x: ' a' },
  { X: '1' },
  { y: '1' },
  { x: 'a', y: '1' },
  { 'Nats-Foo': 'a' },
  { 'Nats-Foo': 'zzz' },
  { 'a:b': '1' },
]
const key = (p: Json, h: Json) => JSON.stringify([p, h ?? null])
/** A finding's witness value: schema changes carry `{ value, acceptedBy }` (and `member` when it is a whole message's), message rules the bare value. */
const unwrap = (w: Json) => (w && typeof w === 'object' && !Array.isArray(w) && 'acceptedBy' in w && 'value' in w ? w.value : w)
const memberOf = (d: Json) => d.member ?? (d.witness && typeof d.witness === 'object' && 'acceptedBy' in d.witness ? d.witness.member : undefined) ?? 'payload'

function universe(extraP: Json[], extraH: Json[]): [Json, Json][] {
  const seen = new Set<string>()
  const out: [Json, Json][] = []
  for (const p of [...PAYLOADS, ...extraP])
    for (const h of [...HEADERS, ...extraH]) {
      const k = key(p, h)
      if (!seen.has(k)) {
        seen.add(k)
        out.push([p, h])
      }
    }
  return out
}

const nats = connectedNatsServer()
let counter = 0

async function version(name: string, doc: Json): Promise<{ file: string; module: ContractModule }> {
  const dir = join(WORK, `${name}-${counter++}`)
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `${name}.asyncapi.yaml`)
  writeFileSync(file, JSON.stringify(doc, null, 1))
  const result = await compile(file)
  const errors = result.diagnostics.filter((d) => d.severity === 'error')
  if (errors.length > 0 || result.code === undefined) throw new Error(`${name} does not compile: ${JSON.stringify(errors)}`)
  return { file, module: (await loadModule(result.code, 'probe-diff-client')) as unknown as ContractModule }
}

/**
 * Every value through `sender`'s `publish` to a subscriber of `receiver`, in order (core NATS keeps
 * one connection's order, and the client reports each message to its handler or `onError` in
 * arrival order); a bounded wait for the last.
 */
async function exchange(sender: ContractModule, receiver: ContractModule, values: [Json, Json][]) {
  const out: any = bindContract(sender, nats.nc, { allowOlderServer: true })
  const inbound: any = bindContract(receiver, nats.nc, { allowOlderServer: true })
  const verdicts: Array<{ ok: boolean; code?: string }> = []
  const sub = inbound.subscribe('sub', () => void verdicts.push({ ok: true }), {
    onError: (e: { code: string }) => void verdicts.push({ ok: false, code: e.code }),
  })
  await nats.nc.flush()
  const results: Array<{ p: Json; h: Json; sent: boolean; refused?: string; at?: number }> = []
  let sent = 0
  for (const [p, h] of values) {
    try {
      out.publish('pub', {}, p, h === undefined ? undefined : { headers: h })
      results.push({ p, h, sent: true, at: sent++ })
    } catch (e: any) {
      results.push({ p, h, sent: false, refused: e?.code ?? String(e) })
    }
  }
  await nats.nc.flush()
  await reached(() => verdicts.length, sent, 10_000)
  sub.unsubscribe?.()
  expect(verdicts.length, 'every message sent reached the subscriber').toBe(sent)
  return results.map((r) => ({ ...r, ...(r.at === undefined ? {} : verdicts[r.at]) })) as Array<{
    p: Json
    h: Json
    sent: boolean
    refused?: string
    ok?: boolean
    code?: string
  }>
}

const breakingFor = (f: Finding, kind: string) => f.level === 'breaking' && f.audiences.some((a) => a.kind === kind)
const heldToClients = (f: Finding) => !(f.rule === 'operation-message-added' && f.audiences.every((a) => a.name.startsWith('ev:pub')))

async function oracle(p: Pair) {
  const o = await version(`${p.name}-old`, p.old)
  const n = await version(`${p.name}-new`, p.new)
  const diffed = await diffContracts({ file: o.file }, { file: n.file }, { formats, loadDiffer })
  expect(diffed.valid, JSON.stringify([diffed.old.diagnostics, diffed.new.diagnostics])).toBe(true)
  const findings = (diffed.findings as unknown as Finding[]).filter(heldToClients)
  const extraP: Json[] = []
  const extraH: Json[] = []
  for (const f of findings) {
    const d = f.data ?? {}
    if (!('witness' in d)) continue
    const w = unwrap(d.witness)
    const member = memberOf(d)
    if (member === 'payload') extraP.push(w)
    else if (member === 'headers') extraH.push(w)
    else {
      extraP.push(w?.payload)
      extraH.push(w?.headers)
    }
  }
  const values = universe(extraP, extraH)
  const forward = await exchange(o.module, n.module, values) // old publisher -> new subscriber
  const backward = await exchange(n.module, o.module, values) // new publisher -> old subscriber
  const at = (results: typeof forward) => new Map(results.map((r) => [key(r.p, r.h), r]))
  const [fwd, bwd] = [at(forward), at(backward)]
  const pubBreaks = forward.filter((r) => r.sent && !r.ok)
  const subBreaks = backward.filter((r) => r.sent && !r.ok)
  const disagreements: unknown[] = []
  if (pubBreaks.length > 0 && !findings.some((f) => breakingFor(f, 'publisher')) && !findings.some((f) => f.level === 'warning'))
    disagreements.push({ kind: 'publisher break reported as not breaking', example: pubBreaks[0] })
  if (subBreaks.length > 0 && !findings.some((f) => breakingFor(f, 'subscriber')) && !findings.some((f) => f.level === 'warning'))
    disagreements.push({ kind: 'subscriber break reported as not breaking', example: subBreaks[0] })
  for (const f of findings) {
    if (f.level !== 'breaking') continue
    const d = f.data ?? {}
    const kinds = new Set(f.audiences.map((a) => a.kind))
    if ('witness' in d) {
      const w = unwrap(d.witness)
      const member = memberOf(d)
      const candidates: [Json, Json][] =
        member === 'payload'
          ? [...HEADERS, ...extraH].map((h) => [w, h])
          : member === 'headers'
            ? [...PAYLOADS, ...extraP].map((q) => [q, w])
            : [[w?.payload, w?.headers]]
      const shows = (index: Map<string, (typeof forward)[number]>) =>
        candidates.some(([a, b]) => index.get(key(a, b))?.sent === true && index.get(key(a, b))?.ok === false)
      if (!((kinds.has('publisher') && shows(fwd)) || (kinds.has('subscriber') && shows(bwd))))
        disagreements.push({ kind: 'breaking finding with a witness the clients do not show', rule: f.rule, audiences: [...kinds], member, witness: w })
    } else if (!((kinds.has('publisher') && pubBreaks.length > 0) || (kinds.has('subscriber') && subBreaks.length > 0)))
      disagreements.push({ kind: 'breaking finding (no witness) with no break on the clients', rule: f.rule, audiences: [...kinds] })
  }
  return { findings, pubBreaks, subBreaks, disagreements }
}

const brief = (fs: Finding[]) => fs.map((f) => `${f.level}:${f.rule}[${f.audiences.map((a) => a.kind).join(',')}]`)
const agrees = async (p: Pair) => {
  const r = await oracle(p)
  expect(r.disagreements, JSON.stringify({ findings: brief(r.findings), disagreements: r.disagreements }, null, 1)).toEqual([])
  return r
}

describe('contracts diff (NATS messages) against the generated clients on a real nats-server', () => {
  it.each(HOLDING.map((p) => [p.name, p] as const))('%s: every verdict agrees with the clients', async (_name, p) => {
    await agrees(p)
  })

  it('a removed message whose payload and headers survive only apart: breaking, with a {payload, headers} witness the clients confirm', async () => {
    const r = await agrees(HOLDING.find((p) => p.name === 'm-removed-pair-witness')!)
    const f = r.findings.find((x) => x.rule === 'message-removed')!
    expect([f.level, f.data.member]).toEqual(['breaking', 'message'])
  })

  it('a Nats- header a closed headers schema names, added or dropped: the break is the side whose client newly checks it', async () => {
    const added = await agrees(D.natsAdded)
    expect(added.pubBreaks.length).toBeGreaterThan(0)
    const dropped = await agrees(D.natsRemoved)
    expect(dropped.subBreaks.length).toBeGreaterThan(0)
  })

  it('a header pattern that refuses only white space at an end (which no client sends) breaks nobody and is never breaking', async () => {
    for (const p of [D.leadingSpace, D.trailingSpace]) {
      const r = await agrees(p)
      expect([r.pubBreaks.length, r.subBreaks.length, r.findings.filter((f) => f.level === 'breaking').length]).toEqual([0, 0, 0])
    }
  })

  it('header names limited to what a client sends anyway: no break, none reported', async () => {
    for (const p of [D.namesPrintable, D.namesNoColon]) {
      const r = await agrees(p)
      expect([r.pubBreaks.length, r.subBreaks.length, r.findings.filter((f) => f.level === 'breaking').length]).toEqual([0, 0, 0])
    }
  })

  it('a message added with a const-tagged payload, or with a payload and headers old messages took only apart: breaking, as the clients show', async () => {
    for (const p of [D.addedKind, D.addedPair]) {
      const r = await agrees(p)
      expect(r.findings.find((f) => f.rule === 'message-added')?.level).toBe('breaking')
    }
  })

  it('changes inside one message that its siblings still carry (messages swapped, a sibling taking any payload or headers, headers moved with the payload): no break, none reported', async () => {
    for (const p of [D.swapped, D.carriedHeaders, D.carriedPayload, D.swappedHeaders, D.headersMoved]) {
      const r = await agrees(p)
      expect(r.pubBreaks.length + (p === D.headersMoved ? 0 : r.subBreaks.length), p.name).toBe(0)
    }
  })
})
