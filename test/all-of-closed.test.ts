/**
 * Whether a Benzene `allOf` merge is closed (`closedOf`, src/formats/benzene/all-of.ts): true when
 * the schema or anything it extends through `allOf` says `additionalProperties: false`. It is asked
 * for every merge; the merged property names (`mergedOf`) only for a closed one. Before, the names
 * were made to answer the question: a chain of 8,000 open `allOf` links made 8,000 sets of up to
 * 8,000 names (6 s and 1.5 GB to check the contract).
 *
 * The oracle is reachability, written here: a name's merge is closed when a schema it reaches
 * through `allOf` member references (itself included) is closed by its own members.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ContractCompiler } from '../src/core/compile.js'
import { closedOf, mergedOf } from '../src/formats/benzene/all-of.js'
import type { BenzeneModel } from '../src/formats/benzene/model.js'
import { SchemaFacts } from '../src/formats/benzene/schema-facts.js'
import { benzeneFormat, formats } from '../src/formats/index.js'
import { freshDir } from './helpers/bundlers.js'
import { random } from './helpers/seeded-random.js'

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

/** Names reachable from `name` through `allOf` members' references, nested `allOf` included, by a breadth-first search. */
function reachable(schemas: Record<string, any>, name: string): Set<string> {
  const seen = new Set([name])
  const queue = [name]
  while (queue.length > 0) {
    const members: unknown[] = [...(schemas[queue.shift()!]?.allOf ?? [])]
    while (members.length > 0) {
      const member = members.pop() as any
      const target = typeof member?.$ref === 'string' ? member.$ref.split('/').pop() : undefined
      if (target !== undefined && !seen.has(target)) {
        seen.add(target)
        queue.push(target)
      }
      if (Array.isArray(member?.allOf)) members.push(...member.allOf)
    }
  }
  return seen
}

/** A schema's own property names: at its top and in its inline `allOf` members. */
function ownNames(schema: any): string[] {
  const inline = Array.isArray(schema?.allOf) ? schema.allOf.filter((m: any) => m?.$ref === undefined).flatMap(ownNames) : []
  return [...Object.keys(schema?.properties ?? {}), ...inline]
}

/** A schema's own closedness: `additionalProperties: false` on it or on an inline `allOf` member. */
function ownClosed(schema: any): boolean {
  if (schema?.additionalProperties === false) return true
  return Array.isArray(schema?.allOf) && schema.allOf.some((m: any) => m?.$ref === undefined && ownClosed(m))
}

/** A Benzene contract of `schemas` whose one topic sends and answers `S0`, compiled without errors in a folder of its own; its model. */
async function compiledModel(folder: string, schemas: Record<string, unknown>): Promise<BenzeneModel> {
  const file = join(freshDir(join(import.meta.dirname, '.tmp', folder)), 'chain.spec.json')
  const document = { openapi: '3.0.1', info: { title: 'chain', description: '', version: '' }, events: [], components: { schemas } }
  writeFileSync(file, JSON.stringify({ ...document, requests: [{ topic: 'chain:go', request: ref('S0'), response: ref('S0') }] }))
  const compiler = new ContractCompiler({ formats })
  const result = await compiler.compile(file)
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
  return ((await compiler.model(file, benzeneFormat)) as { model: BenzeneModel }).model
}

describe('closedOf', () => {
  it('answers as reachability does, and as the names’ merge does, on random graphs with cycles', () => {
    const next = random(20261206)
    let closed = 0
    for (let run = 0; run < 300; run++) {
      const n = 2 + Math.floor(next() * 10)
      const names = Array.from({ length: n }, (_, i) => `N${i}`)
      const schemas: Record<string, any> = {}
      for (const name of names) {
        const members: unknown[] = names.filter(() => next() < 0.25).map(ref)
        if (next() < 0.3) members.push({ allOf: [ref(names[Math.floor(next() * n)]!)] })
        if (next() < 0.2) members.push({ type: 'object', additionalProperties: false })
        if (next() < 0.4) members.push({ type: 'object', properties: { [`m${Math.floor(next() * 20)}`]: {} } })
        schemas[name] = {
          allOf: members,
          ...(next() < 0.1 ? { additionalProperties: false } : {}),
          ...(next() < 0.5 ? { properties: { [`p${name}`]: {} } } : {}),
        }
      }
      const doc = { components: { schemas } }
      // Fresh facts per order of questions: memoized answers must not depend on which name was asked first.
      for (const order of [names, [...names].reverse()]) {
        const facts = new SchemaFacts(doc)
        for (const name of order) {
          const want = [...reachable(schemas, name)].some((r) => ownClosed(schemas[r]))
          expect(closedOf(facts, name), `run ${run} ${name}`).toBe(want)
          const merged = mergedOf(facts, name)
          expect(merged.closed, `run ${run} ${name}`).toBe(want)
          // Its names: every property name its reach declares, at the top or in an inline member.
          expect([...merged.names].sort(), `run ${run} ${name}`).toEqual(
            [...new Set([...reachable(schemas, name)].flatMap((r) => ownNames(schemas[r])))].sort(),
          )
          if (want) closed++
        }
      }
    }
    expect(closed).toBeGreaterThan(500)
  })

  it('an 8,000-link chain closed at its top makes the top merge’s names only (the links’ were made too, n sets of up to n)', async () => {
    const n = 8_000
    const schemas = Object.fromEntries(
      Array.from({ length: n }, (_, i) => [
        `S${i}`,
        {
          type: 'object',
          properties: { [`p${i}`]: { type: 'string' } },
          ...(i + 1 < n ? { allOf: [ref(`S${i + 1}`)] } : {}),
          ...(i === 0 ? { additionalProperties: false } : {}),
        },
      ]),
    )
    const model = await compiledModel('all-of-closed-top', schemas)
    expect([...model.facts.merges.keys()]).toEqual(['S1'])
    expect(model.facts.merges.get('S1')!.names.size).toBe(n - 1)
  })

  it('an 8,000-link chain of open allOf merges compiles without making any merge’s names', async () => {
    const n = 8_000
    const schemas = Object.fromEntries(
      Array.from({ length: n }, (_, i) => [
        `S${i}`,
        i + 1 < n
          ? { allOf: [ref(`S${i + 1}`), { type: 'object', properties: { [`p${i}`]: { type: 'string' } } }] }
          : { type: 'object', properties: { last: { type: 'string' } } },
      ]),
    )
    const model = await compiledModel('all-of-closed', schemas)
    expect([model.facts.merges.size, model.facts.closedMerges.size, model.facts.closedMerges.get('S1')]).toEqual([0, n - 1, false])
  })
})
