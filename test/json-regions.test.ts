/**
 * core/json-regions.ts: a recompile's JSON parse shares the containers whose text its edit left
 * unchanged with the last parse (the same objects), so that what later stages keep by identity is
 * found again. The oracles are apart from it: `JSON.parse` of the new text (the shared value must be
 * that value exactly, key order included), jsonc-parser's syntax tree (the containers the scan finds,
 * their offsets and paths, and the keys it counts), and core's own `tooDeepJson` (the depth limit).
 */
import fc from 'fast-check'
import { parseTree, type Node } from 'jsonc-parser'
import { describe, expect, it } from 'vitest'
import { JSON_REGION_DEPTH, JsonRegions, MAX_SPANS, scanJson } from '../src/core/json-regions.js'
import { parseJsonSource } from '../src/core/json-source.js'
import { tooDeepJson } from '../src/core/limits.js'

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

// Keys a JSON Pointer escapes, a key with a quote and a backslash, one JSON.parse makes an own
// `__proto__` member of, and plain ones.
const key = fc.oneof(fc.constantFrom('a', 'b', 'c', 'd', '~', '/', 'a/b~c', 'q"\\', '__proto__', 'é', ''), fc.string({ maxLength: 4 }))
const leaf = fc.oneof(fc.constantFrom(null, true, false, 0, -1.5, 1e21, 'x', '"', '\\u0041'), fc.string({ maxLength: 6 }), fc.integer())
const value: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
})).value
const documents = fc.dictionary(key, value, { minKeys: 1, maxKeys: 5 })

/** The paths of every value in `doc` (objects' members, arrays' items), the root first. */
function paths(doc: Json, at: Array<string | number> = [], out: Array<Array<string | number>> = []): Array<Array<string | number>> {
  out.push(at)
  if (Array.isArray(doc)) doc.forEach((item, i) => paths(item, [...at, i], out))
  else if (doc !== null && typeof doc === 'object') for (const k of Object.keys(doc)) paths(doc[k]!, [...at, k], out)
  return out
}

/** `doc` with the value at `path` replaced (`replacement`), or removed from its object or array (undefined). */
function edited(doc: Json, path: ReadonlyArray<string | number>, replacement: Json | undefined): Json {
  if (path.length === 0) return replacement ?? {}
  const copy = structuredClone(doc) as Record<string | number, Json>
  let parent: Record<string | number, Json> = copy
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, Json>
  const last = path[path.length - 1]!
  if (replacement !== undefined) Object.defineProperty(parent, last, { value: replacement, enumerable: true, writable: true, configurable: true })
  else if (Array.isArray(parent)) parent.splice(last as number, 1)
  else delete parent[last]
  return copy
}

/** Every object and array in `value`, as many times as it occurs. */
function containers(value: unknown, out: object[] = []): object[] {
  if (value === null || typeof value !== 'object') return out
  out.push(value)
  for (const k of Object.keys(value)) containers((value as Record<string, unknown>)[k], out)
  return out
}

/** The containers at depths 1 to JSON_REGION_DEPTH as jsonc-parser's tree has them: offsets and paths. */
function treeSpans(text: string): Array<{ start: number; end: number; path: Array<string | number> }> {
  const out: Array<{ start: number; end: number; path: Array<string | number> }> = []
  const walk = (node: Node, path: Array<string | number>) => {
    if (node.type !== 'object' && node.type !== 'array') return
    if (path.length >= 1 && path.length <= JSON_REGION_DEPTH) out.push({ start: node.offset, end: node.offset + node.length, path })
    if (node.type === 'array') node.children!.forEach((child, i) => walk(child, [...path, i]))
    else for (const property of node.children!) walk(property.children![1]!, [...path, property.children![0]!.value as string])
  }
  walk(parseTree(text)!, [])
  return out.sort((a, b) => a.start - b.start)
}

function countProperties(node: Node | undefined): number {
  if (node === undefined) return 0
  return (node.type === 'property' ? 1 : 0) + (node.children ?? []).reduce((n, child) => n + countProperties(child), 0)
}

const formats = [(v: Json) => JSON.stringify(v), (v: Json) => JSON.stringify(v, null, 2), (v: Json) => JSON.stringify(v, null, '\t')]

describe('JsonRegions', () => {
  it('gives exactly the value JSON.parse reads from the new text, sharing unchanged containers and nothing else', () => {
    let shared = 0
    let runs = 0
    fc.assert(
      fc.property(documents, fc.nat(), fc.option(value, { nil: undefined }), fc.nat(formats.length - 1), fc.nat(3), (doc, pick, replacement, format, edits) => {
        const write = formats[format]!
        const regions = new JsonRegions()
        let text = write(doc)
        let last = regions.share(text, JSON.parse(text), scanJson(text, 64).spans)
        let current: Json = doc
        for (let e = 0; e <= edits; e++) {
          const all = paths(current)
          current = edited(current, all[(pick + e) % all.length]!, replacement)
          text = write(current)
          const value = regions.share(text, JSON.parse(text), scanJson(text, 64).spans)
          // Exactly the parse of the new text, members in the same order.
          expect(JSON.stringify(value)).toBe(JSON.stringify(JSON.parse(text)))
          expect(value).toStrictEqual(JSON.parse(text))
          // No container is in two places, and a container taken from the last value is one of its own.
          const now = containers(value)
          expect(new Set(now).size).toBe(now.length)
          const before = new Set(containers(last))
          const taken = now.filter((c) => before.has(c)).length
          expect(taken).toBeGreaterThanOrEqual(regions.taken)
          shared += regions.taken
          runs++
          last = value
        }
      }),
      { numRuns: 300 },
    )
    // Not vacuous: most edits leave some container as it was.
    expect(shared).toBeGreaterThan(runs)
  })

  it('after an edit read from one container, the containers enclosing it are the new values, for the next parse to share', () => {
    const regions = new JsonRegions()
    const read = (text: string) => parseJsonSource('x.json', text, regions).source.value
    read('{"a": {"b": {"c": 1}, "e": [1]}, "d": 1}')
    // The same length: only `b` read again, `a` copied around it.
    expect(read('{"a": {"b": {"c": 2}, "e": [1]}, "d": 1}')).toEqual({ a: { b: { c: 2 }, e: [1] }, d: 1 })
    expect(regions.rereads).toBe(1)
    // An edit outside every container: the whole text read, `a` shared from the value before.
    const next = read('{"a": {"b": {"c": 2}, "e": [1]}, "d": 3}') as { a: unknown }
    expect(next).toEqual({ a: { b: { c: 2 }, e: [1] }, d: 3 })
    expect(regions.taken).toBeGreaterThan(0)
  })

  it('never sets a `__proto__` member by assignment (the prototype stays Object.prototype)', () => {
    const regions = new JsonRegions()
    const a = '{"x": {"__proto__": {"polluted": 1}, "y": [1]}, "z": 1}'
    regions.share(a, JSON.parse(a), scanJson(a, 64).spans)
    const b = '{"x": {"__proto__": {"polluted": 1}, "y": [1]}, "z": 2}'
    const value = regions.share(b, JSON.parse(b), scanJson(b, 64).spans) as Record<string, Record<string, unknown>>
    expect(Object.getPrototypeOf(value.x)).toBe(Object.prototype)
    expect(Object.hasOwn(value.x!, '__proto__')).toBe(true)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(regions.taken).toBe(1)
  })
})

describe('scanJson', () => {
  it('finds the containers jsonc-parser finds at the kept depths, and counts the keys its tree has', () => {
    fc.assert(
      fc.property(documents, fc.nat(formats.length - 1), (doc, format) => {
        const text = formats[format]!(doc)
        const scan = scanJson(text, 64)
        expect(scan.deep).toBe(-1)
        expect(scan.spans.map(({ start, end, path }) => ({ start, end, path }))).toEqual(treeSpans(text))
        expect(scan.keys).toBe(countProperties(parseTree(text)))
      }),
      { numRuns: 300 },
    )
  })

  it('records at most MAX_SPANS containers; a text with more is still shared up to them and read right', () => {
    const many = (last: number) => `{"a": [${'[1],'.repeat(MAX_SPANS + 10)}[${last}]], "b": {"c": [2]}}`
    const regions = new JsonRegions()
    const first = many(1)
    const scan = scanJson(first, 64)
    expect(scan.spans).toHaveLength(MAX_SPANS)
    regions.share(first, JSON.parse(first), scan.spans)
    const next = many(2)
    const value = regions.share(next, JSON.parse(next), scanJson(next, 64).spans)
    expect(JSON.stringify(value)).toBe(JSON.stringify(JSON.parse(next)))
    expect(regions.taken).toBeGreaterThan(MAX_SPANS / 2)
  })

  it('stops where tooDeepJson does', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('[', '{"k":', ']', '}', '"[{"', ',', '1'), { maxLength: 40 }), fc.integer({ min: 1, max: 6 }), (parts, limit) => {
        const text = parts.join('')
        expect(scanJson(text, limit).deep).toBe(tooDeepJson(text, limit))
      }),
      { numRuns: 500 },
    )
  })
})

describe('parseJsonSource with regions', () => {
  it('reads an edit inside one container as JSON.parse reads the whole text, and reports what a whole reading reports', () => {
    let rereads = 0
    let runs = 0
    // Edits that break the container read alone: a duplicate key, a lone surrogate, a number out of
    // range, nesting past the limit, a syntax error; each must be reported as the whole reading does.
    const breaking = fc.constantFrom('{"k": 1, "k": 2}', '"\\ud800"', '1e999', '['.repeat(70) + ']'.repeat(70), '{"a": }', '[1,]')
    fc.assert(
      fc.property(
        documents,
        fc.array(fc.tuple(fc.nat(), fc.option(value, { nil: undefined }), fc.option(breaking, { nil: undefined, freq: 4 })), { minLength: 1, maxLength: 5 }),
        fc.nat(formats.length - 1),
        (doc, edits, format) => {
          const write = formats[format]!
          const regions = new JsonRegions()
          let current: Json = doc
          parseJsonSource('x.json', write(current), regions)
          for (const [pick, replacement, broken] of edits) {
            const all = paths(current)
            const path = all[pick % all.length]!
            current = edited(current, path, replacement)
            let text = write(current)
            if (broken !== undefined && path.length > 0) {
              // The broken text in place of the edited value (its JSON text is found by writing a marker there).
              const marked = write(edited(current, path, '\u0000marker\u0000'))
              text = marked.replace(JSON.stringify('\u0000marker\u0000'), broken)
            }
            const before = regions.rereads
            const kept = parseJsonSource('x.json', text, regions)
            const plain = parseJsonSource('x.json', text)
            expect(kept.diagnostics).toEqual(plain.diagnostics)
            if (plain.source.value !== undefined) expect(JSON.stringify(kept.source.value)).toBe(JSON.stringify(plain.source.value))
            else expect(kept.source.value).toBeUndefined()
            rereads += regions.rereads - before
            runs++
          }
        },
      ),
      { numRuns: 300 },
    )
    // Not vacuous: many edits were read from one container's text (about one in eight across seeds).
    expect(rereads).toBeGreaterThan(runs / 20)
  })

  it('reports what it reports without them, on valid and broken texts alike', () => {
    const regions = new JsonRegions()
    const texts = [
      '{"a": {"b": [1, 2]}, "c": {"d": 1}}',
      '[[[[[[1]]]]]]',
      '{"a": {"b": [1, 2]}, "c": {"d": 1, "d": 2}}',
      '{"a": {"b": [1, 2],}, "c": {"d": 1}}',
      '{"a": {"b": [1, 2]}, "c": {"d": 1}}',
      '\ufeff{"a": {"b": [1, 3]}, "c": {"d": 1}}',
      '{"a": {"b": [1, 3]}, "c": {"d": 1}}',
      '{"a": {"b": [1, 3]}, "c": {"d": 1e999}}',
      '{"a": {"b": [1, 3]}, "c": {"d": "\\ud800"}}',
      '{"a": {"b": [1, 3]}, "c": {"d": 2}}',
    ]
    for (const text of texts) {
      const plain = parseJsonSource('x.json', text)
      const kept = parseJsonSource('x.json', text, regions)
      expect(kept.diagnostics).toEqual(plain.diagnostics)
      expect(kept.source.value).toStrictEqual(plain.source.value)
    }
    // The last text shares its unchanged `a` with the last valid text, read before the broken ones.
    expect(regions.taken).toBeGreaterThan(0)
  })
})
