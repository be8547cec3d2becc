/**
 * Generated declarations of a long alias chain (`A0 -> A1 -> ... -> A2000`, each only the next: a
 * `$ref`, an `allOf`, `anyOf` or `oneOf` of one `$ref`). TypeScript's `tsc` resolves an alias of an
 * alias recursively: before, the NATS declarations of an `allOf` chain of 1,000 links and of a `$ref`
 * chain of 2,000, and Benzene's of a 2,000-link chain, ended tsc (6 and 7) with `RangeError:
 * Maximum call stack size exceeded`. Each alias is now declared as the type its chain ends in
 * (src/core/alias-chains.ts).
 *
 * Oracles: `aliasEnds` against a step-by-step walk of random alias graphs, cycles included; the
 * declarations against both compilers, which must read them and give the head the end's type.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { aliasEnds } from '../src/core/alias-chains.js'
import { compile } from '../src/index.js'
import { freshDir } from './helpers/bundlers.js'
import { TSC, TSC7, tscProcess } from './helpers/cli.js'
import { miniNatsDocument } from './helpers/nats-mini.js'

const dir = freshDir(join(import.meta.dirname, '.tmp/alias-chains'))

describe('aliasEnds', () => {
  /** The end of `name`'s chain, one step at a time: undefined when it is no alias or its chain never ends. */
  function walk(bodies: ReadonlyMap<string, string>, name: string): string | undefined {
    const target = (n: string) => {
      const body = bodies.get(n)!
      const bare = body.startsWith('(') && body.endsWith(')') ? body.slice(1, -1) : body
      return bodies.has(bare) && bare !== n ? bare : undefined
    }
    if (target(name) === undefined) return undefined
    let at = name
    for (let steps = 0; steps <= bodies.size; steps++) {
      const next = target(at)
      if (next === undefined) return at
      at = next
    }
    return undefined
  }

  const graphs = fc.integer({ min: 1, max: 12 }).chain((n) =>
    fc.array(
      fc.oneof(
        fc.integer({ min: 0, max: n - 1 }).map((k) => `T${k}`),
        fc.integer({ min: 0, max: n - 1 }).map((k) => `(T${k})`),
        fc.integer({ min: 0, max: n - 1 }).map((k) => `T${k}[]`),
        fc.integer({ min: 0, max: n - 1 }).map((k) => `{ a: T${k} }`),
        fc.constantFrom('string', 'Undeclared', '(Undeclared)', '(T0) & (T1)', '(T0'),
      ),
      { minLength: n, maxLength: n },
    ),
  )

  it('names, for every alias whose chain is longer than one step, the declaration its chain ends in; nothing else', () => {
    fc.assert(
      fc.property(graphs, (list) => {
        const bodies = new Map(list.map((body, i) => [`T${i}`, body]))
        const ends = aliasEnds(bodies)
        for (const name of bodies.keys()) {
          const end = walk(bodies, name)
          const direct = bodies.get(name)!.replace(/^\((.*)\)$/, '$1')
          expect([name, ends.get(name)]).toEqual([name, end === undefined || end === direct ? undefined : end])
          // Written as its end, the declaration names the same type: the end is no alias itself.
          if (end !== undefined) expect(walk(bodies, end)).toBeUndefined()
        }
      }),
      { numRuns: 2_000 },
    )
  })

  it('takes a chain of 100,000 without recursion, each alias to the end', () => {
    const n = 100_000
    const bodies = new Map(Array.from({ length: n + 1 }, (_, i) => [`A${i}`, i === n ? 'string' : `(A${i + 1})`]))
    const ends = aliasEnds(bodies)
    expect(ends.size).toBe(n - 1)
    expect(new Set(ends.values())).toEqual(new Set([`A${n}`]))
  })
})

type Link = 'ref' | 'allOf' | 'anyOf' | 'oneOf'
const LONG = 2_000
function chain(kind: Link, n: number): Record<string, unknown> {
  const link = (i: number) => {
    const next = { $ref: `#/components/schemas/A${i + 1}` }
    return kind === 'ref' ? next : { [kind]: [next] }
  }
  return Object.fromEntries([...Array.from({ length: n }, (_, i) => [`A${i}`, link(i)]), [`A${n}`, { type: 'string' }]])
}

function natsDocument(kind: Link, n: number): string {
  const schemas = Object.entries(chain(kind, n)).map(([name, schema]) => `    ${name}: ${JSON.stringify(schema)}`)
  return [miniNatsDocument({ message: ['        payload: { $ref: "#/components/schemas/A0" }'] }).trimEnd(), 'components:', '  schemas:', ...schemas, ''].join(
    '\n',
  )
}

function benzeneDocument(kind: Link, n: number): string {
  return JSON.stringify({
    openapi: '3.0.1',
    info: { title: 'chain', description: '', version: '' },
    messageEndpoint: '/benzene/invoke',
    transports: ['benzene'],
    requests: [{ topic: 'chain:go', request: { $ref: '#/components/schemas/A0' }, response: { $ref: '#/components/schemas/A0' } }],
    events: [],
    components: { schemas: chain(kind, n) },
  })
}

describe(`declarations of ${LONG}-link alias chains`, () => {
  const kinds: Link[] = ['ref', 'allOf', 'anyOf', 'oneOf']
  /** Each document's declarations, written as `<format>-<kind>.d.ts`. */
  const declarations = new Map<string, string>()

  beforeAll(async () => {
    for (const [format, file, text] of kinds.flatMap((kind) => [
      ['nats', `${kind}.asyncapi.yaml`, natsDocument(kind, LONG)] as const,
      ['benzene', `${kind}.spec.json`, benzeneDocument(kind, LONG)] as const,
    ])) {
      writeFileSync(join(dir, file), text)
      const result = await compile(join(dir, file))
      expect([file, result.diagnostics.filter((d) => d.severity === 'error')]).toEqual([file, []])
      const name = `${format}-${file.split('.')[0]}`
      writeFileSync(join(dir, `${name}.d.ts`), result.dts!)
      declarations.set(name, result.dts!)
    }
  })

  it('alias each link to the chain’s end, in both formats', () => {
    expect(declarations.size).toBe(8)
    for (const [name, dts] of declarations) {
      // Every link names the end; the end is the string it was.
      const declared = [...dts.matchAll(/^export type (A\d+) = (.*);$/gm)].map((m) => [m[1]!, m[2]!.replace(/^\((.*)\)$/, '$1')])
      expect([name, declared.length]).toEqual([name, LONG + 1])
      for (const [id, type] of declared) expect([name, id, type]).toEqual([name, id, id === `A${LONG}` ? 'string' : `A${LONG}`])
    }
  })

  it.each([
    ['TypeScript 6', TSC],
    ['TypeScript 7', TSC7],
  ])('%s reads them: the chain’s head is the end’s type', (_, compiler) => {
    const uses = [...declarations.keys()].flatMap((name, i) => [
      `import type { A0 as H${i} } from './${name}.js'`,
      `export const ok${i}: H${i} = 'text'`,
      `// @ts-expect-error -- a number is not the chain's string`,
      `export const bad${i}: H${i} = 1`,
    ])
    writeFileSync(join(dir, 'use.ts'), `${uses.join('\n')}\n`)
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler', types: [] },
        files: ['use.ts'],
      }),
    )
    expect(declarations.size).toBe(8)
    const r = tscProcess(['-p', '.'], dir, compiler)
    expect([r.status, r.output]).toEqual([0, ''])
  })
})
