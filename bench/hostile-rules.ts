/** Hostile input families of the rules surface, timed at n and 10n by `bench/complexity.ts`. */
import { createHash } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Family } from './family.js'

/**
 * A bundle of n contracts, each importing the next and the last the first: one import cycle
 * through every document, whose digests cannot all verify. The compile reads every document once
 * and names the cycle (NATS_IMPORT_CYCLE) in one walk of the import graph: O(documents + imports).
 */
function importCycle(n: number, dir: string): string {
  const entries: Array<{ path: string; sha256: string }> = []
  for (let i = 0; i < n; i++) {
    const next = (i + 1) % n
    const text = [
      'asyncapi: 3.1.0',
      `info: { title: D${i}, version: 1.0.0 }`,
      'x-nats-contract:',
      '  version: 0.2.0-draft',
      `  contract: d${i}`,
      '  deployment: { binding: b, minimumServerVersion: 2.11.0 }',
      '  imports:',
      `    next: { contract: d${next}, version: 1.0.0, path: d${next}/asyncapi.yaml, sha256: ${'0'.repeat(64)} }`,
      'channels: {}',
      '',
    ].join('\n')
    mkdirSync(join(dir, `d${i}`), { recursive: true })
    writeFileSync(join(dir, `d${i}`, 'asyncapi.yaml'), text)
    entries.push({ path: `d${i}/asyncapi.yaml`, sha256: createHash('sha256').update(text).digest('hex') })
  }
  writeFileSync(join(dir, 'bundle.lock.json'), JSON.stringify({ entries }))
  return join(dir, 'd0', 'asyncapi.yaml')
}

export const families: Family[] = [{ name: 'NATS import chain closed into one cycle', n: 40, make: importCycle }]
