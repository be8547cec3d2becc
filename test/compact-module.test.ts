/**
 * The pieces that make a Benzene module small (issue 33), each on its own: the runtime calls the
 * module makes its exports with, the data form's linked references, equal definitions found once,
 * and validator functions of one shape written as one factory. Whole modules are held to the same
 * verdicts by the differential, producer-corpus and schema-check tests; these pin the edges.
 */
import { describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { createLocalSender, createTopicClient, dataValidator, eventDescriptor, topicClient, topicMap } from '../src/runtime/index.js'
import { refValidator } from '../src/runtime/shared/ref-validator.js'
import { compiledValidator, MAX_VALIDATION_DEPTH, type SchemaCheck } from '../src/runtime/shared/schema-errors.js'
import { schemaValidator } from '../src/runtime/shared/schema-check.js'
import { cutLiterals, shareShapes } from '../src/formats/benzene/code-shapes.js'
import { definitionClasses, rewriteRefs } from '../src/formats/benzene/definition-classes.js'
import { loadModule } from './helpers/load-module.js'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const hash = `sha256:${'0'.repeat(64)}` as const

describe('topicClient, topicMap, eventDescriptor', () => {
  it('a client is the object createTopicClient makes: frozen, its components frozen, no version member when unversioned', () => {
    const made = topicClient('a:b', undefined, hash, ['B', 'A'])
    const old = createTopicClient('a:b', undefined, hash, ['B', 'A'])
    expect(Object.isFrozen(made)).toBe(true)
    expect(Object.isFrozen(made.components)).toBe(true)
    expect({ ...made, send: undefined }).toEqual({ ...old, send: undefined })
    expect(Object.keys(made)).toEqual(Object.keys(old))
    expect('version' in made).toBe(false)
  })

  it('components from a function are computed on the first read only, once, and kept frozen', () => {
    let calls = 0
    const client = topicClient('a:b', 'v1', hash, () => {
      calls++
      return ['X', 'Y']
    })
    expect(calls).toBe(0)
    expect(client.components).toEqual(['X', 'Y'])
    expect(client.components).toBe(client.components)
    expect(Object.isFrozen(client.components)).toBe(true)
    expect(calls).toBe(1)
  })

  it('topics are keyed by topic, and by topic@version for each version of a topic with several', () => {
    const clients = [topicClient('o:place', 'v1', hash, []), topicClient('o:place', 'v2', hash, []), topicClient('o:get', 'v3', hash, [])]
    const map = topicMap<Record<string, unknown>>(clients)
    expect(Object.keys(map)).toEqual(['o:place@v1', 'o:place@v2', 'o:get'])
    expect(Object.getPrototypeOf(map)).toBe(null)
    expect(Object.isFrozen(map)).toBe(true)
    // An unversioned entry beside a versioned one of the same topic keeps the bare topic.
    expect(Object.keys(topicMap([topicClient('t', undefined, hash, []), topicClient('t', 'v2', hash, [])]))).toEqual(['t', 't@v2'])
  })

  it('an event validates its message before it is sent', async () => {
    const sender = createLocalSender({ 'e:x': () => ({}) })
    const event = eventDescriptor('e:x', undefined, schemaValidator({ type: 'string' }))
    expect((await event.publish(sender, 1 as never)).status).toBe('validation-error')
    expect((await event.publish(sender, 'ok' as never)).status).toBe('ok')
    expect(Object.isFrozen(event)).toBe(true)
  })
})

describe('refValidator', () => {
  it('enters its check one level down, as a root function calling a `$ref` does: the same verdicts at the depth limit', () => {
    const depths: number[] = []
    const check: SchemaCheck = (_d, _p, _e, n) => void depths.push(n)
    refValidator(check)(1)
    compiledValidator((d, p, e, n) => check(d, p, e, n + 1))(1)
    expect(depths).toEqual([1, 1])
    // A definition that nests itself through a member stops at the same level either way.
    const nest: SchemaCheck = (d, p, e, n) => {
      if (n >= MAX_VALIDATION_DEPTH) return void e.push({ instancePath: p, keyword: 'depth', params: {}, message: 'deep' })
      if (typeof d === 'object' && d !== null) nest((d as { a: unknown }).a, `${p}/a`, e, n + 2)
    }
    let value: unknown = 1
    for (let i = 0; i < 200; i++) value = { a: value }
    const viaRef = refValidator(nest)
    const viaRoot = compiledValidator((d, p, e, n) => nest(d, p, e, n + 1))
    expect(viaRef(value)).toBe(viaRoot(value))
    expect(viaRef.errors).toEqual(viaRoot.errors)
  })
})

describe('dataValidator', () => {
  it('follows references given as functions, cycles included, with the verdicts and errors of the interpreter over string references', () => {
    const node: Record<string, unknown> = { type: 'object', properties: { next: { $ref: () => node }, n: { type: 'integer' } }, additionalProperties: false }
    const linked = dataValidator({ $ref: () => node })
    const plain = schemaValidator(
      { $ref: 'd' },
      { d: { type: 'object', properties: { next: { $ref: 'd' }, n: { type: 'integer' } }, additionalProperties: false } },
    )
    for (const value of [{ n: 1 }, { n: 1, next: { n: 2 } }, { n: 1, next: { n: 'x' } }, { next: { extra: true } }, 'no']) {
      expect(linked(value)).toBe(plain(value))
      expect(linked.errors).toEqual(plain.errors)
    }
  })

  it('resolves nothing until its first call, and a member named __proto__ stays a member', () => {
    let reads = 0
    const target = { type: 'object', properties: JSON.parse('{"__proto__": {"type": "string"}}'), required: ['__proto__'] }
    const validate = dataValidator({
      $ref: () => {
        reads++
        return target
      },
    })
    expect(reads).toBe(0)
    expect(validate(JSON.parse('{"__proto__": "x"}'))).toBe(true)
    expect(validate(JSON.parse('{"__proto__": 1}'))).toBe(false)
    expect(validate({})).toBe(false)
    expect(reads).toBe(1)
  })

  it('never throws: a schema the interpreter refuses fails every value with the reason', () => {
    const validate = dataValidator({ $ref: () => ({ unknownKeyword: true }) })
    expect(validate(1)).toBe(false)
    expect(validate.errors).toEqual([expect.objectContaining({ keyword: 'schema', message: expect.stringContaining('unknownKeyword') })])
    const throwing = dataValidator({
      $ref: () => {
        throw new Error('boom')
      },
    })
    expect(throwing(1)).toBe(false)
  })
})

describe('definitionClasses', () => {
  it('equal definitions are one class, references read as their classes; a cycle keeps its own', () => {
    const defs = new Map<string, unknown>([
      ['req#/definitions/d0', { type: 'object', properties: { m: { $ref: 'req#/definitions/d1' } } }],
      ['req#/definitions/d1', { type: 'number' }],
      ['res#/definitions/d0', { type: 'object', properties: { m: { $ref: 'res#/definitions/d1' } } }],
      ['res#/definitions/d1', { type: 'number' }],
      ['res#/definitions/d2', { type: 'object', properties: { m: { $ref: 'res#/definitions/d3' } } }],
      ['res#/definitions/d3', { type: 'string' }],
      ['req#/definitions/c0', { items: { $ref: 'req#/definitions/c0' } }],
      ['res#/definitions/c0', { items: { $ref: 'res#/definitions/c0' } }],
      // Data is data: a `$ref` inside `const` is not a reference.
      ['req#/definitions/k0', { const: { $ref: 'req#/definitions/d1' } }],
      ['res#/definitions/k0', { const: { $ref: 'res#/definitions/d1' } }],
    ])
    const classes = definitionClasses(defs)
    expect(classes.get('res#/definitions/d0')).toBe('req#/definitions/d0')
    expect(classes.get('res#/definitions/d1')).toBe('req#/definitions/d1')
    expect(classes.get('res#/definitions/d2')).toBe('res#/definitions/d2')
    expect(classes.get('res#/definitions/c0')).toBe('res#/definitions/c0')
    expect(classes.get('res#/definitions/k0')).toBe('res#/definitions/k0')
    const rewritten = rewriteRefs(defs.get('res#/definitions/d0'), classes)
    expect(rewritten).toEqual({ type: 'object', properties: { m: { $ref: 'req#/definitions/d1' } } })
    expect(defs.get('res#/definitions/d0')).toEqual({ type: 'object', properties: { m: { $ref: 'res#/definitions/d1' } } })
  })
})

describe('code shapes', () => {
  it('cuts at string and number literals, keeping object keys, typeof comparisons and digits of names', () => {
    const code = 'function (d) { if (typeof v3 === "string" && d.length > 21 && x !== -5) $fail(e, "/a\\"b", { "k": 1.5e-7 }, $req$d12, key1); }'
    const { parts, literals } = cutLiterals(code)
    expect(literals).toEqual(['21', '5', '"/a\\"b"', '1.5e-7'])
    expect(parts.join('#')).toBe('function (d) { if (typeof v3 === "string" && d.length > # && x !== -#) $fail(e, #, { "k": # }, $req$d12, key1); }')
  })

  it('functions that differ only in literals become one factory, literals that always agree one parameter; a pair stays as it is', () => {
    const fn = (n: number, s: string) => `function (d, p, e, n) { if (d.length > ${n}) $size(e, p, "maxLength", ${n}); if (d !== "${s}") $fail(e, p); }`
    const functions = new Map([
      ['$a', fn(1, 'x')],
      ['$b', fn(2, 'y')],
      ['$c', fn(3, 'z')],
    ])
    const shapes = shareShapes(functions)
    expect([...shapes.factories.values()]).toEqual([
      '($a0, $a1) => function (d, p, e, n) { if (d.length > $a0) $size(e, p, "maxLength", $a0); if (d !== $a1) $fail(e, p); }',
    ])
    expect(shapes.members.get('$b')).toBe('/* @__PURE__ */ $shape0(2, "y")')
    expect(shareShapes(new Map([...functions].slice(0, 2))).factories.size).toBe(0)
  })

  it.each(['code', 'data'] as const)('a module of near-identical schemas validates through its factories (validators: %s)', async (validators) => {
    const schemas: Record<string, unknown> = {}
    const requests = Array.from({ length: 4 }, (_, i) => {
      schemas[`R${i}`] = { type: 'object', properties: { id: { type: 'string', maxLength: 3 + i }, kind: { type: 'string', enum: [`k${i}`] } } }
      return { topic: `t:op${i}`, request: { $ref: `#/components/schemas/R${i}` }, response: { $ref: `#/components/schemas/R${i}` } }
    })
    const dir = join(import.meta.dirname, '.tmp/compact-module')
    mkdirSync(dir, { recursive: true })
    const file = join(dir, 'shapes.spec.json')
    writeFileSync(file, JSON.stringify({ openapi: '3.0.1', info: { title: 's', version: '1' }, requests, events: [], components: { schemas } }))
    const result = await compile(file, { benzene: { validators } })
    expect(result.code).toContain('$shape0(')
    const mod = await loadModule(result.code!, `compact-shapes-${validators}`)
    const sender = createLocalSender({ 't:op2': () => ({ id: 'abcde', kind: 'k2' }) })
    expect((await mod.op2.send(sender, { id: 'abcde', kind: 'k2' })).status).toBe('ok')
    expect((await mod.op2.send(sender, { id: 'abcdef' })).errors).toEqual([
      { message: '/id must NOT have more than 5 characters', path: '/id', code: 'maxLength' },
    ])
    expect((await mod.op2.send(sender, { kind: 'k1' })).errors).toEqual([
      { message: '/kind must be equal to one of the allowed values', path: '/kind', code: 'enum' },
    ])
  })
})
