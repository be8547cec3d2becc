/** Bounds on hostile input: nesting depth and file size give diagnostics, never crashes or hangs. */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import fc from 'fast-check'
import { hasDigitRun, LIMITS, mayOverflowNumber } from '../src/core/limits.js'

const work = join(import.meta.dirname, '.tmp/limits')
beforeAll(() => {
  rmSync(work, { recursive: true, force: true })
  mkdirSync(work, { recursive: true })
})

const write = (name: string, text: string | Buffer) => {
  const file = join(work, name)
  writeFileSync(file, text)
  return file
}

describe('limits', () => {
  it('JSON nested beyond the depth limit: CONTRACTS_TOO_DEEP at the first bracket too deep', async () => {
    // How long the refusal takes is bench/complexity.ts's to measure ("JSON nested past the depth limit").
    for (const depth of [LIMITS.depth + 1, 200_000]) {
      const result = await compile(write(`deep-${depth}.spec.json`, '['.repeat(depth) + ']'.repeat(depth)))
      expect(result.diagnostics.map((d) => [d.code, d.line, d.column])).toEqual([['CONTRACTS_TOO_DEEP', 1, LIMITS.depth + 1]])
    }
    const ok = await compile(write('deep-ok.spec.json', '{"a":'.repeat(LIMITS.depth - 1) + '1' + '}'.repeat(LIMITS.depth - 1)))
    expect(ok.diagnostics.map((d) => d.code)).not.toContain('CONTRACTS_TOO_DEEP')
  })

  it('YAML nested beyond the depth limit, in flow or block style', async () => {
    const flow = await compile(write('deep.asyncapi.yaml', 'a: ' + '['.repeat(100) + ']'.repeat(100)))
    expect(flow.diagnostics.map((d) => d.code)).toEqual(['CONTRACTS_TOO_DEEP'])
    const block = Array.from({ length: LIMITS.depth + 2 }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n') + ' 1\n'
    expect((await compile(write('deep-block.asyncapi.yaml', block))).diagnostics.map((d) => d.code)).toEqual(['CONTRACTS_TOO_DEEP'])
    const stack = await compile(write('stack.asyncapi.yaml', 'a: ' + '['.repeat(60_000) + ']'.repeat(60_000)))
    expect(stack.diagnostics.map((d) => d.code)).toEqual(['CONTRACTS_TOO_DEEP'])
  })

  it('a file over the size limit is refused before it is parsed', async () => {
    const file = write('huge.spec.json', Buffer.alloc(LIMITS.fileBytes + 1, 32))
    const result = await compile(file)
    expect(result.diagnostics.map((d) => d.code)).toEqual(['CONTRACTS_TOO_LARGE'])
  })
})

describe('large valid documents are not refused for their size', () => {
  it('5,000 channels whose subjects share a first token and a few last tokens (100 streams of 50 subjects) compile without errors', async () => {
    const { natsDocument } = await import('../bench/generate.js')
    const dir = join(import.meta.dirname, '.tmp/limits-shared')
    mkdirSync(dir, { recursive: true })
    const file = join(dir, 'shared.asyncapi.yaml')
    writeFileSync(file, natsDocument(5000, { sharedPrefix: true }))
    const result = await compile(file)
    // Before the stream-overlap rule used a token index it stopped after 5,000,000 pair comparisons
    // and refused this valid document (NATS_STREAM_OVERLAP, "not decided").
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
    expect(result.code).toBeDefined()
    rmSync(dir, { recursive: true, force: true })
  }, 60_000)
})

describe('the whole-text scans a compile makes before reading', () => {
  // The one-pattern forms these replace, as the oracle: each scan must answer as they did.
  const overflowOracle = /[0-9.][eE][+]?[0-9]{3}|[0-9]{309}/
  const runOracle = (text: string, length: number) => new RegExp(`[0-9]{${length}}`).test(text)
  const digitsAndOthers = fc.array(fc.oneof(fc.constantFrom('0', '7', '9', '.', 'e', 'E', '+', 'a', '\n', ' '), fc.string({ maxLength: 3 })), { maxLength: 80 })

  it('hasDigitRun finds a run of digits exactly where the pattern does, for every run length and place', () => {
    fc.assert(
      fc.property(digitsAndOthers, fc.integer({ min: 1, max: 12 }), (parts, length) => {
        const text = parts.join('')
        expect(hasDigitRun(text, length)).toBe(runOracle(text, length))
      }),
      { numRuns: 2000 },
    )
    // Runs at the start, at the end, across probe offsets, one short of the length.
    for (const [text, length, found] of [
      ['1'.repeat(309), 309, true],
      ['1'.repeat(308), 309, false],
      [`x${'2'.repeat(309)}`, 309, true],
      [`${'3'.repeat(308)}x${'3'.repeat(308)}`, 309, false],
      [`${'a'.repeat(500)}${'4'.repeat(309)}${'a'.repeat(17)}`, 309, true],
      ['', 1, false],
      ['5', 1, true],
    ] as const)
      expect(hasDigitRun(text, length)).toBe(found)
  })

  it('mayOverflowNumber answers as the one pattern, on exponents and on long runs of digits', () => {
    fc.assert(
      fc.property(digitsAndOthers, (parts) => {
        const text = parts.join('')
        expect(mayOverflowNumber(text)).toBe(overflowOracle.test(text))
      }),
      { numRuns: 2000 },
    )
    for (const text of ['x: 1e400', 'x: .5E+308', 'x: 1e+30', `x: ${'9'.repeat(309)}`, `x: ${'9'.repeat(308)}`, 'e123', 'a1e12'])
      expect(mayOverflowNumber(text)).toBe(overflowOracle.test(text))
  })
})
