/**
 * Validators with a stated worst case (issue 29): a payload schema whose `oneOf` branches share a
 * recursive member, met with data lacking the member that tells the branches apart, made
 * validation exponential in the data's depth (242 bytes: seconds; 272 bytes sent to a real
 * subscriber froze it for 8.7-35.6 s); and a 50 KB pattern routed to the linear engine took
 * 9-11 s on one 10,000-character value. Each attack as written, through the interpreter, the
 * generated code, a real nats-server subscriber and a Benzene `send()` over HTTP; the cost is
 * pinned by counting the reads validation makes of the data (deterministic), with generous
 * termination bounds as in hostile-compile.test.ts; and a differential holds the memoized
 * validators to ajv on random recursive-combinator schemas.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { connect } from '@nats-io/transport-node'
import type { NatsConnection } from '@nats-io/nats-core'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { patternEngine } from '../src/core/pattern-safety.js'
import { bindContract, type ContractClientError, type ContractModule } from '../src/runtime/nats/client/index.js'
import { createHttpSender } from '../src/runtime/benzene/http.js'
import { MAX_PATTERN_PROGRAM, MAX_PATTERN_WORK, linearMatcher, linearPatterns } from '../src/runtime/shared/linear-pattern.js'
import { schemaValidator, type Schema } from '../src/runtime/shared/schema-check.js'
import { MAX_ERRORS, type SchemaError } from '../src/runtime/shared/schema-errors.js'
import type { Validator } from '../src/runtime/shared/validation.js'
import { perRunReference } from './helpers/ajv-reference.js'
import { BenzeneHttpServer } from './helpers/benzene-http-server.js'
import { loadModule } from './helpers/load-module.js'
import { NATS_SERVER, startNatsServer, type NatsServer } from './helpers/nats-server.js'
import { evaluateDeclarations, generatedValidator, interpretedValidator } from './helpers/validator-code.js'
import { validatorDeclarations } from '../src/core/schema-code.js'

const require = createRequire(import.meta.url)
const Ajv = require('ajv') as typeof import('ajv').default
/**
 * The reference's options. `code.optimize` off: ajv then skips the pass that simplifies its generated
 * code (the same checks, the same errors), which was a third of ajv's time when it compiles a fresh
 * schema on every run of a property.
 */
const AJV_OPTIONS = { allErrors: true, ownProperties: true, strict: false, validateFormats: false, unicodeRegExp: true, code: { optimize: false } } as const
const hostile = join(import.meta.dirname, '../fixtures/hostile')
const tmp = join(import.meta.dirname, '.tmp')

const within = <T>(ms: number, what: string, promise: Promise<T>) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms))])

// ---- The tree of nodes ----

const NODE = 'defs#/definitions/Node'
const branch = (kind: string): Schema => ({
  type: 'object',
  properties: { kind: { const: kind }, children: { type: 'array', items: { $ref: NODE } } },
  required: ['kind', 'children'],
})
const TREE: Readonly<Record<string, Schema>> = { [NODE]: { oneOf: [branch('leafy'), branch('branchy')] } }

/** A tree `levels` deep, each node with `width` children and no `kind`: every level fails both branches. */
const tree = (levels: number, width = 1): unknown => ({ children: levels === 0 ? [] : Array.from({ length: width }, () => tree(levels - 1, width)) })

/** The deepest single-child tree whose JSON fits `bytes`, padded with spaces to exactly `bytes` (what the wire carries). */
function treeText(bytes: number): string {
  let levels = 0
  while (JSON.stringify(tree(levels + 1)).length <= bytes) levels++
  const text = JSON.stringify(tree(levels))
  return text + ' '.repeat(bytes - text.length)
}

/**
 * `value` behind proxies that count every read a validator makes of it (members, own-member
 * tests, key lists): the validation's cost, counted rather than timed. Made once per node, so a
 * memo keyed by identity sees the same objects a parsed payload would give.
 */
function counted(value: unknown, reads: { n: number }): unknown {
  if (typeof value !== 'object' || value === null) return value
  const target: Record<string, unknown> | unknown[] = Array.isArray(value) ? value.map((v) => counted(v, reads)) : {}
  if (!Array.isArray(value)) for (const [k, v] of Object.entries(value)) (target as Record<string, unknown>)[k] = counted(v, reads)
  return new Proxy(target, {
    get: (t, k, r) => (reads.n++, Reflect.get(t, k, r)),
    getOwnPropertyDescriptor: (t, k) => (reads.n++, Reflect.getOwnPropertyDescriptor(t, k)),
    has: (t, k) => (reads.n++, Reflect.has(t, k)),
    ownKeys: (t) => (reads.n++, Reflect.ownKeys(t)),
  })
}

const nodesOf = (value: unknown): number =>
  typeof value !== 'object' || value === null ? 1 : 1 + (Array.isArray(value) ? value : Object.values(value)).reduce((n: number, v) => n + nodesOf(v), 0)

const validators = (): Array<[string, Validator]> => [
  ['interpreter', schemaValidator({ $ref: NODE }, TREE)],
  ['generated code', generatedValidator({ $ref: NODE }, TREE)],
]

function ajvTree() {
  const ajv = new Ajv(AJV_OPTIONS)
  ajv.addSchema({ $id: 'defs', definitions: { Node: TREE[NODE] } })
  return ajv.compile({ $ref: NODE })
}

describe('a oneOf whose branches share a recursive member (the tree of nodes)', () => {
  it('242 and 272 bytes, and 10 KB deep or wide: a few reads per data node and schema node, not 4x per two levels', () => {
    const cases: Array<[string, unknown]> = [
      ['242 bytes', JSON.parse(treeText(242))],
      ['272 bytes', JSON.parse(treeText(272))],
      ['10 KB deep', JSON.parse(treeText(10 * 1024))],
      ['10 KB wide', tree(9, 2)],
    ]
    expect(JSON.stringify(cases[3]![1]).length).toBeGreaterThan(10 * 1024)
    for (const [what, data] of cases) {
      for (const [name, validate] of validators()) {
        const reads = { n: 0 }
        // The work is bounded by counting reads, not by a clock (bench/hostile-validators.ts times the tree).
        expect(validate(counted(data, reads)), `${what}, ${name}`).toBe(false)
        // Two branches of about 8 reads each per node: 16 reads a node, with room to spare.
        expect(reads.n, `${what}, ${name}`).toBeLessThanOrEqual(40 * nodesOf(data))
        expect(validate.errors, `${what}, ${name}`).toHaveLength(MAX_ERRORS)
      }
    }
  })

  it('reports what it reported before: the same first MAX_ERRORS errors as ajv, in its order, and the two validators alike', () => {
    // 10 levels: 6,141 errors in all (ajv gives them in 50 ms; 16 levels would be 393,213).
    const data = tree(10)
    const ajv = ajvTree()
    expect(ajv(data)).toBe(false)
    expect(ajv.errors!.length).toBeGreaterThan(MAX_ERRORS)
    const expected = ajv.errors!.slice(0, MAX_ERRORS).map(({ instancePath, keyword, params, message }) => ({ instancePath, keyword, params, message }))
    const [[, interpreter], [, code]] = validators()
    expect(interpreter!(data)).toBe(false)
    expect(interpreter!.errors).toEqual(expected)
    expect(code!(data)).toBe(false)
    expect(code!.errors).toEqual(expected)
    expect(expected[0]).toEqual({ instancePath: '', keyword: 'required', params: { missingProperty: 'kind' }, message: "must have required property 'kind'" })
    // Fewer than MAX_ERRORS errors: all of them, exactly.
    const small = tree(2)
    ajv(small)
    expect(interpreter!(small)).toBe(false)
    expect(interpreter!.errors).toEqual(ajv.errors!.map(({ instancePath, keyword, params, message }) => ({ instancePath, keyword, params, message })))
  })

  it('a node the schema shares in memory (no $ref) is memoized too: 30 nested allOf of one object stay linear', () => {
    let shared: Schema = { type: 'string' }
    for (let i = 0; i < 30; i++) shared = { allOf: [shared, shared] }
    const validate = schemaValidator(shared)
    expect(validate('x')).toBe(true)
    expect(validate(1)).toBe(false)
    // 2^30 errors before: the first MAX_ERRORS now, each the same.
    expect(validate.errors).toHaveLength(MAX_ERRORS)
    expect(new Set(validate.errors!.map((e) => e.message))).toEqual(new Set(['must be string']))
  })

  it('so does a chain of definitions that each name the next twice (2^40 paths to one value)', () => {
    const definitions: Record<string, Schema> = { d40: { type: 'integer' } }
    for (let i = 0; i < 40; i++) definitions[`d${i}`] = { anyOf: [{ $ref: `d${i + 1}` }, { not: { $ref: `d${i + 1}` } }], allOf: [{ $ref: `d${i + 1}` }] }
    for (const validate of [schemaValidator({ $ref: 'd0' }, definitions), generatedValidator({ $ref: 'd0' }, definitions)]) {
      expect(validate(7)).toBe(true)
      expect(validate('seven')).toBe(false)
      expect(validate.errors!.length).toBeLessThanOrEqual(MAX_ERRORS)
      expect(validate.errors![0]).toMatchObject({ instancePath: '', keyword: 'type' })
    }
  })
})

// ---- Generated == interpreter == ajv on recursive combinator schemas ----

const NAMES = ['A', 'B', 'C']
const KEYS = ['kind', 'children', 'x']
const refTo = fc.constantFrom<Schema>(...NAMES.map((n) => ({ $ref: `defs#/definitions/${n}` })))
const leaf = fc.constantFrom<Schema>(
  true,
  false,
  { type: 'string' },
  { type: 'object' },
  { type: 'array' },
  { const: 'a' },
  { required: ['kind'] },
  { type: 'integer', minimum: 2 },
)
/**
 * Schemas of the combinators over definitions that refer to each other. A reference is made only
 * under `properties`/`items`/`additionalProperties` (each consumes a data level), so ajv, which
 * memoizes nothing, stays finite on the small data generated.
 */
const combined: fc.Arbitrary<Schema> = fc.letrec((tie) => ({
  schema: fc.oneof({ depthSize: 'small' }, leaf, leaf, tie('node')),
  member: fc.oneof(refTo, tie('schema')),
  node: fc.oneof(
    fc.record({ allOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ anyOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ oneOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ not: tie('schema') }),
    fc.record({ if: tie('schema'), then: tie('schema') }),
    fc.record(
      { type: fc.constant('object'), properties: fc.dictionary(fc.constantFrom(...KEYS), tie('member'), { maxKeys: 2 }), additionalProperties: tie('member') },
      { requiredKeys: [] },
    ),
    fc.record({ type: fc.constant('array'), items: tie('member') }, { requiredKeys: [] }),
  ),
})).schema as fc.Arbitrary<Schema>
const value = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, fc.constantFrom<unknown>('a', 'b', 1, 3, null, true), tie('a'), tie('o')),
  a: fc.array(tie('v'), { maxLength: 3 }),
  o: fc.dictionary(fc.constantFrom(...KEYS), tie('v'), { maxKeys: 3 }),
})).v

const plain = (errors: readonly SchemaError[] | null | undefined) =>
  (errors ?? []).map(({ instancePath, keyword, params, message }) => ({ instancePath, keyword, params, message }))

describe('memoized validators agree with ajv', () => {
  it('on random recursive-combinator schemas and data: the same verdicts, and the same errors in the same order', () => {
    const reference = perRunReference(new Ajv(AJV_OPTIONS))
    fc.assert(
      fc.property(fc.tuple(combined, combined, combined, combined), fc.array(value, { minLength: 1, maxLength: 5 }), ([root, a, b, c], values) => {
        const definitions: Record<string, Schema> = { 'defs#/definitions/A': a, 'defs#/definitions/B': b, 'defs#/definitions/C': c }
        const theirs = reference(root, { $id: 'defs', definitions: { A: a, B: b, C: c } })
        const ours = schemaValidator(root, definitions)
        const code = generatedValidator(root, definitions)
        for (const v of values) {
          const valid = theirs(v)
          expect(ours(v)).toBe(valid)
          expect(code(v)).toBe(valid)
          expect(plain(ours.errors)).toEqual(plain(theirs.errors).slice(0, MAX_ERRORS))
          expect(code.errors).toEqual(ours.errors)
        }
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 150) },
    )
  })
})

// ---- A real subscriber and a real HTTP response ----

describe.skipIf(!NATS_SERVER)('a subscriber of the generated NATS client, on a real nats-server', () => {
  let server: NatsServer
  let nc: NatsConnection
  let raw: NatsConnection
  let mod: ContractModule

  beforeAll(async () => {
    server = await startNatsServer()
    const result = await compile(join(hostile, 'tree-of-nodes.asyncapi.yaml'))
    expect(result.diagnostics).toEqual([])
    mod = (await loadModule(result.code!, 'tree-of-nodes')) as unknown as ContractModule
    nc = await connect({ servers: server.url })
    raw = await connect({ servers: server.url })
  }, 30_000)

  afterAll(async () => {
    await nc?.close()
    await raw?.close()
    await server?.stop()
  })

  it('answers the 272-byte message as invalid and handles the next message after it, promptly', async () => {
    const client = bindContract(mod, nc, { allowOlderServer: true })
    const events: string[] = []
    const failures: ContractClientError[] = []
    let done!: () => void
    const both = new Promise<void>((resolve) => (done = resolve))
    const sub = client.subscribe(
      'onTree',
      (m) => {
        events.push(`handled ${JSON.stringify(m.payload)}`)
        done()
      },
      {
        onError: (error) => {
          events.push(error.code)
          failures.push(error)
        },
      },
    )
    await nc.flush()
    const attack = treeText(272)
    expect(new TextEncoder().encode(attack).length).toBe(272)
    raw.publish('trees.eu.posted', new TextEncoder().encode(attack))
    raw.publish('trees.eu.posted', new TextEncoder().encode('{"kind":"leafy","children":[]}'))
    await raw.flush()
    // Before: the first message froze the subscriber's event loop for 8.7-35.6 s.
    await within(10_000, 'the message after the attack', both)
    expect(events).toEqual(['INVALID_PAYLOAD', 'handled {"kind":"leafy","children":[]}'])
    expect(failures[0]!.message).toBeTruthy()
    sub.unsubscribe()
  })
})

describe('a Benzene send() whose response is the 242-byte tree', () => {
  const server = new BenzeneHttpServer()
  beforeAll(() => server.start())
  afterAll(() => server.stop())

  for (const validators of ['code', 'data'] as const) {
    it(`resolves with a validation failure (validators: '${validators}')`, async () => {
      const trees = await loadModule((await compile(join(hostile, 'tree-of-nodes.spec.json'), { benzene: { validators } })).code!, `trees-${validators}`)
      const body = treeText(242)
      expect(body.length).toBe(242)
      server.handlers['trees:get'] = () => ({ envelope: { statusCode: 'ok', isSuccessful: true, headers: {}, body } })
      const sender = createHttpSender({ baseUrl: server.url, endpoint: '/benzene/invoke', timeoutMs: 10_000 })
      const result = await within(10_000, 'send()', trees.get.send(sender, {}))
      expect(result).toMatchObject({ isSuccessful: false, status: 'unexpected-error', payload: JSON.parse(body) })
      expect(result.errors[0]).toMatchObject({ path: '/kind', code: 'response:required' })
    })
  }
})

describe("ajv's code, the fallback for keywords beyond the generated validators', is refused where it is unbounded", () => {
  const fixture = readFileSync(join(hostile, 'tree-of-nodes.asyncapi.yaml'), 'utf8')
  // `propertyNames` is beyond the generated validators' keywords: the payload goes to ajv.
  const beyond = fixture.replaceAll('required: [kind, children]', 'required: [kind, children]\n          propertyNames: { maxLength: 16 }')

  const compileText = async (text: string) => {
    mkdirSync(tmp, { recursive: true })
    const file = join(tmp, `ajv-fallback-${process.pid}.asyncapi.yaml`)
    writeFileSync(file, text)
    try {
      return await compile(file)
    } finally {
      rmSync(file, { force: true })
    }
  }

  it('the tree of nodes with one keyword beyond them: NATS_PAYLOAD_UNBOUNDED at the message', async () => {
    expect(beyond).not.toBe(fixture)
    const result = await compileText(beyond)
    expect(result.diagnostics.map((d) => [d.code, d.pointer])).toEqual([['NATS_PAYLOAD_UNBOUNDED', '/channels/treePosted/messages/tree']])
  })

  it('the same keywords without the recursion compile, and their validator answers', async () => {
    const result = await compileText(beyond.replaceAll("items: { $ref: '#/components/schemas/Node' }", 'items: { type: object }'))
    expect(result.diagnostics).toEqual([])
    expect(result.code).toContain('(function (module)')
  })
})

// ---- The linear engine's bound, and the budgeted matcher past it ----

/** `^(a?){n}a{n}$` written out: no repeat count for RE2 to refuse, a program that grows with n. */
const longPattern = (n: number) => `^${'(a?)'.repeat(n)}${'a'.repeat(n)}$`

describe('the linear-time pattern engine is bounded', () => {
  const big = longPattern(10_000)

  it('the 50 KB pattern goes to the budgeted matcher: a warning at the pattern, in NATS and in Benzene, and the module builds', async () => {
    expect(big.length).toBeGreaterThanOrEqual(50_000)
    expect(patternEngine(big)).toMatchObject({ engine: 'budgeted', reason: expect.stringContaining(`more than ${MAX_PATTERN_PROGRAM}`) })
    mkdirSync(tmp, { recursive: true })
    const nats = join(tmp, `long-pattern-${process.pid}.asyncapi.yaml`)
    writeFileSync(
      nats,
      // A function, not a replacement string: the pattern's `$'` would be read as a substitution.
      readFileSync(join(hostile, 'tree-of-nodes.asyncapi.yaml'), 'utf8').replace('kind: { const: leafy }', () => `kind: { type: string, pattern: '${big}' }`),
    )
    const benzene = join(tmp, `long-pattern-${process.pid}.spec.json`)
    const spec = JSON.parse(readFileSync(join(hostile, 'tree-of-nodes.spec.json'), 'utf8'))
    spec.components.schemas.Leafy.properties.kind = { type: 'string', pattern: big }
    writeFileSync(benzene, JSON.stringify(spec))
    try {
      const natsResult = await compile(nats)
      expect(natsResult.diagnostics.map((d) => [d.code, d.severity, d.pointer])).toEqual([
        ['NATS_PATTERN_BUDGETED', 'warning', '/components/schemas/Node/oneOf/0/properties/kind/pattern'],
      ])
      expect(natsResult.code).toContain('$patternMatchers(')
      const benzeneResult = await compile(benzene)
      expect(benzeneResult.diagnostics.map((d) => [d.code, d.severity, d.pointer])).toEqual([
        ['BENZENE_PATTERN_BUDGETED', 'warning', '/components/schemas/Leafy/properties/kind/pattern'],
      ])
      expect(benzeneResult.code).toContain('$patternMatchers(')
    } finally {
      rmSync(nats, { force: true })
      rmSync(benzene, { force: true })
    }
  }, 60_000)

  it('the 50 KB pattern meets its attack value: undecided within the budget, a failure result with its own error', () => {
    const schema: Schema = { type: 'string', pattern: big }
    for (const validate of [generatedValidator(schema), interpretedValidator(schema)]) {
      // Termination is the test's timeout; the cost at n and 10n is bench/hostile-validators.ts's.
      expect(validate('a'.repeat(10_000))).toBe(false)
      expect(validate.errors).toEqual([
        {
          instancePath: '',
          keyword: 'pattern',
          params: { pattern: big, undecided: true },
          message: `must match pattern "${big}", which could not be evaluated on this value within its step budget (refused unmatched)`,
        },
      ])
    }
  })

  it('a pattern under the limit meets a 10,000-character value: refused before matching, undecided', () => {
    const pattern = longPattern(300)
    const engine = patternEngine(pattern)
    expect(engine.engine).toBe('linear')
    const matcher = linearMatcher((engine as { source: string }).source)
    expect(matcher.test('a'.repeat(10_000))).toBe(false)
    expect(matcher.undecided).toBe(true)
    expect(matcher.test('a'.repeat(20_000))).toBe(false)
    // Values within the bound are matched as before.
    expect(matcher.test('a'.repeat(450))).toBe(true)
    expect(matcher.undecided).toBe(false)
    expect(matcher.test('a'.repeat(299))).toBe(false)
    expect(matcher.undecided).toBe(false)
    // Through both validators: the value fails its pattern, with the undecided error.
    const schema: Schema = { type: 'string', pattern }
    const code = validatorDeclarations([{ name: '$root', schema }], new Map(), '$v$')
    const generated = evaluateDeclarations(code.declarations, '$root')
    for (const validate of [interpretedValidator(schema), generated]) {
      expect(validate('a'.repeat(10_000))).toBe(false)
      expect(validate.errors).toEqual([
        {
          instancePath: '',
          keyword: 'pattern',
          params: { pattern, undecided: true },
          message: `must match pattern "${pattern}", which could not be evaluated on this value within its step budget (refused unmatched)`,
        },
      ])
      expect(validate('a'.repeat(299))).toBe(false)
      expect(validate.errors).toEqual([{ instancePath: '', keyword: 'pattern', params: { pattern }, message: `must match pattern "${pattern}"` }])
    }
    // The bound is on program size x length: a short program takes long values.
    const simple = '^([a-z]+\\.)*[a-z]+$'
    const simpleEngine = patternEngine(simple) as { engine: string; source: string }
    expect(simpleEngine.engine).toBe('linear')
    const long = `${'abc.'.repeat(2500)}end`
    expect(long.length).toBeGreaterThan(10_000)
    expect(linearPatterns({ [simple]: simpleEngine.source })[simple]!.test(long)).toBe(true)
    expect(MAX_PATTERN_WORK).toBeGreaterThanOrEqual(10 * long.length)
  })
})
