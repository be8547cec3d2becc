/**
 * YAML merge keys (`<<: *base`) in a NATS contract are merged, as YAML 1.1 reads them and as
 * `@asyncapi/parser` (the reference AsyncAPI parser) reads them: before, the reader took `<<` for a
 * member of that name, so a schema written `memo: { <<: *id, maxLength: 64 }` lost the `type` it
 * merged in and its validator accepted any value. Each merge key is the warning YAML_MERGE_KEY
 * (not YAML 1.2, which AsyncAPI recommends), at the key. A quoted "<<" stays a member.
 *
 * The oracle is js-yaml's default schema, whose merge type is what @asyncapi/parser's YAML reading
 * does (checked here once against the parser itself), on generated documents: merges of one
 * mapping, of a list (the earlier source wins), members written before and after the key (they
 * win), nested merges, and inline sources.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Parser } from '@asyncapi/parser'
import { load } from 'js-yaml'
import { describe, expect, it } from 'vitest'
import { ContractCompiler } from '../src/index.js'
import { parseYamlSource } from '../src/core/yaml-source.js'
import { random as seededRandom } from './helpers/seeded-random.js'

const work = join(import.meta.dirname, '.tmp/yaml-merge-keys')
mkdirSync(work, { recursive: true })

/** A random document with anchors and merge keys (block style, some sources inline). */
function mergeDocument(random: () => number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!
  const names = ['a', 'b', 'c', 'd', 'e']
  const value = () => pick(['1', 'two', 'true', 'null', '[x, y]', '{ k: v }'])
  const anchors: string[] = []
  const lines: string[] = ['root:']
  for (let i = 0; i < 6; i++) {
    lines.push(`  m${i}:${random() < 0.5 ? ` &s${i}` : ''}`)
    if (lines[lines.length - 1]!.includes('&')) anchors.push(`s${i}`)
    const own = names.filter(() => random() < 0.5)
    const mergeAt = Math.floor(random() * (own.length + 1))
    const merge = (): string | undefined => {
      if (anchors.length === 0 || random() < 0.3) return random() < 0.3 ? `    <<: { ${pick(names)}: ${value()}, z: ${value()} }` : undefined
      const available = anchors.filter((a) => a !== `s${i}`)
      if (available.length === 0) return undefined
      return random() < 0.5 ? `    <<: *${pick(available)}` : `    <<: [${[pick(available), pick(available)].map((a) => `*${a}`).join(', ')}]`
    }
    let wrote = false
    own.forEach((name, k) => {
      if (k === mergeAt) {
        const m = merge()
        if (m) lines.push(m)
        wrote = true
      }
      lines.push(`    ${name}: ${value()}`)
    })
    if (!wrote) {
      const m = merge()
      if (m) lines.push(m)
    }
    if (lines[lines.length - 1]!.endsWith(':') || lines[lines.length - 1]!.includes('&')) lines.push(`    only: ${value()}`)
  }
  return lines.join('\n') + '\n'
}

describe('merge keys read as js-yaml (and @asyncapi/parser) read them', () => {
  it('300 generated documents: the same value, one YAML_MERGE_KEY warning per merge key, at its line', () => {
    const random = seededRandom(33)
    let merges = 0
    for (let run = 0; run < 300; run++) {
      const text = mergeDocument(random)
      const expected = load(text)
      const parsed = parseYamlSource('m.yaml', text)
      expect(parsed.diagnostics, text).toEqual([])
      expect(parsed.source.value, text).toEqual(expected)
      const keys = text.split('\n').flatMap((line, i) => (line.trimStart().startsWith('<<:') ? [i + 1] : []))
      merges += keys.length
      expect(
        (parsed.warnings ?? []).map((w) => [w.code, w.severity, w.line]),
        text,
      ).toEqual(keys.map((line) => ['YAML_MERGE_KEY', 'warning', line]))
    }
    expect(merges).toBeGreaterThan(300)
  })

  // Where members come after the merge key, as they usually do. (Written before it, @asyncapi/parser
  // lets the merge override them, where YAML 1.1 and js-yaml keep them: one more reason the warning
  // says to write the members out.)
  it('@asyncapi/parser merges as js-yaml does (the oracle is the reference parser’s reading)', async () => {
    const text = `asyncapi: 3.0.0\ninfo: { title: T, version: 1.0.0 }\ncomponents:\n  schemas:\n    Id: &id\n      type: string\n      maxLength: 12\n    Memo:\n      <<: [*id, { format: email, maxLength: 5 }]\n      maxLength: 64\n`
    const { document } = await new Parser().parse(text)
    const memo = { ...(document!.json().components!.schemas as Record<string, Record<string, unknown>>).Memo }
    delete memo['x-parser-schema-id']
    expect(memo).toEqual((load(text) as { components: { schemas: { Memo: unknown } } }).components.schemas.Memo)
    expect(memo).toEqual({ type: 'string', maxLength: 64, format: 'email' })
    expect((parseYamlSource('a.yaml', text).source.value as typeof document & { components: { schemas: { Memo: unknown } } }).components.schemas.Memo).toEqual(
      memo,
    )
  })

  it('a quoted "<<" is a member of that name (no merge, no warning), as in js-yaml', () => {
    const text = `a: &a { x: 1 }\nb:\n  "<<": *a\n  y: 2\n`
    const parsed = parseYamlSource('q.yaml', text)
    expect([parsed.diagnostics, parsed.warnings]).toEqual([[], undefined])
    expect(parsed.source.value).toEqual(load(text))
    expect(parsed.source.value).toEqual({ a: { x: 1 }, b: { '<<': { x: 1 }, y: 2 } })
  })

  it('a document without merge keys has no warning, and "<<" inside a value is no merge key', () => {
    const text = `a: "x <<: y"\nb: [c, "<<"]\nd: 'e << f'\n`
    const parsed = parseYamlSource('n.yaml', text)
    expect([parsed.diagnostics, parsed.warnings, parsed.source.value]).toEqual([[], undefined, load(text)])
  })

  it('a merge key that names no mapping is an error where it is written (js-yaml refuses it too)', () => {
    for (const [text, line] of [
      ['a: 1\nb:\n  <<: 3\n  y: 2\n', 3],
      ['a: 1\nb:\n  <<: [{ x: 1 }, 7]\n', 3],
    ] as const) {
      expect(() => load(text)).toThrow()
      const parsed = parseYamlSource('bad.yaml', text)
      expect(
        parsed.diagnostics.map((d) => [d.code, d.line]),
        text,
      ).toEqual([['YAML_SYNTAX', line]])
    }
    // An alias of a scalar: found when merging.
    const aliased = 'a: &s 1\nb:\n  <<: *s\n'
    expect(() => load(aliased)).toThrow()
    expect(parseYamlSource('alias.yaml', aliased).diagnostics.map((d) => d.code)).toEqual(['YAML_SYNTAX'])
  })

  it('merges are aliases: past what aliases may copy, YAML_ALIAS_LIMIT, not a slow expansion; a few small merges pass', () => {
    const many = (members: number, merges: number) => {
      const lines = [`base: &b { ${Array.from({ length: members }, (_, i) => `x${i}: 1`).join(', ')} }`]
      for (let i = 0; i < merges; i++) lines.push(`m${i}:\n  <<: *b`)
      return parseYamlSource('many.yaml', lines.join('\n') + '\n').diagnostics.map((d) => d.code)
    }
    expect(many(2_000, 40)).toContain('YAML_ALIAS_LIMIT')
    expect(many(1, 40).filter((code) => code !== 'YAML_MERGE_KEY')).toEqual([])
  })
})

describe('a NATS contract with a merge key', () => {
  const file = join(work, 'ledger.asyncapi.yaml')
  cpSync(join(import.meta.dirname, '../fixtures/nats/valid/ledger.asyncapi.yaml'), file)
  const text = readFileSync(file, 'utf8')
  writeFileSync(
    file,
    text.replace(
      '          entryId: { type: string }\n          cents: { type: integer }\n',
      '          entryId: &id { type: string, maxLength: 12 }\n          cents: { type: integer }\n          memo:\n            <<: *id\n            maxLength: 64\n',
    ),
  )

  it('compiles with the merged schema (a number is no memo) and one warning at the key', async () => {
    const result = await new ContractCompiler().compile(file)
    expect(result.code).toBeDefined()
    expect(result.diagnostics.map((d) => [d.code, d.severity, d.pointer, d.line, d.column])).toEqual([
      ['YAML_MERGE_KEY', 'warning', '/components/messages/EntryPosted/payload/properties/memo', 111, 13],
    ])
    expect(result.code).toContain('"memo": {"maxLength": 64, "type": "string"}')
    expect(result.code).not.toContain('"<<"')
  })
})
