/**
 * The NATS differ on hostile and large input: subject inclusion checked against a brute-force
 * oracle on small token domains (witnesses included), a 5,000-channel pair (every channel changed,
 * one finding each: linear), and names with odd characters (escaped in sentences, pointers escaped).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ContractCompiler } from '../src/core/compile.js'
import type { DiffSide } from '../src/core/diff/types.js'
import { formats, natsFormat } from '../src/formats/index.js'
import { natsDiffer } from '../src/formats/nats/diff/index.js'
import { fromText } from '../src/formats/nats/diff/source.js'
import { inShape, shapeOf, subjectsIncluded, tokenOutside } from '../src/formats/nats/diff/subject-inclusion.js'
import { parseExactYaml } from '../src/core/yaml-source.js'
import { joinPointer } from '../src/runtime/shared/json-pointer.js'
import type { NatsModel } from '../src/formats/nats/model.js'
import { ALPHABETS, inDomain, type TokenType } from '../src/runtime/nats/tokens.js'

const compiler = new ContractCompiler({ formats })

async function side(file: string): Promise<DiffSide<NatsModel>> {
  const result = await compiler.model(file, natsFormat)
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
  return { file, model: result.model!, read: (f) => readFile(f, 'utf8').catch(() => undefined) }
}

/** A seeded generator: the same cases on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

/** Every string of length 1..3 over the lower alphabet (which holds hex): the universe small token types live in. */
const UNIVERSE: string[] = (() => {
  const chars = ALPHABETS.lower
  const out: string[] = []
  const grow = (s: string) => {
    if (s.length > 0) out.push(s)
    if (s.length < 3) for (const c of chars) grow(s + c)
  }
  grow('')
  return out
})()

function randomType(next: () => number): TokenType {
  if (next() < 0.3) {
    const pool = ['a', 'b', 'ab', 'a1', 'ff', '0', 'z-']
    const values = pool.filter(() => next() < 0.4)
    return { kind: 'enum', values: values.length > 0 ? values : ['a'] }
  }
  const prefix = ['', '', 'a', 'ab'][Math.floor(next() * 4)]!
  const minLength = Math.max(1, prefix.length + Math.floor(next() * 2))
  const maxLength = Math.min(3, minLength + Math.floor(next() * 3))
  return {
    kind: 'token',
    alphabet: next() < 0.5 ? 'hex' : 'lower',
    first: next() < 0.5 ? 'letter' : 'any',
    minLength,
    maxLength: Math.max(minLength, maxLength),
    prefix,
  }
}

const members = (t: TokenType) => UNIVERSE.filter((s) => inDomain(t, s))

describe('subject inclusion against a brute-force oracle', () => {
  it('decides one-position languages exactly, with a witness in one and not the other', () => {
    const next = random(35)
    let checked = 0
    let failures = 0
    for (let i = 0; i < 120; i++) {
      const a = randomType(next)
      const b = randomType(next)
      const ma = members(a)
      if (ma.length === 0 || members(b).length === 0) continue
      const oracle = ma.every((s) => inDomain(b, s))
      const answer = subjectsIncluded(shapeOf([{ param: 'x' }], { x: a })!, shapeOf([{ param: 'y' }], { y: b })!)
      expect(answer.included, JSON.stringify({ a, b })).toBe(oracle)
      if (!answer.included) {
        failures++
        expect(inDomain(a, answer.witness), JSON.stringify({ a, b, w: answer.witness })).toBe(true)
        expect(inDomain(b, answer.witness)).toBe(false)
        const token = tokenOutside(a, b)
        expect(token !== undefined && inDomain(a, token) && !inDomain(b, token)).toBe(true)
      }
      checked++
    }
    expect(checked).toBeGreaterThan(60)
    expect(failures).toBeGreaterThan(10)
    expect(failures).toBeLessThan(checked)
  })

  it('decides two-position languages with tied and free placeholders exactly', () => {
    const next = random(808)
    const small = (): TokenType =>
      next() < 0.3
        ? { kind: 'enum', values: ['a', 'b', '0a', 'ff'].filter(() => next() < 0.5).concat(['a']) }
        : { kind: 'token', alphabet: 'hex', first: next() < 0.5 ? 'letter' : 'any', minLength: 1, maxLength: 1 + Math.floor(next() * 2), prefix: '' }
    const shapes = [
      (t: TokenType[]) => shapeOf([{ param: 'x' }, { param: 'y' }], { x: t[0], y: t[1] })!,
      (t: TokenType[]) => shapeOf([{ param: 'x' }, { param: 'x' }], { x: t[0] })!,
      (t: TokenType[]) => shapeOf(['a', { param: 'x' }], { x: t[0] })!,
    ]
    const subjectsOf = (shape: ReturnType<typeof shapeOf>) => {
      const values = shape!.classes.map((c) => UNIVERSE.filter((u) => u.length <= 2 && inDomain(c.domain, u)))
      const chosen = values.reduce<string[][]>((acc, list) => acc.flatMap((prefix) => list.map((v) => [...prefix, v])), [[]])
      return chosen.map((vals) => shape!.classAt.map((c) => vals[c]).join('.'))
    }
    let differing = 0
    for (let i = 0; i < 40; i++) {
      const a = shapes[Math.floor(next() * shapes.length)]!([small(), small()])
      const b = shapes[Math.floor(next() * shapes.length)]!([small(), small()])
      const oracle = subjectsOf(a).every((subject) => inShape(b, subject))
      const answer = subjectsIncluded(a, b)
      expect(answer.included, JSON.stringify({ a, b })).toBe(oracle)
      if (!answer.included) {
        differing++
        expect(inShape(a, answer.witness) && !inShape(b, answer.witness)).toBe(true)
      }
    }
    expect(differing).toBeGreaterThan(5)
  })

  it('ties the positions of a placeholder written twice', () => {
    const hex: TokenType = { kind: 'token', alphabet: 'hex', first: 'any', minLength: 1, maxLength: 1, prefix: '' }
    const tied = shapeOf(['s', { param: 'x' }, { param: 'x' }], { x: hex })!
    const free = shapeOf(['s', { param: 'y' }, { param: 'z' }], { y: hex, z: hex })!
    expect(subjectsIncluded(tied, free)).toEqual({ included: true })
    const widened = subjectsIncluded(free, tied)
    expect(widened.included).toBe(false)
    if (!widened.included) {
      const [, p, q] = widened.witness.split('.')
      expect(p).not.toBe(q)
    }
    // Two literals equal to each other satisfy a tie; a literal and a one-value enum are the same language.
    const literals = shapeOf(['s', 'a', 'a'], {})!
    expect(subjectsIncluded(literals, tied).included).toBe(true)
    const one = shapeOf(['s', { param: 'v' }, 'a'], { v: { kind: 'enum', values: ['a'] } })!
    expect(subjectsIncluded(one, literals).included && subjectsIncluded(literals, one).included).toBe(true)
    // Different lengths never include each other.
    expect(subjectsIncluded(shapeOf(['s'], {})!, literals).included).toBe(false)
  })
})

describe('locations', () => {
  it('puts every node of the fixtures where the exact YAML path does (the scalar scan included)', () => {
    const files = ['base.asyncapi.yaml', 'bundle/old/payments/asyncapi/asyncapi.yaml', 'bundle/old/shipping/asyncapi/asyncapi.yaml']
    let compared = 0
    for (const rel of files) {
      const file = join(__dirname, '../fixtures/diff/nats', rel)
      const text = readFileSync(file, 'utf8')
      const exact = parseExactYaml(file, text).source
      const doc = fromText(file, text)
      const walk = (node: unknown, pointer: string) => {
        const { line, column } = exact.locate(pointer)
        expect([pointer, doc.at(pointer).line, doc.at(pointer).column]).toEqual([pointer, line, column])
        compared++
        if (Array.isArray(node)) node.forEach((item, i) => walk(item, joinPointer(pointer, i)))
        else if (node !== null && typeof node === 'object') for (const [k, v] of Object.entries(node)) walk(v, joinPointer(pointer, k))
      }
      walk(exact.value, '')
    }
    expect(compared).toBeGreaterThan(1000)
  })
})

describe('bundle impact through an in-memory bundle', () => {
  it('finds import references, captures and consumers, and never reads outside the bundle', async () => {
    const folder = join(__dirname, '../fixtures/diff/nats/subject-narrowed')
    const other = [
      'asyncapi: 3.1.0',
      'info: { title: Audit, version: 1.0.0 }',
      'x-nats-contract:',
      '  contract: audit',
      '  imports:',
      '    led: { contract: ledger, version: 2.0.0, path: old.asyncapi.yaml, sha256: "0000" }',
      '  interactions:',
      '    review: { receiverOperation: { contract: led, operation: postEntry } }',
      '  operations:',
      '    onUs: { subscribe: { api: jetstream, consumer: usOnly } }',
      '  streams:',
      '    mirror: { authority: contract, config: { name: AUDIT_LEDGER, subjects: [ledger.*.>] } }',
      '  consumers:',
      '    usOnly: { stream: mirror, authority: contract, config: { durable_name: us-only, filter_subject: ledger.us.> } }',
    ].join('\n')
    const lock = JSON.stringify({
      entries: [
        { path: 'old.asyncapi.yaml' },
        { path: 'audit/asyncapi.yaml' },
        { path: '../escape/asyncapi.yaml' },
        { path: '/etc/asyncapi.yaml' },
        { path: 'a\\b/asyncapi.yaml' },
      ],
    })
    const asked: string[] = []
    const inMemory = async (file: string): Promise<DiffSide<NatsModel>> => {
      const real = await side(file)
      return {
        ...real,
        read: async (f) => {
          asked.push(f)
          if (f === join(folder, 'bundle.lock.json')) return lock
          if (f === join(folder, 'audit', 'asyncapi.yaml')) return other
          return f === file ? readFile(f, 'utf8') : undefined
        },
      }
    }
    const findings = await natsDiffer.diff(await inMemory(join(folder, 'old.asyncapi.yaml')), await inMemory(join(folder, 'new.asyncapi.yaml')))
    const narrowed = findings.find((f) => f.rule === 'subject-narrowed' && f.message.includes('"entryPosted"'))!
    expect(narrowed.data?.affected).toEqual([
      { application: 'audit', via: 'import' },
      { application: 'audit', via: 'capture', stream: 'AUDIT_LEDGER' },
      { application: 'audit', via: 'consumer', stream: 'AUDIT_LEDGER', consumer: 'us-only', operation: 'onUs' },
    ])
    expect(narrowed.message).toContain('"audit": stream "AUDIT_LEDGER" (captures the subjects)')
    expect(asked.every((f) => f.startsWith(folder) || !f.endsWith('asyncapi.yaml'))).toBe(true)
    expect(asked.some((f) => f.includes('escape') || f.startsWith('/etc'))).toBe(false)
  })
})

describe('bundle impact of a stream change', () => {
  it("names the other applications' consumers of a stream whose change the server refuses", async () => {
    const folder = join(__dirname, '../fixtures/diff/nats/nats-stream-storage-changed')
    const other = [
      'x-nats-contract:',
      '  contract: audit',
      '  operations:',
      '    onLedger: { subscribe: { api: jetstream, consumer: tail } }',
      '  streams:',
      '    shared: { authority: external, config: { name: LEDGER, subjects: [ledger.eu.>] } }',
      '  consumers:',
      '    tail: { stream: shared, authority: contract, config: { durable_name: audit-tail, filter_subject: ledger.eu.> } }',
    ].join('\n')
    const lock = JSON.stringify({ entries: [{ path: 'old.asyncapi.yaml' }, { path: 'new.asyncapi.yaml' }, { path: 'audit/asyncapi.yaml' }] })
    const inMemory = async (file: string): Promise<DiffSide<NatsModel>> => {
      const real = await side(file)
      return {
        ...real,
        read: async (f) =>
          f === join(folder, 'bundle.lock.json') ? lock : f === join(folder, 'audit', 'asyncapi.yaml') ? other : f === file ? readFile(f, 'utf8') : undefined,
      }
    }
    const findings = await natsDiffer.diff(await inMemory(join(folder, 'old.asyncapi.yaml')), await inMemory(join(folder, 'new.asyncapi.yaml')))
    const storage = findings.find((f) => f.rule === 'nats-stream-storage-changed')!
    expect(storage.data?.affected).toEqual([{ application: 'audit', via: 'consumer', stream: 'LEDGER', consumer: 'audit-tail', operation: 'onLedger' }])
    expect(storage.audiences).toContainEqual({ kind: 'subscriber', name: 'audit:onLedger' })
    expect(storage.message).toContain('consumer "audit-tail" of stream "LEDGER" read by "onLedger"')
  })
})

describe('hostile documents', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nats-diff-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  function wide(count: number, regions: string): string {
    const lines = [
      'asyncapi: 3.1.0',
      'info: { title: Wide, version: 1.0.0 }',
      'x-nats-contract:',
      '  version: 0.2.0-draft',
      '  contract: wide',
      '  deployment: { binding: wide-prod, minimumServerVersion: 2.11.0 }',
      '  tokenTypes:',
      `    region: { kind: enum, values: [${regions}] }`,
      "    id: { kind: token, alphabet: hex, first: any, minLength: 8, maxLength: 8, prefix: '' }",
      '  channels:',
    ]
    for (let i = 0; i < count; i++) lines.push(`    c${i}: { parameters: { region: region, id: id } }`)
    lines.push('  operations:')
    for (let i = 0; i < count; i++) lines.push(`    p${i}: { publish: { api: core, confirmation: none } }`)
    lines.push('channels:')
    for (let i = 0; i < count; i++)
      lines.push(
        `  c${i}:`,
        `    address: svc${i}.{region}.{id}.evt`,
        '    parameters: { region: {}, id: {} }',
        '    messages: { e: { payload: { type: object } } }',
      )
    lines.push('operations:')
    for (let i = 0; i < count; i++) lines.push(`  p${i}: { action: send, channel: { $ref: '#/channels/c${i}' } }`)
    return lines.join('\n') + '\n'
  }

  it('diffs two 5,000-channel documents with one finding per changed channel', async () => {
    const count = 5000
    const oldFile = join(dir, 'old.asyncapi.yaml')
    const newFile = join(dir, 'new.asyncapi.yaml')
    writeFileSync(oldFile, wide(count, 'eu, us'))
    writeFileSync(newFile, wide(count, 'eu'))
    const findings = await natsDiffer.diff(await side(oldFile), await side(newFile))
    expect(findings.length).toBe(count)
    expect(findings.every((f) => f.rule === 'subject-narrowed' && f.level === 'breaking')).toBe(true)
    expect(findings[0]!.data?.witness).toBe('svc0.us.00000000.evt')
    // Sorted by new location: the channels in document order.
    expect(findings.map((f) => f.new!.line)).toEqual([...findings.map((f) => f.new!.line)].sort((a, b) => a - b))
    expect(findings[count - 1]!.message).toContain('"c4999"')
  }, 120_000)

  it('escapes odd names in sentences and pointers, and keeps odd subject tokens', async () => {
    const doc = (values: string, payload: string) =>
      [
        'asyncapi: 3.1.0',
        'info: { title: Odd, version: 1.0.0 }',
        'x-nats-contract:',
        '  version: 0.2.0-draft',
        '  contract: odd',
        '  deployment: { binding: odd-prod, minimumServerVersion: 2.11.0 }',
        '  tokenTypes:',
        `    region: { kind: enum, values: [${values}] }`,
        '  channels:',
        '    "we/ird~\\"id\\u0007é":',
        '      parameters: { region: region }',
        '  operations:',
        '    "pub\\nlish":',
        '      publish: { api: core, confirmation: none }',
        'channels:',
        '  "we/ird~\\"id\\u0007é":',
        '    address: odd.{region}.x_-Y',
        '    parameters: { region: {} }',
        '    messages:',
        '      "m\\u001b[31mred":',
        `        payload: ${payload}`,
        'operations:',
        '  "pub\\nlish":',
        '    action: send',
        '    channel: { $ref: "#/channels/we~1ird~0\\"id\\u0007é" }',
      ].join('\n') + '\n'
    const oldFile = join(dir, 'odd-old.asyncapi.yaml')
    const newFile = join(dir, 'odd-new.asyncapi.yaml')
    writeFileSync(oldFile, doc('eu, A_b-9', '{ type: object }'))
    writeFileSync(newFile, doc('eu, A_b-9, zz', '{ type: object, required: [a] }'))
    const findings = await natsDiffer.diff(await side(oldFile), await side(newFile))
    const widened = findings.find((f) => f.rule === 'subject-widened')!
    expect(widened.data?.witness).toBe('odd.zz.x_-Y')
    expect(widened.new!.pointer).toBe('/channels/we~1ird~0"id\u0007é/address')
    expect([widened.new!.line, widened.new!.column]).toEqual([17, 14])
    expect(findings.some((f) => f.data?.message === 'm\u001b[31mred')).toBe(true)
    const control = (text: string) => [...text].some((ch) => ch.charCodeAt(0) < 32 || ch.charCodeAt(0) === 127)
    for (const f of findings) expect(control(f.message)).toBe(false)
  })
})
