/**
 * A compile says what its module exports and which contract it was made from, so tools (the dev
 * page, the CLI) never read the generated code for it: for every fixture and example of the three
 * formats that compiles, `exports` is exactly the module's namespace (imported as Node imports it)
 * and `identity` is the contract hash or document digest the module itself carries. A Benzene
 * module stores each topic's hash as its digest in base64; every client shows the `sha256:` hash
 * text `contracts inspect` reports for its topic (Contract Document §6.2).
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { compile, inspect } from '../src/index.js'
import { storedHash } from '../src/formats/benzene/generate.js'
import { hashText } from '../src/runtime/benzene/digest-text.js'
import { loadModule } from './helpers/load-module.js'
import { benzeneDocument } from '../bench/generate.js'

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
    if (result.format === 'benzene') {
      expect(result.identity).toBe(mod.contractHash)
      const { hashes } = (await inspect(join(root, contract))).data as { hashes: { topics: Record<string, string> } }
      const shown = Object.entries(mod.topics as Record<string, { contractHash: string }>).map(([key, client]) => [key, client.contractHash])
      expect(Object.fromEntries(shown)).toEqual(hashes.topics)
    } else if (result.format === 'nats') expect(result.identity).toBe(mod.contract.digest)
    else expect(result.identity).toBeUndefined()
    // The same compile without declarations (what a dev server and `contracts check` ask for) says the same.
    const bare = await compile(join(root, contract), { declarations: false })
    expect([bare.exports, bare.identity]).toEqual([result.exports, result.identity])
  })
})

describe('a topic hash as a module stores it', () => {
  it('a module of many topics stores digests, and each client shows its hash text', async () => {
    const dir = join(root, 'test/.tmp/module-exports')
    mkdirSync(dir, { recursive: true })
    const file = join(dir, 'b40.spec.json')
    writeFileSync(file, benzeneDocument(40))
    const result = await compile(file, { declarations: false })
    expect(result.code).toContain('storedHashTopicClient as $topic')
    const mod = await loadModule(result.code!, 'module-exports-stored')
    const { hashes } = (await inspect(file)).data as { hashes: { topics: Record<string, string> } }
    const shown = Object.entries(mod.topics as Record<string, { contractHash: string }>).map(([key, client]) => [key, client.contractHash])
    expect(Object.fromEntries(shown)).toEqual(hashes.topics)
  })

  it('is the digest in base64 and turns back into the same hash text; other text is kept as it is', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        const text = `sha256:${Buffer.from(bytes).toString('hex')}`
        expect(storedHash(text)).toBe(Buffer.from(bytes).toString('base64').replace(/=+$/, ''))
        expect(hashText(storedHash(text))).toBe(text)
      }),
      { numRuns: 200 },
    )
    // The hash text itself (as older modules wrote it) and a hand-written call's text are never refused.
    for (const other of [`sha256:${'0'.repeat(64)}`, 'sha256:00', 'not a digest', '', '='.repeat(43)]) expect(hashText(other)).toBe(other)
  })
})
