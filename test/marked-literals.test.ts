/**
 * Validator code written with its literals marked (`markLiterals`, what the Benzene generator asks
 * for) is the same code once the marks are out, and finds the same functions of one shape as
 * reading the unmarked code again (`cutLiterals`) would: the marks replace that second reading.
 */
import { describe, expect, it } from 'vitest'
import { validatorDeclarations, type ValidatorRoot } from '../src/core/schema-code.js'
import { cutLiterals, markedCut, unmarked } from '../src/formats/benzene/code-shapes.js'
import type { Schema } from '../src/runtime/shared/schema-check.js'

/** Schemas of many keywords, each in variants that differ only in their literals, and a few that differ in shape. */
function schemas(): Schema[] {
  const out: Schema[] = []
  const names = ['a', 'b-c', 'd e', '__proto__', 'ünï', 'x<y>', 'line\u2028sep']
  for (let i = 0; i < 4; i++) {
    const name = names[i % names.length]!
    const other = names[(i + 3) % names.length]!
    out.push({
      type: 'object',
      required: [name],
      properties: {
        [name]: { type: 'string', maxLength: 10 + i, minLength: i, pattern: `^p${i}$` },
        [other]: { type: ['integer', 'null'], minimum: -i - 1, exclusiveMaximum: 1e21 * (i + 1), multipleOf: 0.5 },
        n: { enum: ['x', i, null, true] },
        k: { const: `c${i}` },
        l: { type: 'array', items: { type: 'number' }, minItems: i, maxItems: 20, uniqueItems: true },
        q: { anyOf: [{ type: 'string' }, { type: 'number', maximum: i }] },
        r: { oneOf: [{ type: 'boolean' }, { not: { const: -i } }] },
        s: { if: { required: ['t'] }, then: { required: [`u${i}`] } },
        w: { type: 'object', additionalProperties: { type: 'string', maxLength: i + 1 }, maxProperties: 3, minProperties: i },
        z: { type: 'object', patternProperties: { '^x-': { type: 'string' } }, additionalProperties: false },
      },
      additionalProperties: i % 2 === 0 ? false : undefined,
    } as Schema)
    out.push({ type: 'string', enum: [`e${i}`, 'f', 'g', 'h', 'i'] })
    out.push({ type: 'number', minimum: i % 2 === 0 ? i : -i })
    out.push({ type: 'string', maxLength: 5 + i, enum: [`v${i}`, 'w'] })
  }
  return out.map((s) => JSON.parse(JSON.stringify(s)) as Schema)
}

const declarations = (markLiterals: boolean) => {
  const roots: ValidatorRoot[] = schemas().map((schema, i) => ({ name: `v${i}`, schema }))
  const definitions = new Map(roots.map((r, i) => [`#/definitions/d${i}`, { name: `$d${i}`, schema: r.schema }]))
  const withRefs = [...roots, ...roots.map((r, i) => ({ name: `w${i}`, schema: { allOf: [{ $ref: `#/definitions/d${i}` }], maxLength: i } as Schema }))]
  return validatorDeclarations(withRefs, definitions, '$v$', undefined, { markLiterals })
}

describe('marked literals', () => {
  const plain = declarations(false).declarations
  const marked = declarations(true).declarations

  it('the marked code without its marks is the code written without them', () => {
    expect([...marked.keys()]).toEqual([...plain.keys()])
    for (const [name, code] of marked) expect(unmarked(code)).toBe(plain.get(name))
  })

  it('functions share a shape by their marks exactly when they share one by their cut literals', () => {
    // Definitions' functions, and each validator's own (inside its `$validator(...)`).
    const fnOf = (code: string) => code.slice(code.indexOf('function '))
    const functions = [...marked].filter(([, code]) => code.includes('function ')).map(([name, code]) => [name, fnOf(code)] as const)
    expect(functions.length).toBeGreaterThan(20)
    const byMarks = new Map<string, string[]>()
    const byCut = new Map<string, string[]>()
    for (const [name, code] of functions) {
      const m = markedCut(code)
      const c = cutLiterals(fnOf(plain.get(name)!))
      // Every marked literal is one the cut finds too: the marks never make a literal of code.
      for (const literal of m.literals) expect(c.literals).toContain(literal)
      const add = (map: Map<string, string[]>, key: string) => map.set(key, [...(map.get(key) ?? []), name])
      add(byMarks, m.parts.join('\u0003'))
      add(byCut, c.parts.join('\u0003'))
    }
    const groups = (map: Map<string, string[]>) => [...map.values()].map((g) => g.join(',')).sort()
    expect(groups(byMarks)).toEqual(groups(byCut))
    expect([...byMarks.values()].some((g) => g.length >= 3)).toBe(true)
  })
})
