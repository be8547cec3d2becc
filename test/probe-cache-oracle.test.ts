/**
 * An outside ORACLE and a HOSTILE pass for the persistent compile cache, the worker-thread compile
 * pool (`workers`) and `contracts inputs`, driven only through the package's public API, the CLI and
 * a real bundler.
 *
 * The oracle: a seeded random sequence of edits over a small project of every format (a Benzene
 * spec with an external `$ref` file, the NATS shop bundle with its lock and locked documents, a NATS
 * document outside any bundle with a `$ref`'d file, a DASP selection with its definitions and pins):
 * a byte edited in any file (its size and mtime kept, half the time), a file added where a compile
 * looked and found none, a file removed or renamed, a touch without change, an older version of a
 * file restored with its old mtime, the bundle relocked, the options and the import query changed.
 * After each step every contract is compiled by a NEW compiler backed by one cache folder shared
 * across steps (only the disk can answer) and by a fresh compiler without a cache: the two results
 * must be the same (module, declarations, source map, diagnostics, files depended on and looked at).
 * `contracts inputs` is the oracle for the files a result depends on: an edit of a path it did not
 * name never changes the result.
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { userInfo } from 'node:os'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ContractCompiler, PersistentCache, type CompileOptions, type CompileResult } from '../src/index.js'
import { bounded } from './helpers/bounded.js'
import { contractsInProcess } from './helpers/cli.js'
import { ShopBundle } from './helpers/nats-bundle.js'
import { random } from './helpers/seeded-random.js'

const repo = join(import.meta.dirname, '..')
const work = join(import.meta.dirname, '.tmp/probe-cache-oracle', String(process.pid))
mkdirSync(work, { recursive: true })
afterAll(() => rmSync(work, { recursive: true, force: true }))

let made = 0
const sha = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex')
/** The next turn of the event loop (a compile whose declarations were not read by then is kept without them). */
const settle = () => new Promise((done) => setImmediate(done))
const entries = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => /^[0-9a-f]{64}\.entry$/.test(n)) : [])
const entryBytes = (dir: string) => entries(dir).reduce((sum, n) => sum + statSync(join(dir, n)).size, 0)

/** What a result says, its getters read, as plain data. */
function shown(r: CompileResult) {
  const { code, dts, map, exports, identity, diagnostics, dependencies, absentDependencies, file, format } = r
  return JSON.parse(JSON.stringify({ code, dts, map, exports, identity, diagnostics, dependencies, absentDependencies, file, format })) as Record<
    string,
    unknown
  >
}

/** A compiler backed by the cache folder `dir` for the project at `root`. */
function cachedCompiler(dir: string, root: string, maxBytes?: number) {
  const cache = new PersistentCache({ dir, root, maxBytes })
  return { cache, compiler: new ContractCompiler({ cache }) }
}

/** A compile as a build makes it: the declarations read at once when asked for. */
async function compileAs(compiler: ContractCompiler, file: string, options: CompileOptions) {
  const result = await compiler.compile(file, options)
  if (options.declarations !== false) void result.dts
  return result
}

/** All files under `dir` (relative, `/`-separated), links and all, sorted. */
function walk(dir: string, base = dir): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    const st = lstatSync(path)
    if (st.isDirectory()) out.push(...walk(path, base))
    else out.push(relative(base, path).split(sep).join('/'))
  }
  return out.sort()
}

/** What the tree holds, by path: the digest of each file's bytes (mtimes left out: a touch is no change). */
function snapshot(root: string): Map<string, string> {
  const map = new Map<string, string>()
  for (const rel of walk(root)) {
    const path = join(root, rel)
    map.set(rel, lstatSync(path).isSymbolicLink() ? 'link' : sha(readFileSync(path)))
  }
  return map
}

// A fixed whole-second mtime for every file of a project: restoring an older version with its old
// mtime (and an edit that keeps the size and the mtime) then leaves exactly the stat a cache saw.
const EPOCH = 1_700_000_000

/**
 * The oracle's project: every format, each with the files it reads and some it does not. The
 * contracts' paths relative to the project root.
 */
const CONTRACTS = [
  'benzene/payments.spec.json',
  'benzene/ext.spec.json',
  'shop/orders/asyncapi/asyncapi.yaml',
  'shop/payments/asyncapi/asyncapi.yaml',
  'single/svc/ledger.asyncapi.yaml',
  'dasp/counter.dasp.json',
] as const

function oracleProject(): string {
  const root = join(work, `oracle-${made++}`)
  mkdirSync(root, { recursive: true })
  writeFileSync(join(root, 'package.json'), '{ "name": "oracle", "private": true }\n')
  // Benzene: a valid spec, and one whose schema names an external file (contract documents allow
  // none: BENZENE_REF_FORM; the file is never read).
  cpSync(join(repo, 'fixtures/benzene/valid/payments.spec.json'), join(root, 'benzene/payments.spec.json'))
  const spec = JSON.parse(readFileSync(join(repo, 'fixtures/benzene/valid/payments.spec.json'), 'utf8')) as { components: { schemas: Record<string, unknown> } }
  spec.components.schemas.Ext = { $ref: 'money.json#/Money' }
  writeFileSync(join(root, 'benzene/ext.spec.json'), JSON.stringify(spec, null, 2) + '\n')
  writeFileSync(join(root, 'benzene/money.json'), '{ "Money": { "type": "integer" } }\n')
  // NATS: the shop bundle (a lock, three locked documents, a native file, a workflow).
  cpSync(join(repo, 'fixtures/nats/shop'), join(root, 'shop'), { recursive: true })
  // NATS: a document outside any bundle whose payload names a file (NATS_BUNDLE_REQUIRED until a lock is made above it).
  mkdirSync(join(root, 'single/svc'), { recursive: true })
  const ledger = readFileSync(join(repo, 'fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8').replace(
    'cents: { type: integer }',
    "cents: { $ref: 'money.json#/Money' }",
  )
  expect(ledger).toContain('money.json')
  writeFileSync(join(root, 'single/svc/ledger.asyncapi.yaml'), ledger)
  writeFileSync(join(root, 'single/svc/money.json'), '{ "Money": { "type": "integer", "minimum": 0 } }\n')
  // DASP: the selection, its definitions and their pins.
  cpSync(join(repo, 'fixtures/dasp/counter.dasp.json'), join(root, 'dasp/counter.dasp.json'))
  for (const part of ['extensions', 'pins']) cpSync(join(repo, 'fixtures/dasp', part), join(root, 'dasp', part), { recursive: true })
  for (const rel of walk(root)) utimesSync(join(root, rel), EPOCH, EPOCH)
  return root
}

/** A lock in `folder` (relative to root) locking the single document and its `$ref`'d file, or junk. */
function singleLock(root: string, folder: string, rand: () => number): string {
  const r = rand()
  if (r < 0.2) return 'not a lock\n'
  if (r < 0.35) return '{ "entries": [] }\n'
  const entries = ['single/svc/ledger.asyncapi.yaml', 'single/svc/money.json']
    .filter((rel) => existsSync(join(root, rel)))
    .map((rel) => ({ path: relative(join(root, folder), join(root, rel)).split(sep).join('/'), sha256: sha(readFileSync(join(root, rel))) }))
  return JSON.stringify({ entries }, null, 2) + '\n'
}

interface Options {
  declarations: boolean
  query: string
  benzene: Record<string, unknown>
  nats?: Record<string, unknown>
}
const BENZENE_OPTIONS: Array<Record<string, unknown>> = [{}, { names: { 'payments:capture': 'takeMoney' } }, { validate: 'request' }, { validators: 'data' }]
const QUERIES = ['', 'topics=payments:capture', 'includeReserved', 'validate=false']
const NATS_OPTIONS: Array<Record<string, unknown> | undefined> = [undefined, { validators: 'code' }, { validators: 'data' }]

function compileOptions(rel: string, o: Options): CompileOptions {
  if (rel.endsWith('.spec.json')) return { declarations: o.declarations, query: o.query, benzene: o.benzene } as CompileOptions
  if (rel.endsWith('.yaml') && o.nats) return { declarations: o.declarations, nats: o.nats } as CompileOptions
  return { declarations: o.declarations }
}

interface Listed {
  contracts: Array<{ file: string; inputs: string[]; absent: string[] }>
}

/**
 * One seeded run: `steps` random edits of the oracle project, and after each the three answers
 * (cached, fresh, `contracts inputs`) held to each other.
 */
async function oracleRun(seed: number, steps: number) {
  const rand = random(seed)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!
  const root = oracleProject()
  const dir = join(work, `oracle-cache-${seed}-${made++}`)
  const history = new Map<string, Array<{ bytes: Buffer; mtime: number }>>()
  const save = (rel: string) => {
    const path = join(root, rel)
    if (!existsSync(path) || lstatSync(path).isSymbolicLink() || !lstatSync(path).isFile()) return
    const list = history.get(rel) ?? []
    list.push({ bytes: readFileSync(path), mtime: statSync(path).mtimeMs / 1000 })
    history.set(rel, list)
  }
  let options: Options = { declarations: true, query: '', benzene: {} }
  const log: string[] = []

  /** Every contract compiled the three ways; returns the fresh results and the inputs `contracts inputs` names. */
  async function answers() {
    const fresh = new Map<string, Record<string, unknown>>()
    const inputs = new Map<string, Set<string>>()
    for (const rel of CONTRACTS) {
      const file = join(root, rel)
      const asked = compileOptions(rel, options)
      const viaCache = cachedCompiler(dir, root)
      const cached = shown(await compileAs(viaCache.compiler, file, asked))
      await settle()
      const plain = shown(await compileAs(new ContractCompiler(), file, asked))
      expect(cached, `seed ${seed}: ${rel} after ${log.join(' | ')}`).toEqual(plain)
      fresh.set(rel, plain)
      // A clean result is kept: a third compiler is answered from the disk, with the same result.
      if ((plain.diagnostics as Array<{ severity: string }>).every((d) => d.severity !== 'error')) {
        const again = cachedCompiler(dir, root)
        expect(shown(await compileAs(again.compiler, file, asked)), `seed ${seed}: ${rel} read again`).toEqual(plain)
        expect(again.compiler.compilations, `seed ${seed}: ${rel} answered from the disk after ${log.join(' | ')}`).toBe(0)
      }
    }
    // `contracts inputs` names what each compile read and looked at: the same paths as the result's lists.
    const cli = await contractsInProcess(['inputs', '--json', '--no-cache', ...CONTRACTS], root)
    const listed = JSON.parse(cli.stdout) as Listed
    for (const rel of CONTRACTS) {
      const file = join(root, rel)
      const entry = listed.contracts.find((c) => c.file === rel)
      expect(entry, `seed ${seed}: ${rel} listed`).toBeDefined()
      const named = new Set(entry!.inputs.map((p) => resolve(root, p)))
      const result = fresh.get(rel)!
      // The contract itself is listed whatever is at its path; with no plain file there, as absent
      // (the result of a compile that read nothing lists it nowhere).
      const missing = !existsSync(file) || !lstatSync(file).isFile() ? [file] : []
      const depended = new Set([file, ...(result.dependencies as string[]), ...(result.absentDependencies as string[])])
      expect([...named].sort(), `seed ${seed}: inputs of ${rel}`).toEqual([...depended].sort())
      expect(entry!.absent.map((p) => resolve(root, p)).sort(), `seed ${seed}: absent of ${rel}`).toEqual(
        [...new Set([...missing, ...(result.absentDependencies as string[])])].sort(),
      )
      inputs.set(rel, named)
    }
    return { fresh, inputs }
  }

  let before = await answers()
  for (let step = 0; step < steps; step++) {
    // Mostly a file some contract depends on (as `contracts inputs` named it), else any file of the tree.
    const all = walk(root)
    const depended = [...new Set([...before.inputs.values()].flatMap((set) => [...set]))]
      .filter((p) => p.startsWith(root + sep) && existsSync(p) && lstatSync(p).isFile())
      .map((p) => relative(root, p).split(sep).join('/'))
      .sort()
    const files = rand() < 0.7 && depended.length > 0 ? depended : all
    const tree = snapshot(root)
    const previousOptions = options
    const kind = pick(['byte', 'byte', 'byte', 'add', 'remove', 'rename', 'touch', 'restore', 'restore', 'relock', 'options'] as const)
    switch (kind) {
      case 'byte': {
        // One letter or digit replaced by another: the size kept, and half the time the mtime too.
        const rel = pick(files)
        const path = join(root, rel)
        if (lstatSync(path).isSymbolicLink()) break
        save(rel)
        const bytes = readFileSync(path)
        const at = [...bytes.keys()].filter((i) => /[A-Za-z0-9]/.test(String.fromCharCode(bytes[i]!)))
        if (at.length === 0) break
        const i = pick(at)
        const was = bytes[i]!
        const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'
        let next = was
        while (next === was) next = alphabet.charCodeAt(Math.floor(rand() * alphabet.length))
        bytes[i] = next
        const mtime = statSync(path).mtimeMs / 1000
        writeFileSync(path, bytes)
        const keep = rand() < 0.5
        if (keep) utimesSync(path, mtime, mtime)
        log.push(`byte ${rel}@${i} ${String.fromCharCode(was)}->${String.fromCharCode(next)}${keep ? ' (mtime kept)' : ''}`)
        break
      }
      case 'add': {
        // A file where a compile looked and found none (inside the project), or where none looked.
        const looked = [...before.fresh.values()].flatMap((r) => r.absentDependencies as string[]).filter((p) => p.startsWith(root + sep) && !existsSync(p))
        const places = [...new Set([...looked, join(root, 'benzene/notes.json'), join(root, 'single/svc/other.json'), join(root, 'bundle.lock.json')])].sort()
        const path = pick(places)
        const rel = relative(root, path).split(sep).join('/')
        const remembered = history.get(rel)
        mkdirSync(dirname(path), { recursive: true })
        if (path.endsWith('bundle.lock.json')) writeFileSync(path, singleLock(root, relative(root, dirname(path)), rand))
        else if (remembered) writeFileSync(path, pick(remembered).bytes)
        else writeFileSync(path, '{ "made": "later" }\n')
        log.push(`add ${rel}`)
        break
      }
      case 'remove': {
        const rel = pick(files)
        save(rel)
        rmSync(join(root, rel))
        log.push(`remove ${rel}`)
        break
      }
      case 'rename': {
        const rel = pick(files)
        save(rel)
        const to =
          rand() < 0.5
            ? `${rel}.moved`
            : join(dirname(rel), `renamed-${step}-${rel.split('/').pop()}`)
                .split(sep)
                .join('/')
        renameSync(join(root, rel), join(root, to))
        log.push(`rename ${rel} -> ${to}`)
        break
      }
      case 'touch': {
        const rel = pick(files)
        const t = EPOCH + Math.floor(rand() * 1_000_000)
        utimesSync(join(root, rel), t, t)
        log.push(`touch ${rel}`)
        break
      }
      case 'restore': {
        // An older version of a file, with its old mtime (what `git checkout` of an old commit, or a
        // backup restored with `cp -p`, leaves).
        const names = [...history.keys()].sort()
        if (names.length === 0) break
        const rel = pick(names)
        const version = pick(history.get(rel)!)
        save(rel)
        const path = join(root, rel)
        mkdirSync(dirname(path), { recursive: true })
        if (existsSync(path) && lstatSync(path).isSymbolicLink()) rmSync(path)
        writeFileSync(path, version.bytes)
        utimesSync(path, version.mtime, version.mtime)
        log.push(`restore ${rel} (mtime ${version.mtime})`)
        break
      }
      case 'relock': {
        // The shop's digests filled in again (ShopBundle.relock), where its files still allow it.
        for (const rel of walk(join(root, 'shop'))) save(`shop/${rel}`)
        try {
          new ShopBundle(join(root, 'shop')).relock()
          log.push('relock shop')
        } catch {
          log.push('relock shop (failed)')
        }
        break
      }
      case 'options': {
        options = {
          declarations: rand() < 0.6,
          query: pick(QUERIES),
          benzene: pick(BENZENE_OPTIONS),
          nats: pick(NATS_OPTIONS),
        }
        log.push(`options ${JSON.stringify(options)}`)
        break
      }
    }
    const after = await answers()
    // The inputs oracle: a result that changed (same options) changed through a path `contracts inputs` named.
    const now = snapshot(root)
    const touched = [...new Set([...tree.keys(), ...now.keys()])].filter((rel) => tree.get(rel) !== now.get(rel)).map((rel) => join(root, rel))
    for (const rel of CONTRACTS) {
      if (JSON.stringify(compileOptions(rel, previousOptions)) !== JSON.stringify(compileOptions(rel, options))) continue
      const changed = JSON.stringify(before.fresh.get(rel)) !== JSON.stringify(after.fresh.get(rel))
      if (!changed) continue
      const named = before.inputs.get(rel)!
      expect(
        touched.filter((p) => named.has(p)),
        `seed ${seed}: ${rel} changed after ${log.at(-1)}, touching ${touched.map((p) => relative(root, p)).join(', ')}, none named by contracts inputs`,
      ).not.toEqual([])
    }
    before = after
  }
  return log
}

describe('ORACLE: a compile answered from the persistent cache is the compile made without it', () => {
  // Holds (pinned): over every seed below, after every step, the cache-backed compile (a new
  // compiler each step, so only the disk answers) equals a fresh compile, a clean result is answered
  // from the disk by the next compiler, `contracts inputs` names exactly the result's dependencies
  // and absent paths, and no edit of a path it did not name changed a result.
  for (const seed of [1, 2, 3, 4, 5, 6])
    it(`seed ${seed}`, async () => {
      await oracleRun(seed, 6)
    })
})

/** A project holding the valid Benzene spec, the single NATS document (no bundle) and the DASP selection. */
function smallProject(at = join(work, `p${made++}`)) {
  mkdirSync(at, { recursive: true })
  cpSync(join(repo, 'fixtures/benzene/valid/payments.spec.json'), join(at, 'payments.spec.json'))
  cpSync(join(repo, 'fixtures/nats/valid/ledger.asyncapi.yaml'), join(at, 'svc/ledger.asyncapi.yaml'))
  cpSync(join(repo, 'fixtures/dasp/counter.dasp.json'), join(at, 'dasp/counter.dasp.json'))
  for (const part of ['extensions', 'pins']) cpSync(join(repo, 'fixtures/dasp', part), join(at, 'dasp', part), { recursive: true })
  return { root: at, files: ['payments.spec.json', 'svc/ledger.asyncapi.yaml', 'dasp/counter.dasp.json'].map((rel) => join(at, rel)) }
}

/** Fills `dir` for `files` (one compile each, declarations read) and returns the fresh results. */
async function fill(dir: string, root: string, files: string[], maxBytes?: number) {
  const results = []
  for (const file of files) {
    results.push(shown(await compileAs(cachedCompiler(dir, root, maxBytes).compiler, file, {})))
    await settle()
  }
  return results
}

/** An entry's parts: the header line, the digest line, the parsed body. */
function parts(path: string) {
  const [header, digest, ...rest] = readFileSync(path, 'utf8').split('\n')
  return { header: header!, digest: digest!, body: JSON.parse(rest.join('\n')) as Record<string, unknown> }
}
/** Writes an entry whose digest line matches its (edited) body. */
function rewrite(path: string, edit: (body: Record<string, unknown>) => Record<string, unknown>) {
  const { header, body } = parts(path)
  const json = JSON.stringify(edit(body))
  writeFileSync(path, `${header}\n${sha(json)}\n${json}`)
}

describe('HOSTILE: links and files the cache did not write', () => {
  it('an entry replaced by a link to a file outside, and to a user’s file: nothing written through it, the targets intact, the answer a fresh compile’s', async () => {
    // Holds (pinned): the link is not followed for reading or writing; the compile is a miss with the fresh result.
    const p = smallProject()
    const dir = join(p.root, 'cache')
    const [fresh] = await fill(dir, p.root, [p.files[0]!])
    const [name] = entries(dir)
    const entry = join(dir, name!)
    const original = readFileSync(entry)
    // Outside: a copy of the entry itself (a valid entry's bytes: following the link would be a hit).
    const outside = join(work, `outside-${made++}.entry`)
    writeFileSync(outside, original)
    // A user's file with the generated-file marker line (what the writer would accept to overwrite).
    const user = join(p.root, 'notes.md')
    writeFileSync(user, '# Generated by unplugin-contracts. Do not edit. Compile cache entry.\nmy notes\n')
    for (const target of [outside, user]) {
      const kept = readFileSync(target)
      rmSync(entry, { force: true })
      symlinkSync(target, entry)
      const { cache, compiler } = cachedCompiler(dir, p.root)
      expect(shown(await compileAs(compiler, p.files[0]!, {}))).toEqual(fresh)
      await settle()
      expect(cache.hits, target).toBe(0)
      expect(compiler.compilations).toBe(1)
      expect(readFileSync(target), target).toEqual(kept)
      expect(lstatSync(entry).isSymbolicLink() ? 'link' : lstatSync(entry).isFile() ? 'file' : 'other').toBe('file')
    }
  })

  it('an entry hard-linked to a user’s backup: a damaged entry is rewritten by a rename, the backup’s bytes unchanged', async () => {
    // Holds (pinned): "a file of its own with other names (a hard link) is replaced by a temp file renamed over it".
    const p = smallProject()
    const dir = join(p.root, 'cache')
    const [fresh] = await fill(dir, p.root, [p.files[0]!])
    const entry = join(dir, entries(dir)[0]!)
    const backup = join(p.root, 'backup.entry')
    linkSync(entry, backup)
    const bytes = readFileSync(entry)
    bytes[bytes.length - 10] ^= 1
    writeFileSync(entry, bytes) // through the shared inode: the backup holds the damaged bytes too
    const { cache, compiler } = cachedCompiler(dir, p.root)
    expect(shown(await compileAs(compiler, p.files[0]!, {}))).toEqual(fresh)
    await settle()
    expect([cache.hits, cache.writes]).toEqual([0, 1])
    expect(readFileSync(backup)).toEqual(bytes)
    expect(statSync(entry).ino).not.toBe(statSync(backup).ino)
  })

  it('the cache folder itself a symbolic link: used as the folder it names; to a folder others may write, not used', async () => {
    // Holds (pinned): the folder named is the writer's root, and only folders below it and the entry
    // itself are lstat'ed (docs/reliability.md), so a linked cache folder (as a linked node_modules
    // makes the default one) is used as the folder it names, and a user's file there is left. The
    // target is still held to "a folder that other users may write to is not used".
    const p = smallProject()
    const real = join(work, `real-cache-${made++}`)
    mkdirSync(real, { recursive: true })
    writeFileSync(join(real, 'mine.txt'), 'mine\n')
    const dir = join(p.root, 'cache')
    symlinkSync(real, dir)
    const fresh = await fill(dir, p.root, p.files)
    const again = cachedCompiler(dir, p.root)
    for (const [i, file] of p.files.entries()) expect(shown(await compileAs(again.compiler, file, {}))).toEqual(fresh[i])
    // Holds (pinned): the user's file in the folder is left; the link itself is left a link.
    expect(readFileSync(join(real, 'mine.txt'), 'utf8')).toBe('mine\n')
    expect(lstatSync(dir).isSymbolicLink()).toBe(true)
    expect(again.cache.hits).toBe(3)
    expect(entries(real)).toHaveLength(3)
    if (process.platform === 'win32') return
    const open = join(work, `open-cache-${made++}`)
    mkdirSync(open)
    chmodSync(open, 0o777)
    const linked = join(p.root, 'linked-open')
    symlinkSync(open, linked)
    const viaLink = cachedCompiler(linked, p.root)
    expect(shown(await compileAs(viaLink.compiler, p.files[0]!, {}))).toEqual(fresh[0])
    await settle()
    expect(viaLink.cache.writes).toBe(0)
    expect(readdirSync(open)).toEqual([])
  })

  it('a user’s own files in the cache folder (named like an entry, like the very entry a compile writes, or not): left, never evicted, never overwritten', async () => {
    // Holds (pinned): "Only entries the cache wrote are removed: any other file in the folder, whatever its name, is left and not counted."
    const p = smallProject()
    const dir = join(p.root, 'cache')
    // The name the Benzene contract's entry takes (the same question in a probe folder of the same root).
    const probe = join(p.root, 'probe')
    await fill(probe, p.root, [p.files[0]!])
    const [own] = entries(probe)
    mkdirSync(dir, { recursive: true })
    const users: Record<string, string> = {
      [own!]: 'the user’s file at the entry’s own name\n',
      [`${'a'.repeat(64)}.entry`]: 'x'.repeat(50_000),
      'notes.txt': 'notes\n',
      [`.${'b'.repeat(64)}.entry.${'c'.repeat(12)}.tmp`]: 'another tool’s temp\n',
    }
    for (const [name, text] of Object.entries(users)) {
      writeFileSync(join(dir, name), text)
      utimesSync(join(dir, name), 1, 1) // oldest of all: first in any eviction order
    }
    // Many contracts (copies of the spec) through a small bound: eviction runs many times.
    const copies = Array.from({ length: 12 }, (_, i) => {
      const file = join(p.root, `copy${i}.spec.json`)
      cpSync(p.files[0]!, file)
      return file
    })
    const size = statSync(join(probe, own!)).size
    const fresh = await fill(dir, p.root, [p.files[0]!, ...copies], size * 4)
    expect(fresh[0]).toEqual(shown(await compileAs(new ContractCompiler(), p.files[0]!, {})))
    for (const [name, text] of Object.entries(users)) expect(readFileSync(join(dir, name), 'utf8'), name).toBe(text)
    // Not counted: the cache's own entries still fill up to its bound (the 50 KB file did not make it evict them all).
    expect(entries(dir).filter((n) => !(n in users)).length).toBeGreaterThanOrEqual(2)
  })
})

describe('HOSTILE: damaged, foreign and crafted entries', () => {
  /** One entry for the Benzene spec; `spoil` it; the next compile: the fresh result, a miss, and (when `rewritten`) a hit after. */
  async function spoiled(spoil: (entry: string, root: string) => void, rewritten = true) {
    const p = smallProject()
    const dir = join(p.root, 'cache')
    const [fresh] = await fill(dir, p.root, [p.files[0]!])
    const entry = join(dir, entries(dir)[0]!)
    spoil(entry, p.root)
    const second = cachedCompiler(dir, p.root)
    expect(shown(await compileAs(second.compiler, p.files[0]!, {}))).toEqual(fresh)
    await settle()
    expect([second.cache.hits, second.compiler.compilations]).toEqual([0, 1])
    const third = cachedCompiler(dir, p.root)
    expect(shown(await compileAs(third.compiler, p.files[0]!, {}))).toEqual(fresh)
    expect(third.cache.hits).toBe(rewritten ? 1 : 0)
    return { p, entry }
  }

  // Holds (pinned): "An entry that is damaged, cut short, written by another version, or not this
  // question's answer is a miss, never an error, and is written again."
  it('another package version (its digest right)', () => spoiled((entry) => rewrite(entry, (b) => ({ ...b, compiler: '0.0.9+0000000000000000' }))))
  it('the body’s bytes tampered, the header and digest line as written', () =>
    spoiled((entry) => {
      const { header, digest, body } = parts(entry)
      const result = body.result as { code: string }
      result.code = result.code.replace('export', 'export /* tampered */')
      writeFileSync(entry, `${header}\n${digest}\n${JSON.stringify(body)}`)
    }))
  it('cut at its digest line', () => spoiled((entry) => writeFileSync(entry, readFileSync(entry, 'utf8').split('\n').slice(0, 2).join('\n') + '\n')))

  it('recorded paths crafted to point outside the project (`../..`, absolute) that do not verify: a miss, the outside files untouched', async () => {
    // Holds (pinned): such an entry is a miss and rewritten; the files it names are only read, never written or removed.
    const secret = join(work, `secret-${made++}.txt`)
    writeFileSync(secret, 'secret\n')
    for (const path of ['../../../../../../../../../../etc/hostname', secret, `../${relative(work, secret)}`, '/definitely/not/here.json'])
      await spoiled((entry, root) =>
        rewrite(entry, (b) => ({
          ...b,
          inputs: [...(b.inputs as Array<[string, string]>), [path.startsWith('/') ? path : relative(root, resolve(root, path)), sha('not its bytes')]],
          probes: [...(b.probes as Array<[string, string]>), [path, 'missing']],
        })),
      )
    expect(readFileSync(secret, 'utf8')).toBe('secret\n')
  })

  it('a contract path crafted to name a file outside the project (the entry otherwise right): not this question’s answer', async () => {
    // Holds (pinned): the entry answers only the contract path it was written for.
    const outside = join(work, `outside-spec-${made++}.spec.json`)
    cpSync(join(repo, 'fixtures/benzene/valid/payments.spec.json'), outside)
    await spoiled((entry, root) => rewrite(entry, (b) => ({ ...b, file: relative(root, outside) })))
  })
})

describe('HOSTILE: a cache restored into another checkout path', () => {
  it('at the same depth: still answers every format, and never for other file content (same size, same mtime)', async () => {
    // Holds (pinned): "a cache restored into a checkout at another path still answers"; an edit of the
    // same size with the mtime set back is still a compile.
    const p = smallProject(join(work, `ck${made++}`, 'p'))
    const dir = join(p.root, 'cache')
    await fill(dir, p.root, p.files)
    const moved = join(work, `ck${made++}`, 'p')
    mkdirSync(dirname(moved), { recursive: true })
    cpSync(p.root, moved, { recursive: true })
    const files = p.files.map((f) => join(moved, relative(p.root, f)))
    const there = cachedCompiler(join(moved, 'cache'), moved)
    for (const file of files) expect(shown(await compileAs(there.compiler, file, {}))).toEqual(shown(await compileAs(new ContractCompiler(), file, {})))
    expect(there.cache.hits).toBe(3)
    const edits: Array<[string, string, string]> = [
      [files[0]!, '"payments-api"', '"payments-apj"'],
      [join(moved, 'dasp/extensions/proof-of-authority.dasp-ext.json'), '"draft-01"', '"draft-02"'],
    ]
    for (const [file, from, to] of edits) {
      const st = statSync(file)
      const text = readFileSync(file, 'utf8')
      expect(text).toContain(from)
      writeFileSync(file, text.replace(from, to))
      utimesSync(file, st.atime, st.mtime)
      expect(statSync(file).size).toBe(st.size)
    }
    const after = cachedCompiler(join(moved, 'cache'), moved)
    for (const file of files) expect(shown(await compileAs(after.compiler, file, {}))).toEqual(shown(await compileAs(new ContractCompiler(), file, {})))
    expect(after.cache.hits).toBe(1)
  })

  it('deeper than where it was written: a NATS document outside any bundle is answered as a fresh compile answers it, and a lock made above it is seen', async () => {
    // Was a defect (fixed): the entry recorded the bundle-lock lookups as paths relative to the root, up to the file
    // system's root (`../../../../bundle.lock.json`). Restored into a checkout deeper in the tree, those
    // paths stop short of the file system's root: the hit lists fewer absent paths than a fresh
    // compile there looks at, and a bundle.lock.json made in a folder above the checkout that the
    // entry never names leaves the stale result answering (the fresh compile: NATS_LOCK_DIGEST). The
    // docs promise: "It is used only after ... every place the compile looked for a file and found
    // none (a `bundle.lock.json` in a parent folder) is still empty: an edit anywhere is a compile,
    // never a stale module" and "a cache restored into a checkout at another path still answers"
    // (docs/options.md, `cache`).
    const shallow = join(work, `sh${made++}`)
    const p = smallProject(join(shallow, 'p'))
    const dir = join(p.root, 'cache')
    const ledger = p.files[1]!
    await fill(dir, p.root, [ledger])
    const deepTop = join(work, `dp${made++}`)
    const moved = join(deepTop, 'a/b/c/d/e/f/g/h/p')
    mkdirSync(dirname(moved), { recursive: true })
    cpSync(p.root, moved, { recursive: true })
    const file = join(moved, 'svc/ledger.asyncapi.yaml')
    const there = cachedCompiler(join(moved, 'cache'), moved)
    const hit = shown(await compileAs(there.compiler, file, {}))
    const fresh = shown(await compileAs(new ContractCompiler(), file, {}))
    const missed = (fresh.absentDependencies as string[]).filter((path) => !(hit.absentDependencies as string[]).includes(path))
    // A lock made in a folder the fresh compile looks at, inside this test's own tree, pinning another digest.
    const lockDir = deepTop
    writeFileSync(join(lockDir, 'bundle.lock.json'), JSON.stringify({ entries: [{ path: relative(lockDir, file), sha256: '0'.repeat(64) }] }))
    const later = shown(await compileAs(cachedCompiler(join(moved, 'cache'), moved).compiler, file, {}))
    const laterFresh = shown(await compileAs(new ContractCompiler(), file, {}))
    expect((laterFresh.diagnostics as Array<{ code: string }>).map((d) => d.code)).toContain('NATS_LOCK_DIGEST')
    expect({ missed, later }).toEqual({ missed: [], later: laterFresh })
    expect(hit).toEqual(fresh)
  })
})

describe('HOSTILE: the size bound and clock skew', () => {
  /** `count` copies of the Benzene spec under other names in `root`. */
  const copies = (root: string, count: number, from: number) =>
    Array.from({ length: count }, (_, i) => {
      const file = join(root, `bound${from + i}.spec.json`)
      cpSync(join(repo, 'fixtures/benzene/valid/payments.spec.json'), file)
      return file
    })

  it('at n and at 10n contracts the folder’s entries stay within cacheMaxBytes, and the newest answers', async () => {
    // Holds (pinned): "after a write that takes it past the bound, the least recently used entries are removed".
    const p = smallProject()
    const probe = join(p.root, 'probe')
    await fill(probe, p.root, [p.files[0]!])
    const size = statSync(join(probe, entries(probe)[0]!)).size
    const n = 4
    const bound = Math.floor(size * n * 1.2)
    const dir = join(p.root, 'cache')
    const files = copies(p.root, 10 * n, 0)
    for (const [i, file] of files.entries()) {
      await fill(dir, p.root, [file], bound)
      expect(entryBytes(dir), `after ${i + 1} contracts`).toBeLessThanOrEqual(bound)
      if (i + 1 === n) expect(entries(dir)).toHaveLength(n)
    }
    expect(entries(dir).length).toBeGreaterThanOrEqual(2)
    const last = cachedCompiler(dir, p.root, bound)
    await compileAs(last.compiler, files.at(-1)!, {})
    expect(last.cache.hits).toBe(1)
  })

  it('entries and contracts dated in the future: an edit (same size, the future mtime kept) is still a compile, and the bound still holds', async () => {
    // Holds (pinned): a future-dated entry is verified by content like any other, and counts as least recently used.
    const p = smallProject()
    const dir = join(p.root, 'cache')
    const files = copies(p.root, 4, 100)
    const probe = join(p.root, 'probe')
    await fill(probe, p.root, [files[0]!])
    const bound = Math.floor(statSync(join(probe, entries(probe)[0]!)).size * 4.5)
    const future = new Date('2100-01-01T00:00:00Z')
    for (const file of files) utimesSync(file, future, future)
    await fill(dir, p.root, files, bound)
    expect(entries(dir)).toHaveLength(4)
    for (const name of entries(dir)) utimesSync(join(dir, name), future, future)
    const text = readFileSync(files[0]!, 'utf8')
    writeFileSync(files[0]!, text.replace('"payments-api"', '"payments-apj"'))
    utimesSync(files[0]!, future, future)
    const edited = cachedCompiler(dir, p.root, bound)
    expect(shown(await compileAs(edited.compiler, files[0]!, {}))).toEqual(shown(await compileAs(new ContractCompiler(), files[0]!, {})))
    await settle()
    expect(edited.cache.hits).toBe(0)
    expect(entryBytes(dir)).toBeLessThanOrEqual(bound)
    const more = copies(p.root, 3, 200)
    await fill(dir, p.root, more, bound)
    expect(entryBytes(dir)).toBeLessThanOrEqual(bound)
    // The newest (dated now) are kept over the future-dated ones.
    const again = cachedCompiler(dir, p.root, bound)
    await compileAs(again.compiler, more.at(-1)!, {})
    expect(again.cache.hits).toBe(1)
  })
})

describe('HOSTILE: two processes at once, then a third', () => {
  it('two `node` processes compiling the same contracts into one folder at once leave a cache that a third reads: valid and identical', async () => {
    // Holds (pinned): "as a whole file renamed into place, so builds running at once share the folder safely".
    const p = smallProject()
    const dir = join(work, `shared-${made++}`)
    const script = join(work, `race-${made++}.mjs`)
    const index = join(repo, 'dist/src/index.unbundled.js')
    writeFileSync(
      script,
      `import { ContractCompiler, PersistentCache } from ${JSON.stringify(index)}
const files = ${JSON.stringify(p.files)}
const read = process.argv[2] === 'read'
const out = []
let hits = 0
for (let round = 0; round < (read ? 1 : 6); round++) {
  const cache = new PersistentCache({ dir: ${JSON.stringify(dir)}, root: ${JSON.stringify(p.root)} })
  const compiler = new ContractCompiler({ cache })
  for (const file of files) {
    const declarations = read || round % 2 === 1
    const r = await compiler.compile(file, { declarations })
    const { code, map, exports, identity, diagnostics, dependencies, absentDependencies } = r
    out.push({ code, dts: declarations ? r.dts : undefined, map, exports, identity, diagnostics, dependencies, absentDependencies })
  }
  await new Promise((done) => setImmediate(done))
  hits += cache.hits
}
if (read) process.stdout.write(JSON.stringify({ hits, out }))
`,
    )
    const run = (arg: string) =>
      bounded(
        `node ${arg}`,
        new Promise<{ status: number; stdout: string }>((done, fail) => {
          const child = spawn(process.execPath, [script, arg], { cwd: repo, stdio: ['ignore', 'pipe', 'inherit'] })
          let stdout = ''
          child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s))
          const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
          child.on('error', fail)
          child.on('close', (status) => (clearTimeout(timer), done({ status: status ?? -1, stdout })))
        }),
        70_000,
      )
    const [a, b] = await Promise.all([run('write'), run('write')])
    expect([a.status, b.status]).toEqual([0, 0])
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([])
    for (const name of entries(dir)) {
      const { header, digest, body } = parts(join(dir, name))
      expect(header).toContain('unplugin-contracts')
      expect(sha(JSON.stringify(body)), name).toBe(digest)
    }
    const third = await run('read')
    expect(third.status).toBe(0)
    const { hits, out } = JSON.parse(third.stdout) as { hits: number; out: unknown[] }
    expect(hits).toBe(p.files.length)
    for (const [i, file] of p.files.entries()) {
      const { code, map, exports, identity, diagnostics, dependencies, absentDependencies, dts } = shown(await compileAs(new ContractCompiler(), file, {}))
      expect(out[i], file).toEqual(JSON.parse(JSON.stringify({ code, dts, map, exports, identity, diagnostics, dependencies, absentDependencies })))
    }
  })
})

describe('HOSTILE: folders others may write to, and caches turned off', () => {
  /** A folder holding a forged entry for the spec (valid digest, a marked module): read only if the folder is used. */
  async function forged(mode: number) {
    const p = smallProject()
    const dir = join(p.root, 'cache')
    const [fresh] = await fill(dir, p.root, [p.files[0]!])
    rewrite(join(dir, entries(dir)[0]!), (b) => {
      const result = b.result as { code: string }
      return { ...b, result: { ...result, code: result.code + '\nexport const forged = true\n' } }
    })
    // Holds (pinned): the forged entry is served while the folder is the user's alone (a digest proves an entry whole, not who wrote it).
    const trusted = cachedCompiler(dir, p.root)
    expect((await compileAs(trusted.compiler, p.files[0]!, {})).code).toContain('forged = true')
    chmodSync(dir, mode)
    const before = readdirSync(dir).sort()
    const { cache, compiler } = cachedCompiler(dir, p.root)
    const result = shown(await compileAs(compiler, p.files[0]!, {}))
    await compileAs(compiler, p.files[2]!, {})
    await settle()
    const after = readdirSync(dir).sort()
    chmodSync(dir, 0o755)
    return { used: cache.hits > 0 || cache.writes > 0 || result.code !== fresh!.code || after.join() !== before.join(), result, fresh }
  }

  it.runIf(process.platform !== 'win32')('world-writable (0o777, no sticky bit): neither read nor written', async () => {
    // Holds (pinned): "A folder that other users may write to is not used."
    const { used, result, fresh } = await forged(0o777)
    expect(used).toBe(false)
    expect(result).toEqual(fresh)
  })

  it.runIf(process.platform !== 'win32')('world-writable with the sticky bit (0o1777): neither read nor written', async () => {
    // Holds (pinned): a sticky folder others may create files in is not used either.
    const { used, result, fresh } = await forged(0o1777)
    expect(used).toBe(false)
    expect(result).toEqual(fresh)
  })

  /** A group of this system with a member other than this user (from /etc/group), if there is one. */
  const sharedGroup = (() => {
    if (process.platform === 'win32' || !existsSync('/etc/group')) return undefined
    const me = userInfo().username
    for (const line of readFileSync('/etc/group', 'utf8').split('\n')) {
      const [name, , gid, members] = line.split(':')
      const others = (members ?? '').split(',').filter((m) => m !== '' && m !== me)
      if (name && gid && others.length > 0) return { name, gid: Number(gid), member: others[0]! }
    }
    return undefined
  })()

  it.runIf(sharedGroup !== undefined)('group-writable (0o775) with a group another user is a member of: neither read nor written', async () => {
    // Was a defect (fixed): a cache folder whose group holds another user (here the system's first such group, e.g.
    // `ssl-cert` with member `postgres`) and whose mode lets the group write (0o775) is used: the
    // forged entry planted in it is served and entries are written there. Expected: not used, as
    // "A folder that other users may write to is not used." (docs/options.md, `cache`) and "only
    // from a folder and files no other user may write" (docs/reliability.md) promise: that member
    // may plant an entry.
    const { name, gid, member } = sharedGroup!
    const p = smallProject()
    const dir = join(p.root, 'cache')
    const [fresh] = await fill(dir, p.root, [p.files[0]!])
    rewrite(join(dir, entries(dir)[0]!), (b) => {
      const result = b.result as { code: string }
      return { ...b, result: { ...result, code: result.code + '\nexport const forged = true\n' } }
    })
    chownSync(dir, process.getuid!(), gid)
    chmodSync(dir, 0o775)
    const { cache, compiler } = cachedCompiler(dir, p.root)
    const result = shown(await compileAs(compiler, p.files[0]!, {}))
    await compileAs(compiler, p.files[2]!, {})
    await settle()
    expect({ group: `${name} (member ${member})`, hits: cache.hits, writes: cache.writes, forged: result.code !== fresh!.code }).toEqual({
      group: `${name} (member ${member})`,
      hits: 0,
      writes: 0,
      forged: false,
    })
  })
})

describe('HOSTILE: caches turned off write nothing', () => {
  it('`cache: false` (env unset), `UNPLUGIN_CONTRACTS_CACHE=0` (plugin default and CLI), `--no-cache`: nothing written in the app', async () => {
    // Holds (pinned): "`false`: nothing is read and nothing is written"; the variable "turns this default off (nothing read or written)".
    const { build } = await import('esbuild')
    const { default: plugin } = await import('unplugin-contracts/esbuild')
    const p = smallProject()
    writeFileSync(join(p.root, 'package.json'), '{ "name": "off", "private": true, "type": "module" }\n')
    writeFileSync(join(p.root, 'main.js'), "export { capture } from './payments.spec.json'\nexport * as ledger from './svc/ledger.asyncapi.yaml'\n")
    const tree = () => walk(p.root).join('\n')
    const before = tree()
    const esbuild = (options: Record<string, unknown>) =>
      build({
        entryPoints: [join(p.root, 'main.js')],
        bundle: true,
        format: 'esm',
        platform: 'neutral',
        external: ['unplugin-contracts/*'],
        absWorkingDir: p.root,
        outfile: join(work, `off-out-${made++}/main.js`),
        plugins: [plugin({ types: false, ...options })],
        logLevel: 'silent',
      })
    const env = process.env.UNPLUGIN_CONTRACTS_CACHE
    try {
      process.env.UNPLUGIN_CONTRACTS_CACHE = '0'
      await esbuild({})
      expect(tree(), 'UNPLUGIN_CONTRACTS_CACHE=0').toBe(before)
      delete process.env.UNPLUGIN_CONTRACTS_CACHE
      await esbuild({ cache: false })
      expect(tree(), 'cache: false').toBe(before)
      // The default on: the same build writes its folder (the test sees a write where there is one).
      await esbuild({})
      expect(entries(join(p.root, 'node_modules/.cache/unplugin-contracts'))).toHaveLength(2)
    } finally {
      if (env === undefined) delete process.env.UNPLUGIN_CONTRACTS_CACHE
      else process.env.UNPLUGIN_CONTRACTS_CACHE = env
    }
    const q = smallProject()
    const qTree = () => walk(q.root).join('\n')
    const qBefore = qTree()
    const rels = q.files.map((f) => relative(q.root, f))
    const withoutVar = { ...process.env }
    delete withoutVar.UNPLUGIN_CONTRACTS_CACHE
    expect((await contractsInProcess(['check', ...rels], q.root, { ...withoutVar, UNPLUGIN_CONTRACTS_CACHE: '0' })).status).toBe(0)
    expect(qTree(), 'CLI with UNPLUGIN_CONTRACTS_CACHE=0').toBe(qBefore)
    expect((await contractsInProcess(['inputs', '--no-cache', ...rels], q.root, withoutVar)).status).toBe(0)
    expect((await contractsInProcess(['check', '--no-cache', ...rels], q.root, withoutVar)).status).toBe(0)
    expect(qTree(), 'CLI --no-cache').toBe(qBefore)
  })
})

describe('HOSTILE: the worker-thread compile pool', () => {
  // More than sixteen contracts through a real esbuild build: those after the sixteenth may go to a
  // worker (`workers: 1` asks for one even on two cores). The invalid and warned contracts come last.
  const app = join(work, `pool-app-${made++}`)
  mkdirSync(app, { recursive: true })
  const names: string[] = []
  for (let i = 0; i < 17; i++) {
    const spec = readFileSync(join(repo, 'fixtures/benzene/valid/payments.spec.json'), 'utf8').replace('"payments-api"', `"payments-${i}"`)
    writeFileSync(join(app, `s${i}.spec.json`), spec)
    names.push(`s${i}.spec.json`)
  }
  cpSync(join(repo, 'fixtures/nats/shop'), join(app, 'shop'), { recursive: true })
  cpSync(join(repo, 'fixtures/dasp/counter.dasp.json'), join(app, 'dasp/counter.dasp.json'))
  for (const part of ['extensions', 'pins']) cpSync(join(repo, 'fixtures/dasp', part), join(app, 'dasp', part), { recursive: true })
  // A warned contract: a `reserved` flag on an event, which has none.
  const warned = JSON.parse(readFileSync(join(repo, 'fixtures/benzene/valid/payments.spec.json'), 'utf8')) as { events: Array<Record<string, unknown>> }
  warned.events[0]!.reserved = true
  writeFileSync(join(app, 'warned.spec.json'), JSON.stringify(warned, null, 2) + '\n')
  const valid = [...names, 'shop/orders/asyncapi/asyncapi.yaml', 'dasp/counter.dasp.json', 'warned.spec.json']
  const invalid = [
    ...valid,
    ...['benzene/invalid/duplicate-topic.spec.json', 'nats/invalid/channel-unknown.asyncapi.yaml', 'dasp/invalid/attribute-type.dasp.json'].map((rel) => {
      const to = join('bad', rel.split('/').pop()!)
      cpSync(join(repo, 'fixtures', rel), join(app, to))
      return to
    }),
  ]
  const entry = (list: string[], name: string) => {
    const file = join(app, name)
    writeFileSync(file, list.map((rel, i) => `export * as c${i} from './${rel}'`).join('\n') + '\n')
    return file
  }

  async function esbuildApp(main: string, options: Record<string, unknown>) {
    const { build } = await import('esbuild')
    const { default: plugin } = await import('unplugin-contracts/esbuild')
    const out = join(work, `pool-out-${made++}`)
    try {
      const result = await build({
        entryPoints: [main],
        bundle: true,
        format: 'esm',
        platform: 'neutral',
        external: ['unplugin-contracts/*'],
        sourcemap: true,
        absWorkingDir: app,
        outfile: join(out, 'main.js'),
        plugins: [plugin({ types: false, ...options })],
        logLevel: 'silent',
      })
      return {
        warnings: result.warnings.map((w) => [w.text, w.location?.file, w.location?.line, w.location?.column]),
        code: readFileSync(join(out, 'main.js'), 'utf8'),
        map: readFileSync(join(out, 'main.js.map'), 'utf8'),
      }
    } catch (error) {
      const failure = error as { errors?: Array<{ text: string; location?: { file: string; line: number; column: number } }> }
      if (!failure.errors) throw error
      return { errors: failure.errors.map((e) => [e.text, e.location?.file, e.location?.line, e.location?.column]).sort() }
    }
  }

  it('the same bundle, map and warnings, and for invalid contracts the same errors, as a build on the bundler’s thread; its cache entries answer that build', async () => {
    // Holds (pinned): "A result is the same wherever it was compiled (module, source map, declarations,
    // diagnostics, files watched), and a worker writes it to the persistent cache as the bundler's thread would."
    let started = 0
    const counted = () => started++
    process.on('worker', counted)
    const okMain = entry(valid, 'ok.js')
    const badMain = entry(invalid, 'bad.js')
    const dir = join(work, `pool-cache-${made++}`)
    try {
      const alone = await esbuildApp(okMain, { cache: false, workers: false })
      expect(alone.errors).toBeUndefined()
      const pooled = await esbuildApp(okMain, { cache: dir, workers: 1 })
      expect(started).toBeGreaterThan(0)
      expect(alone.warnings).toHaveLength(1)
      expect(pooled).toEqual(alone)
      // The entries the pooled build wrote answer a build on the bundler's thread: the same bundle.
      const written = entries(dir).length
      expect(written).toBe(valid.length)
      expect(await esbuildApp(okMain, { cache: dir, workers: false })).toEqual(alone)
      expect(entries(dir)).toHaveLength(written)
      const aloneBad = await esbuildApp(badMain, { cache: false, workers: false })
      const pooledBad = await esbuildApp(badMain, { cache: false, workers: 1 })
      expect((aloneBad as { errors: unknown[] }).errors.length).toBeGreaterThanOrEqual(3)
      expect(pooledBad).toEqual(aloneBad)
    } finally {
      process.off('worker', counted)
    }
  })
})
