/**
 * The DASP dependency rules on whole graphs, against oracles written from DASP-EXT-002 ("the
 * request MUST contain the full required dependency set"; a dependency in a cycle, unsupported, or
 * named by something that is not an identity fails selection), not from the rules:
 *
 * - every extension reachable from the request through required dependencies and not requested is
 *   reported missing in one run (an outside pass found one level reported per run: a chain of n took
 *   n - 1 runs to fix);
 * - each cycle among what the request needs is one diagnostic (a ring of n requested extensions
 *   gave n rotations of a 175 KB message), including a cycle further down that no requested
 *   extension is on;
 * - a dependency's identity is checked as an identity (DASP_IDENTITY at the entry), and one with no
 *   definition is reported at its entry with the closest definition as a hint.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MAX_DIAGNOSTICS_PER_CODE } from '../src/core/diagnostics.js'
import { compile } from '../src/index.js'
import { freshDir } from './helpers/bundlers.js'

const fixtures = join(import.meta.dirname, '../fixtures/dasp')
const uri = (i: number) => `https://example.com/dasp/contracts/node-${i}`

interface Graph {
  /** edges[i]: the nodes node i requires (node ids at or past `defined` have no definition). */
  edges: number[][]
  defined: number
  requested: number[]
}

let serial = 0
/** fixtures/dasp's selection with one definition per defined node (proof-of-authority's, renamed) and the requested nodes added to its request. */
function write(graph: Graph, edit?: (definitions: Array<Record<string, unknown>>) => void): string {
  const dir = freshDir(join(import.meta.dirname, `.tmp/dasp-dependency-graph/${serial++}`))
  cpSync(join(fixtures, 'extensions'), join(dir, 'extensions'), { recursive: true })
  cpSync(join(fixtures, 'pins'), join(dir, 'pins'), { recursive: true })
  const template = JSON.parse(readFileSync(join(fixtures, 'extensions/proof-of-authority.dasp-ext.json'), 'utf8'))
  delete template.content
  const definitions = Array.from({ length: graph.defined }, (_, i) => ({
    ...template,
    identity: { uri: uri(i), version: 'draft-01' },
    dependencies: graph.edges[i]!.map((j) => ({ uri: uri(j), version: 'draft-01', scope: 'session' })),
  }))
  edit?.(definitions)
  definitions.forEach((d, i) => writeFileSync(join(dir, `extensions/node-${i}.dasp-ext.json`), JSON.stringify(d, null, 2)))
  const selection = JSON.parse(readFileSync(join(fixtures, 'counter.dasp.json'), 'utf8'))
  selection.definitions.push(...definitions.map((_, i) => `extensions/node-${i}.dasp-ext.json`))
  selection.extensions.push(...graph.requested.map((i) => ({ uri: uri(i), version: 'draft-01', scope: 'session', settings: {} })))
  writeFileSync(join(dir, 'counter.dasp.json'), JSON.stringify(selection, null, 2))
  return join(dir, 'counter.dasp.json')
}

const diagnostics = async (file: string) => (await compile(file)).diagnostics
const nodeOf = (text: string) => Number(/node-(\d+)$/.exec(text)![1])

/** Oracle: the nodes reachable in one step or more from `starts` through required dependencies, by a plain search. */
function reachFrom(graph: Graph, starts: readonly number[]): Set<number> {
  const seen = new Set<number>()
  const stack = starts.flatMap((r) => graph.edges[r] ?? [])
  while (stack.length > 0) {
    const n = stack.pop()!
    if (seen.has(n)) continue
    seen.add(n)
    stack.push(...(graph.edges[n] ?? []))
  }
  return seen
}
const reachable = (graph: Graph) => reachFrom(graph, graph.requested)

/** Oracle: the cycles the request needs, as sets of mutually reachable nodes (a node with an edge to itself is one), among the requested and reachable nodes. */
function cycles(graph: Graph): Set<string> {
  const reach = graph.edges.map((_, from) => reachFrom(graph, [from]))
  const needed = new Set([...graph.requested, ...reachable(graph)])
  const out = new Set<string>()
  for (const a of needed) {
    if (!reach[a]!.has(a)) continue
    out.add(JSON.stringify([...needed].filter((b) => reach[a]!.has(b) && reach[b]!.has(a)).sort((x, y) => x - y)))
  }
  return out
}

const arbitraryGraph = fc
  .integer({ min: 2, max: 8 })
  .chain((n) =>
    fc.record({
      // Node ids up to n + 1: the last two have no definition.
      edges: fc.array(fc.uniqueArray(fc.integer({ min: 0, max: n + 1 }), { maxLength: 3 }), { minLength: n + 2, maxLength: n + 2 }),
      defined: fc.constant(n),
      requested: fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { minLength: 1, maxLength: n }),
    }),
  )
  .map((g) => ({ ...g, edges: g.edges.map((e, i) => (i < g.defined ? e : [])) }))

describe('DASP dependency graphs against oracles from DASP-EXT-002', () => {
  it('every extension the request needs and lacks is reported in one run; each cycle it needs once', async () => {
    let withChains = 0
    let withCycles = 0
    await fc.assert(
      fc.asyncProperty(arbitraryGraph, async (graph) => {
        const found = await diagnostics(write(graph))
        const requested = new Set(graph.requested)
        const lacking = [...reachable(graph)].filter((n) => !requested.has(n)).sort((a, b) => a - b)
        const missing = found.filter((d) => d.code === 'DASP_DEPENDENCY_MISSING')
        const reportedMissing = [...new Set(missing.map((d) => nodeOf((d.data as { dependency: { uri: string } }).dependency.uri)))].sort((a, b) => a - b)
        expect(reportedMissing, JSON.stringify(graph)).toEqual(lacking)
        if (missing.some((d) => (d.data as { through?: unknown }).through)) withChains++
        // Each at a requested extension of the selection.
        for (const d of missing) expect(d.pointer).toMatch(/^\/extensions\/\d+$/)
        const reportedCycles = found.filter((d) => d.code === 'DASP_DEPENDENCY_CYCLE')
        const expected = cycles(graph)
        expect(reportedCycles.length, JSON.stringify(graph)).toBe(expected.size)
        // Each message names a cycle of one of the expected components (its members, first again last).
        const members = new Map([...expected].flatMap((c) => (JSON.parse(c) as number[]).map((m) => [m, c] as const)))
        for (const d of reportedCycles) {
          const path = /cycle: (.*)\.$/.exec(d.message)![1]!.split(' -> ').map(nodeOf)
          expect(path[0]).toBe(path[path.length - 1])
          expect(new Set(path.map((m) => members.get(m))).size).toBe(1)
        }
        if (expected.size > 0) withCycles++
      }),
      { numRuns: 80, seed: 20261206 },
    )
    // Not vacuous: chains through unrequested definitions and cycles were both met.
    expect(withChains).toBeGreaterThan(5)
    expect(withCycles).toBeGreaterThan(5)
  }, 120_000)

  it('a chain of five with only its head requested: the four it lacks, each with how it is needed', async () => {
    const graph: Graph = { edges: [[1], [2], [3], [4], []], defined: 5, requested: [0] }
    const missing = (await diagnostics(write(graph))).filter((d) => d.code === 'DASP_DEPENDENCY_MISSING')
    expect(missing.map((d) => [d.pointer, nodeOf((d.data as { dependency: { uri: string } }).dependency.uri)])).toEqual([
      ['/extensions/2', 1],
      ['/extensions/2', 2],
      ['/extensions/2', 3],
      ['/extensions/2', 4],
    ])
    expect(missing[2]!.message).toContain(`requires ${uri(1)} draft-01, which requires ${uri(2)} draft-01, which requires ${uri(3)} draft-01 in session scope`)
    expect(missing[3]!.message).toContain(`requires ${uri(1)} draft-01, which requires (through 1 more) ${uri(3)} draft-01, which requires ${uri(4)}`)
  })

  it('a -> b -> c -> b with only a requested: b and c lacking, and the cycle b <-> c, in one run', async () => {
    const found = await diagnostics(write({ edges: [[1], [2], [1]], defined: 3, requested: [0] }))
    expect(found.filter((d) => d.code === 'DASP_DEPENDENCY_MISSING').map((d) => nodeOf((d.data as { dependency: { uri: string } }).dependency.uri))).toEqual([
      1, 2,
    ])
    const cycle = found.filter((d) => d.code === 'DASP_DEPENDENCY_CYCLE')
    expect(cycle.map((d) => [d.pointer, d.message])).toEqual([
      ['/extensions/2', `${uri(0)} draft-01 needs ${uri(1)}, whose required dependencies cycle: ${uri(1)} -> ${uri(2)} -> ${uri(1)}.`],
    ])
  })

  it('two versions of one URI required (one requested, one not): the missing one says both cannot be met', async () => {
    const file = write({ edges: [[1], [], [1]], defined: 3, requested: [0, 1, 2] }, (definitions) => {
      definitions[2]!.dependencies = [{ uri: uri(1), version: '2', scope: 'session' }]
    })
    const missing = (await diagnostics(file)).filter((d) => d.code === 'DASP_DEPENDENCY_MISSING')
    expect(missing.map((d) => d.pointer)).toEqual(['/extensions/4'])
    expect(missing[0]!.message).toContain(`${uri(0)} draft-01 requires ${uri(1)} draft-01: a request holds one version of a URI`)
    // One version required: no such words.
    const single = (await diagnostics(write({ edges: [[1], []], defined: 2, requested: [0] }))).filter((d) => d.code === 'DASP_DEPENDENCY_MISSING')
    expect(single[0]!.message).not.toContain('one version of a URI')
  })

  it('a ring of 300 requested extensions is one cycle, its message a few KB (first and last links shown, the rest counted)', async () => {
    const n = 300
    const graph: Graph = { edges: Array.from({ length: n }, (_, i) => [(i + 1) % n]), defined: n, requested: Array.from({ length: n }, (_, i) => i) }
    const cycle = (await diagnostics(write(graph))).filter((d) => d.code === 'DASP_DEPENDENCY_CYCLE')
    expect(cycle).toHaveLength(1)
    expect(cycle[0]!.pointer).toBe('/extensions/2')
    expect(cycle[0]!.message).toContain(`(${n + 1 - 32} more)`)
    expect(cycle[0]!.message.split(' -> ')).toHaveLength(33)
    expect(cycle[0]!.message.length).toBeLessThan(4000)
    expect(cycle[0]!.data).toMatchObject({ members: n })
  })

  it('past MAX_DIAGNOSTICS_PER_CODE disjoint cycles, the rest are counted', async () => {
    const pairs = MAX_DIAGNOSTICS_PER_CODE + 5
    const edges = Array.from({ length: 2 * pairs }, (_, i) => [i % 2 === 0 ? i + 1 : i - 1])
    const found = await diagnostics(write({ edges, defined: 2 * pairs, requested: Array.from({ length: 2 * pairs }, (_, i) => i) }))
    expect(found.filter((d) => d.code === 'DASP_DEPENDENCY_CYCLE')).toHaveLength(MAX_DIAGNOSTICS_PER_CODE)
    expect(found.find((d) => d.code === 'CONTRACTS_DIAGNOSTICS_CAPPED' && (d.data as { code: string }).code === 'DASP_DEPENDENCY_CYCLE')).toMatchObject({
      data: { count: 5 },
    })
  })
})

describe('a dependency is named by an identity (DASP-EXT-002)', () => {
  const one = (dependency: Record<string, unknown>) =>
    write(
      { edges: [[], []], defined: 2, requested: [0, 1] },
      (definitions) => (definitions[0]!.dependencies = [{ uri: uri(1), version: 'draft-01', scope: 'session' }, dependency]),
    )
  const identityAt = async (dependency: Record<string, unknown>) =>
    (await diagnostics(await one(dependency))).filter((d) => d.code === 'DASP_IDENTITY').map((d) => [d.pointer, d.file.endsWith('node-0.dasp-ext.json')])

  it.each([
    ['an empty URI', { uri: '', version: '1' }],
    ['a relative reference', { uri: 'ext-b', version: '1' }],
    ['a fragment', { uri: 'urn:x:a#frag', version: '1' }],
    ['a newline', { uri: 'urn:x:a\nb', version: '1' }],
    ['U+2028', { uri: 'urn:x:a\u2028', version: '1' }],
    ['a bidi override', { uri: 'urn:x:\u202ea', version: '1' }],
    ['a quote', { uri: 'urn:x:"a"', version: '1' }],
    ['an empty version', { uri: 'urn:x:a', version: '' }],
  ])('%s: DASP_IDENTITY at the entry, in the definition', async (_, dependency) => {
    expect(await identityAt({ ...dependency, scope: 'session' })).toEqual([['/dependencies/1', true]])
  })

  it('a valid identity: no DASP_IDENTITY (its lack of a definition is another rule)', async () => {
    expect(await identityAt({ uri: 'urn:example:dasp:elsewhere', version: '1', scope: 'session' })).toEqual([])
  })

  it('DASP_DEPENDENCY_UNSUPPORTED at each entry, with the closest definition for a near miss', async () => {
    const file = write({ edges: [[], []], defined: 2, requested: [0, 1] }, (definitions) => {
      definitions[0]!.dependencies = [
        { uri: uri(1), version: 'draft-01', scope: 'session' },
        { uri: `${uri(1)}/`, version: 'draft-01', scope: 'session' },
        { uri: 'urn:example:dasp:nothing-like-it', version: '1', scope: 'session' },
        { uri: uri(1), version: 'draft-1', scope: 'session' },
      ]
    })
    const unsupported = (await diagnostics(file)).filter((d) => d.code === 'DASP_DEPENDENCY_UNSUPPORTED')
    expect(unsupported.map((d) => [d.pointer, (d.data as { closest?: { uri: string; version: string } }).closest ?? null])).toEqual([
      ['/dependencies/1', { uri: uri(1), version: 'draft-01' }],
      ['/dependencies/2', null],
      ['/dependencies/3', { uri: uri(1), version: 'draft-01' }],
    ])
    expect(unsupported[0]!.message).toContain(`did you mean ${uri(1)} draft-01?`)
  })

  it('a dependency nothing defines, named by a definition the request needs but does not hold, is reported too (at its entry)', async () => {
    // node-0 (requested) -> node-1 (defined, not requested) -> node-1/ (a near miss) and node-7 (nothing).
    const file = write({ edges: [[1], []], defined: 2, requested: [0] }, (definitions) => {
      definitions[1]!.dependencies = [
        { uri: `${uri(1)}/`, version: 'draft-01', scope: 'session' },
        { uri: uri(7), version: 'draft-01', scope: 'session' },
      ]
    })
    const unsupported = (await diagnostics(file)).filter((d) => d.code === 'DASP_DEPENDENCY_UNSUPPORTED')
    expect(unsupported.map((d) => [d.file.endsWith('node-1.dasp-ext.json'), d.pointer, (d.data as { closest?: unknown }).closest ?? null])).toEqual([
      [true, '/dependencies/0', { uri: uri(1), version: 'draft-01' }],
      [true, '/dependencies/1', null],
    ])
  })
})
