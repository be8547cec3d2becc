/**
 * The block YAML reader (src/core/yaml-block.ts) against the `js-yaml` path it stands in front of:
 * whenever it reads a document, `js-yaml` (with the position listener) reads the same value, key
 * order included, the same start for every mapping and sequence, and the same answer to whether a
 * string may hold a credential. Over fast-check generated block documents in many styles (indents,
 * comments, quoting, sequences at their key's column, mappings on an entry's line, collections in
 * flow style on one line), some with a line the reader does not handle spliced in (flow collections
 * over several lines or written loosely, block scalars,
 * anchors, tags, multi-line scalars, tabs, duplicate keys), which it must leave to `js-yaml`.
 */
import fc from 'fast-check'
import { stringify } from 'yaml'
import { describe, expect, it } from 'vitest'
import { natsDocument } from '../bench/generate.js'
import { loadFastYaml, loadFastYamlWithJsYaml, plainScalar } from '../src/core/yaml-fast.js'
import { readBlockYaml } from '../src/core/yaml-block.js'
import { YamlRegions } from '../src/core/yaml-regions.js'
import { parseExactYaml } from '../src/core/yaml-source.js'
import { collections } from './helpers/yaml-collections.js'

/**
 * Whether the block reader read `text`; when it did, that it agrees with the `js-yaml` path and the
 * exact path (yaml by eemeli) in everything: no diagnostic, the same value, the same position of
 * every collection (the `js-yaml` path's where it can say, else the exact path's, which answers
 * when it cannot), the same credential answer.
 */
function agrees(text: string): boolean {
  const read = readBlockYaml(text, plainScalar, () => {})
  if (!read) return false
  const block = loadFastYaml(text)
  const jsYaml = loadFastYamlWithJsYaml(text)
  const exact = parseExactYaml('doc.yaml', text)
  expect(block, text).toBeDefined()
  expect(jsYaml, text).toBeDefined()
  expect(exact.diagnostics, text).toEqual([])
  expect(JSON.stringify(block!.value), text).toBe(JSON.stringify(jsYaml!.value))
  expect(JSON.stringify(block!.value), text).toBe(JSON.stringify(exact.source.value))
  expect(block!.value, text).toStrictEqual(jsYaml!.value)
  for (const pointer of collections(jsYaml!.value)) {
    const expected = jsYaml!.start(pointer) ?? exact.source.locate(pointer).offset
    expect([pointer, block!.start(pointer)], text).toEqual([pointer, expected])
  }
  expect(block!.mayHoldCredential, text).toBe(jsYaml!.mayHoldCredential)
  return true
}

/** Scalars as written: words, subjects, numbers of every form, YAML's keywords, indicators, quotes, comments, credentials. */
const SCALARS = [
  'abc',
  'svc0.{region}.*.event0',
  'svc.>',
  '-5',
  '+7',
  '-0',
  '007',
  '0x1F',
  '0o17',
  '0b11',
  '1.5',
  '1e3',
  '.5',
  '5.',
  '1_000',
  'true',
  'False',
  'TRUE',
  'yes',
  'null',
  'Null',
  '~',
  '.inf',
  '.nan',
  'a#b',
  'a #b',
  'a: b',
  'a:b',
  "it's",
  '- x',
  '-x',
  '-',
  '?',
  '? x',
  ':a',
  '[x]',
  '{y}',
  '*a',
  '&a',
  '!t',
  '|',
  '>',
  '%',
  '@',
  '`',
  'é ü',
  'a\\b',
  '"q"',
  "'s'",
  '#c',
  'two  spaces',
  '$message.payload#/id',
  '-----BEGIN NATS USER JWT-----',
  'SUAM' + 'A'.repeat(54),
]

const indentUnit = fc.constantFrom(1, 2, 4)

/** A way to write one of `scalars` on one line: as it is, or single- or double-quoted. */
const writtenOf = (scalars: string[]) =>
  fc
    .tuple(fc.constantFrom(...scalars), fc.constantFrom('plain', 'single', 'double'))
    .map(([s, style]) => (style === 'plain' ? s : style === 'single' ? `'${s.replaceAll("'", "''")}'` : `"${s.replaceAll('"', "'")}"`))

/** Scalars that stay plain scalars in flow collections too (no `,`, `:`, `#`, brackets): most of what a contract's flow collections hold. */
const FLOW_SAFE = ['abc', 'a b', 'svc.>', '-5', '0x1F', '1.5', 'true', 'null', '~', "it's", '$message.payload', 'é ü', 'x-y']

/** What may follow a value or a key on its line. */
const trailing = fc.constantFrom('', '', '', ' # note', '  #c', '  ')

type Node =
  { kind: 'scalar'; text: string } | { kind: 'map'; entries: Array<[string, Node]> } | { kind: 'seq'; items: Node[] } | { kind: 'empty'; text: '{}' | '[]' }

const nodeOf = (scalars: string[]) => {
  const written = writtenOf(scalars)
  return fc.letrec<{ node: Node }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      written.map((text) => ({ kind: 'scalar', text }) as Node),
      fc.constantFrom('{}', '[]').map((text) => ({ kind: 'empty', text }) as Node),
      fc
        .array(fc.tuple(fc.oneof(fc.constantFrom('a', 'b', 'key', '$ref', 'x-y', '/path', 'a b', '1', 'true'), written), tie('node')), {
          minLength: 1,
          maxLength: 4,
        })
        .map((entries) => ({ kind: 'map', entries }) as Node),
      fc.array(tie('node'), { minLength: 1, maxLength: 4 }).map((items) => ({ kind: 'seq', items }) as Node),
    ),
  })).node
}
const node = nodeOf(SCALARS)

/** Per-collection choices of layout, drawn once per document and used in turn. */
const layout = fc.array(fc.nat(9), { minLength: 64, maxLength: 64 })

/** A node on one line, its collections in flow style (`{ a: 1, b: [x, y] }`). */
function flowText(n: Node): string {
  if (n.kind === 'scalar' || n.kind === 'empty') return n.text
  if (n.kind === 'map') return `{ ${n.entries.map(([k, v]) => `${k}: ${flowText(v)}`).join(', ')} }`
  return `[${n.items.map(flowText).join(', ')}]`
}

function emit(root: Array<[string, Node]>, unit: number, choices: number[], trail: string[]): string {
  let k = 0
  const pick = () => choices[k++ % choices.length]!
  const tail = () => trail[k++ % trail.length]!
  const lines: string[] = []
  const pad = (n: number) => ' '.repeat(n)
  const value = (n: Node, indent: number, prefix: string, sameColumnSeq: boolean): void => {
    if (n.kind === 'scalar' || n.kind === 'empty' || pick() === 3) {
      lines.push(`${prefix} ${flowText(n)}${tail()}`)
      return
    }
    lines.push(prefix + tail())
    if (pick() === 0) lines.push(`${pad(pick())}# a comment line`)
    if (pick() === 1) lines.push('')
    if (n.kind === 'map') mapping(n.entries, indent + unit)
    else sequence(n.items, sameColumnSeq && pick() < 5 ? indent : indent + unit)
  }
  const mapping = (entries: Array<[string, Node]>, indent: number, firstPrefix?: string): void => {
    entries.forEach(([key, child], i) => {
      const space = pick() === 2 ? '  ' : ''
      const head = i === 0 && firstPrefix !== undefined ? firstPrefix : pad(indent)
      value(child, indent, `${head}${key}${space}:`, true)
    })
  }
  const sequence = (items: Node[], indent: number): void => {
    for (const item of items) {
      if (item.kind === 'map' && pick() < 6) mapping(item.entries, indent + 2, `${pad(indent)}- `)
      else if (item.kind === 'scalar' || item.kind === 'empty' || pick() === 4) lines.push(`${pad(indent)}- ${flowText(item)}${tail()}`)
      else value(item, indent, `${pad(indent)}-`, false)
    }
  }
  if (pick() < 3) lines.push('# leading comment')
  mapping(root, 0)
  return lines.join('\n') + (pick() < 5 ? '\n' : '')
}

/** Lines the reader does not handle, spliced in at some line: it must give up on all of them. */
const OUTSIDE = [
  'x: [a,\n  b]',
  'x: { a }',
  'x: [a, ]',
  'x: { a: b: c }',
  'x: { a:b }',
  'x: [a]: b',
  'x: |\n  text',
  'x: >-\n  folded',
  'x: &anchor y',
  'x: *anchor',
  'x: !!str 1',
  '\tx: 1',
  "x: 'multi\n  line'",
  'x: plain\n  continued',
  'a: 1\na: 2',
  '? x\n: y',
  'x: 1\r',
  '[a]: 1',
  'x: "a\\u00e9"',
  '- stray',
]

describe('block YAML reader', () => {
  it('reads the benchmark documents as js-yaml does', () => {
    for (const text of [natsDocument(10), natsDocument(10, { payloads: true }), natsDocument(10, { sharedPrefix: true })]) expect(agrees(text)).toBe(true)
  })

  it('agrees with js-yaml on every generated block document it reads, and reads a good share of them', () => {
    let read = 0
    let total = 0
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('asyncapi', 'info', 'a', "'q k'", '"d k"'), node), { minLength: 1, maxLength: 4 }),
        indentUnit,
        layout,
        fc.array(trailing, { minLength: 8, maxLength: 8 }),
        (entries, unit, choices, trail) => {
          total++
          if (agrees(emit(entries, unit, choices, trail))) read++
        },
      ),
      { numRuns: 250, seed: 33 },
    )
    // About a third of the generated documents are in the subset (the rest hold a scalar that is not): the comparison above is not vacuous.
    expect(read).toBeGreaterThan(total / 4)
  })

  it('agrees with js-yaml on generated documents with collections in flow style on one line', () => {
    let read = 0
    let total = 0
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), nodeOf(FLOW_SAFE)), { minLength: 1, maxLength: 4 }), layout, (entries, choices) => {
        total++
        // Every third layout choice writes a collection in flow style.
        if (
          agrees(
            emit(
              entries,
              2,
              choices.map((c) => (c % 3 === 0 ? 3 : c)),
              [''],
            ),
          )
        )
          read++
      }),
      { numRuns: 150, seed: 33 },
    )
    // About a third are read (the others have a key that is not a string, `1:` or `true:`).
    expect(read).toBeGreaterThan(total / 4)
  })

  it('leaves every document with a construct outside its subset to js-yaml', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), node), { minLength: 1, maxLength: 3 }),
        layout,
        fc.constantFrom(...OUTSIDE),
        fc.nat(),
        (entries, choices, outside, at) => {
          const lines = emit(entries, 2, choices, ['']).split('\n')
          lines.splice(at % (lines.length + 1), 0, outside)
          const text = lines.join('\n')
          // Spliced in at the first column, each of them is in the document's top mapping or breaks it.
          expect(
            readBlockYaml(text, plainScalar, () => {}),
            text,
          ).toBeUndefined()
        },
      ),
      { numRuns: 200, seed: 33 },
    )
  })

  it('reads each version of a document edited line by line, taking the last parse’s unchanged regions, as it reads that version afresh', () => {
    let taken = 0
    let read = 0
    /** One line edit: delete, duplicate, replace with another line, insert a comment or a blank line, indent or outdent by a space. */
    const lineEdit = fc.tuple(fc.constantFrom('delete', 'duplicate', 'copy', 'comment', 'blank', 'indent', 'outdent'), fc.nat(), fc.nat())
    const edited = (lines: string[], [kind, at, other]: [string, number, number]): string[] => {
      const out = [...lines]
      const i = at % out.length
      const line = out[i]!
      if (kind === 'delete' && out.length > 1) out.splice(i, 1)
      else if (kind === 'duplicate') out.splice(i, 0, line)
      else if (kind === 'copy') out[i] = out[other % out.length]!
      else if (kind === 'comment') out.splice(i, 0, `${' '.repeat(other % 6)}# note ${other}`)
      else if (kind === 'blank') out.splice(i, 0, '')
      else if (kind === 'indent') out[i] = ' ' + line
      else if (kind === 'outdent' && line.startsWith(' ')) out[i] = line.slice(1)
      return out
    }
    /** Mappings nested three to five deep, with scalars, sequences and empty collections among their members. */
    const nested = fc.letrec<{ map: Record<string, unknown>; value: unknown }>((tie) => ({
      map: fc.dictionary(fc.constantFrom('a', 'b', 'c', 'name', 'x-y', 'streams', 's0', 's1'), tie('value'), { minKeys: 1, maxKeys: 4 }),
      value: fc.oneof(
        { depthSize: 'small', maxDepth: 5 },
        fc.constantFrom('abc', 'svc.>', 1, 2.5, true, null, 'it is', [], {}),
        fc.array(fc.constantFrom('x', 'y', 3), { maxLength: 3 }),
        tie('map'),
        tie('map'),
      ),
    })).map
    fc.assert(
      fc.property(
        fc.oneof(
          // Documents in many styles (emit), and documents of many nested mappings as a YAML writer lays them out.
          fc
            .tuple(fc.array(fc.tuple(fc.constantFrom('asyncapi', 'info', 'a', 'b'), nodeOf(FLOW_SAFE)), { minLength: 1, maxLength: 4 }), indentUnit, layout)
            .map(([entries, unit, choices]) => emit(entries, unit, choices, [''])),
          fc.tuple(nested, fc.constantFrom(2, 4)).map(([value, indent]) => stringify(value, { indent })),
        ),
        fc.array(lineEdit, { minLength: 1, maxLength: 6 }),
        (document, edits) => {
          const regions = new YamlRegions()
          let lines = document.split('\n')
          for (const edit of [undefined, ...edits]) {
            if (edit) lines = edited(lines, edit)
            const text = lines.join('\n')
            const fresh = readBlockYaml(text, plainScalar, () => {})
            const kept = readBlockYaml(text, plainScalar, () => {}, regions)
            taken += regions.taken
            if (fresh === undefined) {
              expect(kept, text).toBeUndefined()
              continue
            }
            read++
            expect(kept, text).toBeDefined()
            expect(kept!.value, text).toStrictEqual(fresh.value)
            for (const pointer of collections(fresh.value))
              expect([pointer, kept!.closed.start(kept!.value, pointer)], text).toEqual([pointer, fresh.closed.start(fresh.value, pointer)])
          }
        },
      ),
      { numRuns: 300, seed: 33 },
    )
    // Not vacuous: many versions were read, and regions were taken from the last parse.
    expect(read).toBeGreaterThan(300)
    expect(taken).toBeGreaterThan(150)
  })

  it('takes every unchanged section and entry of the benchmark document from the last parse after a one-line edit, as the same objects', () => {
    const regions = new YamlRegions()
    const text = natsDocument(50, { payloads: true })
    const first = readBlockYaml(text, plainScalar, () => {}, regions)!
    const edited = text.replace('max_msgs: 1000000', 'max_msgs: 7')
    const again = readBlockYaml(edited, plainScalar, () => {}, regions)!
    expect(again.value).toStrictEqual(readBlockYaml(edited, plainScalar, () => {})!.value)
    const profile = (v: Record<string, unknown>) => v['x-nats-contract'] as Record<string, Record<string, unknown>>
    expect(again.value.channels).toBe(first.value.channels)
    expect(again.value.components).toBe(first.value.components)
    expect(profile(again.value).channels).toBe(profile(first.value).channels)
    expect(profile(again.value).streams).not.toBe(profile(first.value).streams)
    expect(profile(again.value).streams!.s1).toBe(profile(first.value).streams!.s1)
    expect(profile(again.value).streams!.s0).not.toBe(profile(first.value).streams!.s0)
    // The channels were taken whole; their entries were kept with them, so an edit of one channel reads that channel alone.
    const third = readBlockYaml(
      edited.replace('channel3:\n    address: svc0.{region}.{entityId}.event3', 'channel3:\n    address: svc0.{region}.{entityId}.other'),
      plainScalar,
      () => {},
      regions,
    )!
    const channels = (v: Record<string, unknown>) => v.channels as Record<string, unknown>
    expect(channels(third.value).channel3).not.toBe(channels(first.value).channel3)
    expect(channels(third.value).channel4).toBe(channels(first.value).channel4)
    expect(regions.read).toBe(2)
  })

  it("keeps each collection's record once, and no more than half as much again while one stream is edited again and again", () => {
    // A region's record holds its own entries and its inner regions' runs, not copies of theirs at
    // each depth, nor its parse's whole record: a stale copy of a region edited again and again
    // would otherwise keep a whole document's record each (eight bytes an entry: offset and depth).
    const regions = new YamlRegions()
    const text = natsDocument(100, { payloads: true })
    const first = readBlockYaml(text, plainScalar, () => {}, regions)!
    const entries = first.closed.size
    expect(regions.heldRecordBytes()).toBeGreaterThan(0)
    expect(regions.heldRecordBytes()).toBeLessThanOrEqual(8 * entries)
    let most = 0
    for (let k = 0; k < 60; k++) {
      const edited = text.replace('max_msgs: 1000000', `max_msgs: ${2_000_000 + k}`)
      const read = readBlockYaml(edited, plainScalar, () => {}, regions)!
      expect(read.closed.size).toBe(entries)
      most = Math.max(most, regions.heldRecordBytes())
    }
    expect(most).toBeLessThanOrEqual(1.5 * 8 * entries)
  })

  it('holds few stale texts at each depth while one section is edited in place again and again (same length each time)', () => {
    // A Map hashes a string over 16,383 characters by its length: each stale text of a long section
    // left at its depth, as long as the next version, was compared with it at every lookup. Bounded
    // by each depth's own count, not by all depths' (thousands of regions at depth 2 let depth 0 gather
    // hundreds).
    const regions = new YamlRegions()
    const text = natsDocument(200, { payloads: true })
    const sections = Object.keys(readBlockYaml(text, plainScalar, () => {})!.value).length
    let most = 0
    for (let k = 0; k < 200; k++) {
      const edited = text.replace('max_msgs: 1000000', `max_msgs: ${2_000_000 + k}`)
      const read = readBlockYaml(edited, plainScalar, () => {}, regions)!
      expect((read.value['x-nats-contract'] as { streams: { s0: { config: { max_msgs: number } } } }).streams.s0.config.max_msgs).toBe(2_000_000 + k)
      most = Math.max(most, regions.held(0))
    }
    // The live sections and at most half as many again (the section edited is read each time).
    expect(most).toBeLessThanOrEqual(sections + Math.ceil(sections / 2) + 1)
    expect(regions.taken).toBeGreaterThan(0)
  })
})
