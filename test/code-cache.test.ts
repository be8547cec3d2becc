/**
 * V8's code cache of the built validators (src/core/code-cache.ts): made on the user's machine, in
 * a folder of this user's, and used only for the exact text it was made from. The package ships no
 * compiled code. Each case runs the built loader in child processes, since a cache is written
 * when a process exits.
 */
import { spawnSync } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { createHash, createHmac, randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { Script } from 'node:vm'
import { afterAll, describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '..')
const loader = join(root, 'dist/src/core/lazy-require.js')
const work = mkdtempSync(join(tmpdir(), 'code-cache-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

let made = 0
function fresh(): { cacheRoot: string; dir: string } {
  const cacheRoot = join(work, `c${made++}`)
  return { cacheRoot, dir: join(cacheRoot, 'v8') }
}

/**
 * Loads `file` with the built loader in a child process (`flags`: V8 flags for it); what it
 * exported (called) and whether the cache was used.
 */
function load(file: string, cacheRoot: string, env: Record<string, string> = {}, flags: string[] = []): { cache: string; value: unknown } {
  const program = `import { loadBuilt } from ${JSON.stringify(loader)}
const r = loadBuilt(${JSON.stringify(file)})
const value = typeof r.exports === 'function' ? r.exports() : r.exports
console.log(JSON.stringify({ cache: r.cache, value }))`
  const r = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', program], {
    encoding: 'utf8',
    // Bounded: a process held by a file it should not have waited on fails here, not at the test's timeout.
    timeout: 60_000,
    env: { ...process.env, UNPLUGIN_CONTRACTS_CACHE_DIR: cacheRoot, UNPLUGIN_CONTRACTS_CODE_CACHE: '', ...env },
  })
  expect(r.stderr).toBe('')
  return JSON.parse(r.stdout)
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex')
/** The hash of V8's flags in the header of the data V8 makes, in a child started as `load` starts them (`flags` added), in hex. */
function flagsWord(flags: string[] = []): string {
  const program = `process.stdout.write(new (require('node:vm').Script)('0').createCachedData().readUInt32LE(12).toString(16).padStart(8, '0'))`
  const r = spawnSync(process.execPath, [...flags, '-e', program], { encoding: 'utf8' })
  expect(r.stdout).toMatch(/^[0-9a-f]{8}$/)
  return r.stdout
}
const plainFlags = flagsWord()
const cacheName = (text: string, flags = plainFlags) => `${digest(text)}-${process.versions.v8.replace(/[^0-9A-Za-z.]/g, '_')}-${flags}.v8-cache`
const wrap = (source: string) => `(function (exports, require, module, __filename, __dirname) {${source}\n})`
/** V8's data for `source`, compiled and run as the loader would. */
function v8Data(source: string): Buffer {
  const script = new Script(wrap(source))
  script.runInThisContext()
  return script.createCachedData()
}

/** A built file's text and another script of the very same length that answers otherwise. */
function twins(dir: string): { file: string; real: string; other: string } {
  mkdirSync(dir, { recursive: true })
  const real = 'module.exports = () => "real"'
  const other = 'module.exports = () => "evil"'
  expect(other.length).toBe(real.length)
  const file = join(dir, 'validator.cjs')
  writeFileSync(file, real)
  return { file, real, other }
}

describe('the code cache of the built validators', () => {
  it('is not in the package: the build writes no compiled code', () => {
    const found: string[] = []
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name)
        if (entry.isDirectory()) walk(path)
        else if (/\.v8-cache$|\.jsc$|\.bin$/.test(entry.name)) found.push(relative(root, path))
      }
    }
    walk(join(root, 'dist'))
    expect(found).toEqual([])
  })

  it('is made on the first run in a folder only this user can write, and used by the next run', () => {
    const { cacheRoot, dir } = fresh()
    const { file, real } = twins(join(work, 'first'))
    expect(load(file, cacheRoot)).toEqual({ cache: 'none', value: 'real' })
    const cache = join(dir, cacheName(real))
    expect(existsSync(cache)).toBe(true)
    expect((statSync(dir).mode & 0o777).toString(8)).toBe('700')
    expect((statSync(cache).mode & 0o777).toString(8)).toBe('600')
    expect((statSync(join(dir, 'key')).mode & 0o777).toString(8)).toBe('600')
    expect(load(file, cacheRoot)).toEqual({ cache: 'used', value: 'real' })
  })

  it('is kept per V8 configuration: processes under other V8 flags make caches of their own, and neither replaces the other', () => {
    const { cacheRoot, dir } = fresh()
    const { file, real } = twins(join(work, 'flags'))
    const other = ['--max-old-space-size=200']
    expect(flagsWord(other)).not.toBe(plainFlags)
    expect(load(file, cacheRoot)).toEqual({ cache: 'none', value: 'real' })
    const plain = readFileSync(join(dir, cacheName(real)))
    expect(load(file, cacheRoot, {}, other)).toEqual({ cache: 'none', value: 'real' })
    expect(existsSync(join(dir, cacheName(real, flagsWord(other))))).toBe(true)
    // Alternating, each is used and none is written again.
    for (let round = 0; round < 2; round++) {
      expect(load(file, cacheRoot)).toEqual({ cache: 'used', value: 'real' })
      expect(load(file, cacheRoot, {}, other)).toEqual({ cache: 'used', value: 'real' })
    }
    expect(readFileSync(join(dir, cacheName(real))).equals(plain)).toBe(true)
  })

  it('is used for the precompiled AsyncAPI validator after one run', () => {
    const { cacheRoot } = fresh()
    const file = join(root, 'dist/src/formats/nats/asyncapi-validators.cjs')
    const first = load(file, cacheRoot)
    const second = load(file, cacheRoot)
    expect([first.cache, second.cache]).toEqual(['none', 'used'])
  })

  it('the attack as reported: V8 data of another script of the same length, beside the file under the real text digest, is never read', () => {
    const { cacheRoot } = fresh()
    const { file, real, other } = twins(join(work, 'beside'))
    // The package-shipped form the loader used to read: SHA-256 of the real text, then V8's data of the other script.
    writeFileSync(`${file}.v8-cache`, Buffer.concat([Buffer.from(digest(real), 'latin1'), v8Data(other)]))
    expect(load(file, cacheRoot)).toEqual({ cache: 'none', value: 'real' })
  })

  it('the attack in the cache folder: data of another script under the real name, without this machine key, is refused', () => {
    const { cacheRoot, dir } = fresh()
    const { file, real, other } = twins(join(work, 'planted'))
    load(file, cacheRoot) // makes the folder, the key and an honest cache
    const data = v8Data(other)
    // A MAC under a key the planter chose, and one with no MAC at all (the data where the MAC goes).
    const foreignMac = createHmac('sha256', randomBytes(32)).update(digest(real)).update('\0').update(process.versions.v8).update('\0').update(data).digest()
    for (const planted of [Buffer.concat([foreignMac, data]), Buffer.concat([Buffer.alloc(32), data]), data]) {
      writeFileSync(join(dir, cacheName(real)), planted, { mode: 0o600 })
      expect(load(file, cacheRoot)).toEqual({ cache: 'none', value: 'real' })
    }
  })

  it('is not used for a file rebuilt since, even of the same length (V8 alone checks only the length)', () => {
    const { cacheRoot } = fresh()
    const { file, other } = twins(join(work, 'rebuilt'))
    expect(load(file, cacheRoot).value).toBe('real')
    expect(load(file, cacheRoot)).toEqual({ cache: 'used', value: 'real' })
    writeFileSync(file, other)
    expect(load(file, cacheRoot)).toEqual({ cache: 'none', value: 'evil' })
  })

  it('follows no link and trusts nothing others can write: such a cache, key or folder is neither read nor written through', () => {
    const { file, real } = twins(join(work, 'links'))
    // An honest cache, made elsewhere, then moved aside and linked to from the cache's name.
    const honest = fresh()
    load(file, honest.cacheRoot)
    const cache = join(honest.dir, cacheName(real))
    renameSync(cache, `${cache}.aside`)
    symlinkSync(`${cache}.aside`, cache)
    const before = readFileSync(`${cache}.aside`)
    expect(load(file, honest.cacheRoot)).toEqual({ cache: 'none', value: 'real' })
    expect(lstatSync(cache).isSymbolicLink()).toBe(true)
    expect(readFileSync(`${cache}.aside`).equals(before)).toBe(true)

    // A cache file others may write.
    const writable = fresh()
    load(file, writable.cacheRoot)
    chmodSync(join(writable.dir, cacheName(real)), 0o666)
    expect(load(file, writable.cacheRoot).cache).toBe('none')

    // A key others may read.
    const readable = fresh()
    load(file, readable.cacheRoot)
    chmodSync(join(readable.dir, 'key'), 0o644)
    expect(load(file, readable.cacheRoot).cache).toBe('none')

    // The cache folder itself a link to an honest folder: not used, nothing written into it.
    const target = fresh()
    load(file, target.cacheRoot)
    const linked = fresh()
    mkdirSync(linked.cacheRoot, { recursive: true })
    symlinkSync(target.dir, linked.dir)
    const listing = readdirSync(target.dir).sort()
    expect(load(file, linked.cacheRoot).cache).toBe('none')
    expect(readdirSync(target.dir).sort()).toEqual(listing)

    // A folder others may write.
    const open = fresh()
    load(file, open.cacheRoot)
    chmodSync(open.dir, 0o777)
    expect(load(file, open.cacheRoot).cache).toBe('none')
  })

  it('waits on no FIFO: one under the cache’s name or the key’s is neither read nor replaced, and the run goes on without a cache', () => {
    const { file, real } = twins(join(work, 'fifos'))
    for (const name of [cacheName(real), 'key']) {
      const at = fresh()
      load(file, at.cacheRoot)
      rmSync(join(at.dir, name))
      spawnSync('mkfifo', [join(at.dir, name)])
      expect(load(file, at.cacheRoot), name).toEqual({ cache: 'none', value: 'real' })
      expect(lstatSync(join(at.dir, name)).isFIFO(), name).toBe(true)
    }
  })

  it('is pruned after a write: caches it wrote that no process used for 30 days, and the oldest past 64; never a file it did not write, nor a link', () => {
    const { cacheRoot, dir } = fresh()
    const texts = (name: string) => {
      const file = join(work, 'prune', `${name}.cjs`)
      mkdirSync(join(work, 'prune'), { recursive: true })
      writeFileSync(file, `module.exports = () => ${JSON.stringify(name)}`)
      return { file, text: readFileSync(file, 'utf8') }
    }
    const used = texts('used')
    expect(load(used.file, cacheRoot).cache).toBe('none')
    const key = readFileSync(join(dir, 'key'))
    const v8 = process.versions.v8.replace(/[^0-9A-Za-z.]/g, '_')
    /** A cache as the package writes it: V8's data of the text, sealed under `sealKey` for `version`. */
    const sealed = (text: string, version = process.versions.v8, sealKey = key) => {
      const data = v8Data(text)
      const mac = createHmac('sha256', sealKey).update(digest(text)).update('\0').update(version).update('\0').update(data).digest()
      return Buffer.concat([mac, data])
    }
    const daysAgo = (days: number) => Date.now() / 1000 - days * 24 * 60 * 60
    const plant = (name: string, bytes: Buffer, days: number) => {
      writeFileSync(join(dir, name), bytes, { mode: 0o600 })
      utimesSync(join(dir, name), daysAgo(days), daysAgo(days))
      return name
    }
    const other = (n: number) => `module.exports = () => "other-${n}"`
    const removed = [
      // Another text (an older build of a validator), unused for 40 days.
      plant(`${digest(other(1))}-${v8}-${plainFlags}.v8-cache`, sealed(other(1)), 40),
      // Named as caches were before they named V8's flags.
      plant(`${digest(other(2))}-${v8}.v8-cache`, sealed(other(2)), 40),
      // Another V8's (sealed under its version as Node spells it).
      plant(`${digest(other(3))}-10.2.154.26_node.26-${plainFlags}.v8-cache`, sealed(other(3), '10.2.154.26-node.26'), 40),
      // A write a process did not finish, whole but not renamed, two days old.
      plant(`${digest(other(4))}-${v8}-${plainFlags}.v8-cache.4242.0123456789ab.tmp`, sealed(other(4)), 2),
    ]
    // Used by another configuration last week.
    const lastWeek = plant(`${digest(other(5))}-${v8}-0badf1a9.v8-cache`, sealed(other(5)), 7)
    const foreign = [
      // Named as a cache, but not sealed under this folder's key, or not sealed at all: not the package's.
      plant(`${digest(other(6))}-${v8}-${plainFlags}.v8-cache`, sealed(other(6), process.versions.v8, randomBytes(32)), 400),
      plant(`${digest(other(7))}-${v8}-${plainFlags}.v8-cache`, Buffer.from('notes of mine\n'), 400),
      // A temp file cut short, and a file of another name.
      plant(`${digest(other(8))}-${v8}-${plainFlags}.v8-cache.4242.0123456789ab.tmp`, sealed(other(8)).subarray(0, 40), 400),
      plant('notes.txt', Buffer.from('mine\n'), 400),
    ]
    // A link named as a cache, to an old sealed cache outside the folder: neither is removed.
    const outside = join(work, 'prune', 'outside.v8-cache')
    writeFileSync(outside, sealed(other(9)), { mode: 0o600 })
    utimesSync(outside, daysAgo(400), daysAgo(400))
    const link = `${digest(other(9))}-${v8}-${plainFlags}.v8-cache`
    symlinkSync(outside, join(dir, link))
    // The cache in use: made 40 days ago, used now, which marks it used.
    utimesSync(join(dir, cacheName(used.text)), daysAgo(40), daysAgo(40))
    expect(load(used.file, cacheRoot).cache).toBe('used')

    const listing = () => readdirSync(dir).sort()
    const before = listing()
    const written = texts('written')
    expect(load(written.file, cacheRoot).cache).toBe('none')
    expect(listing()).toEqual([...before.filter((name) => !removed.includes(name)), cacheName(written.text)].sort())
    for (const name of [...foreign, lastWeek, cacheName(used.text), 'key']) expect(listing()).toContain(name)
    expect(lstatSync(join(dir, link)).isSymbolicLink()).toBe(true)
    expect(existsSync(outside)).toBe(true)

    // At most 64 caches: past that, the ones used longest ago go, the one just written stays.
    const many = Array.from({ length: 70 }, (_, i) => plant(`${digest(other(100 + i))}-${v8}-${plainFlags}.v8-cache`, sealed(other(100 + i)), 1 + i / 100))
    const last = texts('last')
    expect(load(last.file, cacheRoot).cache).toBe('none')
    const caches = listing().filter((name) => /\.v8-cache$/.test(name) && !lstatSync(join(dir, name)).isSymbolicLink())
    const ours = caches.filter((name) => !foreign.includes(name))
    expect(ours).toHaveLength(64)
    expect(ours).toContain(cacheName(last.text))
    expect(ours).toContain(many[0])
    expect(ours).not.toContain(many[69])
    expect(ours).not.toContain(lastWeek)
    for (const name of foreign) expect(listing()).toContain(name)
  })

  it('is off with UNPLUGIN_CONTRACTS_CODE_CACHE=0: nothing read, nothing written', () => {
    const { cacheRoot } = fresh()
    const { file } = twins(join(work, 'off'))
    expect(load(file, cacheRoot, { UNPLUGIN_CONTRACTS_CODE_CACHE: '0' })).toEqual({ cache: 'none', value: 'real' })
    expect(existsSync(cacheRoot)).toBe(false)
  })

  it('a cache of this machine is the same bytes V8 makes for the text (nothing else is mixed in)', () => {
    const { cacheRoot, dir } = fresh()
    const { file, real } = twins(join(work, 'bytes'))
    load(file, cacheRoot)
    const written = readFileSync(join(dir, cacheName(real)))
    const key = readFileSync(join(dir, 'key'))
    const data = written.subarray(32)
    const mac = createHmac('sha256', key).update(digest(real)).update('\0').update(process.versions.v8).update('\0').update(data).digest()
    expect(written.subarray(0, 32).equals(mac)).toBe(true)
    // V8 accepts it for the text it was made from.
    const script = new Script(wrap(real), { cachedData: data })
    expect(script.cachedDataRejected).toBe(false)
  })
})
