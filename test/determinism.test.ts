/**
 * Same input, same bytes: compiling from other working directories, and from documents whose keys
 * are reordered where order means nothing, gives identical modules, types and hashes.
 */
import { createHash } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse, stringify } from 'yaml'
import { beforeAll, describe, expect, it } from 'vitest'
import { ShopBundle } from './helpers/nats-bundle.js'

const root = join(import.meta.dirname, '..')
const work = join(import.meta.dirname, '.tmp/determinism')
const sha = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16)

/** Compiles in a fresh Node process whose working directory is `cwd`; returns digests of code and types. */
function digestsFrom(cwd: string, file: string): { code: string; dts: string; codeText: string } {
  const script = `const { compile } = await import(${JSON.stringify(join(root, 'dist/src/index.js'))}); const r = await compile(${JSON.stringify(file)}); if (r.diagnostics.length) throw new Error(JSON.stringify(r.diagnostics)); console.log(JSON.stringify({ code: r.code, dts: r.dts }))`
  const { code, dts } = JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }),
  )
  return { code: sha(code), dts: sha(dts), codeText: code }
}

/** Reverses the key order of every object (arrays keep their order: it means something). */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed)
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(
    Object.keys(value)
      .reverse()
      .map((k) => [k, reversed((value as Record<string, unknown>)[k])]),
  )
}

beforeAll(() => {
  rmSync(work, { recursive: true, force: true })
  mkdirSync(join(work, 'a'), { recursive: true })
  mkdirSync(join(work, 'b'), { recursive: true })
})

describe('determinism', () => {
  it('Benzene: two working directories, two locations, reversed keys: the same bytes', () => {
    const source = join(root, 'fixtures/benzene/valid/schema-features.spec.json')
    const copy = join(work, 'a/schema-features.spec.json')
    writeFileSync(copy, JSON.stringify(reversed(JSON.parse(readFileSync(source, 'utf8'))), null, 1))
    const digests = [digestsFrom(root, source), digestsFrom(join(work, 'b'), source), digestsFrom(join(work, 'b'), copy)].map(({ code, dts }) => ({
      code,
      dts,
    }))
    expect(new Set(digests.map((d) => JSON.stringify(d))).size).toBe(1)
    expect(digests[0]).toMatchSnapshot()
  })

  it('DASP: reversed keys and another directory: the same bytes', () => {
    cpSync(join(root, 'fixtures/dasp'), join(work, 'dasp'), { recursive: true })
    const selection = join(work, 'dasp/counter.dasp.json')
    writeFileSync(selection, JSON.stringify(reversed(JSON.parse(readFileSync(selection, 'utf8'))), null, 3))
    const a = digestsFrom(root, join(root, 'fixtures/dasp/counter.dasp.json'))
    const b = digestsFrom(join(work, 'a'), selection)
    expect({ code: b.code, dts: b.dts }).toEqual({ code: a.code, dts: a.dts })
    expect({ code: a.code, dts: a.dts }).toMatchSnapshot()
  })

  it('NATS: another copy of the bundle and reversed mapping keys change only the document digest and the source positions', () => {
    const one = ShopBundle.copy('det-one').relock()
    const two = ShopBundle.copy('det-two')
    const doc = 'payments/asyncapi/asyncapi.yaml'
    two.write(doc, stringify(reversed(parse(two.read(doc))))).relock()
    const a = digestsFrom(root, one.doc('payments'))
    const b = digestsFrom(join(work, 'b'), two.doc('payments'))
    // The digest is of the exact bytes, and source backlinks point at where things now are: named
    // members of a literal (`line: 3`), a channel's line and column after its id and address, the
    // operations' `lines` and `columns`, and a native resource's after its config.
    const string = '"(?:[^"\\\\]|\\\\.)*"'
    const withoutDigest = (code: string) =>
      code
        .replace(/"digest":"[0-9a-f]{64}"/, '')
        .replace(/"?(line|column)"?: ?\d+/g, '')
        .replace(new RegExp(`(\\$channel\\(tokenTypes, \\$file, ${string}, (?:${string}|0)), -?\\d+, -?\\d+`, 'g'), '$1')
        .replace(/(lines|columns): \[[-\d, ]*\]/g, '$1')
        .replace(/^.*\$natives\(.*$/gm, (line) => line.replace(/\}, \d+, \d+/g, '}'))
    expect(withoutDigest(b.codeText)).toBe(withoutDigest(a.codeText))
    const again = digestsFrom(join(work, 'a'), one.doc('payments'))
    expect({ code: again.code, dts: again.dts }).toEqual({ code: a.code, dts: a.dts })
    expect({ code: a.code, dts: a.dts }).toMatchSnapshot()
  })
})
