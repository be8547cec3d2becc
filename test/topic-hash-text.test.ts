/**
 * A generated Benzene module stores each topic's contract hash as its digest in base64, and the
 * runtime gives the client the hash text (`sha256:` + 64 lowercase hex, Contract Document §6.2):
 * the two forms turn into each other exactly, and every client of every valid fixture shows the
 * hash `contracts inspect` reports for its topic.
 */
import { createHash } from 'node:crypto'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compile, inspect } from '../src/index.js'
import { storedHash } from '../src/formats/benzene/generate.js'
import { hashText } from '../src/runtime/benzene/digest-text.js'
import { loadModule } from './helpers/load-module.js'

describe('the stored form of a topic hash', () => {
  it('is the digest in base64 and turns back into the same hash text', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        const text = `sha256:${Buffer.from(bytes).toString('hex')}`
        const stored = storedHash(text)
        expect(stored).toBe(Buffer.from(bytes).toString('base64').replace(/=+$/, ''))
        expect(hashText(stored)).toBe(text)
      }),
      { numRuns: 300 },
    )
    const text = `sha256:${createHash('sha256').update('').digest('hex')}`
    expect(hashText(text)).toBe(text)
    // Text that is not a stored digest (a hand-written call's) is kept as it is, never refused.
    for (const other of ['sha256:00', 'not a digest', '', '='.repeat(43)]) expect(hashText(other)).toBe(other)
  })

  const fixtures = join(import.meta.dirname, '../fixtures/benzene/valid')
  const files = readdirSync(fixtures).filter((name) => name.endsWith('.spec.json'))
  it.each(files)('each client of %s shows its topic-scoped hash', async (name) => {
    const file = join(fixtures, name)
    const [result, inspection] = await Promise.all([compile(file, { declarations: false }), inspect(file)])
    const mod = await loadModule(result.code!, 'topic-hash-text')
    const hashes = (inspection.data as { hashes: { topics: Record<string, string> } }).hashes.topics
    const shown = Object.fromEntries(Object.entries(mod.topics as Record<string, { contractHash: string }>).map(([key, client]) => [key, client.contractHash]))
    expect(shown).toEqual(hashes)
  })
})
