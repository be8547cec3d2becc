/**
 * A topology of n applications costs the file system calls of n documents, not n²: each document's
 * compile reads the bundle's n files, and a compiler made for one run over them (`snapshot`, what
 * `contracts topology`, `contracts check` and `topology()` use) asks the file system of each file once. Counted, not
 * timed (an outside pass: 500 applications took 36 s, 1,000 of two channels over 300 s, two thirds
 * of it lstat and realpath calls). The projection is the same as a compiler's that asks every time.
 */
import fs, { rmSync } from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { natsBundle } from '../bench/generate.js'
import { ContractCompiler } from '../src/core/compile.js'
import { natsFormat } from '../src/formats/nats/index.js'
import { topology } from '../src/formats/nats/topology/index.js'
import { contractsInProcess } from './helpers/cli.js'

const work = join(import.meta.dirname, '.tmp/topology-bundle-cost', String(process.pid))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** A locked bundle of `apps` applications of one channel each (bench/generate.ts, as the topology tests make it). */
const bundle = (apps: number): string => natsBundle(join(work, `apps-${apps}`), apps, 1)

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
