/**
 * A compile says what its module exports and which contract it was made from, so tools (the dev
 * page, the CLI) never read the generated code for it: for every fixture and example of the three
 * formats that compiles, `exports` is exactly the module's namespace (imported as Node imports it)
 * and `identity` is the contract hash or document digest the module itself carries.
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { loadModule } from './helpers/load-module.js'

const root = join(import.meta.dirname, '..')
const inFolder = (folder: string, suffix: string) =>
  readdirSync(join(root, folder))
    .filter((name) => name.endsWith(suffix))
    .map((name) => join(folder, name))

const contracts = [
  ...inFolder('fixtures/benzene/valid', '.spec.json'),
  ...inFolder('fixtures/nats/valid', '.asyncapi.yaml'),
  'fixtures/dasp/counter.dasp.json',
  ...inFolder('fixtures/dasp/corpus', '.dasp.json'),
  'examples/payments-client/payments.spec.json',
  'examples/nats-orders/orders/asyncapi.yaml',
  'examples/dasp-counter/counter.dasp.json',
]

describe('exports and identity come with the compile, not from reading the module', () => {
  it.each(contracts)('%s', async (contract) => {
    const result = await compile(join(root, contract))
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
    const mod = await loadModule(result.code!, 'module-exports')
    expect([...result.exports!].sort()).toEqual(Object.keys(mod).sort())
    if (result.format === 'benzene') expect(result.identity).toBe(mod.contractHash)
    else if (result.format === 'nats') expect(result.identity).toBe(mod.contract.digest)
    else expect(result.identity).toBeUndefined()
    // The same compile without declarations (what a dev server and `contracts check` ask for) says the same.
    const bare = await compile(join(root, contract), { declarations: false })
    expect([bare.exports, bare.identity]).toEqual([result.exports, result.identity])
  })
})
