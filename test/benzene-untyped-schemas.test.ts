/**
 * A Benzene schema with `properties` and `required` but no `type` constrains objects only: the
 * generated validator lets 5, "x" and null through (JSON Schema's meaning, which OpenAPI 3.0 keeps),
 * so the generated type admits them too (issue 30: types exactly as wide as the validator).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { createLocalSender } from '../src/runtime/index.js'
import { loadModule } from './helpers/load-module.js'
import { typecheck } from './helpers/typecheck.js'

const work = join(import.meta.dirname, '.tmp', 'benzene-untyped')
const schemas = {
  Untyped: { required: ['a'], properties: { a: { type: 'string' } } },
  Typed: { type: 'object', required: ['a'], properties: { a: { type: 'string' } } },
}
const document = {
  openapi: '3.0.1',
  info: { title: 'untyped', version: '1' },
  requests: Object.keys(schemas).map((name) => ({ topic: `t:${name}`, request: { $ref: `#/components/schemas/${name}` }, response: { type: 'object' } })),
  events: [],
  components: { schemas },
}
const VALUES = [5, 'x', null, { a: 'x' }, {}, { a: 1 }]

describe('Benzene: object keywords without type', () => {
  it('the validator accepts 5, "x" and null and the type admits them; with type: object both refuse them', async () => {
    mkdirSync(work, { recursive: true })
    const file = join(work, 'untyped.spec.json')
    writeFileSync(file, JSON.stringify(document))
    const result = await compile(file)
    expect(result.diagnostics).toEqual([])
    const mod = await loadModule(result.code!, 'benzene-untyped')
    const sender = createLocalSender({ 't:Untyped': () => ({}), 't:Typed': () => ({}) })
    const clientOf = (name: string) => Object.keys(mod).find((k) => mod[k]?.topic === `t:${name}`)!
    const lines = ["import * as doc from './untyped.js'"]
    const verdicts: Record<string, boolean[]> = {}
    for (const name of Object.keys(schemas)) {
      verdicts[name] = []
      for (const value of VALUES) {
        verdicts[name].push((await mod[clientOf(name)].send(sender, value)).status !== 'validation-error')
        lines.push(`export const v${lines.length}: Parameters<typeof doc.${clientOf(name)}.send>[1] = ${JSON.stringify(value)}`)
      }
    }
    expect(verdicts).toEqual({ Untyped: [true, true, true, true, false, false], Typed: [false, false, false, true, false, false] })
    const r = typecheck(work, { untyped: result.dts! }, { 'use.ts': `${lines.join('\n')}\n` })
    const refused = new Set([...r.output.matchAll(/use\.ts\((\d+),/g)].map((m) => Number(m[1]) - 2))
    // Line 2 + i holds value i of Untyped, line 8 + i value i of Typed.
    expect(VALUES.map((_, i) => !refused.has(i))).toEqual(verdicts.Untyped)
    expect(VALUES.map((_, i) => !refused.has(i + VALUES.length))).toEqual(verdicts.Typed)
  }, 120_000)
})
