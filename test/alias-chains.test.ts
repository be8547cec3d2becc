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
import { aliasEnds, chainSafeTypes, eagerNames, tooDeep } from '../src/core/alias-chains.js'
import { MAX_VALIDATION_DEPTH } from '../src/runtime/shared/schema-errors.js'
import { loadModule } from './helpers/load-module.js'
import { compile } from '../src/index.js'
import { createLocalSender } from '../src/runtime/index.js'
import { freshDir } from './helpers/bundlers.js'
import { TSC, TSC7, tscProcess } from './helpers/cli.js'
import { oneTopicDocument } from './helpers/benzene-topic.js'
import { miniNatsDocument, withComponentSchemas } from './helpers/nats-mini.js'

const dir = freshDir(join(import.meta.dirname, '.tmp/alias-chains'))

/** `file` (`lines`) type-checked by `compiler`'s binary under `--strict`, as a user runs it, beside the declarations written in the work folder. */
function typeCheck(file: string, lines: readonly string[], compiler: string): { status: number | null; output: string } {
  writeFileSync(join(dir, file), `${lines.join('\n')}\n`)
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler', types: [] },
      files: [file],
    }),
  )
  return tscProcess(['-p', '.'], dir, compiler)
}

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

describe('eagerNames and tooDeep', () => {
  const names = new Set(['A', 'B', 'C'])
  it.each([
    ['A & { a: B; }', ['A']],
    ['(A | B)[]', []],
    ['A[] | B', ['B']],
    ['"A" | \'B\' | C', ['C']],
    ['{\n  /** } A " */\n  a?: B;\n} & C', ['C']],
    ['[A, B] | (C)', ['C']],
    ['((A) & (B | null)) | string', ['A', 'B']],
    ['$runtime.A | Array<A | B> | Z', []],
    ['Exclude<A | B, string> & Array<C>', ['A', 'B']],
    ['{ [key: string]: A } | ReadonlyArray<B>', []],
  ] as const)('%s', (type, eager) => {
    expect(eagerNames(type, names)).toEqual(eager)
  })

  it('tooDeep: the declarations whose longest chain of eager names reaches the limit, against a memoized walk of the same graph', () => {
    const graphs = fc.integer({ min: 1, max: 14 }).chain((n) =>
      fc.record({
        limit: fc.integer({ min: 1, max: 6 }),
        // Node i names later nodes only (no cycle), each eagerly or inside an object or an array.
        links: fc.array(fc.array(fc.record({ to: fc.nat(), how: fc.constantFrom('eager', 'object', 'array') }), { maxLength: 3 }), {
          minLength: n,
          maxLength: n,
        }),
      }),
    )
    fc.assert(
      fc.property(graphs, ({ limit, links }) => {
        const n = links.length
        const edges = links.map((list, i) => list.filter(() => i + 1 < n).map((l) => ({ to: i + 1 + (l.to % (n - i - 1)), how: l.how })))
        const bodies = new Map(
          edges.map((list, i) => [
            `T${i}`,
            list.length === 0
              ? 'string'
              : list.map((e) => (e.how === 'eager' ? `T${e.to}` : e.how === 'object' ? `{ m: T${e.to}; }` : `T${e.to}[]`)).join(' & '),
          ]),
        )
        const height = new Map<number, number>()
        const heightOf = (i: number): number => {
          if (!height.has(i)) height.set(i, Math.max(0, ...edges[i]!.filter((e) => e.how === 'eager').map((e) => heightOf(e.to) + 1)))
          return height.get(i)!
        }
        const expected = new Set(
          edges
            .map((_, i) => i)
            .filter((i) => heightOf(i) >= limit)
            .map((i) => `T${i}`),
        )
        expect(tooDeep(bodies, limit)).toEqual(expected)
      }),
      { numRuns: 1_000 },
    )
  })

  it('tooDeep: a cycle adds nothing, and a chain of 100,000 is walked without recursion', () => {
    expect(
      tooDeep(
        new Map([
          ['A', 'B & { a: string; }'],
          ['B', 'A | null'],
        ]),
        2,
      ),
    ).toEqual(new Set())
    const n = 100_000
    const chain = new Map(Array.from({ length: n + 1 }, (_, i) => [`A${i}`, i === n ? 'string' : `A${i + 1} | null`]))
    expect(tooDeep(chain, 255).size).toBe(n + 1 - 255)
  })
})

describe('eager cycles', () => {
  it('chainSafeTypes: a name of the cycle’s own is never where it closes one; deferred ones stay', () => {
    const types = chainSafeTypes(
      new Map([
        ['A', '(number | A)'],
        ['B', 'C'],
        ['C', 'B'],
        ['D', 'E & { d?: string; }'],
        ['E', 'D | null'],
        ['F', '{ f?: F; }'],
        ['G', 'G[] | string'],
        ['H', 'A & D'],
      ]),
    )
    expect(Object.fromEntries(types)).toEqual({
      A: '(number | never)',
      B: 'never',
      C: 'never',
      D: 'never & { d?: string; }',
      E: 'never | null',
      F: '{ f?: F; }',
      G: 'G[] | string',
      H: 'A & D',
    })
  })

  it('a schema that refers to itself through anyOf: the declarations read in tsc 6 (TS2456 before), its type what its validator takes', async () => {
    const nats = withComponentSchemas(miniNatsDocument({ message: ['        payload: { $ref: "#/components/schemas/A" }'] }), {
      A: { anyOf: [{ type: 'integer' }, { $ref: '#/components/schemas/A' }] },
    })
    const file = join(dir, 'cycle.asyncapi.yaml')
    writeFileSync(file, nats)
    const result = await compile(file)
    expect(result.diagnostics.map((d) => d.code)).toEqual(['NATS_SCHEMA_CYCLE'])
    writeFileSync(join(dir, 'cycle.d.ts'), result.dts!)
    const module = await loadModule(result.code!, 'alias-chains-cycle')
    expect([5, 'x', null].map((v) => module.placed.validatePayload(v))).toEqual([true, false, false])
    const r = typeCheck(
      'cycle-use.ts',
      ["import type { A } from './cycle.js'", 'export const ok: A = 5', '// @ts-expect-error -- the validator refuses a string', "export const bad: A = 'x'"],
      TSC,
    )
    expect([r.status, r.output]).toEqual([0, ''])
  })
})

describe('a passing branch tried first at the head of a long chain (outside pass: the head was `never`)', () => {
  const n = 260
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
  const unionFirst = Object.fromEntries([
    ...Array.from({ length: n }, (_, i) => [`A${i}`, { anyOf: [{ type: 'integer' }, ref(`A${i + 1}`)] }]),
    [`A${n}`, { type: 'string' }],
  ])
  // Benzene: a discriminator whose mapping picks the leaf, or the next link.
  const leaf = { type: 'object', required: ['k'], properties: { k: { type: 'string' } } }
  const discriminated = Object.fromEntries([
    ...Array.from({ length: n }, (_, i) => [
      `A${i}`,
      {
        oneOf: [ref('Leaf'), ref(`A${i + 1}`)],
        discriminator: { propertyName: 'k', mapping: { leaf: '#/components/schemas/Leaf', next: `#/components/schemas/A${i + 1}` } },
      },
    ]),
    [`A${n}`, leaf],
    ['Leaf', leaf],
  ])
  const benzene = (schemas: Record<string, unknown>) => oneTopicDocument(ref('A0'), { type: 'object' }, schemas)
  const nats = withComponentSchemas(miniNatsDocument({ message: ['        payload: { $ref: "#/components/schemas/A0" }'] }), unionFirst)

  it('the head takes what its validator takes, in both tscs', async () => {
    const cases = [
      ['first-nats', 'first.asyncapi.yaml', nats, '5'],
      ['first-benzene', 'first.spec.json', benzene(unionFirst), '5'],
      ['discriminated-benzene', 'discriminated.spec.json', benzene(discriminated), "{ k: 'leaf' }"],
    ] as const
    const sender = createLocalSender({ 'chain:go': () => ({}) } as never)
    const uses: string[] = []
    for (const [name, file, text, value] of cases) {
      writeFileSync(join(dir, file), text)
      const result = await compile(join(dir, file))
      expect([name, result.diagnostics.filter((d) => d.severity === 'error')]).toEqual([name, []])
      writeFileSync(join(dir, `${name}.d.ts`), result.dts!)
      const module = await loadModule(result.code!, `alias-chains-${name}`)
      const taken = name.endsWith('nats')
        ? module.placed.validatePayload(5)
        : (await module.go.send(sender, name.startsWith('first') ? 5 : { k: 'leaf' })).status === 'ok'
      expect([name, taken]).toEqual([name, true])
      uses.push(
        `import type { A0 as ${name.replace('-', '_')} } from './${name}.js'`,
        `export const ${name.replace('-', '_')}_ok: ${name.replace('-', '_')} = ${value}`,
      )
    }
    for (const compiler of [TSC, TSC7]) {
      const r = typeCheck('first-use.ts', uses, compiler)
      expect([r.status, r.output]).toEqual([0, ''])
    }
  })
})

/** Chains of one kind: a link only the next (`ref`, a one-member `allOf`, `anyOf`, `oneOf`), or the next and more. */
type Link = 'ref' | 'allOf' | 'anyOf' | 'oneOf' | 'intersection' | 'union' | 'nullable'
const ALIASES: Link[] = ['ref', 'allOf', 'anyOf', 'oneOf']
const LONG = 2_000
/** The last links a validation can still enter from the head of the chain's tail: a type, not `never`. */
const ENTERABLE = MAX_VALIDATION_DEPTH - 1
function chain(kind: Link, n: number, format: 'nats' | 'benzene'): Record<string, unknown> {
  const link = (i: number) => {
    const next = { $ref: `#/components/schemas/A${i + 1}` }
    if (kind === 'ref') return next
    if (kind === 'intersection') return { allOf: [next, { type: 'object', properties: { [`p${i}`]: { type: 'string' } } }] }
    if (kind === 'union') return { anyOf: [next, { type: 'integer' }] }
    // OpenAPI 3.0's nullable (Benzene); in NATS, JSON Schema's own spelling of the same.
    if (kind === 'nullable') return format === 'benzene' ? { allOf: [next], nullable: true } : { anyOf: [next, { type: 'null' }] }
    return { [kind]: [next] }
  }
  const end = kind === 'intersection' ? { type: 'object', properties: { end: { type: 'string' } } } : { type: 'string' }
  return Object.fromEntries([...Array.from({ length: n }, (_, i) => [`A${i}`, link(i)]), [`A${n}`, end]])
}

const natsDocument = (kind: Link, n: number) =>
  withComponentSchemas(miniNatsDocument({ message: ['        payload: { $ref: "#/components/schemas/A0" }'] }), chain(kind, n, 'nats'))

const benzeneDocument = (kind: Link, n: number) =>
  oneTopicDocument({ $ref: '#/components/schemas/A0' }, { $ref: '#/components/schemas/A0' }, chain(kind, n, 'benzene'))

describe(`declarations of ${LONG}-link chains`, () => {
  const kinds: Link[] = [...ALIASES, 'intersection', 'union', 'nullable']
  /** Each document's declarations, by `<format>-<kind>` (written as that `.d.ts`). */
  const declarations = new Map<string, string>()
  /** Each NATS document's module, whose validator the types are held to. */
  const natsModules = new Map<Link, Record<string, any>>()
  /** Each Benzene document's module: its topic checks a request before it is sent. */
  const benzeneModules = new Map<Link, Record<string, any>>()

  beforeAll(async () => {
    for (const [format, kind, text] of kinds.flatMap((kind) => [
      ['nats', kind, natsDocument(kind, LONG)] as const,
      ['benzene', kind, benzeneDocument(kind, LONG)] as const,
    ])) {
      const file = join(dir, `${kind}.${format === 'nats' ? 'asyncapi.yaml' : 'spec.json'}`)
      writeFileSync(file, text)
      const result = await compile(file)
      expect([file, result.diagnostics.filter((d) => d.severity === 'error')]).toEqual([file, []])
      const name = `${format}-${kind}`
      writeFileSync(join(dir, `${name}.d.ts`), result.dts!)
      declarations.set(name, result.dts!)
      ;(format === 'nats' ? natsModules : benzeneModules).set(kind, await loadModule(result.code!, `alias-chains-${name}`))
    }
  })

  /** Each link's declared type, parentheses around a lone name left out. */
  const declared = (dts: string) =>
    new Map([...dts.matchAll(/^export type (A\d+) = ([^]*?);$/gm)].map((m) => [m[1]!, m[2]!.replace(/^\(([A-Za-z0-9_$]+)\)$/, '$1')]))

  it('alias chains: the links too deep for a validation are `never`, every other link names the end', () => {
    for (const kind of ALIASES)
      for (const format of ['nats', 'benzene']) {
        const name = `${format}-${kind}`
        const types = declared(declarations.get(name)!)
        expect([name, types.size]).toEqual([name, LONG + 1])
        for (const [id, type] of types) {
          const k = Number(id.slice(1))
          expect([name, id, type]).toEqual([name, id, k === LONG ? 'string' : LONG - k >= ENTERABLE ? 'never' : `A${LONG}`])
        }
      }
  })

  it('intersection, union and nullable chains: where too deep, the reference is `never`; elsewhere as written', () => {
    for (const kind of ['intersection', 'union', 'nullable'] as const)
      for (const format of ['nats', 'benzene']) {
        const name = `${format}-${kind}`
        const types = declared(declarations.get(name)!)
        const names = new Set(types.keys())
        for (const [id, type] of types) {
          const k = Number(id.slice(1))
          if (k === LONG) continue
          const deep = LONG - k >= ENTERABLE
          expect([name, id, eagerNames(type, names), type.includes('never')]).toEqual([name, id, deep ? [] : [`A${k + 1}`], deep])
        }
      }
  })

  it('`never` where the validator refuses what takes the reference: the heads accept only what their types say', async () => {
    const values = ['text', 5, null, {}, { end: 'x' }, []]
    // A Benzene `nullable` admits null before it follows its reference; every other head refuses each value.
    const accepted = (format: string, kind: Link) => (format === 'benzene' && kind === 'nullable' ? [null] : [])
    const sender = createLocalSender({ 'chain:go': () => ({ end: 'x' }) } as never)
    for (const kind of kinds) {
      const nats = natsModules.get(kind)!
      expect([kind, values.filter((v) => nats.placed.validatePayload(v))]).toEqual([kind, accepted('nats', kind)])
      const benzene = benzeneModules.get(kind)!
      const sent: unknown[] = []
      for (const value of values) if ((await benzene.go.send(sender, value)).status !== 'validation-error') sent.push(value)
      expect([kind, sent]).toEqual([kind, accepted('benzene', kind)])
    }
    expect(declared(declarations.get('benzene-nullable')!).get('A0')).toBe('never | null')
  })

  it.each([
    ['TypeScript 6', TSC],
    ['TypeScript 7', TSC7],
  ])('%s reads them: the head is `never`, a link near the end is the end’s type', (_, compiler) => {
    const near = `A${LONG - 10}`
    const uses = [...declarations.keys()].flatMap((name, i) => {
      const kind = name.split('-')[1] as Link
      const value = kind === 'intersection' ? `{ end: 'x' }` : `'text'`
      return [
        `import type { A0 as H${i}, ${near} as N${i} } from './${name}.js'`,
        `export const ok${i}: N${i} = ${value}`,
        `// @ts-expect-error -- a boolean is none of the chain's types`,
        `export const bad${i}: N${i} = true`,
        `// @ts-expect-error -- no value is of the head's type`,
        `export const head${i}: H${i} = ${value}`,
      ]
    })
    expect(declarations.size).toBe(14)
    const r = typeCheck('use.ts', uses, compiler)
    expect([r.status, r.output]).toEqual([0, ''])
  })
})
