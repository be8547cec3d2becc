/**
 * A topology of n applications costs the file system calls of n documents, not n²: each document's
 * compile reads the bundle's n files, and a compiler made for one run over them (`snapshot`, what
 * `contracts topology`, `contracts check` and `topology()` use) asks the file system of each file once. Counted, not
 * timed (an outside pass: 500 applications took 36 s, 1,000 of two channels over 300 s, two thirds
 * of it lstat and realpath calls). The projection is the same as a compiler's that asks every time.
 */
import fs, { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ContractCompiler } from '../src/core/compile.js'
import { natsFormat } from '../src/formats/nats/index.js'
import { topology } from '../src/formats/nats/topology/index.js'
import { contractsInProcess } from './helpers/cli.js'

const work = join(import.meta.dirname, '.tmp/topology-bundle-cost', String(process.pid))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** A locked bundle of `apps` applications, each publishing one channel into a stream of its own. */
function bundle(apps: number): string {
  const root = join(work, `apps-${apps}`)
  mkdirSync(root, { recursive: true })
  const entries: Array<{ path: string; sha256: string }> = []
  for (let i = 0; i < apps; i++) {
    const doc = {
      asyncapi: '3.1.0',
      info: { title: `a${i}`, version: '1.0.0' },
      'x-nats-contract': {
        version: '0.2.0-draft',
        contract: `app${i}`,
        deployment: { binding: 'b', minimumServerVersion: '2.11.0' },
        tokenTypes: { tid: { kind: 'token', alphabet: 'lower', first: 'letter', minLength: 1, maxLength: 20, prefix: '' } },
        channels: { c: { parameters: { id: 'tid' } } },
        operations: { p: { publish: { api: 'jetstream', confirmation: 'stream-ack', stream: 's' } } },
        streams: {
          s: {
            authority: 'contract',
            config: {
              name: `S${i}`,
              subjects: [`a${i}.>`],
              retention: 'limits',
              storage: 'file',
              num_replicas: 1,
              max_age: 86400000000000,
              max_msgs: 1000,
              max_bytes: 104857600,
              discard: 'new',
              duplicate_window: 120000000000,
            },
          },
        },
      },
      channels: { c: { address: `a${i}.c.{id}`, parameters: { id: {} }, messages: { m: { payload: { type: 'object' } } } } },
      operations: { p: { action: 'send', channel: { $ref: '#/channels/c' } } },
    }
    const path = `app${i}/asyncapi.yaml`
    const bytes = Buffer.from(JSON.stringify(doc))
    mkdirSync(join(root, `app${i}`), { recursive: true })
    writeFileSync(join(root, path), bytes)
    entries.push({ path, sha256: createHash('sha256').update(bytes).digest('hex') })
  }
  writeFileSync(join(root, 'bundle.lock.json'), JSON.stringify({ entries }, null, 2))
  return root
}

/** `run` with every lstat, stat and realpath call of the process counted (the modules' named imports included). */
async function counted<T>(run: () => Promise<T>): Promise<{ value: T; calls: number }> {
  const saved = { lstatSync: fs.lstatSync, statSync: fs.statSync, realpathSync: fs.realpathSync, native: fs.realpathSync.native }
  let calls = 0
  const count =
    <F extends (...args: never[]) => unknown>(f: F) =>
    (...args: Parameters<F>) => {
      calls++
      return f(...args)
    }
  const realpath = Object.assign(count(saved.realpathSync), { native: count(saved.native) })
  Object.assign(fs, { lstatSync: count(saved.lstatSync), statSync: count(saved.statSync), realpathSync: realpath })
  syncBuiltinESMExports()
  try {
    return { value: await run(), calls }
  } finally {
    Object.assign(fs, { lstatSync: saved.lstatSync, statSync: saved.statSync, realpathSync: saved.realpathSync })
    syncBuiltinESMExports()
  }
}

describe('a topology over a bundle asks the file system of each file once', () => {
  it('20 and 40 applications: the calls grow with the bundle, not with its square; the projection is the one every compile checks', async () => {
    const small = bundle(20)
    const large = bundle(40)
    const once = (root: string) => counted(() => topology([root], new ContractCompiler({ formats: [natsFormat], snapshot: true })))
    const [a, b] = [await once(small), await once(large)]
    expect(a.value.diagnostics).toEqual([])
    expect(b.value.diagnostics).toEqual([])
    expect(b.value.topology!.nodes.filter((node) => node.kind === 'application')).toHaveLength(40)
    // Linear: twice the bundle, about twice the calls (n² would be four times).
    expect(b.calls / a.calls).toBeLessThan(2.5)
    // Without the snapshot every document's compile asks again for every file: quadratic, and the same picture.
    const every = await counted(() => topology([large], new ContractCompiler({ formats: [natsFormat] })))
    expect(every.value.topology).toEqual(b.value.topology)
    expect(every.calls).toBeGreaterThan(4 * b.calls)
    // The API's own compiler is a snapshot's.
    expect((await counted(() => topology([large]))).calls).toBeLessThan(every.calls / 4)
  })

  it('contracts check of every document of the bundle: the calls grow with the bundle too', async () => {
    const documents = (root: string, n: number) => Array.from({ length: n }, (_, i) => join(root, `app${i}/asyncapi.yaml`))
    const check = (root: string, n: number) => counted(() => contractsInProcess(['check', '--no-cache', ...documents(root, n)]))
    const [a, b] = [await check(bundle(20), 20), await check(bundle(40), 40)]
    expect([a.value.status, b.value.status]).toEqual([0, 0])
    expect(b.value.stderr).toContain('40 contracts checked: no errors.')
    expect(b.calls / a.calls).toBeLessThan(2.5)
  })
})
