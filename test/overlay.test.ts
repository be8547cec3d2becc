/** The compiler's overlay (`CompilerOptions.overlay`): unsaved texts read instead of files, under the same confinement, limits and cache rules. */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { InputError, recordingHost } from '../src/core/input-host.js'
import { LIMITS } from '../src/core/limits.js'
import { ContractCompiler, PersistentCache } from '../src/index.js'

const root = join(import.meta.dirname, '..')
const work = mkdtempSync(join(tmpdir(), 'contracts-overlay-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

const valid = readFileSync(join(root, 'fixtures/benzene/valid/payments.spec.json'), 'utf8')
const broken = valid.replace('"$ref": "#/components/schemas/PaymentDto"', '"$ref": "#/components/schemas/Missing"')

describe('the overlay', () => {
  it('reads the overlaid text instead of the file, and only for its path; without one, nothing changes', async () => {
    const file = join(work, 'payments.spec.json')
    writeFileSync(file, valid)
    const texts = new Map<string, string>()
    const compiler = new ContractCompiler({ overlay: { text: (path) => texts.get(path) } })
    expect((await compiler.compile(file)).diagnostics).toEqual([])
    texts.set(file, broken)
    const edited = await compiler.compile(file)
    expect(edited.diagnostics.map((d) => [d.code, d.line, d.column])).toEqual([['BENZENE_REF_MISSING', 57, 17]])
    // The same as the text written to disk and compiled without an overlay.
    const disk = join(work, 'disk')
    mkdirSync(disk)
    writeFileSync(join(disk, 'payments.spec.json'), broken)
    const plain = await new ContractCompiler().compile(join(disk, 'payments.spec.json'))
    expect(plain.diagnostics.map((d) => [d.code, d.line, d.column, d.pointer, d.message])).toEqual(
      edited.diagnostics.map((d) => [d.code, d.line, d.column, d.pointer, d.message]),
    )
    expect(readFileSync(file, 'utf8')).toBe(valid)
  })

  it('a cached result stands while the overlaid text is the same, and not after it changes or goes', async () => {
    const file = join(work, 'cached.spec.json')
    writeFileSync(file, valid)
    const texts = new Map([[file, broken]])
    const compiler = new ContractCompiler({ overlay: { text: (path) => texts.get(path) } })
    const first = await compiler.compile(file)
    expect(await compiler.compile(file)).toBe(first)
    expect(compiler.compilations).toBe(1)
    texts.set(file, valid)
    expect((await compiler.compile(file)).diagnostics).toEqual([])
    texts.set(file, broken)
    await compiler.compile(file)
    texts.delete(file)
    expect((await compiler.compile(file)).diagnostics).toEqual([])
    expect(compiler.compilations).toBe(4)
  })

  it('a compiler with an overlay neither reads nor writes the persistent cache (it knows only files on disk)', async () => {
    const file = join(work, 'persistent.spec.json')
    writeFileSync(file, valid)
    const dir = join(work, 'persistent-cache')
    const warm = new PersistentCache({ dir, root: work })
    await new ContractCompiler({ cache: warm }).compile(file, { declarations: false })
    expect(warm.writes).toBe(1)
    const cache = new PersistentCache({ dir, root: work })
    const compiler = new ContractCompiler({ cache, overlay: { text: (path) => (path === file ? broken : undefined) } })
    expect((await compiler.compile(file, { declarations: false })).diagnostics.map((d) => d.code)).toEqual(['BENZENE_REF_MISSING'])
    expect([cache.hits, cache.writes]).toEqual([0, 0])
  })

  it('a document with no file yet compiles from its text; a NATS bundle reads an unsaved lock', async () => {
    const unsaved = join(work, 'new', 'fresh.spec.json')
    const bundle = join(work, 'shop')
    cpSync(join(root, 'fixtures/nats/shop'), bundle, { recursive: true })
    const lock = join(bundle, 'bundle.lock.json')
    const payments = join(bundle, 'payments/asyncapi/asyncapi.yaml')
    const texts = new Map([
      [unsaved, broken],
      [
        lock,
        readFileSync(lock, 'utf8').replace(
          /"path": "orders\/asyncapi\/asyncapi.yaml",(\s*)"sha256": "[0-9a-f]{64}"/,
          `"path": "orders/asyncapi/asyncapi.yaml",$1"sha256": "${'0'.repeat(64)}"`,
        ),
      ],
    ])
    const compiler = new ContractCompiler({ overlay: { text: (path) => texts.get(path) } })
    expect((await compiler.compile(unsaved)).diagnostics.map((d) => d.code)).toEqual(['BENZENE_REF_MISSING'])
    const result = await compiler.compile(payments)
    expect(result.dependencies).toContain(lock)
    expect(result.diagnostics.map((d) => d.code)).toContain('NATS_LOCK_MISMATCH')
  })

  it('confined as the disk is: a link is refused, a path outside the tree too, and the size limit holds', async () => {
    const folder = join(work, 'confined')
    mkdirSync(folder)
    const target = join(folder, 'target.spec.json')
    writeFileSync(target, valid)
    const link = join(folder, 'link.spec.json')
    symlinkSync(target, link)
    const big = join(folder, 'big.spec.json')
    const texts = new Map([
      [link, valid],
      [big, ' '.repeat(LIMITS.fileBytes + 1)],
    ])
    const compiler = new ContractCompiler({ overlay: { text: (path) => texts.get(path) } })
    expect((await compiler.compile(link)).diagnostics.map((d) => d.code)).toEqual(['CONTRACTS_SYMLINK'])
    expect((await compiler.compile(big)).diagnostics.map((d) => d.code)).toEqual(['CONTRACTS_TOO_LARGE'])
    // A text overlaid outside the contract's tree is not read either (what a format's `$ref` or lock would reach).
    const outside = join(work, 'elsewhere.json')
    const host = recordingHost(folder, { text: (path) => (path === outside ? '{}' : undefined) })
    const refused = await host.readText(outside).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(InputError)
    expect((refused as InputError).diagnostic.code).toBe('CONTRACTS_OUTSIDE_TREE')
    expect(await host.kind(outside)).toBe('file')
  })
})
