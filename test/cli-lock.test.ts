/**
 * `contracts lock` (fills in the digests a NATS bundle pins, then writes its lock) and `lock
 * --check`, run in this process (the usage errors also as the built binary) on copies of the shop
 * bundle (fixtures/nats/shop) and of the orders example: stale digests named exactly, fixed so
 * that `contracts check` passes, a second run a no-op, nothing but digests changed, links and
 * broken bundles refused with nothing written. Last, a property: over random edits to random members of the shop bundle, lock's result is the
 * independent relock of test/helpers/nats-bundle.ts (the oracle), and the bundle checks.
 */
import { cpSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { ContractCompiler } from '../src/core/compile.js'
import { hasErrors } from '../src/core/diagnostics.js'
import { formats } from '../src/formats/index.js'
import { contracts, contractsInProcess } from './helpers/cli.js'
import { ShopBundle } from './helpers/nats-bundle.js'

const repo = join(import.meta.dirname, '..')
const work = join(import.meta.dirname, '.tmp/cli-lock', String(process.pid))
afterAll(() => rmSync(work, { recursive: true, force: true }))

const SHOP_DOCUMENTS = ['orders/asyncapi/asyncapi.yaml', 'payments/asyncapi/asyncapi.yaml', 'shipping/asyncapi/asyncapi.yaml']
const EXAMPLE_DOCUMENTS = ['fulfilment/asyncapi.yaml', 'orders/asyncapi.yaml']

let made = 0
/** A copy of the orders example's bundle (its contracts, artifact and lock). */
function example(): string {
  const root = join(work, `example-${made++}`)
  mkdirSync(root, { recursive: true })
  for (const part of ['bundle.lock.json', 'fulfilment', 'native', 'orders'])
    cpSync(join(repo, 'examples/nats-orders', part), join(root, part), { recursive: true })
  return root
}

/** Every file under `root` (links as their target path), by relative path. */
function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>()
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      const rel = relative(root, path)
      if (entry.isSymbolicLink()) out.set(rel, `link`)
      else if (entry.isDirectory()) walk(path)
      else out.set(rel, readFileSync(path, 'latin1'))
    }
  }
  walk(root)
  return out
}

/** The command in this process (this file has a process of its own); the binary is run by the usage test. */
const cli = (args: string[], cwd: string) => contractsInProcess(args, cwd)
const check = (root: string, documents: string[]) => cli(['check', '--no-cache', ...documents], root)
const sortedLock = (text: string) => (JSON.parse(text) as { entries: Array<{ path: string }> }).entries.sort((a, b) => (a.path < b.path ? -1 : 1))
/** 1-based line and column of the first `needle` in `text`. */
function position(text: string, needle: string): string {
  const before = text.slice(0, text.indexOf(needle))
  const lines = before.split('\n')
  return `${lines.length}:${lines.at(-1)!.length + 1}`
}

interface Stale {
  file: string
  pointer: string
  line: number
  column: number
  data: { path: string; old: string | null; new: string }
}

describe('contracts lock on an edited bundle', () => {
  it('--check names exactly the stale pins and lock entries and writes nothing; lock fixes them, check passes; a second lock is a no-op', async () => {
    const shop = ShopBundle.copy('lock-edit')
    const oracle = ShopBundle.copy('lock-edit-oracle')
    for (const b of [shop, oracle]) b.edit('orders/asyncapi/asyncapi.yaml', '  title: Orders\n', '  title: Orders # edited\n')
    oracle.relock()
    const before = snapshot(shop.root)
    const stale = await cli(['lock', '.', '--check'], shop.root)
    expect(stale.status).toBe(1)
    expect(snapshot(shop.root)).toEqual(before)
    // Each stale digest at file:line:column (where its old value is), with the old and the new digest.
    const old = (rel: string) => JSON.parse(before.get('bundle.lock.json')!).entries.find((e: { path: string }) => e.path === rel).sha256 as string
    const expected = [
      { file: 'payments/asyncapi/asyncapi.yaml', pointer: '/x-nats-contract/imports/orders/sha256', path: 'orders/asyncapi/asyncapi.yaml' },
      { file: 'shipping/asyncapi/asyncapi.yaml', pointer: '/x-nats-contract/imports/payments/sha256', path: 'payments/asyncapi/asyncapi.yaml' },
      ...SHOP_DOCUMENTS.map((path) => ({
        file: 'bundle.lock.json',
        pointer: `/entries/${shop.lock().entries.findIndex((e) => e.path === path)}/sha256`,
        path,
      })),
    ]
    // Where each stale value starts: in the lock, its JSON string's quote.
    const needle = (e: { file: string; path: string }) => (e.file === 'bundle.lock.json' ? `"${old(e.path)}"` : old(e.path))
    for (const e of expected) {
      const at = position(before.get(e.file)!, needle(e))
      expect(stale.stderr).toContain(`error NATS_LOCK_STALE: `)
      expect(stale.stderr).toContain(`${join(shop.root, e.file)}:${at} (${e.pointer})`)
      expect(stale.stderr).toContain(old(e.path))
      expect(stale.stderr).toContain(oracle.sha(e.path))
    }
    expect(stale.stderr.match(/^error NATS_LOCK_STALE/gm)).toHaveLength(expected.length)
    expect(stale.stderr.trim().split('\n').at(-1)).toBe(`bundle.lock.json: 5 digests are stale in 3 files; run \`contracts lock .\`.`)
    const json = await cli(['lock', 'bundle.lock.json', '--check', '--json'], shop.root)
    expect(json.status).toBe(1)
    const diagnostics = (JSON.parse(json.stdout) as { diagnostics: Stale[] }).diagnostics
    expect(
      diagnostics
        .map((d) => ({ file: relative(shop.root, d.file), pointer: d.pointer, where: `${d.line}:${d.column}`, data: d.data }))
        .sort((a, b) => (a.file + a.pointer < b.file + b.pointer ? -1 : 1)),
    ).toEqual(
      expected
        .map((e) => ({
          file: e.file,
          pointer: e.pointer,
          where: position(before.get(e.file)!, needle(e)),
          data: { path: e.path, old: old(e.path), new: oracle.sha(e.path) },
        }))
        .sort((a, b) => (a.file + a.pointer < b.file + b.pointer ? -1 : 1)),
    )

    const locked = await cli(['lock', '.'], shop.root)
    expect([locked.status, locked.stdout]).toEqual([0, ''])
    expect(locked.stderr).toBe(
      'wrote payments/asyncapi/asyncapi.yaml\nwrote shipping/asyncapi/asyncapi.yaml\nwrote bundle.lock.json\nbundle.lock.json: 5 digests filled in.\n',
    )
    // The documents are the oracle's, byte for byte; the lock holds the same entries, sorted by path.
    for (const doc of SHOP_DOCUMENTS) expect(shop.read(doc), doc).toBe(oracle.read(doc))
    expect(sortedLock(shop.read('bundle.lock.json'))).toEqual(sortedLock(oracle.read('bundle.lock.json')))
    expect(await check(shop.root, SHOP_DOCUMENTS)).toMatchObject({ status: 0, stderr: '3 contracts checked: no errors.\n' })
    expect(await cli(['lock', '.', '--check'], shop.root)).toMatchObject({ status: 0, stderr: 'bundle.lock.json: every digest is current.\n' })
    const after = snapshot(shop.root)
    const again = await cli(['lock', shop.root], repo)
    expect(again.status).toBe(0)
    expect(again.stderr).toContain('every digest is current; nothing written.')
    expect(snapshot(shop.root)).toEqual(after)
  })

  it('the orders example: an edited artifact and contract are relocked (the import and the artifact pin in fulfilment), and it checks', async () => {
    const root = example()
    const streams = join(root, 'native/streams.json')
    writeFileSync(streams, JSON.stringify(JSON.parse(readFileSync(streams, 'utf8')), null, 4) + '\n')
    const orders = join(root, 'orders/asyncapi.yaml')
    writeFileSync(orders, readFileSync(orders, 'utf8') + '# reviewed\n')
    expect((await check(root, EXAMPLE_DOCUMENTS)).status).toBe(1)
    const stale = await cli(['lock', '.', '--check', '--json'], root)
    expect(stale.status).toBe(1)
    const found = (JSON.parse(stale.stdout) as { diagnostics: Stale[] }).diagnostics.map((d) => `${relative(root, d.file)}#${d.pointer}`)
    expect(found.sort()).toEqual(
      [
        'fulfilment/asyncapi.yaml#/x-nats-contract/imports/orders/sha256',
        'fulfilment/asyncapi.yaml#/x-nats-contract/streams/orders/artifact/sha256',
        'bundle.lock.json#/entries/0/sha256',
        'bundle.lock.json#/entries/1/sha256',
        'bundle.lock.json#/entries/2/sha256',
      ].sort(),
    )
    const fulfilment = readFileSync(join(root, 'fulfilment/asyncapi.yaml'), 'utf8')
    expect((await cli(['lock', '.'], root)).status).toBe(0)
    expect(await check(root, EXAMPLE_DOCUMENTS)).toMatchObject({ status: 0 })
    // Only the two digests changed in fulfilment: putting the old ones back gives the file read.
    const lockBefore = JSON.parse(readFileSync(join(repo, 'examples/nats-orders/bundle.lock.json'), 'utf8')).entries as Array<{ path: string; sha256: string }>
    const lockAfter = JSON.parse(readFileSync(join(root, 'bundle.lock.json'), 'utf8')).entries as Array<{ path: string; sha256: string }>
    let restored = readFileSync(join(root, 'fulfilment/asyncapi.yaml'), 'utf8')
    for (const path of ['orders/asyncapi.yaml', 'native/streams.json'])
      restored = restored.replaceAll(lockAfter.find((e) => e.path === path)!.sha256, lockBefore.find((e) => e.path === path)!.sha256)
    expect(restored).toBe(fulfilment)
    const after = snapshot(root)
    expect((await cli(['lock', '.'], root)).status).toBe(0)
    expect(snapshot(root)).toEqual(after)
  })

  it('keeps comments, quoting, block or flow style and order: the diff is the digests alone', async () => {
    const shop = ShopBundle.copy('lock-format')
    const payments = 'payments/asyncapi/asyncapi.yaml'
    const shipping = 'shipping/asyncapi/asyncapi.yaml'
    const ordersOld = shop.sha('orders/asyncapi/asyncapi.yaml')
    const streamsOld = shop.sha('native/streams.json')
    // An import in block style with comments and a single-quoted digest; an artifact digest double-quoted.
    shop.edit(
      payments,
      / {4}orders: \{ contract: orders, version: 1\.2\.0, path: orders\/asyncapi\/asyncapi\.yaml, sha256: \w+ \}\n/,
      `    orders: # the orders service\n      sha256:   '${ordersOld}'   # filled in by contracts lock\n      path: orders/asyncapi/asyncapi.yaml\n      contract: orders\n      version: 1.2.0\n`,
    )
    shop.edit(shipping, `artifact: { path: native/streams.json, sha256: ${streamsOld} }`, `artifact: { path: native/streams.json, sha256: "${streamsOld}" }`)
    shop.edit('orders/asyncapi/asyncapi.yaml', '  title: Orders\n', '  title: Orders\n  # a comment that changes the digest\n')
    writeFileSync(shop.path('native/streams.json'), shop.read('native/streams.json').replace(/\n$/, '\n\n'))
    const before = new Map([payments, shipping].map((f) => [f, shop.read(f)]))
    expect((await cli(['lock', '.'], shop.root)).status).toBe(0)
    const now = (rel: string) => shop.sha(rel)
    const lock = JSON.parse(shop.read('bundle.lock.json')).entries as Array<{ path: string; sha256: string }>
    expect(lock.map((e) => e.sha256)).toEqual(lock.map((e) => now(e.path)))
    const restore = (text: string) =>
      [...lock].reduce(
        (t, e) =>
          t.replaceAll(
            e.sha256,
            JSON.parse(readFileSync(join(repo, 'fixtures/nats/shop/bundle.lock.json'), 'utf8')).entries.find((o: { path: string }) => o.path === e.path).sha256,
          ),
        text,
      )
    for (const [file, text] of before) {
      expect(shop.read(file), file).not.toBe(text)
      expect(restore(shop.read(file)), file).toBe(text)
    }
    expect(shop.read(payments)).toContain(`      sha256:   '${now('orders/asyncapi/asyncapi.yaml')}'   # filled in by contracts lock\n`)
    expect(shop.read(shipping)).toContain(`sha256: "${now('native/streams.json')}" }`)
    expect((await check(shop.root, SHOP_DOCUMENTS)).status).toBe(0)
  })

  it('fills in a lock started by hand (digests left empty) and adds the files the documents read', async () => {
    const shop = ShopBundle.copy('lock-start')
    shop.writeLock({ entries: SHOP_DOCUMENTS.map((path) => ({ path, sha256: '' })) })
    expect((await cli(['lock', '.', '--check'], shop.root)).status).toBe(1)
    const r = await cli(['lock', '.'], shop.root)
    expect(r.status).toBe(0)
    expect(shop.lock().entries.map((e) => e.path)).toEqual([
      'native/streams.json',
      'orders/asyncapi/asyncapi.yaml',
      'payments/asyncapi/asyncapi.yaml',
      'payments/workflows/refund.yaml',
      'shipping/asyncapi/asyncapi.yaml',
    ])
    expect(shop.read('bundle.lock.json')).toBe(readFileSync(join(repo, 'fixtures/nats/shop/bundle.lock.json'), 'utf8'))
    expect((await check(shop.root, SHOP_DOCUMENTS)).status).toBe(0)
  })

  it('a lock whose digests are all current but not in the written form: said as such, not as digests filled in', async () => {
    // Was a defect (fixed): `{"entries": []}` on one line, or the shop's lock reindented, was
    // reported as "1 digest is stale" by --check and "1 digest filled in" by lock.
    const shop = ShopBundle.copy('lock-form')
    const current = shop.read('bundle.lock.json')
    writeFileSync(join(shop.root, 'bundle.lock.json'), JSON.stringify(JSON.parse(current)))
    const stale = await cli(['lock', '.', '--check'], shop.root)
    expect(stale.status).toBe(1)
    expect(stale.stderr.trim().split('\n').at(-1)).toBe(
      'bundle.lock.json: every digest is current, but the file is not in the form contracts lock writes; run `contracts lock .`.',
    )
    const locked = await cli(['lock', '.'], shop.root)
    expect([locked.status, locked.stderr]).toEqual([
      0,
      'wrote bundle.lock.json\nbundle.lock.json: every digest was current; rewritten in the form contracts lock writes.\n',
    ])
    expect(shop.read('bundle.lock.json')).toBe(current)
    const empty = join(work, 'empty-lock')
    mkdirSync(empty, { recursive: true })
    writeFileSync(join(empty, 'bundle.lock.json'), '{"entries": []}')
    expect((await cli(['lock', '.'], empty)).stderr).toBe(
      'wrote bundle.lock.json\nbundle.lock.json: every digest was current; rewritten in the form contracts lock writes.\n',
    )
    expect(readFileSync(join(empty, 'bundle.lock.json'), 'utf8')).toBe('{\n  "entries": []\n}\n')
  })
})

describe('contracts lock refuses, and writes nothing', () => {
  /** Runs lock and --check on a bundle that cannot be locked: status 1, the code, no byte changed in the bundle or under `also`. */
  async function refused(root: string, code: string, also: string[] = []): Promise<string> {
    const within = [root, ...also]
    const before = within.map(snapshot)
    for (const args of [
      ['lock', '.'],
      ['lock', '.', '--check'],
    ]) {
      const r = await cli(args, root)
      expect(r.status, r.stderr).toBe(1)
      expect(r.stderr).toContain(`error ${code}: `)
      expect(r.stderr.trim().split('\n').at(-1)).toBe('bundle.lock.json: the bundle cannot be locked; nothing was written.')
    }
    expect(within.map(snapshot)).toEqual(before)
    return (await cli(['lock', '.', '--json'], root)).stdout
  }

  it('a symlinked member (the file, or a folder on its way), or a symlinked lock', async () => {
    const outside = join(work, `outside-${made++}`)
    mkdirSync(outside, { recursive: true })
    const shop = ShopBundle.copy('lock-link')
    shop.edit('orders/asyncapi/asyncapi.yaml', '  title: Orders\n', '  title: Orders # edited\n')
    // The member is a link to a copy outside the bundle: never read through, never written through.
    cpSync(shop.doc('orders'), join(outside, 'asyncapi.yaml'))
    rmSync(shop.doc('orders'))
    symlinkSync(join(outside, 'asyncapi.yaml'), shop.doc('orders'))
    const json = JSON.parse(await refused(shop.root, 'NATS_LOCK_PATH', [outside])) as { diagnostics: Stale[] }
    expect(json.diagnostics.map((d) => [relative(shop.root, d.file), d.pointer])).toContainEqual(['bundle.lock.json', '/entries/1/path'])
    expect(lstatSync(shop.doc('orders')).isSymbolicLink()).toBe(true)

    const folder = ShopBundle.copy('lock-link-folder')
    cpSync(folder.path('payments'), join(outside, 'payments'), { recursive: true })
    rmSync(folder.path('payments'), { recursive: true })
    symlinkSync(join(outside, 'payments'), folder.path('payments'))
    await refused(folder.root, 'NATS_LOCK_PATH', [outside])

    const lock = ShopBundle.copy('lock-link-lock')
    cpSync(lock.path('bundle.lock.json'), join(outside, 'bundle.lock.json'))
    rmSync(lock.path('bundle.lock.json'))
    symlinkSync(join(outside, 'bundle.lock.json'), lock.path('bundle.lock.json'))
    await refused(lock.root, 'CONTRACTS_SYMLINK', [outside])
  })

  it('a member that does not parse, a missing import, an import cycle, a pin it cannot write in place', async () => {
    const broken = ShopBundle.copy('lock-broken')
    // Something else is stale too: still nothing is written.
    broken.edit('orders/asyncapi/asyncapi.yaml', '  title: Orders\n', '  title: Orders # edited\n')
    broken.edit('payments/asyncapi/asyncapi.yaml', '  title: Payments\n', '  title: [Payments\n')
    await refused(broken.root, 'YAML_SYNTAX')

    const missing = ShopBundle.copy('lock-missing')
    missing.edit('payments/asyncapi/asyncapi.yaml', 'path: orders/asyncapi/asyncapi.yaml', 'path: orders/asyncapi/gone.yaml')
    const m = JSON.parse(await refused(missing.root, 'NATS_LOCKED_FILE_MISSING')) as { diagnostics: Stale[] }
    expect(m.diagnostics.map((d) => [relative(missing.root, d.file), d.pointer])).toEqual([
      ['payments/asyncapi/asyncapi.yaml', '/x-nats-contract/imports/orders/path'],
    ])

    // A path with a terminal escape in it reaches the terminal escaped.
    const hostile = ShopBundle.copy('lock-hostile')
    hostile.edit('payments/asyncapi/asyncapi.yaml', 'path: payments/workflows/refund.yaml', 'path: "payments/\\e[2Jrefund.yaml"')
    await refused(hostile.root, 'NATS_LOCKED_FILE_MISSING')
    const shown = (await cli(['lock', '.'], hostile.root)).stderr
    expect(shown).toContain('"payments/\\u001b[2Jrefund.yaml" is not in the bundle.')
    expect(shown).not.toContain('\u001b')

    const cycle = ShopBundle.copy('lock-cycle')
    cycle.edit(
      'orders/asyncapi/asyncapi.yaml',
      '  contract: orders\n',
      `  contract: orders\n  imports:\n    shipping: { contract: shipping, version: 1.0.0, path: shipping/asyncapi/asyncapi.yaml, sha256: ${'0'.repeat(64)} }\n`,
    )
    const c = JSON.parse(await refused(cycle.root, 'NATS_IMPORT_CYCLE')) as { diagnostics: Array<Stale & { message: string }> }
    expect(c.diagnostics).toHaveLength(1)
    expect(c.diagnostics[0]!.message).toContain(
      'orders/asyncapi/asyncapi.yaml -> shipping/asyncapi/asyncapi.yaml -> payments/asyncapi/asyncapi.yaml -> orders/asyncapi/asyncapi.yaml',
    )

    const alias = ShopBundle.copy('lock-alias')
    alias.edit('orders/asyncapi/asyncapi.yaml', '  title: Orders\n', '  title: Orders # edited\n')
    alias.edit('payments/asyncapi/asyncapi.yaml', /path: orders\/asyncapi\/asyncapi\.yaml, sha256: \w+ \}/, 'path: orders/asyncapi/asyncapi.yaml }')
    await refused(alias.root, 'NATS_LOCK_PIN_FORM')

    const outside = ShopBundle.copy('lock-outside')
    outside.edit('payments/asyncapi/asyncapi.yaml', 'path: native/streams.json', 'path: ../streams.json')
    await refused(outside.root, 'NATS_LOCK_PATH')
  })

  it('usage: no bundle, a file that is not a lock, two bundles', () => {
    expect(contracts(['lock', 'fixtures/nats'], repo)).toMatchObject({ status: 2, stderr: expect.stringContaining('fixtures/nats has no bundle.lock.json') })
    expect(contracts(['lock', 'package.json'], repo)).toMatchObject({
      status: 2,
      stderr: expect.stringContaining('takes a bundle folder or its bundle.lock.json'),
    })
    expect(contracts(['lock', 'fixtures/nats/shop', 'examples/nats-orders', '--check'], repo).status).toBe(2)
    expect(contracts(['lock', 'fixtures/nats/shop', '--topics', 'a'], repo).status).toBe(2)
  })
})

describe('property: lock is the independent relock, and the bundle checks', () => {
  const YAML_MEMBERS = [...SHOP_DOCUMENTS, 'payments/workflows/refund.yaml']
  const PINNED = ['payments/asyncapi/asyncapi.yaml', 'shipping/asyncapi/asyncapi.yaml']
  const hex = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex'))
  /** An edit a user makes: a comment, a reformatted artifact, a wrong digest in a pin or in the lock. */
  const edit = fc.oneof(
    fc.record({ kind: fc.constant('comment' as const), file: fc.constantFrom(...YAML_MEMBERS), at: fc.nat(), note: fc.stringMatching(/^[a-z0-9 ]{0,12}$/) }),
    fc.record({ kind: fc.constant('reformat' as const), indent: fc.integer({ min: 0, max: 4 }) }),
    fc.record({ kind: fc.constant('pin' as const), file: fc.constantFrom(...PINNED), at: fc.nat(), digest: hex }),
    fc.record({ kind: fc.constant('entry' as const), at: fc.nat(), digest: hex }),
  )
  type Edit = typeof edit extends fc.Arbitrary<infer T> ? T : never
  const apply = (b: ShopBundle, e: Edit) => {
    if (e.kind === 'comment') {
      // A comment line before a top-level key (or at the end): the value stays the same, the bytes do not.
      const lines = b.read(e.file).split('\n')
      const starts = lines.flatMap((l, i) => (/^[a-z]/.test(l) ? [i] : [])).concat(lines.length - 1)
      lines.splice(starts[e.at % starts.length]!, 0, `# ${e.note}`)
      b.write(e.file, lines.join('\n'))
    } else if (e.kind === 'reformat') {
      b.write('native/streams.json', JSON.stringify(JSON.parse(b.read('native/streams.json')), null, e.indent) + '\n')
    } else if (e.kind === 'pin') {
      const digests = [...b.read(e.file).matchAll(/sha256: (\w+)/g)].map((m) => m[1]!)
      b.edit(e.file, digests[e.at % digests.length]!, e.digest)
    } else {
      const lock = b.lock()
      lock.entries[e.at % lock.entries.length]!.sha256 = e.digest
      b.writeLock(lock)
    }
  }

  it('over random edits to random members', async () => {
    const compiler = new ContractCompiler({ formats })
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 4 }), async (edits) => {
        const shop = ShopBundle.copy('lock-property')
        const oracle = ShopBundle.copy('lock-property-oracle')
        for (const e of edits) for (const b of [shop, oracle]) apply(b, e)
        oracle.relock()
        expect((await cli(['lock', shop.root], repo)).status).toBe(0)
        for (const file of [...YAML_MEMBERS, 'native/streams.json']) expect(shop.read(file), file).toBe(oracle.read(file))
        expect(sortedLock(shop.read('bundle.lock.json'))).toEqual(sortedLock(oracle.read('bundle.lock.json')))
        for (const doc of SHOP_DOCUMENTS) {
          const result = await compiler.compile(shop.path(doc), { declarations: false })
          expect(hasErrors(result.diagnostics), JSON.stringify(result.diagnostics.slice(0, 2))).toBe(false)
        }
        expect((await cli(['lock', shop.root, '--check'], repo)).status).toBe(0)
        rmSync(shop.root, { recursive: true, force: true })
        rmSync(oracle.root, { recursive: true, force: true })
      }),
      { numRuns: 20 },
    )
  }, 120_000)
})
