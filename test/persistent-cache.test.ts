/**
 * The persistent compile cache (issue 33): a second compiler reads what the first wrote, an edited
 * dependency or a file appearing where a compile looked invalidates it, a corrupt, foreign or
 * planted entry is a miss that the next compile rewrites, nothing is written without a cache, a
 * bug is never kept, and two processes writing one folder at once leave entries that verify.
 */
import { spawn } from 'node:child_process'
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { join, relative } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ContractCompiler as CoreCompiler, type CompileResult } from '../src/core/compile.js'
import type { ContractFormat } from '../src/core/format.js'
import { sha256 } from '../src/core/input-host.js'
import { PersistentCache } from '../src/core/persistent-cache.js'
import { codeIdentity } from '../src/core/package-info.js'
import { ContractCompiler, natsFormat } from '../src/index.js'
import { ShopBundle } from './helpers/nats-bundle.js'
import { suiteModule } from './helpers/suite-module.js'

const repo = join(import.meta.dirname, '..')
const work = join(import.meta.dirname, '.tmp/persistent-cache', String(process.pid))
afterAll(() => rmSync(work, { recursive: true, force: true }))

let made = 0
/** A fresh project folder holding copies of the given fixtures (paths relative to the repository). */
function project(...fixtures: string[]): { root: string; dir: string; file: (rel: string) => string } {
  const root = join(work, `p${made++}`)
  rmSync(root, { recursive: true, force: true })
  for (const fixture of fixtures) cpSync(join(repo, fixture), join(root, fixture), { recursive: true })
  return { root, dir: join(root, 'cache'), file: (rel) => join(root, rel) }
}

/** A compiler of the built-in formats with a persistent cache in `dir` for the project at `root`. */
function cached(dir: string, root: string, maxBytes?: number) {
  const cache = new PersistentCache({ dir, root, maxBytes })
  return { cache, compiler: new ContractCompiler({ cache }) }
}

/**
 * The next turn of the event loop: a compile whose declarations were not read by then is written
 * without them (a build reads them at once, and is written with them).
 */
const settle = () => new Promise((done) => setImmediate(done))

/** What a result says, dts read, as plain data (to compare a disk hit with a fresh compile). */
const plain = (r: CompileResult) => JSON.parse(JSON.stringify({ ...r, dts: r.dts })) as unknown
const entries = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.entry')) : [])

const BENZENE = 'fixtures/benzene/valid/payments.spec.json'
const NATS = 'fixtures/nats/valid/ledger.asyncapi.yaml'
const DASP = 'fixtures/dasp/counter.dasp.json'
const WARNED = 'fixtures/dasp/invalid/attribute-name-length.dasp.json'
const FAILED = 'fixtures/benzene/invalid/ref-missing.spec.json'
const DASP_FIXTURES = ['fixtures/dasp/counter.dasp.json', 'fixtures/dasp/extensions', 'fixtures/dasp/pins']
/** The warned DASP selection and the definitions it reads. */
const DASP_INVALID = ['fixtures/dasp/invalid', 'fixtures/dasp/extensions', 'fixtures/dasp/pins']

describe('a second compiler reads the cache', () => {
  it('every format, a warned and a failed contract: no compile, the same result as a fresh compile', async () => {
    const p = project(BENZENE, NATS, FAILED, ...DASP_FIXTURES, ...DASP_INVALID)
    const files = [BENZENE, NATS, DASP, WARNED, FAILED].map(p.file)
    const first = cached(p.dir, p.root)
    const fresh = []
    for (const file of files) fresh.push(plain(await first.compiler.compile(file)))
    expect(first.compiler.compilations).toBe(5)
    expect(first.cache.writes).toBe(5)
    expect(entries(p.dir)).toHaveLength(5)
    // The warned contract has its warning, the failed one its error (both kept: they are deterministic).
    expect((fresh[3] as CompileResult).diagnostics.map((d) => d.code)).toEqual(['DASP_ATTRIBUTE_NAME_LENGTH'])
    expect((fresh[4] as CompileResult).diagnostics.map((d) => d.code)).toEqual(['BENZENE_REF_MISSING'])

    const second = cached(p.dir, p.root)
    for (const [i, file] of files.entries()) expect(plain(await second.compiler.compile(file)), file).toEqual(fresh[i])
    expect(second.compiler.compilations).toBe(0)
    expect(second.cache).toMatchObject({ hits: 5, misses: 0, writes: 0 })
  })

  it('declarations: an entry written without them does not answer a compile that wants them; that compile writes them', async () => {
    const p = project(BENZENE)
    const file = p.file(BENZENE)
    const check = cached(p.dir, p.root)
    expect((await check.compiler.compile(file, { declarations: false })).dts).toBeUndefined()
    expect(check.cache.writes).toBe(1)
    // `contracts check` again: answered without declarations.
    const again = cached(p.dir, p.root)
    await again.compiler.compile(file, { declarations: false })
    expect(again.compiler.compilations).toBe(0)
    // A build that writes sidecars: compiles (correct before fast), and keeps the declarations.
    const build = cached(p.dir, p.root)
    const built = await build.compiler.compile(file)
    expect(build.compiler.compilations).toBe(1)
    expect(built.dts).toContain('export')
    expect(build.cache.writes).toBe(1)
    const next = cached(p.dir, p.root)
    expect((await next.compiler.compile(file)).dts).toBe(built.dts)
    expect(next.compiler.compilations).toBe(0)
  })

  it('declarationsWhenRead (a dev server): kept without declarations until they are read, then with them', async () => {
    const p = project(BENZENE)
    const file = p.file(BENZENE)
    const cache = new PersistentCache({ dir: p.dir, root: p.root, declarationsWhenRead: true })
    const result = await new ContractCompiler({ cache }).compile(file)
    await settle()
    expect(cache.writes).toBe(1)
    const without = cached(p.dir, p.root)
    await without.compiler.compile(file, { declarations: false })
    expect(without.compiler.compilations).toBe(0)
    await without.compiler.compile(file)
    expect(without.compiler.compilations).toBe(1)
    void result.dts
    expect(cache.writes).toBe(2)
    const withThem = cached(p.dir, p.root)
    expect((await withThem.compiler.compile(file)).dts).toBe(result.dts)
    expect(withThem.compiler.compilations).toBe(0)
  })

  it('compiler.model() after a disk hit makes the model (none is stored), once', async () => {
    const p = project(NATS)
    const file = p.file(NATS)
    await cached(p.dir, p.root).compiler.compile(file)
    await settle()
    const { compiler, cache } = cached(p.dir, p.root)
    await compiler.compile(file)
    expect(cache.hits).toBe(1)
    const { model, diagnostics } = await compiler.model(file, natsFormat)
    expect(diagnostics).toEqual([])
    expect(model?.contract.id).toBe('ledger')
    expect((await compiler.model(file, natsFormat)).model).toBe(model)
    expect(compiler.compilations).toBe(0)
  })

  it('a cache restored into another checkout path still answers, with the paths of that checkout', async () => {
    const p = project(NATS, ...DASP_FIXTURES, ...DASP_INVALID)
    for (const rel of [NATS, WARNED, DASP]) await cached(p.dir, p.root).compiler.compile(p.file(rel))
    await settle()
    const moved = join(work, `moved-${made++}`)
    cpSync(p.root, moved, { recursive: true })
    const { compiler, cache } = cached(join(moved, 'cache'), moved)
    for (const rel of [NATS, WARNED, DASP]) {
      const result = await compiler.compile(join(moved, rel))
      expect(result.file).toBe(join(moved, rel))
      expect(
        result.dependencies.every((d) => d.startsWith(moved + '/')),
        rel,
      ).toBe(true)
      expect(
        result.diagnostics.every((d) => d.file.startsWith(moved + '/')),
        rel,
      ).toBe(true)
      expect(result.map?.sources).toEqual([join(moved, rel)])
    }
    expect(compiler.compilations).toBe(0)
    expect(cache.hits).toBe(3)
  })

  it('a result that names its checkout (a message with an absolute path) answers only there', async () => {
    const p = project(...DASP_INVALID)
    const rel = 'fixtures/dasp/invalid/version-conflict.dasp.json'
    const first = await cached(p.dir, p.root).compiler.compile(p.file(rel))
    expect(first.diagnostics.some((d) => d.message.includes(p.root))).toBe(true)
    const again = cached(p.dir, p.root)
    expect(plain(await again.compiler.compile(p.file(rel)))).toEqual(plain(first))
    expect(again.compiler.compilations).toBe(0)
    const moved = join(work, `moved-${made++}`)
    cpSync(p.root, moved, { recursive: true })
    const there = cached(join(moved, 'cache'), moved)
    const result = await there.compiler.compile(join(moved, rel))
    expect(there.compiler.compilations).toBe(1)
    expect(result.diagnostics.some((d) => d.message.includes(p.root))).toBe(false)
  })
})

describe('what invalidates an entry', () => {
  it('an edited locked file of a NATS bundle: the contract that locks it compiles again', async () => {
    const shop = ShopBundle.copy('persistent-cache')
    const dir = join(shop.root, '.cache')
    const orders = shop.doc('orders')
    await cached(dir, shop.root).compiler.compile(orders)
    await settle()
    const unchanged = cached(dir, shop.root)
    await unchanged.compiler.compile(orders)
    expect(unchanged.compiler.compilations).toBe(0)

    shop.edit('payments/workflows/refund.yaml', /$/, '\n# edited\n')
    const edited = cached(dir, shop.root)
    const result = await edited.compiler.compile(orders)
    await settle()
    expect(edited.compiler.compilations).toBe(1)
    expect(result.diagnostics.map((d) => d.code)).toContain('NATS_LOCK_DIGEST')

    // Relocked: compiles again, succeeds, and that result is what the next compiler reads.
    shop.relock()
    const relocked = cached(dir, shop.root)
    const ok = await relocked.compiler.compile(orders)
    await settle()
    expect(relocked.compiler.compilations).toBe(1)
    expect(ok.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
    const last = cached(dir, shop.root)
    expect(plain(await last.compiler.compile(orders))).toEqual(plain(ok))
    expect(last.compiler.compilations).toBe(0)
  })

  it('an edited DASP definition: the selection compiles again', async () => {
    const p = project(...DASP_FIXTURES)
    const file = p.file(DASP)
    await cached(p.dir, p.root).compiler.compile(file)
    await settle()
    const definition = p.file('fixtures/dasp/extensions/proof-of-authority.dasp-ext.json')
    writeFileSync(definition, readFileSync(definition, 'utf8') + '\n')
    const { compiler } = cached(p.dir, p.root)
    await compiler.compile(file)
    expect(compiler.compilations).toBe(1)
  })

  it('a bundle lock put in a parent folder (where the compile looked and found none): the document compiles again, now in the bundle', async () => {
    const p = project(NATS)
    const file = p.file(NATS)
    await cached(p.dir, p.root).compiler.compile(file)
    await settle()
    writeFileSync(p.file('fixtures/bundle.lock.json'), JSON.stringify({ entries: [] }))
    const { compiler } = cached(p.dir, p.root)
    const result = await compiler.compile(file)
    expect(compiler.compilations).toBe(1)
    expect(result.dependencies).toContain(p.file('fixtures/bundle.lock.json'))
  })

  it('the options, the query and the format are part of the key', async () => {
    const p = project(BENZENE)
    const file = p.file(BENZENE)
    await cached(p.dir, p.root).compiler.compile(file)
    await settle()
    const { compiler } = cached(p.dir, p.root)
    await compiler.compile(file, { benzene: { validate: false } })
    await compiler.compile(file, { query: 'topics=payments:capture' })
    await settle()
    expect(compiler.compilations).toBe(2)
    expect(entries(p.dir)).toHaveLength(3)
  })
})

describe('a corrupt or foreign entry is a miss, never an error, and is written again', () => {
  /** Compiles once, spoils the one entry with `spoil`, then: a miss that compiles, rewrites, and a third compiler hits. */
  async function spoiled(spoil: (entry: string, root: string) => void, rewritten = true) {
    const p = project(BENZENE)
    const file = p.file(BENZENE)
    const fresh = plain(await cached(p.dir, p.root).compiler.compile(file))
    const [name] = entries(p.dir)
    const entry = join(p.dir, name!)
    spoil(entry, p.root)
    const second = cached(p.dir, p.root)
    expect(plain(await second.compiler.compile(file))).toEqual(fresh)
    await settle()
    expect(second.compiler.compilations).toBe(1)
    expect(second.cache.misses).toBe(1)
    expect(second.cache.writes).toBe(rewritten ? 1 : 0)
    const third = cached(p.dir, p.root)
    await third.compiler.compile(file)
    expect(third.compiler.compilations).toBe(rewritten ? 0 : 1)
    return { entry, root: p.root }
  }
  /** An entry's parts: the header line, the digest line, the body. */
  const parts = (entry: string) => {
    const [header, , ...rest] = readFileSync(entry, 'utf8').split('\n')
    return { header: header!, body: JSON.parse(rest.join('\n')) as Record<string, unknown> }
  }
  /** Writes an entry whose digest matches its (edited) body: whole, but not this question's answer. */
  const rewrite = (entry: string, edit: (body: Record<string, unknown>) => unknown) => {
    const { header, body } = parts(entry)
    const json = JSON.stringify(edit(body) ?? body)
    writeFileSync(entry, `${header}\n${sha256(json)}\n${json}`)
  }

  it('truncated', () => spoiled((entry) => writeFileSync(entry, readFileSync(entry).subarray(0, readFileSync(entry).length >> 1))))
  it('a byte flipped in the body', () =>
    spoiled((entry) => {
      const bytes = readFileSync(entry)
      bytes[bytes.length - 40] ^= 0x01
      writeFileSync(entry, bytes)
    }))
  it('a body that is not JSON (its digest right)', () =>
    spoiled((entry) => {
      const { header } = parts(entry)
      writeFileSync(entry, `${header}\n${sha256('{"schema": 1,')}\n{"schema": 1,`)
    }))
  it('JSON of another shape (its digest right)', () => spoiled((entry) => rewrite(entry, (body) => ({ ...body, result: { code: 5, diagnostics: 'none' } }))))
  it('an entry written by another version of the package', () =>
    spoiled((entry) => rewrite(entry, (body) => ({ ...body, compiler: `0.0.1+${codeIdentity()}` }))))
  it('an entry of another question copied under this name (a foreign entry)', () =>
    spoiled((entry) => rewrite(entry, (body) => ({ ...body, key: sha256('x') }))))
  it('an entry bound to another checkout', () => spoiled((entry) => rewrite(entry, (body) => ({ ...body, root: '/elsewhere' }))))
  it('an entry whose input digest is not the file’s', () =>
    spoiled((entry) =>
      rewrite(entry, (body) => ({ ...body, inputs: (body.inputs as Array<[string, string]>).map(([path]) => [path, sha256('another text')]) })),
    ))
  it('a symbolic link planted in its place: removed, its target untouched, the entry written as a file', async () => {
    const target = join(work, `target-${made++}.txt`)
    mkdirSync(work, { recursive: true })
    writeFileSync(target, 'not the cache\n')
    const { entry } = await spoiled((entry) => {
      rmSync(entry)
      symlinkSync(target, entry)
    })
    expect(lstatSync(entry).isFile()).toBe(true)
    expect(readFileSync(target, 'utf8')).toBe('not the cache\n')
  })
  it('a file without the generated-file marker in its place: a miss, and left as it is', async () => {
    const { entry } = await spoiled((entry) => writeFileSync(entry, 'someone else’s file\n'), false)
    expect(readFileSync(entry, 'utf8')).toBe('someone else’s file\n')
  })
  it('a folder in its place: a miss, and left as it is', async () => {
    const { entry } = await spoiled((entry) => {
      rmSync(entry)
      mkdirSync(entry)
    }, false)
    expect(statSync(entry).isDirectory()).toBe(true)
  })
  it.runIf(process.platform !== 'win32')('a cache folder any user may write to is neither read nor written', async () => {
    const p = project(BENZENE)
    const file = p.file(BENZENE)
    await cached(p.dir, p.root).compiler.compile(file)
    await settle()
    chmodSync(p.dir, 0o777)
    const { compiler, cache } = cached(p.dir, p.root)
    await compiler.compile(file)
    await settle()
    expect(compiler.compilations).toBe(1)
    expect(cache.writes).toBe(0)
  })
})

describe('what is never written', () => {
  it('a compiler without a cache writes nothing (the plugin’s `cache: false`, the CLI’s --no-cache)', async () => {
    const p = project(BENZENE)
    const before = readdirSync(p.root, { recursive: true })
    await new ContractCompiler().compile(p.file(BENZENE))
    expect(readdirSync(p.root, { recursive: true })).toEqual(before)
  })

  it('a result that depends on a read that failed (a missing file may be created)', async () => {
    const p = project(BENZENE)
    const { compiler, cache } = cached(p.dir, p.root)
    const result = await compiler.compile(p.file('fixtures/missing.spec.json'))
    await settle()
    expect(result.diagnostics.map((d) => d.code)).toEqual(['CONTRACTS_READ_FAILED'])
    expect(cache.writes).toBe(0)
    expect(entries(p.dir)).toEqual([])
  })

  it('a compile with refused options (which resolve to the defaults): neither cache answers the defaults with its refusal', async () => {
    const p = project(BENZENE, NATS)
    const refused = [
      [BENZENE, { benzene: { validators: 'fast' as never } }],
      [NATS, { nats: { validators: 'fast' as never } }],
    ] as const
    for (const [fixture, options] of refused) {
      const { compiler, cache } = cached(p.dir, p.root)
      const first = await compiler.compile(p.file(fixture), options)
      await settle()
      expect(
        first.diagnostics.map((d) => d.severity),
        fixture,
      ).toContain('error')
      expect(cache.writes, fixture).toBe(0)
      // The same compiler, then a new one reading the same folder: the defaults compile clean.
      const again = await compiler.compile(p.file(fixture))
      expect([again.diagnostics, typeof again.code], fixture).toEqual([[], 'string'])
      const fresh = await cached(p.dir, p.root).compiler.compile(p.file(fixture))
      expect([fresh.diagnostics, typeof fresh.code], fixture).toEqual([[], 'string'])
    }
  })

  it('a bug (CONTRACTS_INTERNAL), in generating the module or its declarations', async () => {
    const p = project()
    mkdirSync(p.root, { recursive: true })
    const file = join(p.root, 'one.fake.json')
    writeFileSync(file, '"x"')
    const fake = (broken: 'code' | 'dts'): ContractFormat<string, string, string, undefined> => ({
      name: 'fake',
      match: (f) => f.endsWith('.fake.json'),
      queryKeys: [],
      resolveOptions: () => ({ options: undefined, diagnostics: [] }),
      load: async (f, host) => ({ input: await host.readText(f), diagnostics: [] }),
      check: (input) => ({ checked: input, diagnostics: [] }),
      model: (checked) => ({ model: checked, diagnostics: [] }),
      generate: (model) => {
        if (broken === 'code') throw new Error('a bug')
        return {
          code: `export default ${model}\n`,
          exports: ['default'],
          get dts(): string {
            throw new Error('a bug')
          },
        }
      },
      inspect: () => ({ data: null, text: [] }),
      hash: () => ({ usage: 'none' }),
    })
    for (const broken of ['code', 'dts'] as const) {
      const cache = new PersistentCache({ dir: p.dir, root: p.root })
      const result = await new CoreCompiler({ formats: [fake(broken)], cache }).compile(file)
      void result.dts
      await settle()
      expect(result.diagnostics.map((d) => d.code)).toEqual(['CONTRACTS_INTERNAL'])
      expect(cache.writes, broken).toBe(0)
    }
    expect(entries(p.dir)).toEqual([])
  })
})

describe('the size bound', () => {
  it('past the bound, the least recently used entries are removed until three quarters of it are left', async () => {
    const p = project(BENZENE)
    const file = p.file(BENZENE)
    const probe = cached(join(p.root, 'probe'), p.root)
    await probe.compiler.compile(file)
    await settle()
    const size = statSync(join(probe.cache.dir, entries(probe.cache.dir)[0]!)).size
    // Room for about five entries of this size; eight variants (one per `validate` and query) are written.
    const bound = size * 5 + 100
    const variants: Array<Record<string, unknown>> = ['both', 'request', 'response', false].flatMap((validate) => [
      { benzene: { validate } },
      { benzene: { validate }, query: 'includeReserved' },
    ])
    let day = 1
    for (const options of variants) {
      const { compiler } = cached(p.dir, p.root, bound)
      await compiler.compile(file, options)
      await settle()
      // Each entry a day older than the next, so their order of use is plain.
      for (const name of entries(p.dir)) {
        const path = join(p.dir, name)
        const t = statSync(path).mtimeMs / 1000
        if (t > 86_400 * 100) utimesSync(path, day, day)
      }
      day++
    }
    const left = entries(p.dir)
    const total = left.reduce((sum, name) => sum + statSync(join(p.dir, name)).size, 0)
    expect(total).toBeLessThanOrEqual(bound)
    expect(left.length).toBeGreaterThanOrEqual(3)
    expect(left.length).toBeLessThan(variants.length)
    // The newest variants are the ones kept.
    const { compiler } = cached(p.dir, p.root, bound)
    await compiler.compile(file, variants.at(-1))
    expect(compiler.compilations).toBe(0)
  })

  it('an entry whose time is in the future (a clock set back, a cache restored from a machine ahead) is marked used when read and evicted first when not', async () => {
    const p = project(BENZENE)
    // Five contracts (copies of one under other names), an entry each; the bound holds four, not five.
    const files = ['a', 'b', 'c', 'd', 'e'].map((n) => {
      const copy = p.file(BENZENE.replace('payments.spec.json', `${n}.spec.json`))
      cpSync(p.file(BENZENE), copy)
      return copy
    })
    const probe = cached(join(p.root, 'probe'), p.root)
    await probe.compiler.compile(files[0]!)
    await settle()
    const bound = Math.floor(statSync(join(probe.cache.dir, entries(probe.cache.dir)[0]!)).size * 4.5)
    for (const file of files.slice(0, 4)) {
      await cached(p.dir, p.root, bound).compiler.compile(file)
      await settle()
    }
    expect(entries(p.dir)).toHaveLength(4)
    const future = new Date('2100-01-01T00:00:00Z')
    const timeOf = (name: string) => statSync(join(p.dir, name)).mtimeMs
    for (const name of entries(p.dir)) utimesSync(join(p.dir, name), future, future)
    // Read: a hit, and its entry's time is now again (the other three keep theirs).
    const reader = cached(p.dir, p.root, bound).compiler
    await reader.compile(files[0]!)
    expect(reader.compilations).toBe(0)
    expect(entries(p.dir).filter((name) => timeOf(name) < future.getTime())).toHaveLength(1)
    expect(Math.min(...entries(p.dir).map(timeOf))).toBeLessThanOrEqual(Date.now())
    // Past the bound (down to three quarters of it: three entries), the unread future-dated entries
    // go first: one of them is left, beside the read one and the new one.
    await cached(p.dir, p.root, bound).compiler.compile(files[4]!)
    await settle()
    expect(entries(p.dir)).toHaveLength(3)
    expect(entries(p.dir).filter((name) => timeOf(name) >= future.getTime())).toHaveLength(1)
    for (const file of [files[0]!, files[4]!]) {
      const { compiler } = cached(p.dir, p.root, bound)
      await compiler.compile(file)
      expect(compiler.compilations, file).toBe(0)
    }
  })

  it('an entry larger than a quarter of the bound is not written', async () => {
    const p = project(BENZENE)
    const { compiler, cache } = cached(p.dir, p.root, 1024)
    await compiler.compile(p.file(BENZENE))
    await settle()
    expect(cache.writes).toBe(0)
  })
})

describe('two processes at once', () => {
  it('compiling the same contracts into one folder leave a cache that verifies and answers', async () => {
    const shop = ShopBundle.copy('persistent-cache-race')
    const p = project(BENZENE, NATS, ...DASP_FIXTURES)
    const files = [p.file(BENZENE), p.file(NATS), p.file(DASP), shop.doc('orders'), shop.doc('payments')]
    const dir = join(work, `shared-${made++}`)
    const script = join(work, `race-${made++}.ts`)
    // Each process compiles every file, with and without declarations, in fresh compilers, over and over,
    // with the code this test runs (the cache's key holds the code's identity).
    writeFileSync(
      script,
      `import { ContractCompiler } from ${JSON.stringify(suiteModule('src/index.ts'))}
import { PersistentCache } from ${JSON.stringify(suiteModule('src/core/persistent-cache.ts'))}
const files = ${JSON.stringify(files)}
for (let round = 0; round < 4; round++) {
  const compiler = new ContractCompiler({ cache: new PersistentCache({ dir: ${JSON.stringify(dir)}, root: '/' }) })
  for (const file of files) {
    const result = await compiler.compile(file, { declarations: round % 2 === 1 })
    if (round % 2 === 1) void result.dts
  }
}
`,
    )
    const run = () =>
      new Promise<number>((done, fail) => {
        const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'] })
        const timer = setTimeout(() => child.kill(), 100_000)
        child.on('error', fail)
        child.on('exit', (code) => (clearTimeout(timer), done(code ?? -1)))
      })
    expect(await Promise.all([run(), run()])).toEqual([0, 0])
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([])
    const cache = new PersistentCache({ dir, root: '/' })
    const compiler = new ContractCompiler({ cache })
    const fresh = new ContractCompiler()
    for (const file of files) expect(plain(await compiler.compile(file)), relative(repo, file)).toEqual(plain(await fresh.compile(file)))
    expect(compiler.compilations).toBe(0)
    expect(cache.hits).toBe(files.length)
  })
})
