/**
 * Hostile input families of the DASP surface, timed at n and 10n by `bench/complexity.ts`: the
 * dependency rules on a chain whose head alone is requested (every link reported missing, with its
 * chain) and on a ring of requested extensions (one cycle), and the runtime's reopen check on a
 * saved floor against the same offer in reverse order (it compared every floor entry with every
 * offered one). test/dasp-dependency-graph.test.ts and test/dasp-runtime.test.ts hold the verdicts.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { checkSessionFloor } from '../dist/src/runtime/dasp/index.js'
import type { Family } from './family.js'
import { daspManyDependencies } from './hostile.js'

const uri = (i: number) => `https://example.com/dasp/contracts/node-${i}`

/** fixtures/dasp's selection with `n` more definitions, node i requiring `next(i)`, and the nodes `requested` added to its request. */
function graph(dir: string, n: number, next: (i: number) => number | undefined, requested: readonly number[]): string {
  const selection = daspManyDependencies(dir, 0)
  const template = JSON.parse(readFileSync(join(dir, 'extensions/proof-of-authority.dasp-ext.json'), 'utf8'))
  delete template.content
  const files: string[] = []
  for (let i = 0; i < n; i++) {
    const to = next(i)
    const definition = {
      ...template,
      identity: { uri: uri(i), version: 'draft-01' },
      dependencies: to === undefined ? [] : [{ uri: uri(to), version: 'draft-01', scope: 'session' }],
    }
    writeFileSync(join(dir, `extensions/node-${i}.dasp-ext.json`), JSON.stringify(definition))
    files.push(`extensions/node-${i}.dasp-ext.json`)
  }
  const s = JSON.parse(readFileSync(selection, 'utf8'))
  s.definitions.push(...files)
  s.extensions.push(...requested.map((i) => ({ uri: uri(i), version: 'draft-01', scope: 'session', settings: {} })))
  writeFileSync(selection, JSON.stringify(s, null, 2))
  return selection
}

/**
 * A saved floor of n extensions, each with a persistent setting and a dependency, and an offer of the
 * same in reverse order; `oneUri`: all of one URI, each in a scope of its own (an outside pass found
 * entries sharing a URI compared with each other: quadratic).
 */
function floorAndOffer(dir: string, n: number, oneUri = false): string {
  const entries = Array.from({ length: n }, (_, i) => ({
    uri: oneUri ? uri(0) : uri(i),
    version: 'draft-01',
    content: { kind: 'git-commit', repository: 'https://example.com/r', commit: i.toString(16).padStart(40, '0') },
    scope: oneUri ? `scope-${i}` : 'session',
    settings: { level: i % 10 },
    dependencies: [{ uri: uri((i + 1) % n), version: 'draft-01', scope: 'session' }],
  }))
  const contracts = Object.fromEntries(
    ['core', 'profile', 'binding'].map((name) => [
      name,
      { uri: `urn:example:${name}`, version: '1', content: { kind: 'git-commit', repository: 'https://example.com/r', commit: 'a'.repeat(40) } },
    ]),
  )
  const floor = { ...contracts, extensions: entries.map((e) => ({ ...e, operations: ['dasp.v1.command'] })) }
  const offer = { ...contracts, extensions: [...entries].reverse() }
  const file = join(dir, 'floor.json')
  writeFileSync(file, JSON.stringify({ floor, offer }))
  return file
}

export const families: Family[] = [
  { name: 'DASP chain, only its head requested', n: 100, make: (n, d) => graph(d, n, (i) => (i + 1 < n ? i + 1 : undefined), [0]) },
  {
    name: 'DASP ring of requested extensions',
    n: 100,
    make: (n, d) =>
      graph(
        d,
        n,
        (i) => (i + 1) % n,
        Array.from({ length: n }, (_, i) => i),
      ),
  },
  { name: 'DASP reopen check, reversed offer', n: 2000, make: (n, d) => floorAndOffer(d, n), run: reopen },
  { name: 'DASP reopen check, one URI in n scopes', n: 2000, make: (n, d) => floorAndOffer(d, n, true), run: reopen },
]

/** The reopen check of the floor and offer at `path`, which must hold. */
function reopen(path: string): () => void {
  const { floor, offer } = JSON.parse(readFileSync(path, 'utf8')) as { floor: unknown; offer: unknown }
  return () => {
    const verdict = checkSessionFloor(floor, offer)
    if (!verdict.ok) throw new Error(verdict.reason)
  }
}
