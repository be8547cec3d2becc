/**
 * One walk of a parsed document (src/core/json-refs.ts `documentSites`): every `$ref` and `location`
 * member with its pointer, in document order, the member names below bindings and every
 * `schemaFormat`. The walk keeps what it found below each section and entry, for a recompile whose
 * parse hands back the unchanged ones as the same objects; these tests hold it to a plain walk,
 * written here apart from it, on documents that share objects with earlier ones (at the same
 * pointer, elsewhere, twice in one document, under bindings).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { documentSites, refFilePath } from '../src/core/json-refs.js'
import { readBlockYaml } from '../src/core/yaml-block.js'
import { YamlRegions } from '../src/core/yaml-regions.js'
import { natsDocument } from '../bench/generate.js'

const BINDINGS_MAPS = new Set(['serverBindings', 'channelBindings', 'operationBindings', 'messageBindings'])

/** The plain walk: what the sites are, by the definitions of DocumentSites, walked in full every time. */
function oracle(root: object) {
  const refs: Array<{ ref: string; pointer: string }> = []
  const locations: Array<{ value: string; pointer: string }> = []
  const bindingMembers = new Set<string>()
  const schemaFormats = new Set<string>()
  const token = (t: string | number) => String(t).replaceAll('~', '~0').replaceAll('/', '~1')
  const walk = (value: unknown, pointer: string, protocols: boolean, protocolMap: boolean) => {
    if (Array.isArray(value)) {
      value.forEach((item, i) => walk(item, `${pointer}/${i}`, false, false))
      return
    }
    if (value === null || typeof value !== 'object') return
    for (const [name, child] of Object.entries(value)) {
      if (protocols) bindingMembers.add(name)
      const at = `${pointer}/${token(name)}`
      if (typeof child === 'string') {
        if (name === '$ref') refs.push({ ref: child, pointer: at })
        if (name === 'location') locations.push({ value: child, pointer: at })
        if (name === 'schemaFormat') schemaFormats.add(child)
      } else walk(child, at, protocolMap || name === 'bindings', BINDINGS_MAPS.has(name))
    }
  }
  walk(root, '', false, false)
  return { refs, locations, bindingMembers: [...bindingMembers].sort(), schemaFormats: [...schemaFormats].sort() }
}

function walked(root: object) {
  const sites = documentSites(root)
  return {
    refs: sites.refs.map(({ ref, pointer }) => ({ ref, pointer })),
    locations: sites.locations.map(({ value, pointer }) => ({ value, pointer })),
    bindingMembers: [...sites.bindingMembers].sort(),
    schemaFormats: [...sites.schemaFormats].sort(),
  }
}

const NAMES = ['$ref', 'location', 'schemaFormat', 'bindings', 'channelBindings', 'messageBindings', 'nats', 'a/b', 'c~d', 'x', 'y'] as const

/** Trees over a few names (so that `$ref`, bindings and escaped tokens come up often), strings at the leaves. */
const tree = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('#/x', 'other.yaml#/y', 'nats', 'application/json'),
    fc.array(tie('node'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...NAMES), tie('node'), { maxKeys: 4 }),
  ),
})).node

/** The objects of `value` down to depth 3 (what a later document may take again). */
function objectsOf(value: unknown, depth = 0, out: object[] = []): object[] {
  if (value === null || typeof value !== 'object' || depth > 3) return out
  out.push(value)
  for (const child of Object.values(value)) objectsOf(child, depth + 1, out)
  return out
}

describe('documentSites', () => {
  it('finds what a plain walk finds, on documents that take objects of earlier ones at any place, twice, or under bindings (property)', () => {
    let shared = 0
    fc.assert(
      fc.property(
        fc.array(fc.dictionary(fc.constantFrom(...NAMES), tree, { minKeys: 1, maxKeys: 4 }), { minLength: 2, maxLength: 4 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.constantFrom(...NAMES), fc.constantFrom(...NAMES)), { maxLength: 6 }),
        (documents, takes) => {
          const earlier: object[] = []
          for (const document of documents) {
            // Objects of earlier documents (already walked, so kept) placed into this one, one or two levels down.
            for (const [from, _, outer, inner] of takes) {
              if (earlier.length === 0) break
              const taken = earlier[from % earlier.length]!
              shared++
              document[outer] = _ % 2 === 0 ? taken : { [inner]: taken, y: taken }
            }
            expect(walked(document)).toEqual(oracle(document))
            earlier.push(...objectsOf(document))
          }
        },
      ),
      { numRuns: 400, seed: 35 },
    )
    expect(shared).toBeGreaterThan(200)
  })

  it('after a one-stream edit of the benchmark document, parsed with the last parse’s regions: what a plain walk finds, the unchanged sections taken', () => {
    const regions = new YamlRegions()
    const text = natsDocument(60, { payloads: true })
    const plain = (s: string) => s
    const first = readBlockYaml(text, plain, () => {}, regions)!.value
    expect(walked(first)).toEqual(oracle(first))
    for (const k of [1, 2, 3]) {
      const again = readBlockYaml(text.replace('max_msgs: 1000000', `max_msgs: ${k}`), plain, () => {}, regions)!.value
      expect(again.components).toBe(first.components)
      expect(walked(again)).toEqual(oracle(again))
      expect(walked(again).refs.length).toBeGreaterThan(100)
    }
  })

  it('an entry moved to another key, and one object at two places: each site under each pointer', () => {
    const entry = { message: { $ref: '#/components/messages/A' }, bindings: { nats: { queue: 'q' } } }
    const first = { channels: { a: entry } }
    expect(walked(first)).toEqual(oracle(first))
    const moved = { channels: { b: entry, 'c/d': { inner: entry } }, operations: { o: { channel: { $ref: '#/channels/b' } } } }
    expect(walked(moved).refs.map((r) => r.pointer)).toEqual(['/channels/b/message/$ref', '/channels/c~1d/inner/message/$ref', '/operations/o/channel/$ref'])
    expect(walked(moved)).toEqual(oracle(moved))
    // Reached under bindings, the same object's names are protocols: not what its kept walk holds.
    const bound = { components: { channelBindings: { x: entry } } }
    expect(walked(bound)).toEqual(oracle(bound))
    expect(walked(bound).bindingMembers).toContain('message')
  })
})

describe('refFilePath: the file a $ref names, percent-decoded as a URI reference path', () => {
  it('decodes what RFC 3986 encodes, keeps the rest, and never decodes to a NUL', () => {
    expect(refFilePath('#/components/schemas/A')).toBe('')
    expect(refFilePath('order.json#/definitions/Money')).toBe('order.json')
    expect(refFilePath('order.json')).toBe('order.json')
    expect(refFilePath('my%20entry.json#/Entry')).toBe('my entry.json')
    expect(refFilePath('caf%C3%A9.json#/A')).toBe('café.json')
    expect(refFilePath('schemas/a%23b.json#/A')).toBe('schemas/a#b.json')
    // `..` written encoded is still `..`: the bundle check sees the decoded path.
    expect(refFilePath('%2E%2E/outside.json#/A')).toBe('../outside.json')
    // Not decodable, or a NUL: as written (it then names no locked file).
    expect(refFilePath('bad%E0%A4%A.json#/A')).toBe('bad%E0%A4%A.json')
    expect(refFilePath('nul%00.json#/A')).toBe('nul%00.json')
  })
})
