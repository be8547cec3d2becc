/**
 * Outside hostile pass on the compile workers (plugin option `workers`, docs/options.md#workers):
 * builds in child processes (test/helpers/probe-pool-child.mjs) with the real bundlers and the
 * plugin as users import it, with `workers: false` and with `workers: 1`/`2`, compared file for
 * file; each child must end by itself after its builds (threads "never keep the process alive").
 */
import { spawn } from 'node:child_process'
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { benzeneDocument, natsDocument } from '../bench/generate.js'

const repo = join(import.meta.dirname, '..')
const child = join(import.meta.dirname, 'helpers/probe-pool-child.mjs')
mkdirSync(join(import.meta.dirname, '.tmp/probe-pool'), { recursive: true })
const work = mkdtempSync(join(import.meta.dirname, '.tmp/probe-pool/run-'))
const outside = mkdtempSync(join(import.meta.dirname, '.tmp/probe-pool/outside-'))

const escapes: unknown[] = []
const onEscape = (e: unknown) => escapes.push(e)
beforeAll(() => {
  process.on('unhandledRejection', onEscape)
  process.on('uncaughtException', onEscape)
})
afterAll(() => {
  process.off('unhandledRejection', onEscape)
  process.off('uncaughtException', onEscape)
  rmSync(work, { recursive: true, force: true })
  rmSync(outside, { recursive: true, force: true })
  expect(escapes).toEqual([])
})

interface Built {
  ok: boolean
  files?: Record<string, string>
  warnings?: string[]
  watchFiles?: string[]
  events?: string[]
  error?: string
  tasksBefore: number
  tasksAfter: number
  heap: number
  resources: string[]
  workersStarted: number
  workersAlive: number
}
interface Job {
  bundler: 'vite' | 'rollup' | 'esbuild' | 'webpack' | 'rollup-watch'
  entry: string
  out: string
  options: Record<string, unknown>
  edits?: Array<[string, string]>
  gc?: boolean
  /** Milliseconds to wait after the build before counting threads. */
  settle?: number
}
interface Run {
  results: Built[]
  escapes: string[]
  /** Whether the child ended by itself within the bound after printing DONE. */
  exited: boolean
  done: boolean
  stderr: string
}

let runs = 0
/** Runs the jobs in a child process; waits at most `ms` for DONE, then at most 10 s for it to end by itself. */
function runChild(jobs: Job[], cwd: string, ms = 60_000): Promise<Run> {
  const n = runs++
  const jobsFile = join(work, `jobs${n}.json`)
  const outFile = join(work, `out${n}.json`)
  writeFileSync(jobsFile, JSON.stringify(jobs))
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, ['--expose-gc', child, jobsFile, outFile], { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    let done = false
    let timer = setTimeout(() => proc.kill('SIGKILL'), ms)
    proc.stdout.on('data', (d: Buffer) => {
      stdout += d.toString()
      if (!done && stdout.includes('DONE')) {
        done = true
        clearTimeout(timer)
        timer = setTimeout(() => proc.kill('SIGKILL'), 10_000)
      }
    })
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    proc.on('exit', (code, signal) => {
      clearTimeout(timer)
      const parsed = done ? (JSON.parse(readFileSync(outFile, 'utf8')) as { results: Built[]; escapes: string[] }) : { results: [], escapes: [] }
      resolve({ ...parsed, done, exited: done && signal === null && code === 0, stderr })
    })
  })
}

/** An app folder: files by name, and main.js importing `imports` in order as namespaces. */
function app(name: string, contracts: Array<[string, string]>, extra?: (root: string) => void): { root: string; main: string } {
  const root = join(work, name)
  mkdirSync(root, { recursive: true })
  for (const [file, text] of contracts) if (text !== '') writeFileSync(join(root, file), text)
  extra?.(root)
  const main = join(root, 'main.js')
  writeFileSync(main, contracts.map(([file], i) => `export * as c${i} from './${file}'`).join('\n') + '\n')
  return { root, main }
}

const small = (i: number) => benzeneDocument(1, i).replace('"synthetic-1"', `"synthetic-${i}"`)
const warned = (() => {
  const doc = JSON.parse(readFileSync(join(repo, 'fixtures/benzene/valid/payments.spec.json'), 'utf8')) as { events: Array<Record<string, unknown>> }
  doc.events[0]!.reserved = true
  return (i: number) => JSON.stringify(doc, null, 2).replace('"payments', `"payments${i}`) + '\n'
})()
const nats = (i: number) => `# variant ${i}\n` + natsDocument(3)
/** The first sixteen compiles are the bundler thread's: fillers that come first. */
const fillers = (from = 0): Array<[string, string]> => Array.from({ length: 16 }, (_, i) => [`f${from + i}.spec.json`, small(1000 + from + i)])

/** How many contracts the mixed app imports: ten after the first sixteen, on the worker with `workers: 1`. */
const MIXED = 26
/** The mixed app: Benzene (3 warned), NATS (generated, and the shop bundle's orders after the sixteenth), DASP (one among the sixteen, one after). */
function mixed(name: string, invalid?: 'late' | 'early') {
  const list: Array<[string, string]> = []
  for (let i = 0; i < MIXED; i++) {
    if (i === 19) list.push(['shop/orders/asyncapi/asyncapi.yaml', ''])
    else if (i % 8 === 5) list.push([`w${i}.spec.json`, warned(i)])
    else if (i % 6 === 1) list.push([`n${i}.asyncapi.yaml`, nats(i)])
    else if (i === 11 || i === 23) list.push([`dasp/d${i}.dasp.json`, ''])
    else list.push([`b${i}.spec.json`, small(i)])
  }
  const bad = readFileSync(join(repo, 'fixtures/benzene/invalid/duplicate-topic.spec.json'), 'utf8')
  if (invalid === 'late') list[MIXED - 1] = ['bad.spec.json', bad]
  if (invalid === 'early') list[2] = ['bad.spec.json', bad]
  return app(name, list, (root) => {
    for (const part of ['extensions', 'pins']) cpSync(join(repo, 'fixtures/dasp', part), join(root, 'dasp', part), { recursive: true })
    for (const i of [11, 23]) cpSync(join(repo, 'fixtures/dasp/counter.dasp.json'), join(root, `dasp/d${i}.dasp.json`))
    cpSync(join(repo, 'fixtures/nats/shop'), join(root, 'shop'), { recursive: true })
  })
}

/** A result's text with the app's own folder named the same in every run. */
const same = (r: Built, root: string) => JSON.parse(JSON.stringify(r).replaceAll(root, '<app>')) as Built
const sha = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16)
/** What a build showed: each output file by its digest (a diff names the file), the warnings in any order, the error, the files watched. */
/**
 * What a build gave, to compare with and without workers. Rolldown's PLUGIN_TIMINGS warning is left
 * out: it reports how long the plugins' hooks took in that build (a share of the build's time, so it
 * comes and goes with the machine's load), not what they made.
 */
const verdict = (r: Built) => ({
  ok: r.ok,
  files: r.files && Object.fromEntries(Object.entries(r.files).map(([name, text]) => [name, sha(text)])),
  warnings: r.warnings && r.warnings.filter((w) => !w.startsWith('PLUGIN_TIMINGS')).sort(),
  error: r.error,
  watchFiles: r.watchFiles,
})

describe('the same app of 26 contracts built with and without workers', () => {
  const bundlerNames = ['rollup', 'vite', 'esbuild', 'webpack'] as const
  /** `workers: 1` and `false` (a number above the cores gives no more threads: test/compile-pool pins `poolSize`). */
  const settingsOf = (_bundler: string): Array<false | number> => [false, 1]
  const apps = { valid: mixed('valid'), late: mixed('late', 'late'), early: mixed('early', 'early') }
  const runsByBundler = new Map<string, Promise<Run>>()
  const runOf = (bundler: (typeof bundlerNames)[number]) => {
    if (!runsByBundler.has(bundler))
      runsByBundler.set(
        bundler,
        runChild(
          Object.entries(apps)
            .filter(([kind]) => kind !== 'early' || bundler === 'rollup')
            .flatMap(([kind, a]) =>
              settingsOf(bundler).map((workers) => ({
                bundler,
                entry: a.main,
                out: join(work, 'out', bundler, kind, String(workers)),
                options: { types: false, cache: false, workers },
              })),
            ),
          apps.valid.root,
        ),
      )
    return runsByBundler.get(bundler)!
  }

  it.each(bundlerNames)(
    '%s: the same files byte for byte, the same warnings, the same error wherever the invalid contract is; the process ends by itself',
    async (bundler) => {
      const run = await runOf(bundler)
      expect(run.stderr).toBe('')
      expect(run.escapes).toEqual([])
      expect(run.done).toBe(true)
      // Holds (pinned): the child ends by itself after builds with worker threads.
      expect(run.exited).toBe(true)
      const n = settingsOf(bundler).length
      const results = run.results.map((r, i) => same(r, Object.values(apps)[Math.floor(i / n)]!.root))
      // Each app's builds, `workers: false` first; a missing `workers: 2` build is compared as the `workers: 1` one.
      const [[valid0, valid1, valid2], [late0, late1, late2], [early0, early1, early2]] = [0, 1, 2].map((k) => {
        const row = results.slice(k * n, k * n + n)
        return [row[0], row[1], row[2] ?? row[1]]
      })
      // Holds (pinned) for builds that succeed or fail late: `workers: 1` and `2` start one thread on
      // this machine (one fewer than its cores); `false` none. (A build that fails early: see below.)
      expect(run.results.slice(0, 2 * n).map((r) => r.workersStarted)).toEqual(
        [...settingsOf(bundler), ...settingsOf(bundler)].map((w) => (w === false ? 0 : 1)),
      )
      // Holds (pinned): with `workers: false` the valid app builds, with the three warned contracts' warnings and a map.
      expect(valid0!.ok, valid0!.error).toBe(true)
      expect(valid0!.warnings!.length).toBeGreaterThanOrEqual(3)
      expect(Object.keys(valid0!.files!).some((f) => f.endsWith('.map'))).toBe(true)
      expect(verdict(valid1!)).toEqual(verdict(valid0!))
      expect(verdict(valid2!)).toEqual(verdict(valid0!))
      if (bundler === 'rollup') {
        // Holds (pinned): the files watched are the same; the shop's orders (compiled after the sixteenth) watch its bundle's locked files.
        expect(valid0!.watchFiles).toContain('<app>/shop/payments/workflows/refund.yaml')
      }
      for (const [x0, x1, x2] of [[late0, late1, late2], ...(early0 ? [[early0, early1, early2]] : [])]) {
        expect(x0!.ok).toBe(false)
        expect(x0!.error).toContain('BENZENE_')
        expect(x0!.error).toMatch(/bad\.spec\.json:\d+:\d+/)
        expect(verdict(x1!)).toEqual(verdict(x0!))
        expect(verdict(x2!)).toEqual(verdict(x0!))
      }
    },
  )
})

/** JSON text of `levels` nested arrays. */
const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels)
/** A Benzene document with `"x-deep"` in `info` (levels: root 1, info 2, the arrays from 3). */
const deepBenzene = (total: number) => small(500).replace('"info": {', `"info": {\n    "x-deep": ${nested(total - 2)},`)
const hostile: Record<string, { file: string; make: (root: string) => void }> = {
  'nesting at the limit (64)': { file: 'h.spec.json', make: (root) => writeFileSync(join(root, 'h.spec.json'), deepBenzene(64)) },
  'nesting past the limit (65)': { file: 'h.spec.json', make: (root) => writeFileSync(join(root, 'h.spec.json'), deepBenzene(65)) },
  'YAML nesting past the limit': {
    file: 'h.asyncapi.yaml',
    make: (root) => writeFileSync(join(root, 'h.asyncapi.yaml'), natsDocument(3).replace('info:\n', `x-deep: ${nested(70)}\ninfo:\n`)),
  },
  'a 10 MB document': {
    file: 'h.spec.json',
    make: (root) => writeFileSync(join(root, 'h.spec.json'), small(501).replace(/}\s*$/, ' '.repeat(10_000_000) + '}\n')),
  },
  'a document over 16 MiB': {
    file: 'h.spec.json',
    make: (root) => writeFileSync(join(root, 'h.spec.json'), small(502).replace(/}\s*$/, ' '.repeat(16 * 1024 * 1024) + '}\n')),
  },
  'a YAML alias bomb': {
    file: 'h.asyncapi.yaml',
    make: (root) => {
      const levels = ['x-a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]']
      for (let i = 1; i < 9; i++)
        levels.push(
          `x-a${i}: &a${i} [${Array(10)
            .fill(`*a${i - 1}`)
            .join(', ')}]`,
        )
      writeFileSync(join(root, 'h.asyncapi.yaml'), natsDocument(3).replace('info:\n', levels.join('\n') + '\ninfo:\n'))
    },
  },
  'huge numbers in a schema': {
    file: 'h.spec.json',
    make: (root) =>
      writeFileSync(
        join(root, 'h.spec.json'),
        small(503).replace('"format": "double"', `"format": "double", "maximum": 1e400, "minimum": -${'9'.repeat(5000)}, "multipleOf": 1e-400`),
      ),
  },
  'a lone surrogate': {
    file: 'h.spec.json',
    make: (root) => writeFileSync(join(root, 'h.spec.json'), small(504).replace('"info": {', '"info": {\n    "x-s": "\\ud800",')),
  },
  'a symbolic link out of the tree': {
    file: 'h.spec.json',
    make: (root) => {
      writeFileSync(join(outside, 'real.spec.json'), small(505))
      symlinkSync(join(outside, 'real.spec.json'), join(root, 'h.spec.json'))
    },
  },
  'a FIFO': { file: 'h.spec.json', make: (root) => execFileSync('mkfifo', [join(root, 'h.spec.json')]) },
}

describe('hostile contracts compiled after the sixteenth (on a worker with `workers: 1`), Rollup', () => {
  const cases = Object.entries(hostile).map(([name, { file, make }], k) => {
    const a = app(`hostile${k}`, [...fillers(), [file, ''], ['after.spec.json', small(600)]], make)
    return { name, a }
  })
  const run = runChild(
    cases.flatMap(({ a }, k) =>
      ([false, 1] as const).map((workers) => ({
        bundler: 'rollup' as const,
        entry: a.main,
        out: join(work, 'out', `hostile${k}`, String(workers)),
        options: { types: false, cache: false, workers },
      })),
    ),
    work,
    90_000,
  )

  it('the process runs every build and ends by itself', async () => {
    const r = await run
    expect(r.stderr).toBe('')
    expect(r.escapes).toEqual([])
    expect(r.done).toBe(true)
    // Holds (pinned): no hostile compile on a worker keeps the process alive.
    expect(r.exited).toBe(true)
  })

  it.each(cases.map(({ name }, k) => [name, k] as const))('%s: the verdict of the `workers: false` build', async (_, k) => {
    const r = await run
    const [alone, pooled] = [r.results[2 * k]!, r.results[2 * k + 1]!].map((x) => same(x, cases[k]!.a.root))
    // Holds (pinned): the same files, warnings and error, with and without a worker.
    expect(verdict(pooled!)).toEqual(verdict(alone!))
    expect(pooled!.error ?? '').not.toContain('CONTRACTS_INTERNAL')
  })

  it('pins the verdicts the docs name (reliability.md, Limits)', async () => {
    const r = await run
    const byName = Object.fromEntries(cases.map(({ name }, k) => [name, r.results[2 * k + 1]!]))
    expect(byName['nesting past the limit (65)']!.error).toContain('CONTRACTS_TOO_DEEP')
    expect(byName['nesting at the limit (64)']!.error ?? '').not.toContain('CONTRACTS_TOO_DEEP')
    expect(byName['YAML nesting past the limit']!.error).toContain('CONTRACTS_TOO_DEEP')
    expect(byName['a document over 16 MiB']!.error).toContain('CONTRACTS_TOO_LARGE')
    expect(byName['a 10 MB document']!.ok).toBe(true)
    expect(byName['a YAML alias bomb']!.error).toContain('YAML_ALIAS_LIMIT')
    expect(byName['a lone surrogate']!.error).toContain('JSON_LONE_SURROGATE')
    expect(byName['a symbolic link out of the tree']!.error).toContain('CONTRACTS_SYMLINK')
    expect(byName['a FIFO']!.error).toContain('CONTRACTS_READ_FAILED')
  })
})

const entriesIn = (dir: string) => readdirSync(dir).filter((n) => n.endsWith('.entry'))
/** Rewrites every entry (but `skip`) so that its module exports `fromTheCache<k>`, with its digest right. */
function forge(dir: string, skip?: string): number {
  let k = 0
  for (const name of entriesIn(dir)) {
    if (name === skip) continue
    const path = join(dir, name)
    const [header, , json] = readFileSync(path, 'utf8').split('\n')
    const body = JSON.parse(json!) as { result: { code: string } }
    body.result.code += `\nexport const fromTheCache${k++} = true\n`
    const text = JSON.stringify(body)
    writeFileSync(path, `${header}\n${createHash('sha256').update(text).digest('hex')}\n${text}`)
  }
  return k
}
const served = (code: string) => new Set(code.match(/fromTheCache\d+/g)).size

describe('the persistent cache written by workers', () => {
  // Sixteen fillers, then what goes to the worker: warned and plain Benzene, NATS, the shop bundle's orders, DASP.
  const a = app(
    'cached',
    [
      ...fillers(),
      ['w.spec.json', warned(1)],
      ['n.asyncapi.yaml', nats(2)],
      ['shop/orders/asyncapi/asyncapi.yaml', ''],
      ['dasp/counter.dasp.json', ''],
      ['b.spec.json', small(3)],
    ],
    (root) => {
      for (const part of ['counter.dasp.json', 'extensions', 'pins']) cpSync(join(repo, 'fixtures/dasp', part), join(root, 'dasp', part), { recursive: true })
      cpSync(join(repo, 'fixtures/nats/shop'), join(root, 'shop'), { recursive: true })
    },
  )
  const one = join(a.root, 'cache-one')
  const two = join(a.root, 'cache-two')
  const job = (dir: string, workers: boolean | number, out: string): Job => ({
    bundler: 'rollup',
    entry: a.main,
    out: join(work, 'out', out),
    options: { types: false, cache: dir, workers },
  })

  it('a `workers: false` build reads every entry a `workers: 1` build wrote; a corrupt entry is a miss, written again', async () => {
    const first = await runChild([job(one, 1, 'c1')], a.root)
    expect(first.results[0]!.ok, first.results[0]!.error).toBe(true)
    expect(first.exited).toBe(true)
    const names = entriesIn(one)
    // Holds (pinned): one entry per contract, those the worker compiled too.
    expect(names).toHaveLength(21)
    const corrupt = names[0]!
    writeFileSync(join(one, corrupt), readFileSync(join(one, corrupt), 'utf8').slice(0, 100))
    const forged = forge(one, corrupt)
    const second = await runChild([job(one, false, 'c2')], a.root)
    expect(second.results[0]!.ok, second.results[0]!.error).toBe(true)
    // Holds (pinned): every other entry is served; the corrupt one compiled and kept again.
    expect(served(second.results[0]!.files!['main.js']!)).toBe(forged)
    expect(readFileSync(join(one, corrupt), 'utf8').length).toBeGreaterThan(100)
    expect(entriesIn(one)).toHaveLength(21)
  })

  it('two builds with workers at once, in two processes, leave a cache a third build reads fully', async () => {
    const [x, y] = await Promise.all([runChild([job(two, 1, 'p1')], a.root), runChild([job(two, 2, 'p2')], a.root)])
    for (const r of [x, y]) {
      expect(r.results[0]!.ok, r.results[0]!.error).toBe(true)
      expect(r.exited).toBe(true)
    }
    expect(readdirSync(two).filter((n) => !n.endsWith('.entry'))).toEqual([])
    expect(entriesIn(two)).toHaveLength(21)
    const forged = forge(two)
    const third = await runChild([job(two, false, 'p3')], a.root)
    // Holds (pinned): all 21 entries served.
    expect(served(third.results[0]!.files!['main.js']!)).toBe(forged)
  })
})

describe('Rollup watch mode', () => {
  it('an edit of a locked file of a contract compiled after the sixteenth is seen, with and without workers', async () => {
    const runs = await Promise.all(
      ([false, 1] as const).map((workers) => {
        const a = app(`watch-${workers}`, [...fillers(), ['shop/orders/asyncapi/asyncapi.yaml', ''], ['after.spec.json', small(700)]], (root) =>
          cpSync(join(repo, 'fixtures/nats/shop'), join(root, 'shop'), { recursive: true }),
        )
        const refund = join(a.root, 'shop/payments/workflows/refund.yaml')
        return runChild(
          [
            {
              bundler: 'rollup-watch',
              entry: a.main,
              out: join(work, 'out', `watch-${workers}`),
              options: { types: false, cache: false, workers },
              edits: [[refund, '\n# edited\n']],
            },
          ],
          a.root,
          // The child's watch is bounded at 50 s (probe-pool-child.mjs); the child itself a little longer.
          80_000,
        )
      }),
    )
    for (const r of runs) {
      expect({ done: r.done, exited: r.exited, stderr: r.stderr }).toEqual({ done: true, exited: true, stderr: '' })
      expect(r.results[0]!.ok, r.results[0]!.error).toBe(true)
    }
    // Holds (pinned): the edit (the lock no longer matches) fails the rebuild, the same way.
    expect(runs[0]!.results[0]!.events).toEqual(['ok', expect.stringContaining('NATS_LOCK')])
    expect(runs[1]!.results[0]!.events).toEqual(runs[0]!.results[0]!.events)
  })
})

describe('many Rollup builds in one process with `workers: 1` (builds that succeed)', () => {
  it('threads do not accumulate and memory stays bounded over 5 builds; the process ends by itself', async () => {
    const a = app('many', [...fillers(), ['after.asyncapi.yaml', nats(801)]])
    const r = await runChild(
      Array.from({ length: 5 }, (_, i) => ({
        bundler: 'rollup' as const,
        entry: a.main,
        out: join(work, 'out', `many${i % 2}`),
        options: { types: false, cache: false, workers: 1 },
        gc: true,
      })),
      a.root,
    )
    expect(r.escapes).toEqual([])
    expect(r.exited).toBe(true)
    expect(r.results.every((x) => x.ok && x.workersStarted === 1)).toBe(true)
    const tasks = r.results.map((x) => x.tasksAfter)
    // Holds (pinned): the thread count after the last build is no more than after the second.
    expect(tasks[4]).toBeLessThanOrEqual(tasks[1]!)
    expect(r.results[4]!.resources.filter((x) => /worker/i.test(x))).toEqual([])
    // Holds (pinned): the heap after the last build (after a GC) is within 1.5 times that after the second.
    expect(r.results[4]!.heap).toBeLessThan(r.results[1]!.heap * 1.5)
  })
})

describe('Rollup builds that fail on a contract among the first sixteen, with `workers: 1`', () => {
  it('start at most one thread each, and leave none behind', async () => {
    const a = mixed('failing', 'early')
    const r = await runChild(
      Array.from({ length: 2 }, (_, i) => ({
        bundler: 'rollup' as const,
        entry: a.main,
        out: join(work, 'out', 'failing'),
        options: { types: false, cache: false, workers: 1 },
        settle: i === 1 ? 1000 : 100,
      })),
      a.root,
    )
    // Holds (pinned): the process still ends by itself, and every build fails with the contract's error.
    expect(r.exited).toBe(true)
    expect(r.results.every((x) => !x.ok && x.error!.includes('BENZENE_DUPLICATE_TOPIC'))).toBe(true)
    // Was a defect (fixed): each failing build started two worker threads (two 'worker' events) though `workers: 1`
    // asks for at most one: the compiles still queued when Rollup ended the build were handed, at its end, to a worker
    // started then, which no end of a build terminated; the process's thread count (/proc/self/task) grew by one per
    // build. And the end of a build took every 'exit' listener off its workers (this file's too). docs/options.md#workers:
    // "those no cache answers after the sixteenth go to at most this many threads ... The threads start then ... and
    // end with the build".
    expect.soft(r.results.map((x) => x.workersStarted)).toEqual(r.results.map(() => 1))
    expect.soft(r.results.map((x) => x.workersAlive)).toEqual(r.results.map(() => 0))
    expect.soft(r.results.map((x) => x.tasksAfter - r.results[0]!.tasksAfter)).toEqual(r.results.map(() => 0))
  })
})
