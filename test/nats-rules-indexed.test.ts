/**
 * The NATS rules that compared collections pairwise, now indexed (issue 29): the workqueue-consumer
 * rule (every pair of a workqueue stream's consumers), the consumer-within-stream rule (every
 * consumer against every subject of its stream) and the stream-capture rule (each publish re-reading
 * its stream). Same verdicts as a naive pairwise oracle written here, on random small documents;
 * the documents of the issue finish (a generous bound that only proves termination, as in
 * hostile-compile.test.ts).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  consumerConfig,
  consumersAgainstStreamSubjects,
  overlappingWorkqueueConsumers,
  publishesIntoOneStream,
  streamConfig,
  withNative,
  workqueueConsumers,
} from '../bench/hostile-rules.js'
import { ContractCompiler } from '../src/index.js'
import { EarliestOverlapIndex, StepBudget, UNDECIDED } from '../src/formats/nats/earliest-overlap.js'
import { MAX_DIAGNOSTICS_PER_CODE, type Diagnostic } from '../src/core/diagnostics.js'
import { random } from './helpers/seeded-random.js'

const tmp = join(import.meta.dirname, '.tmp/nats-rules-indexed')
const fresh = (name: string) => {
  const dir = join(tmp, name)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  return dir
}
const counts = (diagnostics: readonly Diagnostic[]) =>
  Object.fromEntries([...new Set(diagnostics.map((d) => d.code))].map((c) => [c, diagnostics.filter((d) => d.code === c).length]))

/** Compiles with a fresh compiler (termination is the test's timeout; cost is bench/hostile-rules.ts's). */
async function timed(file: string) {
  return { result: await new ContractCompiler().compile(file) }
}

/**
 * The oracle: do two NATS patterns share a subject? Token by token, `*` any one token, `>` (read
 * wherever it stands, as the compiler reads a filter) any one or more. Written here, not imported.
 */
function naiveOverlap(left: string, right: string): boolean {
  const a = left.split('.')
  const b = right.split('.')
  for (let i = 0; ; i++) {
    if (i === a.length || i === b.length) return a.length === b.length
    if (a[i] === '>' || b[i] === '>') return true
    if (a[i] !== '*' && b[i] !== '*' && a[i] !== b[i]) return false
  }
}

/** Every subject `inner` matches, `outer` matches too: token by token, a `>` of `outer` takes one or more. */
function naiveWithin(inner: string, outer: string): boolean {
  const a = inner.split('.')
  const b = outer.split('.')
  for (let i = 0; ; i++) {
    if (i === b.length) return i === a.length
    if (b[i] === '>') return i < a.length
    if (i === a.length || a[i] === '>') return false
    if (b[i] !== '*' && a[i] !== b[i]) return false
  }
}

/** A random pattern of 1-4 tokens over a small alphabet, so that overlaps are common. */
function pattern(next: () => number, anywhereRest: boolean): string {
  const length = 1 + Math.floor(next() * 4)
  const tokens = Array.from({ length }, (_, i) => {
    const r = next()
    if (r < 0.2) return '*'
    if (r < 0.3 && (anywhereRest || i === length - 1)) return '>'
    return ['a', 'b', 'c'][Math.floor(next() * 3)]!
  })
  return tokens.join('.')
}

describe('EarliestOverlapIndex answers what a scan of every earlier pattern answers', () => {
  it('on 3,000 random lists (a `>` anywhere, empty tokens, repeated patterns)', () => {
    const next = random(29)
    // Disagreements are collected and asserted once (an `expect` per answer, its message built each time, cost more than the index).
    const wrong: string[] = []
    for (let round = 0; round < 3000; round++) {
      const index = new EarliestOverlapIndex(new StepBudget(1_000_000))
      const added: string[] = []
      const size = 1 + Math.floor(next() * 12)
      for (let k = 0; k < size; k++) {
        const subject = next() < 0.05 ? 'a..b' : pattern(next, true)
        const found = added.findIndex((earlier) => naiveOverlap(earlier, subject))
        const expected = found === -1 ? undefined : found
        const earliest = index.earliest(subject)
        if (earliest !== expected) wrong.push(`${JSON.stringify(added)} then ${subject}: ${String(earliest)}, expected ${String(expected)}`)
        const position = index.add(subject)
        if (position !== added.length) wrong.push(`${JSON.stringify(added)} then add ${subject}: ${position}, expected ${added.length}`)
        added.push(subject)
      }
    }
    expect(wrong).toEqual([])
  })

  it('answers UNDECIDED past its budget instead of walking on', () => {
    const budget = new StepBudget(1000)
    const index = new EarliestOverlapIndex(budget)
    for (let i = 0; i < 2000; i++) index.add(`c${i}.a`)
    expect(index.earliest('*.b')).toBe(UNDECIDED)
  })
})

describe('the indexed rules give the verdicts of a naive pairwise oracle on random documents', () => {
  /** What the pairwise rules reported: each workqueue consumer against every earlier one, each consumer against every subject of its stream. */
  function oracle(
    streams: Record<string, { retention: string; subjects: string[] }>,
    consumers: Array<[key: string, stream: string, filter: string, deliver: string]>,
  ) {
    const expected: Array<{ code: string; pointer: string; data?: Record<string, unknown> }> = []
    const at = (key: string, field: string) => `/x-nats-contract/consumers/${key}/config/${field}`
    const earlier = new Map<string, Array<[string, string]>>()
    for (const [key, stream, filter, deliver] of consumers) {
      if (streams[stream]?.retention !== 'workqueue') continue
      if (deliver !== 'all') expected.push({ code: 'NATS_WORKQUEUE_CONSUMER', pointer: at(key, 'deliver_policy') })
      const list = earlier.get(stream) ?? []
      const other = list.find(([, f]) => naiveOverlap(f, filter))
      if (other) expected.push({ code: 'NATS_WORKQUEUE_CONSUMER', pointer: at(key, 'filter_subject'), data: { consumer: key, other: other[0] } })
      list.push([key, filter])
      earlier.set(stream, list)
    }
    // nats-server's valid subset (error 10093): the filter within a subject, or a subject within the filter.
    for (const [key, stream, filter] of consumers) {
      const subjects = streams[stream]?.subjects ?? []
      if (subjects.length > 0 && !subjects.some((s) => naiveWithin(filter, s) || naiveWithin(s, filter)))
        expected.push({ code: 'NATS_CONSUMER_OUTSIDE_STREAM', pointer: at(key, 'filter_subject') })
    }
    return expected
  }

  it('60 documents of 2 streams and up to 9 consumers: the same diagnostics, at the same pointers', async () => {
    const dir = fresh('differential')
    const next = random(2929)
    let overlaps = 0
    let outside = 0
    for (let round = 0; round < 60; round++) {
      const streams: Record<string, { retention: string; subjects: string[] }> = {}
      const native: Record<string, unknown> = {}
      for (const [key, name, prefix] of [
        ['left', 'LEFT', 'l'],
        ['right', 'RIGHT', 'r'],
      ] as const) {
        const retention = next() < 0.7 ? 'workqueue' : 'limits'
        // Subjects under a prefix of their own, so the two streams never overlap each other.
        const subjects = Array.from({ length: 1 + Math.floor(next() * 3) }, () => `${prefix}.${pattern(next, false)}`)
        streams[key] = { retention, subjects: [...new Set(subjects)] }
        native[key] = streamConfig(retention, streams[key].subjects, name)
      }
      const consumers: Array<[string, string, string, string]> = Array.from({ length: 1 + Math.floor(next() * 9) }, (_, i) => {
        const stream = next() < 0.5 ? 'left' : 'right'
        const prefix = next() < 0.9 ? stream[0]! : 'x'
        return [`k${i}`, stream, `${prefix}.${pattern(next, false)}`, next() < 0.85 ? 'all' : 'new']
      })
      const file = join(dir, `d${round}.asyncapi.yaml`)
      writeFileSync(
        file,
        withNative(native, Object.fromEntries(consumers.map(([key, stream, filter, deliver], i) => [key, consumerConfig(i, filter, stream, deliver)]))),
      )
      const { diagnostics } = await new ContractCompiler().compile(file)
      const got = diagnostics
        .filter((d) => d.code === 'NATS_WORKQUEUE_CONSUMER' || d.code === 'NATS_CONSUMER_OUTSIDE_STREAM')
        .map((d) => ({
          code: d.code,
          pointer: d.pointer,
          ...(d.pointer.endsWith('filter_subject') && d.code === 'NATS_WORKQUEUE_CONSUMER' ? { data: d.data } : {}),
        }))
      const expected = oracle(streams, consumers)
      const order = (list: ReadonlyArray<{ code: string; pointer: string }>) => [...list].sort((a, b) => (a.code + a.pointer < b.code + b.pointer ? -1 : 1))
      expect(order(got), JSON.stringify({ streams, consumers })).toEqual(order(expected))
      overlaps += expected.filter((d) => d.data).length
      outside += expected.filter((d) => d.code === 'NATS_CONSUMER_OUTSIDE_STREAM').length
    }
    // The cases are telling: both kinds of verdict happen, many times.
    expect(overlaps).toBeGreaterThan(20)
    expect(outside).toBeGreaterThan(5)
  }, 120_000)
})

describe('the documents of the issue compile in bounded time', () => {
  it('4,000 consumers of a workqueue stream pass as the same document on a limits stream does (was 11.8 s against 1.2 s)', async () => {
    const dir = fresh('workqueue-4000')
    for (const retention of ['workqueue', 'limits'] as const) {
      const file = join(dir, `${retention}.asyncapi.yaml`)
      writeFileSync(file, workqueueConsumers(4000, retention))
      const { result } = await timed(file)
      expect(result.diagnostics, retention).toEqual([])
    }
  }, 120_000)

  it('10,000 consumers of a workqueue stream, over 2.4 MB (was 137 s), pass', async () => {
    const file = join(fresh('workqueue-10000'), 'c.asyncapi.yaml')
    const text = workqueueConsumers(10000)
    expect(text.length).toBeGreaterThan(2_400_000)
    writeFileSync(file, text)
    const { result } = await timed(file)
    expect(result.diagnostics).toEqual([])
  }, 120_000)

  it('4,000 consumers whose filters all overlap: each refused once, with the earliest it overlaps, capped', async () => {
    const file = join(fresh('workqueue-overlap'), 'c.asyncapi.yaml')
    writeFileSync(file, overlappingWorkqueueConsumers(4000))
    const { result } = await timed(file)
    expect(counts(result.diagnostics)).toEqual({ NATS_WORKQUEUE_CONSUMER: MAX_DIAGNOSTICS_PER_CODE, CONTRACTS_DIAGNOSTICS_CAPPED: 1 })
    expect(result.diagnostics.find((d) => d.code === 'CONTRACTS_DIAGNOSTICS_CAPPED')!.data).toEqual({
      code: 'NATS_WORKQUEUE_CONSUMER',
      count: 3999 - MAX_DIAGNOSTICS_PER_CODE,
    })
    const first = result.diagnostics.find((d) => d.code === 'NATS_WORKQUEUE_CONSUMER')!
    expect(first).toMatchObject({ pointer: '/x-nats-contract/consumers/worker1/config/filter_subject', data: { consumer: 'worker1', other: 'worker0' } })
  }, 120_000)

  it('4,000 consumers against a stream of 4,000 subjects, and 4,000 publishes into one stream of 4,001 subjects, pass', async () => {
    const dir = fresh('siblings')
    for (const [name, text] of [
      ['subjects', consumersAgainstStreamSubjects(4000)],
      ['publishes', publishesIntoOneStream(4000)],
    ] as const) {
      const file = join(dir, `${name}.asyncapi.yaml`)
      writeFileSync(file, text)
      const { result } = await timed(file)
      expect(result.diagnostics, name).toEqual([])
    }
  }, 120_000)

  it('a consumer outside a stream of 4,000 subjects is refused with the first few of them, not all', async () => {
    const file = join(fresh('outside'), 'c.asyncapi.yaml')
    writeFileSync(file, consumersAgainstStreamSubjects(4000).replace('filter_subject: jobs.s3999\n', 'filter_subject: elsewhere.>\n'))
    const { result } = await timed(file)
    const refusal = result.diagnostics.find((d) => d.code === 'NATS_CONSUMER_OUTSIDE_STREAM')!
    expect(refusal).toMatchObject({ severity: 'error', pointer: '/x-nats-contract/consumers/worker0/config/filter_subject' })
    expect(refusal.message).toContain('(and 3992 more)')
  })
})
