/**
 * An outside hostile pass on what was added today: NATS standard parts given as Reference Objects,
 * inline options groups leading a pattern (every format), DASP items schemas in the dialect their
 * `$schema` names and git's scp-like repository in a pin, and FIFOs at every file a compile reads.
 * Written from the docs (docs/nats.md, docs/benzene.md, docs/dasp.md, docs/reliability.md), as a
 * team whose contracts another team builds would attack them. Tests marked DEFECT fail on the
 * defect they describe; "Holds (pinned)" tests pin behaviour that held.
 */
import { execFileSync, spawn } from 'node:child_process'
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile, ContractCompiler, formats, inspect, natsFormat } from '../src/index.js'
import type { NatsModel } from '../src/index.js'
import { natsDiffer } from '../src/formats/nats/diff/index.js'
import { createLocalSender } from '../src/runtime/index.js'
import { CLI } from './helpers/cli.js'
import { waitingWriter } from './helpers/fifo-writer.js'
import { loadModule } from './helpers/load-module.js'
import { ShopBundle } from './helpers/nats-bundle.js'

const work = join(import.meta.dirname, '.tmp/probe-hostile-today')
const fixtures = join(import.meta.dirname, '../fixtures')
const ledger = readFileSync(join(fixtures, 'nats/valid/ledger.asyncapi.yaml'), 'utf8')

type Result = Awaited<ReturnType<typeof compile>>
let count = 0

beforeAll(() => {
  rmSync(work, { recursive: true, force: true })
  mkdirSync(work, { recursive: true })
})

/** `text` with `from` replaced by `to` (taken literally, never as a `$` pattern), where `from` occurs exactly once. */
function edit(text: string, from: string, to: string): string {
  expect(text.split(from).length, from).toBe(2)
  return text.replace(from, () => to)
}

async function natsCompile(text: string, options?: Record<string, unknown>): Promise<Result> {
  const file = join(work, `n${count++}.asyncapi.yaml`)
  writeFileSync(file, text)
  return compile(file, options)
}

const codes = (r: Result) => r.diagnostics.map((d) => d.code)
const errors = (r: Result) => r.diagnostics.filter((d) => d.severity === 'error')

/** Every diagnostic is structured: a file, a JSON pointer (string), a line and a column of at least 1. */
function expectStructured(r: Result, label: string) {
  expect(codes(r), label).not.toContain('CONTRACTS_INTERNAL')
  for (const d of r.diagnostics) {
    expect(typeof d.file, `${label} ${d.code}`).toBe('string')
    expect(typeof d.pointer, `${label} ${d.code}`).toBe('string')
    expect(d.line >= 1 && d.column >= 1, `${label} ${d.code} at ${d.line}:${d.column}`).toBe(true)
  }
}

/** A promise that settles within `ms`, or 'TIMEOUT'. */
function bounded<T>(p: Promise<T>, ms = 10_000): Promise<T | 'TIMEOUT'> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([p, new Promise<'TIMEOUT'>((resolve) => (timer = setTimeout(() => resolve('TIMEOUT'), ms)))]).finally(() => clearTimeout(timer))
}

/** The built `contracts` binary, asynchronously (so several run at once), killed after `ms`. */
function contractsAsync(args: string[], cwd: string, ms = 10_000): Promise<{ status: number | null; stdout: string; stderr: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    let timedOut = false
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString('utf8')))
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')))
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, ms)
    child.on('close', (status) => {
      clearTimeout(timer)
      resolve({ status, stdout, stderr, timedOut })
    })
  })
}

// ---------------------------------------------------------------------------------------------
// The ledger's parts, cut out to be replaced by references.
const entryPosted = ledger.slice(ledger.indexOf('  entryPosted:\n    address:'), ledger.indexOf('  balanceQuery:\n    address:'))
const balanceReply = '  balanceReply:\n    messages:\n      balance:\n        payload: { type: object, properties: { cents: { type: integer } } }\n'
const answerBalance = "  answerBalance:\n    action: receive\n    channel: { $ref: '#/channels/balanceQuery' }\n"
const queryReply = "    reply:\n      channel: { $ref: '#/channels/balanceReply' }\n"
const accountParameter = '    parameters:\n      account: {}\n'
const indent = (s: string) =>
  s
    .split('\n')
    .map((l) => (l ? `  ${l}` : l))
    .join('\n')
/** Adds `x-n: <value>` at the document's root (a target of another kind than the position holds). */
const withValue = (text: string, value: string) => edit(text, 'info:\n', `x-n: ${value}\ninfo:\n`)
const withComponents = (text: string, yaml: string) => edit(text, 'components:\n', `components:\n${yaml}`)

describe('NATS: root channels, operations, replies and parameters given by reference', () => {
  it('Holds (pinned): a reference that names nothing, a prototype member, the root of the document, a URL or an unlocked file is reported at the $ref', async () => {
    const unresolved = ['#/', '#/components/channels/__proto__', '#/__proto__/x', '#/constructor', '#/constructor/prototype', '#/components/channels/a~2b']
    for (const target of unresolved) {
      for (const [position, text] of [
        ['channel', edit(ledger, entryPosted, `  entryPosted:\n    $ref: '${target}'\n`)],
        ['operation', edit(ledger, answerBalance, `  answerBalance: { $ref: '${target}' }\n`)],
      ] as const) {
        const r = await natsCompile(text)
        expectStructured(r, `${position} ${target}`)
        expect(r.code, `${position} ${target}`).toBeUndefined()
        const at = r.diagnostics.find((d) => d.code === 'NATS_REF_UNRESOLVED')
        expect(at?.pointer, `${position} ${target}`).toMatch(/^\/(channels\/entryPosted|operations\/answerBalance)\/\$ref$/)
      }
    }
    const remote = await natsCompile(edit(ledger, answerBalance, "  answerBalance: { $ref: 'https://example.com/x.yaml#/a' }\n"))
    expect(remote.diagnostics.map((d) => [d.code, d.pointer])).toEqual([['NATS_REMOTE_REF', '/operations/answerBalance/$ref']])
    const other = await natsCompile(edit(ledger, entryPosted, "  entryPosted:\n    $ref: 'other.yaml#/x'\n"))
    expect(other.diagnostics.map((d) => [d.code, d.pointer])).toEqual([['NATS_BUNDLE_REQUIRED', '/channels/entryPosted/$ref']])
    // A reference to the whole document, or to an object of another kind, is read as that object
    // in place and refused for its members (never a crash).
    for (const text of [
      edit(ledger, entryPosted, "  entryPosted:\n    $ref: '#'\n"),
      edit(ledger, entryPosted, "  entryPosted:\n    $ref: '#/operations/postEntry'\n"),
      edit(ledger, answerBalance, "  answerBalance: { $ref: '#' }\n"),
      edit(ledger, answerBalance, "  answerBalance: { $ref: '#/channels/balanceQuery' }\n"),
      edit(ledger, accountParameter, "    parameters:\n      account: { $ref: '#/operations/answerBalance' }\n"),
      edit(ledger, accountParameter, "    parameters:\n      account: { $ref: '#' }\n"),
    ]) {
      const r = await natsCompile(text)
      expectStructured(r, text.slice(0, 0))
      expect(r.code).toBeUndefined()
      expect(codes(r)).toContain('NATS_ASYNCAPI_SCHEMA')
    }
    // A parameter that names a string, a number, null or an array: NATS_REF_KIND at the reference.
    for (const value of ["'s'", '5', 'null', '[1]']) {
      const r = await natsCompile(withValue(edit(ledger, accountParameter, "    parameters:\n      account: { $ref: '#/x-n' }\n"), value))
      expect(
        r.diagnostics.map((d) => [d.code, d.pointer]),
        value,
      ).toEqual([['NATS_REF_KIND', '/channels/balanceQuery/parameters/account/$ref']])
    }
  })

  it('Holds (pinned): percent-encoded and ~1-escaped pointers name the component they spell', async () => {
    const percent = withComponents(
      edit(ledger, entryPosted, "  entryPosted:\n    $ref: '#/components/channels/entry%50osted'\n"),
      `  channels:\n${indent(entryPosted)}`,
    )
    const tilde = withComponents(
      edit(ledger, entryPosted, "  entryPosted:\n    $ref: '#/components/channels/a~1b'\n"),
      `  channels:\n${indent(entryPosted.replace('entryPosted:', "'a/b':"))}`,
    )
    for (const text of [percent, tilde]) {
      const r = await natsCompile(text)
      expect(r.diagnostics).toEqual([])
      expect(r.code).toBeTruthy()
    }
  })

  it('Holds (pinned): __proto__, constructor and prototype as component names referenced, and as root channel ids given by reference', async () => {
    for (const id of ['__proto__', 'constructor', 'prototype']) {
      const component = await natsCompile(
        withComponents(
          edit(ledger, entryPosted, `  entryPosted:\n    $ref: '#/components/channels/${id}'\n`),
          `  channels:\n${indent(entryPosted.replace('entryPosted:', `${id}:`))}`,
        ),
      )
      expect(component.diagnostics, id).toEqual([])
      const root = await natsCompile(
        withComponents(
          edit(ledger, balanceReply, `  ${id}: { $ref: '#/components/channels/R' }\n${balanceReply}`),
          '  channels:\n    R:\n      messages:\n        m: { payload: { type: string } }\n',
        ),
      )
      expect(root.diagnostics, id).toEqual([])
      const channels = (await loadModule(root.code!, 'probe-hostile-proto')).channels as Record<string, { validatePayload(v: unknown): boolean }>
      expect(Object.hasOwn(channels, id), id).toBe(true)
      expect([channels[id]!.validatePayload('x'), channels[id]!.validatePayload(5)], id).toEqual([true, false])
      // Nothing leaked onto Object.prototype (the module's `channels` has no prototype at all).
      expect(({} as Record<string, unknown>).validatePayload, id).toBeUndefined()
    }
  })

  it('Was a defect (fixed): a root channel that refers to itself, to a cycle, or to a string, a number, null or an array compiles with no diagnostic', async () => {
    // DEFECT: the reply channel `balanceReply: { $ref: '#/channels/balanceReply' }` (and a -> b -> a
    // through components, and a $ref to `info.title`, a number, `null`, `[1]`) compiles to a module
    // with no diagnostic at all: the channel is read as a channel without messages (contracts diff
    // from the inline ledger reports "message-removed"), so the
    // request's reply is no longer validated. Expected: an error at the reference (NATS_REF_KIND, or a
    // cycle reported where it is written), as a parameter's reference to a string is. It matters
    // because "bad input is never silently accepted": another team's broken contract builds, and the
    // client quietly stops checking replies. (The same edit on an addressed channel is reported only
    // indirectly, as "has no address (a reply channel)" at x-nats-contract.)
    const cases: Array<[string, string]> = [
      ['self', edit(ledger, balanceReply, "  balanceReply: { $ref: '#/channels/balanceReply' }\n")],
      [
        'a-b-a',
        withComponents(
          edit(ledger, balanceReply, "  balanceReply: { $ref: '#/components/channels/a' }\n"),
          "  channels:\n    a: { $ref: '#/components/channels/b' }\n    b: { $ref: '#/components/channels/a' }\n",
        ),
      ],
      ['string', edit(ledger, balanceReply, "  balanceReply: { $ref: '#/info/title' }\n")],
      ...['5', 'null', '[1]'].map((v): [string, string] => [v, withValue(edit(ledger, balanceReply, "  balanceReply: { $ref: '#/x-n' }\n"), v)]),
    ]
    const silent: string[] = []
    for (const [name, text] of cases) {
      const r = await natsCompile(text)
      expectStructured(r, name)
      if (errors(r).length === 0) silent.push(name)
    }
    expect(silent).toEqual([])
  })

  it('Was a defect (fixed): a root operation that refers to itself, to a cycle or to a value of another kind is an internal error', async () => {
    // DEFECT: `answerBalance: { $ref: '#/operations/answerBalance' }`, a -> b -> a through
    // components.operations, or a $ref to a string, a number, `null` or an array: CONTRACTS_INTERNAL
    // "the NATS module cannot write the action of operation answerBalance" (a crash), where a
    // reference to `#/` or to `__proto__` at the same place is NATS_REF_UNRESOLVED at the $ref.
    // Expected: a diagnostic at /operations/answerBalance/$ref. It matters: the rules say bad input
    // never crashes, and the message asks the user to report a compiler bug for their own typo.
    const cases: Array<[string, string]> = [
      ['self', edit(ledger, answerBalance, "  answerBalance: { $ref: '#/operations/answerBalance' }\n")],
      [
        'a-b-a',
        withComponents(
          edit(ledger, answerBalance, "  answerBalance: { $ref: '#/components/operations/o0' }\n"),
          "  operations:\n    o0: { $ref: '#/components/operations/o1' }\n    o1: { $ref: '#/components/operations/o0' }\n",
        ),
      ],
      ['string', edit(ledger, answerBalance, "  answerBalance: { $ref: '#/info/title' }\n")],
      ...['5', 'null', '[1]'].map((v): [string, string] => [v, withValue(edit(ledger, answerBalance, "  answerBalance: { $ref: '#/x-n' }\n"), v)]),
    ]
    const outcome: Record<string, string[]> = {}
    for (const [name, text] of cases) {
      const r = await natsCompile(text)
      outcome[name] = [...new Set(codes(r))]
      expect(r.code, name).toBeUndefined()
    }
    expect(
      Object.entries(outcome)
        .filter(([, found]) => found.includes('CONTRACTS_INTERNAL'))
        .map(([name]) => name),
    ).toEqual([])
  })

  it('Was a defect (fixed): a channel parameter that refers to itself, or to a cycle, compiles with no diagnostic', async () => {
    // DEFECT: `account: { $ref: '#/channels/balanceQuery/parameters/account' }` and a -> b -> a
    // through components.parameters compile cleanly (a module, no diagnostic). A parameter's
    // reference to a string is NATS_REF_KIND; a cycle names no parameter at all. Expected: an error at
    // the reference. It matters: a cycle is a broken document, and "silently accepted" is one of the
    // outcomes the rules forbid.
    const cases: Array<[string, string]> = [
      ['self', edit(ledger, accountParameter, "    parameters:\n      account: { $ref: '#/channels/balanceQuery/parameters/account' }\n")],
      [
        'a-b-a',
        withComponents(
          edit(ledger, accountParameter, "    parameters:\n      account: { $ref: '#/components/parameters/a' }\n"),
          "  parameters:\n    a: { $ref: '#/components/parameters/b' }\n    b: { $ref: '#/components/parameters/a' }\n",
        ),
      ],
    ]
    const silent: string[] = []
    for (const [name, text] of cases) {
      const r = await natsCompile(text)
      expectStructured(r, name)
      if (errors(r).length === 0) silent.push(name)
    }
    expect(silent).toEqual([])
  })

  /** The ledger with entryPosted moved to components as `c<n>`, reached from the root through `n` references. */
  const channelChain = (n: number) => {
    let chain = '  channels:\n'
    for (let i = 0; i < n; i++) chain += `    c${i}: { $ref: '#/components/channels/c${i + 1}' }\n`
    chain += indent(entryPosted.replace('entryPosted:', `c${n}:`))
    return withComponents(edit(ledger, entryPosted, "  entryPosted:\n    $ref: '#/components/channels/c0'\n"), chain)
  }

  it('Was a defect (fixed): a reference to a component that is itself a reference (two hops, or 30) is not followed', async () => {
    // DEFECT: root `entryPosted: { $ref: '#/components/channels/c0' }` with `c0: { $ref:
    // '#/components/channels/c1' }` and c1 the channel: refused with NATS_PARAMETERS_MISMATCH
    // "address none (the channel has no address)", NATS_STREAM_CAPTURE and NATS_CONSUMER_FILTER at
    // x-nats-contract: the second hop is never read, and the channel is taken for an empty reply
    // channel. The same for a root operation (c0 -> c1: CONTRACTS_INTERNAL) and a reply
    // (`reply: { $ref: r0 }`, r0 -> r1: NATS_REQUEST_REPLY "needs a standard reply with a channel").
    // Expected: the contract compiles as the one-hop form does (AsyncAPI 3.1.0: components.channels,
    // .operations and .replies each take "... | Reference Object"; docs/nats.md: read "as if written
    // in place"). It matters: a shared definition re-exported under a second name is ordinary, and a
    // component channel read as empty loses its messages' validation (see the diff test below).
    const oneHop = withComponents(
      edit(ledger, entryPosted, "  entryPosted:\n    $ref: '#/components/channels/c1'\n"),
      `  channels:\n${indent(entryPosted.replace('entryPosted:', 'c1:'))}`,
    )
    expect((await natsCompile(oneHop)).diagnostics).toEqual([])
    const found: Record<string, string[]> = {}
    for (const n of [1, 30]) found[`channel, ${n + 1} hops`] = codes(await natsCompile(channelChain(n)))
    found['operation, 2 hops'] = codes(
      await natsCompile(
        withComponents(
          edit(ledger, answerBalance, "  answerBalance: { $ref: '#/components/operations/o0' }\n"),
          "  operations:\n    o0: { $ref: '#/components/operations/o1' }\n    o1:\n      action: receive\n      channel: { $ref: '#/channels/balanceQuery' }\n",
        ),
      ),
    )
    found['reply, 2 hops'] = codes(
      await natsCompile(
        withComponents(
          edit(ledger, queryReply, "    reply: { $ref: '#/components/replies/r0' }\n"),
          "  replies:\n    r0: { $ref: '#/components/replies/r1' }\n    r1:\n      channel: { $ref: '#/channels/balanceReply' }\n",
        ),
      ),
    )
    expect(found).toEqual({ 'channel, 2 hops': [], 'channel, 31 hops': [], 'operation, 2 hops': [], 'reply, 2 hops': [] })
  })

  it('Holds (pinned): chains of 33 and 1,000 references end in a located diagnostic, never a crash or a hang', async () => {
    for (const n of [33, 1000]) {
      const r = await bounded(natsCompile(channelChain(n)))
      expect(r, String(n)).not.toBe('TIMEOUT')
      expectStructured(r as Result, String(n))
    }
  })

  it('Holds (pinned): one component channel referenced by 500 and by 5,000 root channels compiles, each channel its own', async () => {
    const many = (n: number, salt: number) => {
      let channels = ''
      for (let i = 0; i < n; i++) channels += `  r${i}: { $ref: '#/components/channels/R' }\n`
      return `# ${salt}\n${withComponents(edit(ledger, balanceReply, balanceReply + channels), '  channels:\n    R:\n      messages:\n        m: { payload: { type: string } }\n')}`
    }
    for (const n of [500, 5000]) {
      const r = await natsCompile(many(n, n))
      expect(r.diagnostics).toEqual([])
      const mod = await loadModule(r.code!, `probe-hostile-many-${n}`)
      expect(Object.keys(mod.channels as object)).toHaveLength(n + 3)
      expect((mod.channels as any)[`r${n - 1}`].validatePayload('x')).toBe(true)
      expect((mod.channels as any)[`r${n - 1}`].validatePayload(5)).toBe(false)
    }
    // How the cost grows from 500 to 5,000 is bench/complexity.ts's to measure ("root channels
    // referencing one component channel"): bounds on time belong there.
  })

  it('Holds (pinned): a reference whose target changes between two compiles of one compiler is read afresh', async () => {
    const compiler = new ContractCompiler({ formats })
    const file = join(work, 'stale.asyncapi.yaml')
    const version = (type: string) =>
      withComponents(
        edit(ledger, balanceReply, "  balanceReply: { $ref: '#/components/channels/R' }\n"),
        `  channels:\n    R:\n      messages:\n        m: { payload: { type: ${type} } }\n`,
      )
    writeFileSync(file, version('string'))
    const first = await loadModule((await compiler.compile(file)).code!, 'probe-hostile-stale-1')
    writeFileSync(file, version('integer'))
    const second = await loadModule((await compiler.compile(file)).code!, 'probe-hostile-stale-2')
    expect([first.channels.balanceReply.validatePayload('x'), first.channels.balanceReply.validatePayload(5)]).toEqual([true, false])
    expect([second.channels.balanceReply.validatePayload('x'), second.channels.balanceReply.validatePayload(5)]).toEqual([false, true])
  })

  it('Was a defect (fixed): in a bundle, a root channel given by reference into a locked file loses its messages silently', async () => {
    // DEFECT: orders' `orderLookupReply: { $ref: 'common.yaml#/channels/r' }`, common.yaml locked,
    // compiles with no diagnostic; the model's channel has `messages: []` and the module's
    // `orderLookupReply` has no `validatePayload` (the inline channel has one): getOrder's replies are
    // no longer checked. Expected: the channel read through the reference (its message validated), or
    // a diagnostic refusing the reference. It matters: "nothing silently accepted"; a reply that was
    // validated stops being validated because the definition moved to a shared file.
    const b = ShopBundle.copy('probe-hostile-locked-channel')
    b.write('orders/asyncapi/common.yaml', 'channels:\n  r:\n    messages: { order: { payload: { type: string } } }\n')
      .edit(
        'orders/asyncapi/asyncapi.yaml',
        "  orderLookupReply:\n    messages: { order: { $ref: '#/components/messages/OrderPlaced' } }\n",
        "  orderLookupReply: { $ref: 'common.yaml#/channels/r' }\n",
      )
      .relock(['orders/asyncapi/common.yaml'])
    const r = await compile(b.doc('orders'))
    expectStructured(r, 'locked channel')
    if (r.code === undefined) expect(errors(r).length).toBeGreaterThan(0)
    else {
      const mod = await loadModule(r.code, 'probe-hostile-locked-channel')
      expect(typeof mod.orderLookupReply.validatePayload).toBe('function')
      expect(mod.orderLookupReply.validatePayload(5)).toBe(false)
    }
  })

  it('Was a defect (fixed): in a bundle, a root operation given by reference into a locked file is an internal error', async () => {
    // DEFECT: orders' `serveOrder: { $ref: 'common.yaml#/ops/o' }` (common.yaml locked, the operation
    // `{ action: receive, channel: { $ref: 'asyncapi.yaml#/channels/orderLookup' } }`):
    // CONTRACTS_INTERNAL "the NATS module cannot write the action of operation serveOrder". Expected:
    // the operation read, or a located diagnostic refusing the reference. It matters: a crash on
    // input, and the user is told to report a compiler bug.
    const b = ShopBundle.copy('probe-hostile-locked-op')
    b.write('orders/asyncapi/common.yaml', "ops:\n  o:\n    action: receive\n    channel: { $ref: 'asyncapi.yaml#/channels/orderLookup' }\n")
      .edit(
        'orders/asyncapi/asyncapi.yaml',
        "  serveOrder:\n    action: receive\n    channel: { $ref: '#/channels/orderLookup' }\n",
        "  serveOrder: { $ref: 'common.yaml#/ops/o' }\n",
      )
      .relock(['orders/asyncapi/common.yaml'])
    expect(codes(await compile(b.doc('orders')))).not.toContain('CONTRACTS_INTERNAL')
  })

  it('Holds (pinned): in a bundle, a reply given by reference into a locked file is refused at x-nats-contract and at the $ref, not a crash', async () => {
    const b = ShopBundle.copy('probe-hostile-locked-reply')
    b.write('orders/asyncapi/common.yaml', "replies:\n  r:\n    channel: { $ref: 'asyncapi.yaml#/channels/orderLookupReply' }\n")
      .edit(
        'orders/asyncapi/asyncapi.yaml',
        "    reply: { channel: { $ref: '#/channels/orderLookupReply' } }\n",
        "    reply: { $ref: 'common.yaml#/replies/r' }\n",
      )
      .relock(['orders/asyncapi/common.yaml'])
    const r = await compile(b.doc('orders'))
    expectStructured(r, 'locked reply')
    // Reviewed: now also NATS_REF_KIND at the $ref itself (a reply is read from this document only), as this pass's note asked.
    expect(codes(r)).toEqual(['NATS_REQUEST_REPLY', 'NATS_REF_KIND'])
  })

  describe('contracts diff', () => {
    const compiler = new ContractCompiler({ formats })
    const side = async (name: string, text: string) => {
      const file = join(work, `diff-${name}.asyncapi.yaml`)
      writeFileSync(file, text)
      const result = await compiler.model(file, natsFormat)
      return { file, model: result.model! as NatsModel, read: (f: string) => readFile(f, 'utf8').catch(() => undefined) }
    }
    const component = (hops: number, type: string) => {
      const chain = hops === 2 ? "    Q: { $ref: '#/components/channels/R' }\n" : ''
      return withComponents(
        edit(ledger, balanceReply, `  balanceReply: { $ref: '#/components/channels/${hops === 2 ? 'Q' : 'R'}' }\n`),
        `  channels:\n${chain}    R:\n      messages:\n        balance:\n          payload: { type: object, properties: { cents: { type: ${type} } } }\n`,
      )
    }

    it('Holds (pinned): inline and one-hop referenced versions compare equal; a change behind the reference is breaking', async () => {
      const inline = await side('inline', ledger)
      const ref = await side('ref1', component(1, 'integer'))
      const changed = await side('ref1-string', component(1, 'string'))
      expect(await natsDiffer.diff(inline, ref)).toEqual([])
      expect(await natsDiffer.diff(ref, inline)).toEqual([])
      expect((await natsDiffer.diff(inline, changed)).some((f) => f.level === 'breaking')).toBe(true)
    })

    it('Was a defect (fixed): a breaking change behind a two-hop reference is not found', async () => {
      // DEFECT: balanceReply -> components.channels.Q -> R, R's `cents` changed from integer to
      // string: `contracts diff` finds nothing (0 breaking, passes), and inline -> two-hop reports a
      // false "message-removed". Expected: the same finding as the one-hop form (schema-type-changed,
      // breaking). It matters: the diff is the CI gate for breaking changes, and it waves this one through.
      const before = await side('ref2', component(2, 'integer'))
      const after = await side('ref2-string', component(2, 'string'))
      expect((await natsDiffer.diff(before, after)).some((f) => f.level === 'breaking')).toBe(true)
    })
  })
})

// ---------------------------------------------------------------------------------------------
describe('patterns led by an inline options group', () => {
  /** The ledger whose reply message's payload is `schema` (YAML flow). */
  const withPayload = (schema: string) =>
    edit(ledger, '        payload: { type: object, properties: { cents: { type: integer } } }\n', `        payload: ${schema}\n`)
  const validator = async (schema: object, validators: 'data' | 'code') => {
    const r = await natsCompile(withPayload(JSON.stringify(schema)), { nats: { validators } })
    expectStructured(r, JSON.stringify(schema))
    return { r, validate: r.code ? ((await loadModule(r.code, 'probe-hostile-pattern')).channels.balanceReply.validatePayload as any) : undefined }
  }

  it('Holds (pinned): (?i) before catastrophic backtracking runs on the linear engine: a definite verdict, no budget, both validator forms', async () => {
    for (const validators of ['data', 'code'] as const) {
      const { r, validate } = await validator({ type: 'string', pattern: '(?i)^(a+)+$' }, validators)
      // The modifier group it is read as is translated for RE2 (test/pattern-modifiers.test.ts): no budget to warn of.
      expect(codes(r).sort()).toEqual(['NATS_PATTERN_DIALECT'])
      expect(validate('AaA')).toBe(true)
      // The attack value, at n and 10n: refused as not matching, never left undecided.
      for (const n of [1000, 10_000]) {
        expect(validate('a'.repeat(n) + 'b')).toBe(false)
        expect(validate.errors[0].params.undecided).toBeUndefined()
      }
    }
  })

  it('Holds (pinned): verdicts on ASCII inputs are V8 given the options as flags (both forms)', async () => {
    const inputs = ['x', 'X', 'a', 'A', 'ab', 'a b', 'a\nb', '\n', 'k', 'K', 's', 'S', '', 'xx', '1', '_', 'Q9']
    const cases: Array<[string, string, string]> = [
      ['(?i)^[a-z]+$', '^[a-z]+$', 'i'],
      ['(?s)^.$', '^.$', 's'],
      ['(?m)^b$', '^b$', 'm'],
      ['(?is)^a.b$', '^a.b$', 'is'],
      ['(?n)x', 'x', ''],
      ['(?in)x', 'x', 'i'],
      ['(?ii)x', 'x', 'i'],
      ['(?i)\\bK', '\\bK', 'i'],
      ['(?i)^\\w$', '^\\w$', 'i'],
      ['(?i)^[^a-z]$', '^[^a-z]$', 'i'],
      ['(?i)^\\x41$', '^\\x41$', 'i'],
      ['(?i)^(q)\\d$', '^(q)\\d$', 'i'],
    ]
    for (const validators of ['data', 'code'] as const)
      for (const [pattern, rest, flags] of cases) {
        const { r, validate } = await validator({ type: 'string', pattern }, validators)
        expect(codes(r), pattern).toContain('NATS_PATTERN_DIALECT')
        const oracle = new RegExp(rest, flags + 'u')
        expect(
          inputs.map((s) => validate(s)),
          `${validators} ${pattern}`,
        ).toEqual(inputs.map((s) => oracle.test(s)))
      }
    // Case folding beyond ASCII as Unicode mode does it: ſ is s, the Kelvin sign is k.
    const { validate } = await validator({ type: 'string', pattern: '(?i)^[a-z]$' }, 'code')
    expect(['ſ', '\u212a', 'é'].map((s) => validate(s))).toEqual(['ſ', '\u212a', 'é'].map((s) => /^[a-z]$/iu.test(s)))
  })

  it('Was a defect (fixed): behind an options group, \\p{...} and \\u{...} lose their Unicode-mode meaning (valid values refused)', async () => {
    // DEFECT: `(?i)^\p{Lu}$` refuses "A" (and every other input); `(?s)^\p{Lu}$` and `(?n)^\p{Lu}$`
    // refuse "A"; `(?i)^\u{41}$` refuses "A" and "a". Without the group, `^\p{Lu}$` accepts "A". The
    // rest of the pattern is read as non-Unicode syntax (DASP's own warning shows the rewrite:
    // `(?i:^p\u{7b}Lu...`, the text "p{Lu}"), though NATS and DASP patterns are read in Unicode mode
    // (docs/nats.md, Patterns). Expected: V8's `new RegExp(rest, flags + 'u')`. It matters: a
    // .NET producer's `(?i)^\p{L}+$` makes every valid payload fail validation at run time.
    const found: string[] = []
    const cases: Array<[string, string, string]> = [
      ['(?i)^\\p{Lu}$', '^\\p{Lu}$', 'i'],
      ['(?s)^\\p{Lu}$', '^\\p{Lu}$', 's'],
      ['(?n)^\\p{Lu}$', '^\\p{Lu}$', ''],
      ['(?i)^\\u{41}$', '^\\u{41}$', 'i'],
    ]
    for (const [pattern, rest, flags] of cases) {
      const { validate } = await validator({ type: 'string', pattern }, 'data')
      const oracle = new RegExp(rest, flags + 'u')
      for (const s of ['A', 'a', 'p{Lu}', 'Z', '1']) if (validate(s) !== oracle.test(s)) found.push(`${pattern} on ${JSON.stringify(s)}: ${validate(s)}`)
    }
    // In a patternProperties name too: `(?s)^\p{Lu}` should make member "A" a boolean.
    const { validate } = await validator({ type: 'object', patternProperties: { '(?s)^\\p{Lu}': { type: 'boolean' } } }, 'code')
    if (validate({ A: 'not a boolean' })) found.push('patternProperties (?s)^\\p{Lu} accepted {"A":"not a boolean"}')
    expect(found).toEqual([])
  })

  it('Holds (pinned): anything else that is no regular expression is NATS_PATTERN_INVALID at the pattern, also as a patternProperties name', async () => {
    for (const pattern of ['(?is)(?m)x', '(?i)(?i)x', '(?)x', '(?x)a b', '(?-i)x', '(?i-s)x', 'a(?i)b', '(?I)x', '(?i', '(?i)[']) {
      const { r } = await validator({ type: 'string', pattern }, 'data')
      expect(
        r.diagnostics.map((d) => [d.code, d.pointer]),
        pattern,
      ).toEqual([['NATS_PATTERN_INVALID', '/channels/balanceReply/messages/balance/payload/pattern']])
      expect(r.code).toBeUndefined()
    }
    const { r } = await validator({ type: 'object', patternProperties: { '(?i)^x-': { type: 'integer' }, '(?x)a': { type: 'string' } } }, 'data')
    expect(errors(r).map((d) => [d.code, d.pointer])).toEqual([
      ['NATS_PATTERN_INVALID', '/channels/balanceReply/messages/balance/payload/patternProperties/(?x)a'],
    ])
    // `(?n)` alone changes no match: a warning, and every string passes.
    const alone = await validator({ type: 'string', pattern: '(?n)' }, 'code')
    expect(codes(alone.r)).toEqual(['NATS_PATTERN_DIALECT'])
    expect(['', 'x', '\n'].map((s) => alone.validate(s))).toEqual([true, true, true])
  })

  it('Holds (pinned): 200 and 2,000 distinct (?i) patterns in one document compile, diagnostics capped', async () => {
    const doc = (n: number, salt: string) =>
      withPayload(
        `\n          type: object\n          properties:\n${Array.from({ length: n }, (_, i) => `            p${i}: { type: string, pattern: '(?i)^${salt}${i}[a-z]*$' }\n`).join('')}`,
      )
    for (const [n, salt] of [
      [200, 'x'],
      [2000, 'y'],
    ] as const) {
      const r = await natsCompile(doc(n, salt))
      expect(r.code, String(n)).toBeTruthy()
      expect(r.diagnostics.length).toBeLessThanOrEqual(202)
      const validate = (await loadModule(r.code!, `probe-hostile-many-patterns-${n}`)).channels.balanceReply.validatePayload
      expect([validate({ p0: `${salt.toUpperCase()}0abc`, [`p${n - 1}`]: `${salt}${n - 1}` }), validate({ p17: `${salt}18` })]).toEqual([true, false])
    }
    // How the cost grows from 200 to 2,000 is bench/complexity.ts's to measure ("distinct (?i)
    // patterns in one payload"): bounds on time belong there.
  })

  it('Holds (pinned): Benzene reads (?i) as the flag on the rest, with a warning; (?x) is an invalid schema', async () => {
    const spec = JSON.parse(readFileSync(join(fixtures, 'benzene/valid/payments.spec.json'), 'utf8'))
    const write = (pattern: string) => {
      spec.components.schemas.RefundPayment.properties.PaymentId.pattern = pattern
      const file = join(work, `b${count++}.spec.json`)
      writeFileSync(file, JSON.stringify(spec, null, 2))
      return file
    }
    const r = await compile(write('(?i)^[a-z]+$'))
    expect(codes(r)).toContain('BENZENE_PATTERN_DIALECT')
    expect(errors(r)).toEqual([])
    const mod = await loadModule(r.code!, 'probe-hostile-benzene')
    const topic = Object.values(mod).find((v) => (v as { topic?: string })?.topic === 'payments:refund') as {
      send: (sender: unknown, payload: unknown) => Promise<{ isSuccessful: boolean; errors: Array<{ code: string }> }>
    }
    const sender = createLocalSender({ 'payments:refund': () => ({}) })
    const refused = async (id: string) => {
      const res = await topic.send(sender, { PaymentId: id })
      return !res.isSuccessful && res.errors.some((e) => e.code === 'pattern')
    }
    expect([await refused('ABC'), await refused('abc'), await refused('ab1')]).toEqual([false, false, true])
    const bad = await compile(write('(?x)a b'))
    expect(codes(bad)).toContain('BENZENE_INVALID_SCHEMA')
    expect(bad.code).toBeUndefined()
  })
})

// ---------------------------------------------------------------------------------------------
describe('DASP: items schemas and git-commit pins', () => {
  /** A copy of the counter selection with its definitions and pins, edited, compiled. */
  async function dasp(name: string, change: (poa: any, selection: any) => void, structured = true) {
    const dir = join(work, 'dasp', `${name.replace(/[^\w-]/g, '_')}-${count++}`)
    mkdirSync(dir, { recursive: true })
    for (const part of ['counter.dasp.json', 'extensions', 'pins']) cpSync(join(fixtures, 'dasp', part), join(dir, part), { recursive: true })
    const poaFile = join(dir, 'extensions/proof-of-authority.dasp-ext.json')
    const selectionFile = join(dir, 'counter.dasp.json')
    const poa = JSON.parse(readFileSync(poaFile, 'utf8'))
    const selection = JSON.parse(readFileSync(selectionFile, 'utf8'))
    change(poa, selection)
    writeFileSync(poaFile, JSON.stringify(poa, null, 2))
    writeFileSync(selectionFile, JSON.stringify(selection, null, 2))
    const r = await compile(selectionFile)
    if (structured) expectStructured(r, name)
    return { r, dir, selectionFile }
  }
  const items = (name: string, change: (items: any) => void, structured = true) => dasp(name, (poa) => change(poa.settings.commands.items), structured)

  it('Holds (pinned): $schema spellings: the trailing # optional, anything else (case, white space, a non-string, draft-04) refused by name', async () => {
    for (const $schema of [
      'https://json-schema.org/draft/2020-12/schema#',
      'http://json-schema.org/draft-07/schema',
      'https://json-schema.org/draft/2019-09/schema',
    ]) {
      const { r } = await items($schema, (i) => (i.$schema = $schema))
      expect(r.diagnostics, $schema).toEqual([])
    }
    for (const $schema of [
      'HTTPS://JSON-SCHEMA.ORG/DRAFT/2020-12/SCHEMA',
      ' https://json-schema.org/draft/2020-12/schema',
      'https://json-schema.org/draft/2020-12/schema ',
      'https://json-schema.org/draft-07/schema#',
      'http://json-schema.org/draft-04/schema#',
      'http://json-schema.org/schema#',
      '',
      5,
      null,
      {},
      ['x'],
    ]) {
      const { r } = await items(String($schema), (i) => (i.$schema = $schema))
      expect(
        r.diagnostics.map((d) => [d.code, d.pointer]),
        JSON.stringify($schema),
        // At the `$schema` that names the dialect (this pass's note: it was at `items`).
      ).toEqual([['DASP_SETTING_DEFINITION', '/settings/commands/items/$schema']])
      expect(r.diagnostics[0]!.message).toContain('draft-06, draft-07, 2019-09 and 2020-12')
    }
  })

  it('Holds (pinned): a $ref or $dynamicRef to a URL, a file or a file: URL is refused without any request', async () => {
    let requests = 0
    const server = createServer((_req, res) => {
      requests++
      res.end('{"type":"string"}')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/s.json`
    try {
      const cases: Array<[string, (i: any) => void]> = [
        ['url', (i) => (i.properties.name = { $ref: url })],
        ['url-fragment', (i) => (i.properties.name = { $ref: `${url}#/a` })],
        ['id-relative', (i) => ((i.$id = url), (i.properties.name = { $ref: 'other.json' }))],
        ['file', (i) => (i.properties.name = { $ref: '../counter.dasp.json' })],
        ['file-url', (i) => (i.properties.name = { $ref: 'file:///etc/passwd' })],
        ['dynamic', (i) => ((i.$schema = 'https://json-schema.org/draft/2020-12/schema'), (i.properties.name = { $dynamicRef: `${url}#a` }))],
      ]
      for (const [name, change] of cases) {
        const { r } = await items(name, change)
        expect(
          r.diagnostics.map((d) => [d.code, d.pointer]),
          name,
        ).toEqual([['DASP_SETTING_DEFINITION', '/settings/commands/items']])
      }
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
    expect(requests).toBe(0)
  })

  it('Holds (pinned): $dynamicRef and $recursiveRef mean what their dialect says; $id collisions do not mix settings', async () => {
    // The root is the item (an object), so a name that must be an item refuses "counter.add".
    const dynamic = await items('dynamic', (i) => {
      i.$schema = 'https://json-schema.org/draft/2020-12/schema'
      i.$dynamicAnchor = 'a'
      i.properties.name = { $dynamicRef: '#a' }
    })
    expect(dynamic.r.diagnostics.map((d) => d.code)).toEqual(['DASP_SETTINGS'])
    const recursive = await items('recursive', (i) => {
      i.$schema = 'https://json-schema.org/draft/2019-09/schema'
      i.$recursiveAnchor = true
      i.properties.name = { $recursiveRef: '#' }
    })
    expect(recursive.r.diagnostics.map((d) => d.code)).toEqual(['DASP_SETTINGS'])
    // In draft-07 $recursiveRef is no keyword: ignored.
    expect((await items('recursive-07', (i) => (i.properties.name = { $recursiveRef: '#' }))).r.diagnostics).toEqual([])
    const collide = await dasp('collide', (poa, selection) => {
      poa.settings.more = { type: 'array', persistence: 'session', items: { $id: 'urn:example:x', type: 'integer' } }
      poa.settings.more2 = { type: 'array', persistence: 'session', items: { $id: 'urn:example:x', type: 'string' } }
      selection.extensions[1].settings.more = [1]
      selection.extensions[1].settings.more2 = ['s', 1]
    })
    expect(collide.r.diagnostics.map((d) => [d.code, d.pointer])).toEqual([['DASP_SETTINGS', '/extensions/1/settings/more2']])
    // An $id that is ajv's own meta-schema's: refused with a diagnostic, not a crash.
    const meta = await items('meta-id', (i) => (i.$id = 'http://json-schema.org/draft-07/schema#'))
    expect(meta.r.diagnostics.map((d) => d.code)).toEqual(['DASP_SETTING_DEFINITION'])
  })

  it('Holds (pinned): catastrophic backtracking in an items pattern, checked on a selection value, is bounded', async () => {
    for (const pattern of ['^(a+)+$', '(?i)^(a+)+$']) {
      const r = await bounded(
        dasp(pattern, (poa, selection) => {
          poa.settings.commands.items.properties.name.pattern = pattern
          selection.extensions[1].settings.commands[0].name = 'a'.repeat(30_000) + '!'
        }),
      )
      expect(r).not.toBe('TIMEOUT')
      const { r: result } = r as Exclude<typeof r, 'TIMEOUT'>
      expect(errors(result).map((d) => [d.code, d.pointer])).toEqual([['DASP_SETTINGS', '/extensions/1/settings/commands']])
    }
  })

  it("Was a defect (fixed): a wide items schema (anyOf of 2,000 constants) overflowed the stack: never a crash, the limit named as the checker's", async () => {
    // DEFECT: `name: { anyOf: [{ const: 'c0' }, ... 2,000 ..., { const: 'counter.add' }, ...] }`:
    // CONTRACTS_INTERNAL "RangeError: Maximum call stack size exceeded" (dasp/rules/settings.js);
    // with 5,000 the same overflow comes back as DASP_SETTING_DEFINITION "items is not a JSON Schema
    // that can be checked: Maximum call stack size exceeded". 1,000 compiles. Expected: a valid
    // schema checked (it is wide, not deep: the 64-level depth limit does not apply), or a limit
    // named as a limit. It matters: a crash on input, and a valid definition refused for a reason
    // that is the checker's, not the author's.
    const found: Record<number, string[]> = {}
    for (const n of [2000]) {
      const { r } = await items(
        `wide-${n}`,
        (i) => (i.properties.name.anyOf = [...Array.from({ length: n }, (_, m) => ({ const: `c${m}` })), { const: 'counter.add' }, { const: 'counter.reset' }]),
        false,
      )
      found[n] = r.diagnostics.map((d) => `${d.code}${/call stack/.test(d.message) ? ' (stack overflow)' : ''}`)
    }
    // Reviewed: ajv compiles recursively, so how wide a schema compiles depends on the stack left
    // (1,000 compiles; 2,000 may or may not). Pinned: never a crash; a value ajv cannot evaluate is
    // refused; a schema it cannot compile is DASP_SETTING_DEFINITION naming the checker's limit as unsupported.
    const [codes] = Object.values(found)
    expect(codes!.every((c) => c === 'DASP_SETTING_DEFINITION (stack overflow)' || c === 'DASP_SETTINGS')).toBe(true)
    const { r } = await items('wide-2000-message', (i) => (i.properties.name.anyOf = Array.from({ length: 2000 }, (_, m) => ({ const: `c${m}` }))), false)
    for (const d of r.diagnostics.filter((x) => x.code === 'DASP_SETTING_DEFINITION')) expect(d.message).toContain('too wide or deep for the checker')
  })

  /** Every git-commit pin to DASP-Protocol/dasp in the selection and its definitions, replaced by `repository`. */
  async function pinnedTo(name: string, repository: string) {
    const { dir } = await dasp(name, () => {})
    for (const file of ['counter.dasp.json', 'extensions/encrypted-delivery.dasp-ext.json', 'extensions/proof-of-authority.dasp-ext.json']) {
      const text = readFileSync(join(dir, file), 'utf8')
      writeFileSync(
        join(dir, file),
        text.replaceAll('"https://github.com/DASP-Protocol/dasp"', () => JSON.stringify(repository)),
      )
    }
    return { dir, r: await compile(join(dir, 'counter.dasp.json')) }
  }

  it('Holds (pinned): an scp-like repository is a pin; option injection, white space and a 100,000-character host path are handled', async () => {
    expect((await pinnedTo('scp', 'git@github.com:DASP-Protocol/dasp.git')).r.diagnostics).toEqual([])
    for (const bad of ['-oProxyCommand=touch x@h:p', '-oProxyCommand=x:y', 'git@github.com:DASP Protocol/dasp']) {
      const { r } = await pinnedTo(bad, bad)
      expect(codes(r), bad).toContain('DASP_PIN_INSUFFICIENT')
    }
    const long = await bounded(pinnedTo('long', `git@github.com:${'a'.repeat(100_000)}.git`))
    expect(long).not.toBe('TIMEOUT')
    expectStructured((long as { r: Result }).r, 'long')
  })

  it('Was a defect (fixed): a repository holding a bidi override, a zero-width space or a line separator is accepted as a pin', async () => {
    // DEFECT: `git@github.com:DASP-Protocol/da\u202Esp.git` (RIGHT-TO-LEFT OVERRIDE),
    // `...dasp\u200B.git` (ZERO WIDTH SPACE) and `...da\u2028sp.git` (LINE SEPARATOR), pinned the
    // same way in the selection and its definitions: `contracts check` says "no errors", while an
    // ASCII space at the same place is DASP_PIN_INSUFFICIENT ("names its repository"), and DASP
    // identities refuse raw non-ASCII. Expected: refused like the space. It matters: a pin is what a
    // reviewer compares by eye; Trojan Source characters make two different repositories look the same.
    const accepted: string[] = []
    for (const [name, repository] of [
      ['rlo', 'git@github.com:DASP-Protocol/da\u202esp.git'],
      ['zwsp', 'git@github.com:DASP-Protocol/dasp\u200b.git'],
      ['line-separator', 'git@github.com:DASP-Protocol/da\u2028sp.git'],
    ]) {
      const { r } = await pinnedTo(name!, repository!)
      if (errors(r).length === 0) accepted.push(name!)
    }
    expect(accepted).toEqual([])
  })

  it('Holds (pinned): what contracts check prints of a hostile repository is escaped, on the terminal and in JSON', async () => {
    const hostile = '-oProxyCommand=x\u009b31m\u001b[2J\u202e\u0085\u0007@h:p'
    const { dir } = await dasp('escape', (_poa, selection) => (selection.core.content.repository = hostile))
    // Written raw (JSON allows raw C1 and bidi characters; the C0 ones are escapes anyway).
    const file = join(dir, 'counter.dasp.json')
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(JSON.stringify(hostile), () => `"${hostile.replace('\u001b', '\\u001b').replace('\u0007', '\\u0007')}"`),
    )
    const [text, json] = await Promise.all([
      contractsAsync(['check', 'counter.dasp.json', '--no-cache'], dir),
      contractsAsync(['check', '--json', 'counter.dasp.json', '--no-cache'], dir),
    ])
    expect(text.status).toBe(1)
    expect(text.stderr).toContain('DASP_PIN_INSUFFICIENT')
    // eslint-disable-next-line no-control-regex
    for (const out of [text.stderr, text.stdout, json.stdout]) expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/)
    expect(JSON.parse(json.stdout).diagnostics.map((d: { code: string }) => d.code)).toContain('DASP_PIN_INSUFFICIENT')
  })
})

// ---------------------------------------------------------------------------------------------
describe('a FIFO at a file the compile reads is never opened', () => {
  const daspCopy = (name: string) => {
    const dir = join(work, 'fifo', name)
    mkdirSync(dir, { recursive: true })
    for (const part of ['counter.dasp.json', 'extensions', 'pins']) cpSync(join(fixtures, 'dasp', part), join(dir, part), { recursive: true })
    return dir
  }

  it('Holds (pinned): in process, at a document, a definition, a manifest, a pinned file, a bundle lock, an artifact, an import, a locked schema', async () => {
    const cases: Array<[string, string, () => Promise<Result>, string]> = []
    let d = daspCopy('selection')
    cases.push(['DASP selection', join(d, 'counter.dasp.json'), () => compile(join(d, 'counter.dasp.json')), 'CONTRACTS_READ_FAILED'])
    const def = daspCopy('definition')
    cases.push([
      'DASP definition',
      join(def, 'extensions/proof-of-authority.dasp-ext.json'),
      () => compile(join(def, 'counter.dasp.json')),
      'DASP_DEFINITION_SOURCE',
    ])
    const man = daspCopy('manifest')
    cases.push(['DASP manifest', join(man, 'pins/proof-of-authority.manifest.json'), () => compile(join(man, 'counter.dasp.json')), 'DASP_PIN_MISMATCH'])
    const pinned = daspCopy('pinned')
    cases.push(['DASP pinned file', join(pinned, 'pins/proof-of-authority/spec.md'), () => compile(join(pinned, 'counter.dasp.json')), 'DASP_PIN_MISMATCH'])
    const lock = ShopBundle.copy('probe-hostile-fifo-lock')
    cases.push(['bundle lock', lock.path('bundle.lock.json'), () => compile(lock.doc('orders')), 'CONTRACTS_READ_FAILED'])
    const artifact = ShopBundle.copy('probe-hostile-fifo-artifact')
    cases.push(['locked artifact', artifact.path('native/streams.json'), () => compile(artifact.doc('payments')), 'NATS_LOCK_PATH'])
    const imported = ShopBundle.copy('probe-hostile-fifo-import')
    cases.push(['imported document', imported.doc('orders'), () => compile(imported.doc('payments')), 'NATS_LOCK_PATH'])
    const schema = ShopBundle.copy('probe-hostile-fifo-schema')
    schema
      .write('orders/asyncapi/common.json', '{"definitions":{"S":{"type":"string"}}}')
      .edit(
        'orders/asyncapi/asyncapi.yaml',
        '    OrderLookup:\n      payload: { type: object, required: [orderId], properties: { orderId: { type: string } } }',
        "    OrderLookup:\n      payload: { $ref: 'common.json#/definitions/S' }",
      )
      .relock(['orders/asyncapi/common.json'])
    expect((await compile(schema.doc('orders'))).diagnostics).toEqual([])
    cases.push(['locked schema file', schema.path('orders/asyncapi/common.json'), () => compile(schema.doc('orders')), 'NATS_LOCK_PATH'])
    d = join(work, 'fifo', 'nats-document')
    mkdirSync(d, { recursive: true })
    cases.push(['NATS document', join(d, 'x.asyncapi.yaml'), () => compile(join(d, 'x.asyncapi.yaml')), 'CONTRACTS_READ_FAILED'])
    // Every FIFO and its writer first, then every compile, then one bounded wait for all the writers.
    const writers = cases.map(([, path]) => {
      rmSync(path, { force: true })
      execFileSync('mkfifo', [path])
      return waitingWriter(path)
    })
    try {
      const results: Array<Result | 'TIMEOUT'> = []
      for (const [, , act] of cases) results.push(await bounded(act()))
      const opened = await Promise.all(writers.map((w) => w.released(300)))
      cases.forEach(([name, , , code], i) => {
        const result = results[i]!
        expect(result, name).not.toBe('TIMEOUT')
        expect(opened[i], `${name}: the FIFO was opened`).toBe(false)
        expectStructured(result as Result, name)
        expect(codes(result as Result), name).toContain(code)
      })
    } finally {
      for (const w of writers) w.stop()
    }
  })

  it('Holds (pinned): contracts inputs, lock, lock --check, diff and diff --against refuse a FIFO without opening it', async () => {
    const inputs = daspCopy('cli-inputs')
    const lock = ShopBundle.copy('probe-hostile-fifo-cli-lock')
    const lockCheck = ShopBundle.copy('probe-hostile-fifo-cli-lock-check')
    const bundleInputs = ShopBundle.copy('probe-hostile-fifo-cli-inputs')
    const diff = daspCopy('cli-diff')
    cpSync(join(diff, 'counter.dasp.json'), join(diff, 'old.dasp.json'))
    // diff --against: a repository whose committed contract is now a FIFO in the working tree.
    const repo = join(work, 'fifo', 'repo')
    mkdirSync(repo, { recursive: true })
    cpSync(join(fixtures, 'benzene/valid/payments.spec.json'), join(repo, 'payments.spec.json'))
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.email=p@example.com', '-c', 'user.name=p', '-c', 'commit.gpgsign=false', ...args], { cwd: repo, stdio: 'ignore' })
    git('init', '-q')
    git('add', '.')
    git('commit', '-q', '-m', 'x')
    const cases: Array<[string, string, string[], string]> = [
      ['inputs (a definition)', join(inputs, 'extensions/proof-of-authority.dasp-ext.json'), ['inputs', 'counter.dasp.json', '--no-cache'], inputs],
      ['lock (the lock)', lock.path('bundle.lock.json'), ['lock', '.'], lock.root],
      ['lock --check (an artifact)', lockCheck.path('native/streams.json'), ['lock', '.', '--check'], lockCheck.root],
      ['inputs (an artifact)', bundleInputs.path('native/streams.json'), ['inputs', 'payments/asyncapi/asyncapi.yaml', '--no-cache'], bundleInputs.root],
      ['diff (the new side)', join(diff, 'counter.dasp.json'), ['diff', 'old.dasp.json', 'counter.dasp.json'], diff],
      ['diff --against', join(repo, 'payments.spec.json'), ['diff', '--against', 'HEAD', 'payments.spec.json'], repo],
    ]
    const writers = cases.map(([, path]) => {
      rmSync(path, { force: true })
      execFileSync('mkfifo', [path])
      return waitingWriter(path)
    })
    try {
      const results = await Promise.all(cases.map(([, , args, cwd]) => contractsAsync(args, cwd)))
      const opened = await Promise.all(writers.map((w) => w.released(300)))
      cases.forEach(([name], i) => {
        const r = results[i]!
        expect(r.timedOut, name).toBe(false)
        expect(opened[i], `${name}: the FIFO was opened`).toBe(false)
        expect(r.status, `${name}\n${r.stderr}`).toBe(1)
        expect(r.stderr, name).toMatch(/not a regular file|symlink or is not a regular file/)
        expect(r.stderr, name).not.toContain('CONTRACTS_INTERNAL')
      })
    } finally {
      for (const w of writers) w.stop()
    }
  })
})

// Keep `inspect` imported for readers comparing models by hand.
void inspect
