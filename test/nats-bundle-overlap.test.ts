/**
 * Bundle-wide channel overlap (NATS_CONTRACT_OVERLAP) against brute force: random bundles of two or
 * three small contracts over tiny token domains are compiled for real, one document at a time, and
 * the overlaps reported are compared with the pairs of channels whose enumerated subject sets meet
 * (same deployment binding, no links between them). Where each overlap is reported is part of the
 * verdict: at the compiled document's channel when it is one of the pair, else at the channel of
 * the later document by path.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import type { TokenType } from '../src/runtime/nats/tokens.js'
import { members as membersOf, oracle, words } from './helpers/token-oracle.js'

const runs = Number(process.env.PROPERTY_RUNS ?? 200) >> 1
const UNIVERSE = words(2)
const root = join(import.meta.dirname, '.tmp', `bundle-overlap-${process.pid}`)
afterAll(() => rmSync(root, { recursive: true, force: true }))

const tokenType: fc.Arbitrary<TokenType> = fc
  .oneof(
    fc.uniqueArray(fc.constantFrom('a', 'g', '0', 'ag'), { minLength: 1, maxLength: 3 }).map((values) => ({ kind: 'enum' as const, values })),
    fc
      .record({
        alphabet: fc.constantFrom('lower' as const, 'ascii' as const, 'hex' as const),
        first: fc.constantFrom('letter' as const, 'any' as const),
        prefix: fc.constantFrom('', 'a'),
        minLength: fc.integer({ min: 1, max: 2 }),
        span: fc.integer({ min: 0, max: 1 }),
      })
      .map(({ span, minLength, ...rest }) => ({ kind: 'token' as const, ...rest, minLength, maxLength: Math.min(2, minLength + span) })),
  )
  .filter((type) => UNIVERSE.some((w) => oracle(type).test(w)))

type Position = string | TokenType
/** At most two placeholders per channel, so that every channel's subjects can be listed. */
const channel = fc
  .array(fc.oneof(fc.constantFrom('a', 'g'), tokenType), { minLength: 1, maxLength: 3 })
  .filter((positions) => positions.filter((p) => typeof p !== 'string').length <= 2)
const application = fc.record({ binding: fc.constantFrom('shared', 'shared', 'other'), channels: fc.array(channel, { minLength: 1, maxLength: 3 }) })
const bundle = fc.record({ apps: fc.array(application, { minLength: 2, maxLength: 3 }), compiled: fc.nat() })

function documentOf(n: number, app: { binding: string; channels: Position[][] }): unknown {
  const tokenTypes: Record<string, unknown> = {}
  const profiled: Record<string, unknown> = {}
  const standard: Record<string, unknown> = {}
  app.channels.forEach((positions, c) => {
    const parameters: Record<string, string> = {}
    const address = positions.map((p, k) => {
      if (typeof p === 'string') return p
      tokenTypes[`c${c}p${k}`] = p
      parameters[`p${k}`] = `c${c}p${k}`
      return `{p${k}}`
    })
    profiled[`c${c}`] = { parameters }
    standard[`c${c}`] = { address: address.join('.'), parameters: Object.fromEntries(Object.keys(parameters).map((p) => [p, {}])) }
  })
  return {
    asyncapi: '3.1.0',
    info: { title: `App ${n}`, version: '1.0.0' },
    'x-nats-contract': {
      version: '0.2.0-draft',
      contract: `app${n}`,
      deployment: { binding: app.binding, minimumServerVersion: '2.11.0' },
      tokenTypes,
      channels: profiled,
      operations: {},
    },
    channels: standard,
    operations: {},
  }
}

const subjectsOf = (positions: Position[]): Set<string> =>
  new Set(
    positions.reduce<string[]>(
      (out, p) => {
        const members = typeof p === 'string' ? [p] : membersOf(p, UNIVERSE)
        return out.flatMap((prefix) => members.map((m) => (prefix === '' ? m : `${prefix}.${m}`)))
      },
      [''],
    ),
  )

let count = 0
describe('bundle-wide channel overlap', () => {
  const seen = { overlapping: 0, disjoint: 0 }
  it('reports exactly the pairs of channels of two contracts (one binding) whose subjects meet, where the rule says', async () => {
    await fc.assert(
      fc.asyncProperty(bundle, async ({ apps, compiled }) => {
        const dir = join(root, String(count++))
        const files = apps.map((_, i) => `a${i}/asyncapi.yaml`)
        apps.forEach((app, i) => {
          mkdirSync(join(dir, `a${i}`), { recursive: true })
          writeFileSync(join(dir, files[i]!), JSON.stringify(documentOf(i, app), null, 1))
        })
        const sha = (rel: string) =>
          createHash('sha256')
            .update(readFileSync(join(dir, rel)))
            .digest('hex')
        writeFileSync(join(dir, 'bundle.lock.json'), JSON.stringify({ entries: files.map((path) => ({ path, sha256: sha(path) })) }))
        const me = compiled % apps.length
        const result = await compile(join(dir, files[me]!))
        // Only overlap verdicts are generated here: nothing else may be reported.
        expect(result.diagnostics.filter((d) => d.code !== 'NATS_CONTRACT_OVERLAP' && d.code !== 'NATS_CHANNEL_OVERLAP')).toEqual([])
        const got = result.diagnostics
          .filter((d) => d.code === 'NATS_CONTRACT_OVERLAP')
          .map((d) => `${d.file.slice(dir.length + 1)} ${d.pointer} ${String(d.data?.contract)} ${String(d.data?.channel)}`)
          .sort()
        const expected: string[] = []
        const sets = apps.map((app) => app.channels.map(subjectsOf))
        for (let i = 0; i < apps.length; i++)
          for (let j = i + 1; j < apps.length; j++) {
            if (apps[i]!.binding !== apps[j]!.binding) continue
            // Reported in the compiled document when it is one of the two, else in the later file.
            const [at, away] = j === me ? [j, i] : i === me ? [i, j] : [j, i]
            sets[at]!.forEach((mine, c) =>
              sets[away]!.forEach((theirs, k) => {
                if ([...mine].some((s) => theirs.has(s))) expected.push(`${files[at]} /channels/c${c}/address app${away} c${k}`)
              }),
            )
          }
        expect(got).toEqual(expected.sort())
        seen[expected.length > 0 ? 'overlapping' : 'disjoint']++
      }),
      { numRuns: Math.max(runs, 20) },
    )
    // Both verdicts were exercised, not only one.
    expect(seen.overlapping).toBeGreaterThan(runs / 10)
    expect(seen.disjoint).toBeGreaterThan(runs / 10)
  }, 120_000)
})
