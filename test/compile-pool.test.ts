/**
 * Compiles off the bundler's thread (`src/plugin/compile-pool.ts`, plugin option `workers`): a
 * compile made in one compiler and adopted by another is the same result (module, declarations,
 * source map, diagnostics, files depended on); the pool hands compiles to a worker and to the
 * plugin's own thread; and a build whose compiles went partly to a worker is the same bundle, map
 * and warnings as one compiled on the bundler's thread alone. The pool's worker is the built one
 * (`dist/`).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { ContractCompiler, type CompileOptions, type CompileResult } from '../src/core/compile.js'
import { formats } from '../src/formats/index.js'
import { CompilePool, START_AFTER, poolSize } from '../src/plugin/compile-pool.js'
import { benzeneDocument } from '../bench/generate.js'
import { freshDir } from './helpers/bundlers.js'

const root = join(import.meta.dirname, '..')
const dir = freshDir(join(import.meta.dirname, '.tmp/compile-pool'))
/** A contract with a warning (a `reserved` flag on an event, which has none). */
const warned = JSON.parse(readFileSync(join(root, 'fixtures/benzene/valid/payments.spec.json'), 'utf8')) as { events: Array<Record<string, unknown>> }
warned.events[0]!.reserved = true
writeFileSync(join(dir, 'warned.spec.json'), JSON.stringify(warned, null, 2) + '\n')

const contracts = [
  join(root, 'fixtures/benzene/valid/payments.spec.json'),
  join(dir, 'warned.spec.json'),
  join(root, 'fixtures/benzene/invalid/duplicate-topic.spec.json'),
  join(root, 'fixtures/nats/shop/orders/asyncapi/asyncapi.yaml'),
  join(root, 'fixtures/nats/client/orders.asyncapi.yaml'),
]

/** What a result shows, its getters read (the map and the declarations are made on first read). */
function shown(result: CompileResult) {
  const { code, dts, map, exports, identity, diagnostics, dependencies, absentDependencies, file, format } = result
  return { code, dts, map: map === undefined ? undefined : JSON.stringify(map), exports, identity, diagnostics, dependencies, absentDependencies, file, format }
}

describe('a compile made by another compiler (a worker) and adopted', () => {
  it('is the result of compiling it here: module, declarations, map, diagnostics, dependencies and absent paths', async () => {
    const there = new ContractCompiler({ formats })
    for (const [i, file] of contracts.entries())
      for (const options of (i === 0 ? [{ declarations: true }, { declarations: false, query: '' }] : [{ declarations: true }]) as CompileOptions[]) {
        const here = new ContractCompiler({ formats })
        const made = await there.transferable(file, options, true)
        expect(made, file).toBeDefined()
        // Across threads it is structured-cloned: the copy must be all it needs.
        const adopted = await here.adopt(file, options, structuredClone(made!))
        expect(shown(adopted)).toEqual(shown(await new ContractCompiler({ formats }).compile(file, options)))
        // Kept: the next compile of the same file is answered without the pipeline.
        expect(await here.answered(file, options)).toBe(adopted)
        expect(here.compilations).toBe(0)
      }
  })

  it('adopted without the lines of its source map, it answers only a compile that makes no map', async () => {
    const file = contracts[0]!
    const options = { declarations: false }
    const here = new ContractCompiler({ formats })
    const made = await new ContractCompiler({ formats }).transferable(file, options, false)
    expect(made!.stored.mappings).toBeUndefined()
    const adopted = await here.adopt(file, options, made!)
    expect(await here.answered(file, options, false)).toBe(adopted)
    expect(await here.answered(file, options, true)).toBeUndefined()
    expect((await here.compile(file, options)).map!.mappings).not.toBe('')
  })
})

// The built workers: the pool's script beside tsc's output of the plugin, and the one the bundled
// package runs (dist/chunks/, with the compiler's chunks, so that its compiles are keyed by the
// same code identity as the bundled plugin's own).
const workers = [
  ['beside tsc output', pathToFileURL(join(root, 'dist/src/plugin/compile-worker.js'))],
  ['of the bundled package', pathToFileURL(join(root, 'dist/chunks/compile-worker.js'))],
] as const

describe('the compile pool', () => {
  it('is sized one below the cores, at most the option, off with `workers: false`, and by default only from 4 cores', () => {
    expect(poolSize(false, 8)).toBe(0)
    expect(poolSize(true, 8)).toBe(4)
    expect(poolSize(true, 4)).toBe(3)
    expect(poolSize(true, 2)).toBe(0)
    expect(poolSize(1, 2)).toBe(1)
    expect(poolSize(3, 2)).toBe(1)
    expect(poolSize(2, 1)).toBe(0)
    expect(poolSize(true)).toBe(poolSize(true, availableParallelism()))
  })

  it.each(workers)('answers each compile with the result a compile on this thread makes, a worker %s taking some of them', async (_, worker) => {
    expect(existsSync(worker), 'npm run build first').toBe(true)
    const pool = new CompilePool(1, () => undefined, worker)
    const compiler = new ContractCompiler({ formats })
    let adopted = 0
    // The build's first compiles (the pool takes none) are small documents; the pool's, the fixtures.
    const small = Array.from({ length: START_AFTER }, (_, i) => {
      const file = join(dir, `small${i}.spec.json`)
      writeFileSync(file, benzeneDocument(1, i))
      return file
    })
    const files = [...small, ...contracts]
    const options = { declarations: true }
    const results = await Promise.all(
      files.map((file, i) => {
        const asked = { ...options, query: `v=${i}` }
        const here = () => compiler.compile(file, asked)
        if (!pool.takes()) return here()
        return pool.compile({ file, options: asked, maps: true }, here, (made) => {
          adopted++
          return compiler.adopt(file, asked, made)
        })
      }),
    )
    await pool.close()
    expect(adopted).toBeGreaterThan(0)
    expect(adopted).toBeLessThanOrEqual(files.length - START_AFTER)
    for (const [i, file] of files.entries())
      if (i >= START_AFTER) expect(shown(results[i]!)).toEqual(shown(await new ContractCompiler({ formats }).compile(file, { ...options, query: `v=${i}` })))
  })

  // Was a defect (fixed; found by test/probe-pool): a build that failed while compiles were still queued (Rollup stops at
  // the first error) had them answered at `close` by a worker started during it, which no `close` ended: a thread left
  // per failed build. And `close` took every 'exit' listener off its workers, an application's too.
  it('at its close: compiles still queued are made on this thread, no worker starts after it until the next build, and others’ listeners stay', async () => {
    const [, worker] = workers[1]
    const pool = new CompilePool(1, () => undefined, worker)
    const compiler = new ContractCompiler({ formats })
    const seen: Array<{ exited: boolean }> = []
    const observe = (w: import('node:worker_threads').Worker) => {
      const entry = { exited: false }
      seen.push(entry)
      w.on('exit', () => (entry.exited = true))
    }
    process.on('worker', observe)
    try {
      for (let i = 0; i < START_AFTER; i++) expect(pool.takes()).toBe(false)
      const ask = (file: string, i: number) => {
        const asked = { declarations: false, query: `close=${i}` }
        return pool.compile(
          { file, options: asked, maps: false },
          () => compiler.compile(file, asked),
          (made) => compiler.adopt(file, asked, made),
        )
      }
      expect(pool.takes()).toBe(true)
      const pending = contracts.map((file, i) => ask(file, i))
      // The worker is up (Node announces it once its thread runs) before the build ends.
      for (let i = 0; i < 200 && seen.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50))
      expect(seen.length).toBe(1)
      await pool.close()
      const results = await Promise.all(pending)
      expect(results.map((r) => r.file)).toEqual(contracts)
      // Between builds: neither taken nor sent to a worker.
      expect(pool.takes()).toBe(false)
      await ask(contracts[0]!, 99)
      expect(seen.map((w) => w.exited)).toEqual([true])
      // The next build: its first START_AFTER compiles are not taken, the one after is.
      pool.open()
      for (let i = 0; i < START_AFTER; i++) expect(pool.takes()).toBe(false)
      expect(pool.takes()).toBe(true)
      await pool.close()
    } finally {
      process.off('worker', observe)
    }
  })
})

describe('a build whose compiles go partly to a worker', () => {
  const app = join(dir, 'app')
  mkdirSync(app, { recursive: true })
  const names: string[] = []
  for (let i = 0; i < START_AFTER + 3; i++) {
    writeFileSync(join(app, `b${i}.spec.json`), benzeneDocument(1, i).replace('"synthetic-1"', `"synthetic-${i}"`))
    names.push(`b${i}.spec.json`)
  }
  writeFileSync(join(app, 'warned.spec.json'), JSON.stringify(warned))
  names.push('warned.spec.json')
  writeFileSync(join(app, 'main.js'), names.map((name, i) => `export * as c${i} from './${name}'`).join('\n') + '\n')

  async function build(workers: boolean | number, out: string) {
    const { build } = await import('esbuild')
    const { default: plugin } = await import('unplugin-contracts/esbuild')
    const result = await build({
      entryPoints: [join(app, 'main.js')],
      bundle: true,
      format: 'esm',
      sourcemap: true,
      outfile: join(out, 'main.js'),
      plugins: [plugin({ types: false, cache: false, workers })],
      logLevel: 'silent',
    })
    return {
      warnings: result.warnings.map((w) => w.text),
      code: readFileSync(join(out, 'main.js'), 'utf8'),
      map: readFileSync(join(out, 'main.js.map'), 'utf8'),
    }
  }

  it('is the bundle, the source map and the warnings of a build on the bundler thread alone', async () => {
    const alone = await build(false, join(dir, 'out-alone'))
    let started = 0
    const counted = () => started++
    process.on('worker', counted)
    const pooled = await build(1, join(dir, 'out-pooled'))
    process.off('worker', counted)
    expect(started).toBe(poolSize(1) > 0 ? 1 : 0)
    expect(alone.warnings).toHaveLength(1)
    expect(pooled).toEqual(alone)
  })
})
