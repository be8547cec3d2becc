/** The runtime vectors (operationId, quorumThreshold) against the runtime, and against the independent Python computation. */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { operationId, quorumThreshold } from '../../src/runtime/nats/interactions.js'

const here = import.meta.dirname
const vectors = JSON.parse(readFileSync(join(here, 'runtime-vectors.json'), 'utf8'))

describe('runtime-vectors.json', () => {
  it.each(vectors.operationId.map((v: any, i: number) => [i, v]))('operationId vector %i', async (_i, v: any) => {
    expect(await operationId(v.principalId, v.contractDigest, v.invocationKey)).toBe(v.expected)
  })

  it.each(vectors.quorumThreshold.map((v: any) => [v.numerator, v.denominator, v.admittedUnits, v.expected]))(
    'quorumThreshold(%i, %i, %i) = %i',
    (n, d, units, expected) => {
      expect(quorumThreshold(n, d, units)).toBe(expected)
    },
  )

  it('make_vectors.py --check recomputes the same vectors', () => {
    expect(execFileSync('python3', [join(here, 'make_vectors.py'), '--check'], { encoding: 'utf8' })).toMatch(/^\d+ passed, 0 failed$/m)
  })
})
