/**
 * The DASP runtime, imported as generated modules import it (`unplugin-contracts/runtime/dasp`),
 * and the helpers of two generated modules (fixtures/dasp/counter.dasp.json and the every-form
 * corpus selection):
 *
 * - every helper answers hostile input (null, wrong types, cycles, huge and sparse arrays, getters
 *   that throw, proxies, `__proto__` members, anything fast-check makes) with a result, never a throw;
 * - a saved record that cannot be read is never an ok floor (DASP extension contracts, DASP-EXT-005);
 * - attribute values are held to the CloudEvents 1.0.2 type system in its JSON form, checked against
 *   implementations written here another way (code points and Unicode properties, calendar
 *   arithmetic with Date, a base64 round trip, RFC 3986's ABNF as one expression);
 * - no attribute on the `dasp.encrypted` outer carrier, `daspauthority` on commands only (DASP-EXT-007).
 */
import fc from 'fast-check'
import { join } from 'node:path'
import * as runtime from 'unplugin-contracts/runtime/dasp'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { loadModule } from './helpers/load-module.js'

const fixtures = join(import.meta.dirname, '../fixtures/dasp')
let counter: Record<string, any>
let every: Record<string, any>

beforeAll(async () => {
  for (const [name, file] of [
    ['counter', 'counter.dasp.json'],
    ['every', 'corpus/every-form.dasp.json'],
  ] as const) {
    const result = await compile(join(fixtures, file))
    expect(result.diagnostics).toEqual([])
    const mod = await loadModule(result.code!, `dasp-runtime-${name}`)
    if (name === 'counter') counter = mod
    else every = mod
  }
})

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T

/** An object whose one member is a getter that throws. */
const throwingGetterObject = () =>
  Object.defineProperty({}, 'extensions', {
    enumerable: true,
    get() {
      throw new Error('getter')
    },
  })

/** A proxy whose every trap throws. */
const throwingProxy = () =>
  new Proxy(
    {},
    Object.fromEntries(
      ['get', 'has', 'ownKeys', 'getOwnPropertyDescriptor', 'getPrototypeOf', 'isExtensible', 'preventExtensions', 'defineProperty', 'set'].map((trap) => [
        trap,
        () => {
          throw new Error(trap)
        },
      ]),
    ),
  )

/** Values no helper may throw on. */
function hostileValues(): unknown[] {
  const cyclic: any = { extensions: [] }
  cyclic.extensions.push(cyclic)
  const cyclicArray: any[] = []
  cyclicArray.push(cyclicArray)
  const throwingGetter = throwingGetterObject()
  const throwing = throwingProxy()
  const revocable = Proxy.revocable([], {})
  revocable.revoke()
  let deep: any = {}
  for (let i = 0; i < 100_000; i++) deep = { extensions: [deep] }
  const sparse = new Array(2 ** 32 - 1)
  const dense = new Array(2_000_000).fill('x')
  const proto = JSON.parse('{"__proto__": {"extensions": []}, "extensions": [{"__proto__": {"uri": "x"}}], "type": "dasp.v1.command"}')
  const typed = new Uint8Array(8)
  return [
    null,
    undefined,
    0,
    -0,
    NaN,
    Infinity,
    10n,
    '',
    'corrupt',
    '\ud800',
    true,
    Symbol('s'),
    () => 1,
    [],
    {},
    { extensions: null },
    { extensions: [null] },
    { extensions: [{ uri: 'u', version: 'v', scope: 'session', content: {}, settings: null }] },
    { extensions: {} },
    cyclic,
    cyclicArray,
    throwingGetter,
    throwing,
    revocable.proxy,
    deep,
    sparse,
    dense,
    proto,
    typed,
    new Date(0),
    new Map([['extensions', []]]),
    Object.create(null),
    Object.freeze({ extensions: Object.freeze([]) }),
  ]
}

const HOSTILE = hostileValues()
/**
 * Any value: fast-check's anything (dates, maps, boxed values, null prototypes, sparse and typed
 * arrays...), JSON values, and the hostile ones. Those are drawn by index and looked up in the
 * property (`value`): fast-check itself reads what it generates, and a throwing proxy would stop it.
 */
const anythingArg = fc.oneof(
  fc
    .anything({
      maxDepth: 4,
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withNullPrototype: true,
      withObjectString: true,
      withSet: true,
      withSparseArray: true,
      withTypedArray: true,
      withUnicodeString: true,
    })
    .map((v) => ({ v })),
  fc.jsonValue().map((v) => ({ v })),
  fc.nat(HOSTILE.length - 1).map((i) => ({ i })),
)
const value = (arg: { v?: unknown; i?: number }): unknown => (arg.i === undefined ? arg.v : HOSTILE[arg.i])

/** Never throws, whatever the helper is given. */
const neverThrows = (f: (...args: unknown[]) => unknown, arity: number) =>
  fc.assert(
    fc.property(fc.array(anythingArg, { minLength: arity, maxLength: arity }), (args) => {
      f(...args.map(value))
    }),
    { numRuns: 300 },
  )

describe('the module-building helpers (floorOf, attributeRules) on input no generated module passes', () => {
  it('give a floor and rules the checks refuse, never an empty floor or an empty rule list', () => {
    expect(runtime.checkSessionFloor(runtime.floorOf(null as never, [['cipher']]), counter.selectionRequest)).toMatchObject({
      ok: false,
      code: 'missing-record',
    })
    expect(runtime.checkSessionFloor(runtime.floorOf({ extensions: [{}] } as never, [[]]), counter.selectionRequest)).toMatchObject({
      ok: false,
      code: 'missing-record',
    })
    const rules = runtime.attributeRules({ extensions: [] } as never, [['daspauthority', 'String', ['dasp.v1.command'], 'delivery', 3]])
    expect(runtime.checkPlacement(rules, { type: 'dasp.v1.command' })).toMatchObject({ ok: false, code: 'unreadable' })
    // What a generated module passes gives what it declares.
    expect(
      runtime.floorOf(
        counter.selectionRequest,
        counter.sessionFloor.extensions.map((e: { settings: object }) => Object.keys(e.settings)),
        counter.sessionFloor.extensions.map((e: { operations: string[] }) => e.operations),
      ),
    ).toEqual(counter.sessionFloor)
    // Without the affected operations (a module of another version), the floor is refused, not made without them.
    const withoutOperations = (runtime.floorOf as (...args: unknown[]) => unknown)(counter.selectionRequest, [['cipher'], ['commands', 'grant_bytes']])
    expect(runtime.checkSessionFloor(withoutOperations, counter.selectionRequest)).toMatchObject({ ok: false, code: 'missing-record' })
  })
})

describe('the floor records dependency requirements and affected operations (DASP-EXT-005)', () => {
  // The generated module is made in beforeAll: read when a test runs.
  const floorOfCounter = () => counter.sessionFloor as { extensions: Array<Record<string, unknown>> }
  const withEntry = (i: number, edit: (e: Record<string, unknown>) => void) => {
    const copy = structuredClone(floorOfCounter()) as { extensions: Array<Record<string, unknown>> }
    edit(copy.extensions[i]!)
    return copy
  }
  const dependency = { uri: 'urn:example:ext:base', version: '1', scope: 'session' }
  const offer = (deps: unknown) => {
    const copy = structuredClone(counter.selectionRequest) as { extensions: Array<Record<string, unknown>> }
    copy.extensions[1]!.dependencies = deps
    return copy
  }

  it('the generated floor holds each extension’s dependencies (from the request) and operations (from its definition)', () => {
    expect(floorOfCounter().extensions.map((e) => [e.dependencies, e.operations])).toEqual([
      [[], ['all core traffic on the connection']],
      [[], ['dasp.v1.command']],
    ])
  })

  it('a record without either, or with a malformed entry, is incomplete: missing-record, never an empty requirement', () => {
    for (const edit of [
      (e: Record<string, unknown>) => delete e.dependencies,
      (e: Record<string, unknown>) => delete e.operations,
      (e: Record<string, unknown>) => (e.dependencies = {}),
      (e: Record<string, unknown>) => (e.dependencies = [{ uri: 'urn:x' }]),
      (e: Record<string, unknown>) => (e.dependencies = [{ uri: 'urn:x', version: '1', scope: 7 }]),
      (e: Record<string, unknown>) => (e.dependencies = ['urn:x']),
      (e: Record<string, unknown>) => (e.operations = [1]),
      (e: Record<string, unknown>) => (e.operations = 'dasp.v1.command'),
    ])
      expect(runtime.checkSessionFloor(withEntry(1, edit), counter.selectionRequest)).toMatchObject({ ok: false, code: 'missing-record' })
  })

  it('a saved dependency requirement must still be offered (exact identity and scope); more is accepted', () => {
    const saved = withEntry(1, (e) => (e.dependencies = [dependency]))
    expect(runtime.checkSessionFloor(saved, offer([dependency]))).toEqual({ ok: true })
    expect(runtime.checkSessionFloor(saved, offer([{ ...dependency }, { uri: 'urn:example:ext:more', version: '2' }]))).toEqual({ ok: true })
    for (const weaker of [
      [],
      'x',
      null,
      [{ ...dependency, version: '2' }],
      [{ ...dependency, scope: 'connection' }],
      [{ ...dependency, uri: 'urn:example:ext:Base' }],
    ])
      expect(runtime.checkSessionFloor(saved, offer(weaker))).toMatchObject({
        ok: false,
        code: 'missing-dependency',
        extension: floorOfCounter().extensions[1]!.uri,
      })
    // A dependency saved without a scope is matched by one offered without a scope only.
    const unscoped = withEntry(1, (e) => (e.dependencies = [{ uri: dependency.uri, version: '1' }]))
    expect(runtime.checkSessionFloor(unscoped, offer([{ uri: dependency.uri, version: '1' }]))).toEqual({ ok: true })
    expect(runtime.checkSessionFloor(unscoped, offer([dependency]))).toMatchObject({ ok: false, code: 'missing-dependency' })
  })

  it('the selected core, profile and binding are saved and must be offered unchanged (pins compared with hex in either case)', () => {
    const request = () => structuredClone(counter.selectionRequest) as Record<string, any>
    expect(floorOfCounter()).toMatchObject({
      core: counter.selectionRequest.core,
      profile: counter.selectionRequest.profile,
      binding: counter.selectionRequest.binding,
    })
    for (const name of ['core', 'profile', 'binding'] as const) {
      const changed = request()
      changed[name].version = 'draft-02'
      expect(runtime.checkSessionFloor(floorOfCounter(), changed)).toMatchObject({ ok: false, code: 'other-contract', contract: name })
      const repinned = request()
      repinned[name].content = { ...repinned[name].content, commit: 'f'.repeat(40) }
      expect(runtime.checkSessionFloor(floorOfCounter(), repinned)).toMatchObject({ ok: false, code: 'other-contract', contract: name })
      const upper = request()
      upper[name].content = { ...upper[name].content, commit: upper[name].content.commit.toUpperCase() }
      expect(runtime.checkSessionFloor(floorOfCounter(), upper)).toEqual({ ok: true })
      const absent = request()
      delete absent[name]
      expect(runtime.checkSessionFloor(floorOfCounter(), absent)).toMatchObject({ ok: false, code: 'other-contract', contract: name })
      // A record without it is incomplete.
      const record = structuredClone(floorOfCounter()) as Record<string, unknown>
      delete record[name]
      expect(runtime.checkSessionFloor(record, counter.selectionRequest)).toMatchObject({ ok: false, code: 'missing-record' })
    }
    // An extension pin in upper case is the same pin too.
    const upperPin = request()
    upperPin.extensions[1].content = { ...upperPin.extensions[1].content, sha256: upperPin.extensions[1].content.sha256.toUpperCase() }
    expect(runtime.checkSessionFloor(floorOfCounter(), upperPin)).toEqual({ ok: true })
  })

  it('a saved extension offered twice: every copy is judged, whatever the order; another version beside it is other-version', () => {
    const offerWith = (copy: (e: Record<string, any>) => void, first: boolean) => {
      const offered = structuredClone(counter.selectionRequest) as { extensions: Array<Record<string, any>> }
      const extra = structuredClone(offered.extensions[1]!)
      copy(extra)
      offered.extensions.splice(first ? 1 : 2, 0, extra)
      return offered
    }
    for (const first of [true, false]) {
      expect(
        runtime.checkSessionFloor(
          floorOfCounter(),
          offerWith((e) => (e.settings.grant_bytes = 1), first),
        ),
      ).toMatchObject({ code: 'weaker-settings' })
      expect(
        runtime.checkSessionFloor(
          floorOfCounter(),
          offerWith((e) => (e.content = { ...e.content, sha256: '0'.repeat(64) }), first),
        ),
      ).toMatchObject({
        code: 'changed-pin',
      })
      expect(
        runtime.checkSessionFloor(
          floorOfCounter(),
          offerWith((e) => (e.version = 'draft-02'), first),
        ),
      ).toMatchObject({ code: 'other-version' })
      expect(
        runtime.checkSessionFloor(
          floorOfCounter(),
          offerWith(() => {}, first),
        ),
      ).toEqual({ ok: true })
    }
    // A record repeating one place is no record.
    const twice = structuredClone(floorOfCounter()) as { extensions: unknown[] }
    twice.extensions.push(twice.extensions[1])
    expect(runtime.checkSessionFloor(twice, counter.selectionRequest)).toMatchObject({ code: 'missing-record' })
  })

  it('an offer with an entry that is not an extension is unreadable, not a requirement beyond the floor; floorOf given lists of another length makes no floor', () => {
    for (const junk of [5, null, { uri: 'urn:a:b' }, { uri: 'urn:a:b', version: '1' }, { uri: 5, version: '1', scope: 'session' }]) {
      const offered = structuredClone(counter.selectionRequest) as { extensions: unknown[] }
      offered.extensions.push(junk)
      expect(runtime.checkSessionFloor(floorOfCounter(), offered)).toMatchObject({ ok: false, code: 'unreadable-offer' })
    }
    const names = floorOfCounter().extensions.map((e) => Object.keys(e.settings as object))
    const operations = floorOfCounter().extensions.map((e) => e.operations as string[])
    for (const [kept, affected] of [
      [[...names, []], operations],
      [names, operations.slice(1)],
    ])
      expect(runtime.checkSessionFloor(runtime.floorOf(counter.selectionRequest, kept, affected), counter.selectionRequest)).toMatchObject({
        code: 'missing-record',
      })
  })

  it('names at most five of the versions an offer holds instead of the saved one', () => {
    const offered = structuredClone(counter.selectionRequest) as { extensions: Array<Record<string, any>> }
    const base = offered.extensions[1]!
    offered.extensions.push(...Array.from({ length: 1000 }, (_, i) => ({ ...base, version: `v${i}` })))
    const check = runtime.checkSessionFloor(floorOfCounter(), offered)
    expect(check).toMatchObject({ ok: false, code: 'other-version' })
    expect(!check.ok && check.reason).toContain('and 995 more versions')
    expect(!check.ok && check.reason.length).toBeLessThan(600)
  })

  it('floorOf refuses a kept setting the request does not set (it would make a weaker floor), and a dependency without an identity is no record', () => {
    const names = floorOfCounter().extensions.map((e) => Object.keys(e.settings as object))
    const operations = floorOfCounter().extensions.map((e) => e.operations)
    const weaker = runtime.floorOf(counter.selectionRequest, [names[0]!, [...names[1]!, 'not_set']], operations as string[][])
    expect(runtime.checkSessionFloor(weaker, counter.selectionRequest)).toMatchObject({ code: 'missing-record' })
    for (const dependency of [
      { uri: '', version: '1' },
      { uri: 'urn:x', version: '' },
    ])
      expect(
        runtime.checkSessionFloor(
          withEntry(1, (e) => (e.dependencies = [dependency])),
          counter.selectionRequest,
        ),
      ).toMatchObject({
        code: 'missing-record',
      })
  })

  it('costs one pass over each offered dependency list (a set), not one per saved requirement', () => {
    const many = Array.from({ length: 1000 }, (_, i) => ({ uri: `urn:example:ext:d${i}`, version: '1', scope: 'session' }))
    const saved = withEntry(1, (e) => (e.dependencies = many))
    expect(runtime.checkSessionFloor(saved, offer([...many].reverse()))).toEqual({ ok: true })
    expect(runtime.checkSessionFloor(saved, offer(many.slice(1)))).toMatchObject({ ok: false, code: 'missing-dependency' })
  })
})

describe('every exported helper answers any input with a result, never a throw', () => {
  it('the fixed hostile values, in every argument position', () => {
    const values = hostileValues()
    const generated = [counter, every]
    for (const a of values) {
      expect(() => runtime.isExactSelection(a, a)).not.toThrow()
      expect(() => runtime.checkSessionFloor(a, counter.selectionRequest)).not.toThrow()
      expect(() => runtime.checkSessionFloor(counter.sessionFloor, a)).not.toThrow()
      expect(() => runtime.attributeValidators(a as never)).not.toThrow()
      expect(() => runtime.checkPlacement(a as never, { type: 'dasp.v1.command' })).not.toThrow()
      expect(() => runtime.checkPlacement(counter.attributes, a)).not.toThrow()
      expect(() => runtime.conformanceReport(a as never, a as never)).not.toThrow()
      expect(() => runtime.deepFreeze(a)).not.toThrow()
      expect(() => runtime.floorOf(a as never, a as never)).not.toThrow()
      expect(() => runtime.attributeRules(a as never, a as never)).not.toThrow()
      expect(() => runtime.attributeValidator(a)(a)).not.toThrow()
      expect(() => runtime.isCommandType(a)).not.toThrow()
      for (const type of runtime.CLOUDEVENTS_TYPES) expect(() => runtime.cloudEventsValidator(type)(a)).not.toThrow()
      for (const mod of generated) {
        expect(() => mod.isExactSelection(a)).not.toThrow()
        expect(() => mod.checkSessionFloor(a, a)).not.toThrow()
        expect(() => mod.checkPlacement(a)).not.toThrow()
        expect(() => mod.conformanceReport(a)).not.toThrow()
        for (const name of mod.attributeNames) expect(() => mod.attributeValidators[name](a)).not.toThrow()
      }
    }
  })

  it('isExactSelection (runtime and generated)', () => {
    neverThrows((a, b) => runtime.isExactSelection(a, b), 2)
    neverThrows((a) => counter.isExactSelection(a), 1)
  })
  it('checkSessionFloor (runtime and generated)', () => {
    neverThrows((a, b) => runtime.checkSessionFloor(a, b), 2)
    neverThrows((a) => every.checkSessionFloor(every.sessionFloor, a), 1)
  })
  it('checkPlacement (runtime and generated)', () => {
    neverThrows((a, b) => runtime.checkPlacement(a as never, b), 2)
    neverThrows((a) => every.checkPlacement(a), 1)
    neverThrows((a) => every.checkPlacement({ type: 'dasp.v1.command', daspaudit: a, daspdeadline: a, daspseq: a }), 1)
  })
  it('attributeValidator(s), cloudEventsValidator and the type checks', () => {
    neverThrows((a, b) => runtime.attributeValidator(a)(b), 2)
    neverThrows((a) => runtime.attributeValidators(a as never), 1)
    neverThrows((a) => {
      for (const name of every.attributeNames) every.attributeValidators[name](a)
    }, 1)
    neverThrows((a) => {
      for (const check of [
        runtime.isCloudEventsBoolean,
        runtime.isCloudEventsInteger,
        runtime.isCloudEventsString,
        runtime.isCloudEventsBinary,
        runtime.isCloudEventsUri,
        runtime.isCloudEventsUriReference,
        runtime.isCloudEventsTimestamp,
      ])
        check(a)
    }, 1)
  })
  it('conformanceReport (runtime and generated) and deepFreeze', () => {
    neverThrows((a, b) => runtime.conformanceReport(a as never, b as never), 2)
    neverThrows((a) => counter.conformanceReport(a), 1)
    neverThrows((a) => runtime.deepFreeze(a), 1)
  })

  it('results are results: codes from the documented sets, reports with their problems named', () => {
    const floorCodes = ['missing-record', 'unreadable-offer', 'missing-extension', 'other-version', 'changed-pin', 'weaker-settings']
    const placementCodes = ['not-allowed', 'missing', 'invalid', 'unreadable']
    fc.assert(
      fc.property(anythingArg, anythingArg, (x, y) => {
        const [a, b] = [value(x), value(y)]
        const floor = runtime.checkSessionFloor(a, b)
        if (!floor.ok) expect(floorCodes).toContain(floor.code)
        const placement = every.checkPlacement(a)
        if (!placement.ok) expect(placementCodes).toContain(placement.code)
        expect(typeof runtime.isExactSelection(a, b)).toBe('boolean')
      }),
      { numRuns: 300 },
    )
    const report = counter.conformanceReport(null)
    expect(report.problems.length).toBeGreaterThan(0)
    expect(report.executedCases).toEqual([])
    expect(
      counter.conformanceReport({ implementationVersions: { client: '1' }, durabilityBoundary: 'fsync', cases: [{ id: 'a', executed: true }] }).problems,
    ).toEqual([])
  })

  it('deepFreeze freezes what it can read, through cycles and any depth', () => {
    const cyclic: any = { a: { b: [1, 2] } }
    cyclic.a.self = cyclic
    expect(runtime.deepFreeze(cyclic)).toBe(cyclic)
    expect(Object.isFrozen(cyclic.a.b)).toBe(true)
    let deep: any = {}
    const root = deep
    for (let i = 0; i < 100_000; i++) deep = deep.next = {}
    runtime.deepFreeze(root)
    expect(Object.isFrozen(deep)).toBe(true)
  })
})

/** A saved floor record as DASP-EXT-005 needs it, judged here without the runtime: plain JSON data, every entry complete. */
function isFloorRecord(value: unknown): boolean {
  try {
    return floorRecord(value)
  } catch {
    // A proxy that refused, a getter that threw, a cycle.
    return false
  }
}

function floorRecord(value: unknown): boolean {
  const text = JSON.stringify(value)
  if (text === undefined || typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const plain = (v: unknown): boolean =>
    v === null ||
    typeof v === 'string' ||
    typeof v === 'boolean' ||
    (typeof v === 'number' && Number.isFinite(v)) ||
    (Array.isArray(v) && Object.keys(v).length === v.length && v.every(plain)) ||
    (typeof v === 'object' &&
      !Array.isArray(v) &&
      [Object.prototype, null].includes(Object.getPrototypeOf(v)) &&
      Object.values(Object.getOwnPropertyDescriptors(v)).every((d) => 'value' in d && plain(d.value)))
  if (!plain(value) || !text.isWellFormed()) return false
  const extensions = Object.hasOwn(value as object, 'extensions') ? (value as any).extensions : undefined
  const object = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v)
  const identity = (v: Record<string, any>) => ['uri', 'version'].every((k) => Object.hasOwn(v, k) && typeof v[k] === 'string' && v[k] !== '')
  // DASP-EXT-005: the exact contract identities and content references, the persistent settings, the
  // affected operations and the dependency requirements; one entry for each extension's place.
  const contracts = ['core', 'profile', 'binding'].every((k) => {
    const ref = (value as any)[k]
    return Object.hasOwn(value as object, k) && object(ref) && identity(ref) && Object.hasOwn(ref, 'content')
  })
  const places = Array.isArray(extensions) ? extensions.map((e) => (object(e) ? JSON.stringify([e.uri, e.scope]) : '')) : []
  return (
    contracts &&
    Array.isArray(extensions) &&
    new Set(places).size === places.length &&
    extensions.every(
      (e) =>
        object(e) &&
        ['uri', 'version', 'scope'].every((k) => Object.hasOwn(e, k) && typeof e[k] === 'string') &&
        Object.hasOwn(e, 'content') &&
        Object.hasOwn(e, 'settings') &&
        object(e.settings) &&
        Array.isArray(e.dependencies) &&
        e.dependencies.every((d: unknown) => object(d) && identity(d) && (d.scope === undefined || typeof d.scope === 'string')) &&
        Array.isArray(e.operations) &&
        e.operations.every((o: unknown) => typeof o === 'string'),
    )
  )
}

describe('checkSessionFloor: a lost or unreadable record is never an empty floor (DASP-EXT-005)', () => {
  it('the reported records: extensions: [null], settings: null, and the other hostile values', () => {
    const offered = copy(counter.selectionRequest)
    const saved = copy(counter.sessionFloor)
    const broken = [
      { extensions: [null] },
      { ...saved, extensions: [{ ...saved.extensions[0], settings: null }] },
      { ...saved, extensions: [{ ...saved.extensions[0], uri: 7 }] },
      { ...saved, extensions: [{ ...saved.extensions[0], content: undefined }] },
      { ...saved, extensions: [...saved.extensions, 'extra'] },
      ...hostileValues().filter((v) => !isFloorRecord(v)),
    ]
    broken.forEach((record, i) => {
      expect(counter.checkSessionFloor(record, offered), `record ${i}`).toMatchObject({ ok: false, code: 'missing-record' })
      expect(runtime.checkSessionFloor(record, offered), `record ${i}`).toMatchObject({ ok: false, code: 'missing-record' })
    })
    // The empty floor (a record of the contracts with no extension) is a record, and holds; without the contracts it is none.
    expect(counter.checkSessionFloor({ core: saved.core, profile: saved.profile, binding: saved.binding, extensions: [] }, offered)).toEqual({ ok: true })
    expect(counter.checkSessionFloor({ extensions: [] }, offered)).toMatchObject({ ok: false, code: 'missing-record' })
  })

  it('property: whatever the record, the floor holds only for a readable one', () => {
    const offered = copy(every.selectionRequest)
    fc.assert(
      fc.property(anythingArg, (arg) => {
        const record = value(arg)
        if (!isFloorRecord(record)) expect(every.checkSessionFloor(record, offered)).toMatchObject({ ok: false, code: 'missing-record' })
      }),
      { numRuns: 500 },
    )
  })

  it('property: one corruption of the saved floor, anywhere, is refused', () => {
    const offered = copy(every.selectionRequest)
    const saved = copy(every.sessionFloor)
    const corruptions: Array<(e: any) => void> = [
      (e) => (e.settings = null),
      (e) => (e.settings = []),
      (e) => delete e.settings,
      (e) => delete e.content,
      (e) => (e.uri = null),
      (e) => (e.version = 2),
      (e) => delete e.scope,
      (e) =>
        Object.defineProperty(e, 'uri', {
          enumerable: true,
          get() {
            throw new Error('getter')
          },
        }),
      (e) => (e.settings.self = e),
      (e) => (e.content = 1n),
      (e) => (e.settings.retention_days = NaN),
    ]
    fc.assert(
      fc.property(fc.nat(saved.extensions.length - 1), fc.nat(corruptions.length - 1), (at, which) => {
        const record = copy(saved)
        corruptions[which]!(record.extensions[at])
        expect(every.checkSessionFloor(record, offered)).toMatchObject({ ok: false, code: 'missing-record' })
      }),
    )
    expect(every.checkSessionFloor(saved, offered)).toEqual({ ok: true })
  })

  it('an offer that is not a selection is refused; one setting named __proto__ is compared as a member', () => {
    const saved = copy(counter.sessionFloor)
    for (const offer of [null, 'x', {}, { extensions: {} }, throwingGetterObject()])
      expect(counter.checkSessionFloor(saved, offer)).toMatchObject({ ok: false, code: 'unreadable-offer' })
    const record = JSON.parse(JSON.stringify(saved).replace('"settings":{', '"settings":{"__proto__":{},'))
    const offered = copy(counter.selectionRequest)
    expect(runtime.checkSessionFloor(record, offered)).toMatchObject({ ok: false, code: 'weaker-settings' })
  })
})

// ---------------------------------------------------------------------------------------------
// The CloudEvents type system, against implementations written here another way.

/** String: no control character, no noncharacter (Unicode property), no lone surrogate (isWellFormed). */
const oracleString = (v: unknown) =>
  typeof v === 'string' &&
  v.isWellFormed() &&
  [...v].every((ch) => {
    const cp = ch.codePointAt(0)!
    return !(cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f)) && !/\p{Noncharacter_Code_Point}/u.test(ch)
  })

/** Integer: a finite number equal to its truncation, within two's-complement 32 bits. */
const oracleInteger = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && Math.trunc(v) === v && v >= -(2 ** 31) && v <= 2 ** 31 - 1

/** Binary: Node decodes leniently; canonical base64 is exactly what re-encoding gives back. */
const oracleBinary = (v: unknown) => typeof v === 'string' && Buffer.from(v, 'base64').toString('base64') === v

/** Timestamp: fields read by position, the calendar decided by Date (UTC), the leap second by adding a minute. */
function oracleTimestamp(v: unknown): boolean {
  if (typeof v !== 'string' || v.length < 20) return false
  const digits = (from: number, to: number) => {
    const part = v.slice(from, to)
    return [...part].every((c) => c >= '0' && c <= '9') ? Number(part) : NaN
  }
  if (v[4] !== '-' || v[7] !== '-' || !'Tt'.includes(v[10]!) || v[13] !== ':' || v[16] !== ':') return false
  const [year, month, day, hour, minute, second] = [digits(0, 4), digits(5, 7), digits(8, 10), digits(11, 13), digits(14, 16), digits(17, 19)]
  let rest = v.slice(19)
  if (rest.startsWith('.')) {
    let n = 1
    while (n < rest.length && rest[n]! >= '0' && rest[n]! <= '9') n++
    if (n === 1) return false
    rest = rest.slice(n)
  }
  let offset = 0
  if (rest !== 'Z' && rest !== 'z') {
    if (rest.length !== 6 || !'+-'.includes(rest[0]!) || rest[3] !== ':') return false
    if (![...(rest.slice(1, 3) + rest.slice(4, 6))].every((c) => c >= '0' && c <= '9')) return false
    const oh = Number(rest.slice(1, 3))
    const om = Number(rest.slice(4, 6))
    if (oh > 23 || om > 59) return false
    offset = (rest[0] === '-' ? -1 : 1) * (oh * 60 + om)
  }
  if ([year, month, day, hour, minute, second].some(Number.isNaN)) return false
  const date = new Date(0)
  date.setUTCFullYear(year!, month! - 1, day!)
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month! - 1 || date.getUTCDate() !== day) return false
  if (hour! > 23 || minute! > 59 || second! > 60) return false
  if (second! < 60) return true
  const instant = new Date(date.getTime() + (hour! * 60 + minute! - offset) * 60_000)
  return instant.getUTCHours() === 23 && instant.getUTCMinutes() === 59 && new Date(instant.getTime() + 60_000).getUTCDate() === 1
}

/** RFC 3986 Appendix A, rule by rule, as one expression (the runtime parses part by part instead). */
const RFC3986 = (() => {
  const unreserved = '[A-Za-z0-9\\-._~]'
  const pct = '%[0-9A-Fa-f]{2}'
  const subDelims = "[!$&'()*+,;=]"
  const pchar = `(?:${unreserved}|${pct}|${subDelims}|[:@])`
  const segment = `${pchar}*`
  const segmentNz = `${pchar}+`
  const segmentNzNc = `(?:${unreserved}|${pct}|${subDelims}|@)+`
  const pathAbempty = `(?:/${segment})*`
  const pathAbsolute = `/(?:${segmentNz}(?:/${segment})*)?`
  const pathNoscheme = `${segmentNzNc}(?:/${segment})*`
  const pathRootless = `${segmentNz}(?:/${segment})*`
  const decOctet = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9][0-9]|[0-9])'
  const ipv4 = `${decOctet}\\.${decOctet}\\.${decOctet}\\.${decOctet}`
  const h16 = '[0-9A-Fa-f]{1,4}'
  const ls32 = `(?:${h16}:${h16}|${ipv4})`
  const ipv6 = [
    `(?:${h16}:){6}${ls32}`,
    `::(?:${h16}:){5}${ls32}`,
    `(?:${h16})?::(?:${h16}:){4}${ls32}`,
    `(?:(?:${h16}:){0,1}${h16})?::(?:${h16}:){3}${ls32}`,
    `(?:(?:${h16}:){0,2}${h16})?::(?:${h16}:){2}${ls32}`,
    `(?:(?:${h16}:){0,3}${h16})?::${h16}:${ls32}`,
    `(?:(?:${h16}:){0,4}${h16})?::${ls32}`,
    `(?:(?:${h16}:){0,5}${h16})?::${h16}`,
    `(?:(?:${h16}:){0,6}${h16})?::`,
  ]
    .map((alternative) => `(?:${alternative})`)
    .join('|')
  const ipvFuture = `[vV][0-9A-Fa-f]+\\.(?:${unreserved}|${subDelims}|:)+`
  const host = `(?:\\[(?:${ipv6}|${ipvFuture})\\]|${ipv4}|(?:${unreserved}|${pct}|${subDelims})*)`
  const authority = `(?:(?:${unreserved}|${pct}|${subDelims}|:)*@)?${host}(?::[0-9]*)?`
  const scheme = '[A-Za-z][A-Za-z0-9+\\-.]*'
  const hierPart = `(?://${authority}${pathAbempty}|${pathAbsolute}|${pathRootless}|)`
  const query = `(?:${pchar}|[/?])*`
  const relativePart = `(?://${authority}${pathAbempty}|${pathAbsolute}|${pathNoscheme}|)`
  return {
    absolute: new RegExp(`^${scheme}:${hierPart}(?:\\?${query})?$`),
    reference: new RegExp(`^(?:${scheme}:${hierPart}(?:\\?${query})?(?:#${query})?|${relativePart}(?:\\?${query})?(?:#${query})?)$`),
  }
})()

/** One UTF-16 code unit, any of them (lone surrogates included), or a whole code point. */
const anyUnit = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
  fc.constantFrom('a', 'Z', '0', ' ', '\u0085', '\ufdd0', '\ufffe', '\uffff', '\u{1fffe}', '\u{10ffff}', '\ud800', '\udc00', '\u{1f600}'),
)
const uriUnit = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...":/?#[]@!$&'()*+,;=%-._~aZ09fFvV. ".split('')) },
  { weight: 1, arbitrary: fc.constantFrom('é', '\u0000', '%2F', '%zz', '::', '[::1]', '1.2.3.4', '[v1.x]', 'http:', '//') },
)

describe('attribute values: the CloudEvents type system, as its JSON format represents it', () => {
  const runs = { numRuns: 2000 }

  it('String: no control characters, noncharacters or lone surrogates (oracle: code points and the Noncharacter_Code_Point property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: anyUnit, maxLength: 12 }), (s) => {
        expect(runtime.isCloudEventsString(s), JSON.stringify(s)).toBe(oracleString(s))
      }),
      runs,
    )
    for (const bad of ['a\u0000b', 'tab\there', '\u0007', '\u007f', '\u0085', '\u009f', '\ud800', 'x\udfff', '\ufdd0', '\ufffe', '\u{1ffff}', '\u{10fffe}'])
      expect(runtime.isCloudEventsString(bad), JSON.stringify(bad)).toBe(false)
    for (const good of ['', 'grant-7', 'é', '\u00a0', '\ud800\udead', '\u{1f600}', '\ufdcf', '\ufdf0', '\ufffd'])
      expect(runtime.isCloudEventsString(good), JSON.stringify(good)).toBe(true)
  })

  it('Integer: a JSON number with only an integer component, signed 32-bit (oracle: truncation and powers of two)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer(), fc.double(), fc.constantFrom(2 ** 31, 2 ** 31 - 1, -(2 ** 31), -(2 ** 31) - 1, -0, 0.5, NaN, Infinity, '1', 1n, true)),
        (v) => {
          expect(runtime.isCloudEventsInteger(v)).toBe(oracleInteger(v))
        },
      ),
      runs,
    )
  })

  it('Boolean: a JSON boolean only', () => {
    expect([true, false].every(runtime.isCloudEventsBoolean)).toBe(true)
    expect(['true', 1, 0, null, new Boolean(true)].some(runtime.isCloudEventsBoolean)).toBe(false)
  })

  it('Binary: padded RFC 4648 base64 with zero pad bits (oracle: a Buffer round trip)', () => {
    const encoded = fc.uint8Array({ maxLength: 12 }).map((bytes) => Buffer.from(bytes).toString('base64'))
    const mutated = fc
      .tuple(encoded, fc.nat(), fc.constantFrom('=', '-', '_', ' ', 'A', '/', '+', '', '\n'))
      .map(([s, at, c]) => s.slice(0, at % (s.length + 1)) + c + s.slice((at % (s.length + 1)) + 1))
    fc.assert(
      fc.property(fc.oneof(encoded, mutated, fc.string({ maxLength: 9 })), (s) => {
        expect(runtime.isCloudEventsBinary(s), s).toBe(oracleBinary(s))
      }),
      runs,
    )
    for (const bad of ['QR==', 'QUJ=', 'QQ', 'QQ=', 'Q===', 'QUJD\n', 'QUJ-']) expect(runtime.isCloudEventsBinary(bad), bad).toBe(false)
  })

  it('Timestamp: RFC 3339, calendar-exact (oracle: Date arithmetic, not a pattern)', () => {
    const two = (n: number) => String(n).padStart(2, '0')
    const stamp = fc
      .record({
        year: fc.integer({ min: 0, max: 9999 }),
        month: fc.integer({ min: 0, max: 13 }),
        day: fc.integer({ min: 0, max: 32 }),
        hour: fc.integer({ min: 0, max: 25 }),
        minute: fc.integer({ min: 0, max: 61 }),
        second: fc.oneof(fc.integer({ min: 0, max: 61 }), fc.constant(60)),
        fraction: fc.option(fc.stringMatching(/^[0-9]{0,4}$/)),
        t: fc.constantFrom('T', 't', ' '),
        zone: fc.oneof(
          fc.constantFrom('Z', 'z', '', '+00:00', '-00:00'),
          fc.tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 25 }), fc.integer({ min: 0, max: 61 })).map(([s, h, m]) => `${s}${two(h)}:${two(m)}`),
        ),
      })
      .map(
        (p) =>
          `${String(p.year).padStart(4, '0')}-${two(p.month)}-${two(p.day)}${p.t}${two(p.hour)}:${two(p.minute)}:${two(p.second)}${p.fraction === null ? '' : `.${p.fraction}`}${p.zone}`,
      )
    // Leap-second candidates: the last minute of a month, in UTC and under offsets.
    const leap = fc
      .tuple(fc.integer({ min: 1970, max: 2100 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 26, max: 31 }), fc.integer({ min: -23, max: 23 }))
      .map(([y, m, d, shift]) => {
        const h = (23 + shift + 24) % 24
        return `${y}-${two(m)}-${two(d)}T${two(h)}:59:60${shift === 0 ? 'Z' : `${shift > 0 ? '+' : '-'}${two(Math.abs(shift))}:00`}`
      })
    fc.assert(
      fc.property(fc.oneof(stamp, leap, fc.string({ maxLength: 26 })), (s) => {
        expect(runtime.isCloudEventsTimestamp(s), s).toBe(oracleTimestamp(s))
      }),
      { numRuns: 5000 },
    )
    for (const bad of [
      '2023-02-29T00:00:00Z',
      '2024-04-31T00:00:00Z',
      '2024-01-01T24:00:00Z',
      '2024-01-01T00:61:00Z',
      '2024-13-01T00:00:00Z',
      '1900-02-29T00:00:00Z',
      '1990-12-30T23:59:60Z',
      '1990-12-31T22:59:60Z',
      '2024-01-01T00:00:00+24:00',
      '2024-01-01 00:00:00Z',
      '2024-01-01T00:00:00',
      '2024-01-01T00:00:00.Z',
    ])
      expect(runtime.isCloudEventsTimestamp(bad), bad).toBe(false)
    for (const good of [
      '2024-02-29T00:00:00Z',
      '2000-02-29T12:00:00.123456789+05:30',
      '1990-12-31T23:59:60Z',
      '1990-12-31T15:59:60-08:00',
      '1991-01-01T00:59:60+01:00',
      '0000-02-29t00:00:00z',
      '2024-01-01T00:00:00-00:00',
    ])
      expect(runtime.isCloudEventsTimestamp(good), good).toBe(true)
  })

  it('URI and URI-reference: RFC 3986 sections 4.3 and 4.1 (oracle: the ABNF of Appendix A as one expression)', () => {
    const strings = fc.oneof(
      fc.string({ unit: uriUnit, maxLength: 24 }),
      fc.webUrl({ withFragments: true, withQueryParameters: true }),
      fc.ipV6().map((ip) => `https://[${ip}]:8080/p`),
      fc.ipV4Extended().map((ip) => `urn:x//${ip}`),
      fc.tuple(fc.constantFrom('a:', 'http://', '//', '/', ''), fc.string({ unit: uriUnit, maxLength: 16 })).map(([a, b]) => a + b),
    )
    fc.assert(
      fc.property(strings, (s) => {
        expect(runtime.isCloudEventsUri(s), s).toBe(RFC3986.absolute.test(s))
        expect(runtime.isCloudEventsUriReference(s), s).toBe(RFC3986.reference.test(s))
      }),
      { numRuns: 5000 },
    )
    for (const [s, uri, reference] of [
      ['https://example.com/schema', true, true],
      ['https://example.com/schema#v1', false, true],
      ['urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66', true, true],
      ['/sensors/tn-1234567/alerts', false, true],
      ['1-555-123-4567', false, true],
      ['a:b:c', true, true],
      ['1a:b', false, false],
      ['https://ex ample.com', false, false],
      ['https://[::1::2]/', false, false],
      ['https://example.com/é', false, false],
      ['', false, true],
    ] as const) {
      expect(runtime.isCloudEventsUri(s), s).toBe(uri)
      expect(runtime.isCloudEventsUriReference(s), s).toBe(reference)
    }
  })

  it("a generated module's validators and checkPlacement use these checks, for each attribute of the every-form selection", () => {
    const oracles: Record<string, (v: unknown) => boolean> = {
      daspaudit: oracleString,
      daspseq: oracleInteger,
      daspsampled: (v) => typeof v === 'boolean',
      daspdigest: oracleBinary,
      daspschema: (v) => typeof v === 'string' && RFC3986.absolute.test(v),
      daspcontext: (v) => typeof v === 'string' && RFC3986.reference.test(v),
      daspdeadline: oracleTimestamp,
    }
    const values = fc.oneof(
      fc.string({ unit: anyUnit, maxLength: 8 }),
      fc.integer(),
      fc.boolean(),
      fc.constantFrom('2023-02-29T00:00:00Z', 'AAEC', 'https://x/y', '/c'),
    )
    fc.assert(
      fc.property(values, (v) => {
        for (const [name, oracle] of Object.entries(oracles)) expect(every.attributeValidators[name](v), `${name} ${String(v)}`).toBe(oracle(v))
        const command = { type: 'dasp.v1.command', daspaudit: 'audit-1', daspdeadline: v }
        expect(every.checkPlacement(command).ok).toBe(oracleTimestamp(v))
      }),
      runs,
    )
  })

  it('the reported values: control characters, NUL, U+0085 and lone surrogates in a String; impossible dates in a Timestamp', () => {
    const command = { specversion: '1.0', id: '1', source: 'urn:c', type: 'dasp.v1.command', requestid: 'r1', daspauthority: 'grant-7' }
    expect(counter.checkPlacement(command)).toEqual({ ok: true })
    for (const value of ['grant\u0000', 'grant\u0007', 'grant\u0085', 'grant\ud800', 'grant\udc00x', 'grant\n'])
      expect(counter.checkPlacement({ ...command, daspauthority: value }), JSON.stringify(value)).toMatchObject({
        ok: false,
        code: 'invalid',
        attribute: 'daspauthority',
      })
    const timed = { type: 'dasp.v1.command', daspaudit: 'a-1' }
    expect(every.checkPlacement({ ...timed, daspdeadline: '2024-02-29T23:59:59Z' })).toEqual({ ok: true })
    for (const value of ['2023-02-29T00:00:00Z', '2024-04-31T00:00:00Z', '2024-01-01T24:00:00Z', '2024-01-01T00:61:00Z', '2024-13-01T00:00:00Z'])
      expect(every.checkPlacement({ ...timed, daspdeadline: value }), value).toMatchObject({ ok: false, code: 'invalid', attribute: 'daspdeadline' })
  })

  it('null is unset (the CloudEvents JSON format): a required attribute set to null is missing, an optional one is absent', () => {
    expect(every.checkPlacement({ type: 'dasp.v1.command', daspaudit: null })).toMatchObject({ ok: false, code: 'missing', attribute: 'daspaudit' })
    expect(every.checkPlacement({ type: 'dasp.v1.read', daspaudit: null, daspsampled: null })).toEqual({ ok: true })
  })

  it('an event that cannot be read is unreadable, never ok', () => {
    for (const event of [null, [], 'x', {}, { type: '' }, { type: 7 }, throwingProxy(), throwingGetterObject()])
      expect(every.checkPlacement(event)).toMatchObject({ ok: false, code: 'unreadable' })
    const getter = Object.defineProperty({ type: 'dasp.v1.command' }, 'daspaudit', {
      enumerable: true,
      get() {
        throw new Error('getter')
      },
    })
    expect(every.checkPlacement(getter)).toMatchObject({ ok: false, code: 'unreadable' })
  })
})

describe('DASP-EXT-007 at run time: no attribute on the dasp.encrypted outer carrier, daspauthority on commands only', () => {
  it('an attribute placed on dasp.encrypted is refused (generated helpers)', () => {
    const carrier = { specversion: '1.0', id: '1', source: 'urn:c', type: 'dasp.encrypted' }
    expect(counter.checkPlacement(carrier)).toEqual({ ok: true })
    expect(counter.checkPlacement({ ...carrier, daspauthority: 'grant-7' })).toMatchObject({ ok: false, code: 'not-allowed', attribute: 'daspauthority' })
    for (const [name, value] of [
      ['daspaudit', 'a-1'],
      ['daspseq', 1],
      ['daspsampled', true],
    ] as const)
      expect(every.checkPlacement({ ...carrier, [name]: value }), name).toMatchObject({ ok: false, code: 'not-allowed', attribute: name })
  })

  it('whatever the rules say: rules naming dasp.encrypted, or daspauthority on another type, are not obeyed', () => {
    const loose = [
      { name: 'daspkeyid', type: 'String', on: ['dasp.encrypted'], class: 'delivery', extension: { uri: 'urn:x', version: '1' } },
      { name: 'daspauthority', type: 'String', on: ['dasp.v1.read', 'dasp.v1.command'], class: 'delivery', extension: { uri: 'urn:x', version: '1' } },
    ] as const
    expect(runtime.checkPlacement(loose as never, { type: 'dasp.encrypted', daspkeyid: 'k' })).toMatchObject({
      ok: false,
      code: 'not-allowed',
      attribute: 'daspkeyid',
    })
    expect(runtime.checkPlacement(loose as never, { type: 'dasp.v1.read', daspauthority: 'g' })).toMatchObject({
      ok: false,
      code: 'not-allowed',
      attribute: 'daspauthority',
    })
    expect(runtime.checkPlacement(loose as never, { type: 'dasp.v1.command', daspauthority: 'g' })).toEqual({ ok: true })
    // daspauthority on the carrier is refused even when authority is not selected.
    expect(runtime.checkPlacement([], { type: 'dasp.encrypted', daspauthority: 'g' })).toMatchObject({ ok: false, code: 'not-allowed' })
    expect(runtime.checkPlacement([], { type: 'dasp.encrypted', daspauthority: null })).toEqual({ ok: true })
  })
})
