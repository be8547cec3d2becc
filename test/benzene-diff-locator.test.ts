/**
 * The differ's one-scan locator agrees with the positioned source's own `locate` (its syntax tree)
 * on every node of real and hostile documents: keys with escapes, a byte order mark, nested arrays,
 * and pointers naming no node (answered by their nearest existing ancestor).
 */
import { readFileSync, readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseJsonSource } from '../src/core/json-source.js'
import { locateAll } from '../src/formats/benzene/diff/locator.js'
import { joinPointer } from '../src/runtime/shared/json-pointer.js'

/** Every pointer of a JSON value, the whole document first. */
function pointers(value: unknown, base = ''): string[] {
  const out = [base]
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...pointers(v, joinPointer(base, i))))
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(...pointers(v, joinPointer(base, k)))
  return out
}

function expectAgreement(text: string, asked?: string[]): void {
  const { source, diagnostics } = parseJsonSource('/x.json', text)
  expect(diagnostics).toEqual([])
  const all = asked ?? pointers(source.value)
  const offsetOf = locateAll(text, all)
  for (const pointer of all) expect([pointer, offsetOf(pointer)]).toEqual([pointer, source.locate(pointer).offset])
}

const benzeneFixtures = resolve(import.meta.dirname, '../fixtures/benzene/valid')

describe('locateAll', () => {
  it.each(readdirSync(benzeneFixtures).filter((f) => f.endsWith('.spec.json')))('agrees with the source on every node of %s', (name) => {
    expectAgreement(readFileSync(join(benzeneFixtures, name), 'utf8'))
  })

  it('agrees on escaped keys, nested arrays, empty containers and scalars of every kind', () => {
    const text = '\uFEFF{"a\\"b": [[1, [2, {"c/d": null}]], [], {}], "e~f": {"\\u0067": true, "h": -1.5e3}, "i": "\\\\\\"", "": {"": [false]}}'
    expectAgreement(text)
  })

  it('answers a pointer that names no node with its nearest existing ancestor', () => {
    const text = '{\n  "a": {\n    "b": [1, 2]\n  }\n}'
    const offsetOf = locateAll(text, ['/a/b/7', '/a/x/y', '/z'])
    expect(offsetOf('/a/b/7')).toBe(text.indexOf('['))
    expect(offsetOf('/a/x/y')).toBe(text.indexOf('{', 1))
    expect(offsetOf('/z')).toBe(0)
  })

  it('finds only what it was asked, with the other containers jumped over', () => {
    const text = JSON.stringify({ skip: { deep: [{ '"': '{[' }] }, keep: [0, { x: 'y' }] })
    const offsetOf = locateAll(text, ['/keep/1/x'])
    expect(offsetOf('/keep/1/x')).toBe(text.indexOf('"y"'))
  })
})
