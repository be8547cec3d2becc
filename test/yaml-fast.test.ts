/**
 * The fast YAML path (js-yaml with collection positions) against the exact one (yaml by eemeli):
 * whenever the fast path answers, it must answer what the exact path answers: the same value,
 * key order included, no diagnostic the exact path would have reported, and the same position for
 * every mapping and sequence. Checked on every YAML fixture, the benchmark documents, and
 * fast-check generated and mutated documents.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { dump } from 'js-yaml'
import { stringify } from 'yaml'
import { describe, expect, it } from 'vitest'
import { natsDocument } from '../bench/generate.js'
import { collections } from './helpers/yaml-collections.js'
import { loadFastYaml } from '../src/core/yaml-fast.js'
import { parseExactYaml, parseYamlSource } from '../src/core/yaml-source.js'

const root = join(import.meta.dirname, '..')

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => join(e.parentPath, e.name))
}

/** Every object is a plain object or array (JSON.stringify above compares the rest, own `__proto__` keys included). */
function plainPrototypes(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== Array.prototype) return false
  return Object.values(value).every(plainPrototypes)
}

/** 'fast' when the fast path answered (and agreed), 'exact' when it handed the text over. */
function agree(text: string): 'fast' | 'exact' {
  const fast = loadFastYaml(text)
  if (!fast) return 'exact'
  const exact = parseExactYaml('doc.yaml', text)
  expect(exact.diagnostics, text).toEqual([])
  expect(JSON.stringify(fast.value)).toBe(JSON.stringify(exact.source.value))
  expect(plainPrototypes(fast.value)).toBe(true)
  const quick = parseYamlSource('doc.yaml', text).source
  for (const pointer of collections(fast.value)) expect([pointer, quick.locate(pointer)]).toEqual([pointer, exact.source.locate(pointer)])
  return 'fast'
}

describe('fast YAML path', () => {
  it('agrees with the exact path on every YAML fixture and the benchmark documents', () => {
    const texts = [...yamlFiles(join(root, 'fixtures')), ...yamlFiles(join(root, 'examples')).filter((f) => !f.includes('node_modules'))].map((f) =>
      readFileSync(f, 'utf8'),
    )
    texts.push(natsDocument(1), natsDocument(50))
    const taken = texts.map(agree)
    // Most contracts are plain YAML: the fast path must actually be the one taken.
    expect(taken.filter((t) => t === 'fast').length).toBeGreaterThan(texts.length / 2)
    expect(agree(natsDocument(50))).toBe('fast')
    // And it answers every collection's position itself: no lookup of a plain document falls back.
    const fast = loadFastYaml(natsDocument(50))!
    for (const pointer of collections(fast.value)) expect([pointer, fast.start(pointer)]).not.toEqual([pointer, undefined])
  })

  it('hands over what only the exact path reads right', () => {
    const exactOnly = [
      'a: &x {b: 1}\nc: *x\n', // anchors and aliases
      'a: !!str 5\n', // tags
      'a: !custom 5\n',
      '? a\n: 1\n', // explicit keys
      '1: a\n', // keys JSON has no form for
      'a:\n  true: 1\n',
      '{null: 1}\n',
      'a: 1\na: 2\n', // duplicate keys
      'a: .inf\n', // no JSON form
      'a: [.NaN]\n',
      'a: "\\ud800"\n', // unpaired surrogate
      '\uFEFFa: 1\n', // byte order mark
      'a: 1\n---\nb: 2\n', // two documents
      '%YAML 1.2\n---\na: 1\n',
      ': 1\n', // empty key
      '[a, b]: 1\n', // collections as keys
      '{a: 1}: 2\n',
      'x:\n  - [a]: b\n',
      '{ [a] }\n',
      '{ {a: 1}, b: 2 }\n',
      '[ [a]: b ]\n',
      '{"a": [1], [2]: 3}\n',
      'a: [1, 2\n', // syntax errors
      'a:\n\t- 1\n',
      '',
      'just a string\n',
      '- '.repeat(70) + '1\n', // nesting near the limit
    ]
    for (const text of exactOnly) expect([text, loadFastYaml(text)]).toEqual([text, undefined])
  })

  it('places collections under integer-like keys (which JavaScript lists first) right', () => {
    expect(agree('b:\n  x: [1]\n"1":\n  y: [2]\n"c": {z: [3]}\n')).toBe('fast')
    expect(agree('{"b": {"x": [1]}, "10": {"y": {}}, "2": []}\n')).toBe('fast')
  })

  it('keeps Markdown in descriptions on the fast path', () => {
    const text = 'info:\n  description: |\n    * one *bold* point\n    & more, ! and ? too\n  title: "*x* & !y"\nlist: [a, b]\n'
    expect(agree(text)).toBe('fast')
  })

  it('reads YAML 1.2 core scalars as the exact path does', () => {
    const scalars = [
      '0o17',
      '0x1F',
      '017',
      '+12',
      '-0',
      '1_000',
      '0b101',
      '1e3',
      '.5',
      '5.',
      '-.5e-2',
      'Null',
      'NULL',
      '~',
      'True',
      'FALSE',
      'yes',
      'on',
      '12:30',
      '2001-12-14',
      "'1'",
      '"true"',
      '0.10',
    ]
    for (const s of scalars) expect(agree(`v: ${s}\nl: [${s}]\n`)).toBe('fast')
  })

  it('agrees on generated documents in block and flow styles', () => {
    const key = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('__proto__', 'constructor', 'a b', 'x:y', '#c', '- d', 'true', '1'))
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('leaf'), tie('array'), tie('object')),
      leaf: fc.oneof(
        fc.string({ maxLength: 12 }),
        fc.integer(),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.boolean(),
        fc.constant(null),
        fc.constantFrom('a > b', 'svc.*.x', 'svc.>', 'x: y', '- z', '# no', 'multi\nline\n', ' lead', 'trail '),
      ),
      array: fc.array(tie('value'), { maxLength: 4 }),
      object: fc.dictionary(key, tie('value'), { maxKeys: 4 }),
    })).value
    const styles = fc.constantFrom('block', 'flow', 'js-yaml', 'js-yaml-flow')
    fc.assert(
      fc.property(fc.dictionary(key, json, { minKeys: 1, maxKeys: 5 }), styles, (value, style) => {
        const text =
          style === 'block'
            ? stringify(value)
            : style === 'flow'
              ? stringify(value, { collectionStyle: 'flow' })
              : dump(value, { flowLevel: style === 'js-yaml-flow' ? 1 : -1 })
        agree(text)
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
    )
  })

  it('agrees on byte-level mutations of real contracts', () => {
    const texts = yamlFiles(join(root, 'fixtures/nats')).map((f) => readFileSync(f, 'utf8'))
    const mutation = fc.record({
      text: fc.nat(texts.length - 1),
      at: fc.nat(),
      cut: fc.nat(4),
      insert: fc.constantFrom(
        '',
        ' ',
        '\t',
        '\n',
        ':',
        '- ',
        '"',
        "'",
        '{',
        ']',
        ',',
        '#',
        '  ',
        'x: 1\n',
        '1',
        '\\',
        '|\n',
        '>-\n',
        '*',
        '&',
        '!',
        '? ',
        ' *a',
        ' &a ',
        '!!str ',
        ' : ',
        '%',
        '---\n',
        ' *bold* ',
      ),
    })
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (mutations) => {
        let text = texts[mutations[0]!.text]!
        for (const m of mutations) {
          const at = m.at % (text.length + 1)
          text = text.slice(0, at) + m.insert + text.slice(at + m.cut)
        }
        agree(text)
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
    )
  })
})

describe('one YAML mistake, one diagnostic', () => {
  it('reports the first syntax error at the mistake and counts the consequent ones instead of showing them', () => {
    // README's old NATS snippet: a `{` inside a flow mapping (yaml reports seven errors for it).
    const text = 'asyncapi: 3.1.0\nchannels:\n  a:\n    filters: { inRegion: payments.{region}.*.captured }\n    x: 1\n'
    const { diagnostics } = parseExactYaml('a.yaml', text)
    expect(diagnostics).toHaveLength(1)
    expect(diagnostics[0]).toMatchObject({ code: 'YAML_SYNTAX', line: 4, column: 35 })
    expect(diagnostics[0]!.message).toMatch(/quote a value that contains \{.*\(6 more syntax errors follow from this one and are not shown\.\)$/)
    // A badly indented block: many cascading errors, still one diagnostic.
    const indented = 'a:\n  b: 1\n c: 2\n' + Array.from({ length: 50 }, (_, i) => `   d${i}: [${i}\n`).join('')
    const many = parseExactYaml('b.yaml', indented).diagnostics
    expect(many.filter((d) => d.code === 'YAML_SYNTAX')).toHaveLength(1)
    expect(many[0]!.line).toBe(3)
  })

  it('independent mistakes are each reported: duplicate keys are not consequences of a syntax error', () => {
    const { diagnostics } = parseExactYaml('c.yaml', 'a: 1\na: 2\nb:\n  c: 1\n  c: 2\n')
    expect(diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['YAML_DUPLICATE_KEY', 2],
      ['YAML_DUPLICATE_KEY', 5],
    ])
    expect(parseExactYaml('d.yaml', 'a: 1\n').diagnostics).toEqual([])
  })
})
