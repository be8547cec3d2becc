/**
 * The generated module's size against its contract document (issue 33), pinned in bytes with room to
 * spare so it cannot grow back unnoticed: min+gzip of the module alone against min+gzip of the
 * document (`test/helpers/module-size.ts`, as `bench/module-size.ts` measures it). Before the
 * compact module these were 4.5x (code) and 3.9x (data) for benzeneDocument(100), 1.78x and
 * 1.19x for payments.spec.json, 1.82x for the DASP counter. The bench reports the 1,000-topic
 * document and why it stays above 1 (the topic hashes).
 */
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { benzeneDocument } from '../bench/generate.js'
import { moduleSize } from './helpers/module-size.js'

const root = join(import.meta.dirname, '..')
const work = join(import.meta.dirname, '.tmp/module-size')

async function ratioOf(file: string, validators?: 'code' | 'data'): Promise<number> {
  const result = await compile(file, validators ? { benzene: { validators } } : undefined)
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
  return (await moduleSize(result.code!, readFileSync(file, 'utf8'))).ratio
}

describe('module size (min+gzip) against the document (min+gzip)', () => {
  it('benzeneDocument(100): at most 3x in either validators form (the topic hashes alone are 1.2x)', async () => {
    mkdirSync(work, { recursive: true })
    const file = join(work, 'b100.spec.json')
    writeFileSync(file, benzeneDocument(100))
    expect(await ratioOf(file, 'code')).toBeLessThan(3)
    expect(await ratioOf(file, 'data')).toBeLessThan(3)
  })

  it('payments.spec.json: at most 2x as code, 1.15x as data', async () => {
    const file = join(root, 'fixtures/benzene/valid/payments.spec.json')
    expect(await ratioOf(file, 'code')).toBeLessThan(2)
    expect(await ratioOf(file, 'data')).toBeLessThan(1.15)
  })

  it('the DASP counter selection: at most 2x (its request carries the definitions’ content pins)', async () => {
    expect(await ratioOf(join(root, 'examples/dasp-counter/counter.dasp.json'))).toBeLessThan(2)
  })
})
