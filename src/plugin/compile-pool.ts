/**
 * Compiles off the bundler's thread: a few worker threads (`compile-worker.ts`) compile contracts
 * while the bundler parses the modules already loaded, and while the plugin's own thread compiles
 * others. A build of many contracts on several cores then takes about the time of its share of
 * them. Started lazily: after a build's first `START_AFTER` compiles, by the first that no cache
 * answers (a worker's start, loading the compiler again in its own thread, costs about as much as
 * that many compiles; a build whose contracts are all cached starts none); each worker is idle-unreferenced (it never keeps a process alive) and all are ended
 * at the build's end. Whatever goes wrong with a worker (it cannot start, it fails, an answer cannot
 * be sent) is answered `undefined`: the plugin compiles the contract on its own thread.
 */
import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { CompileOptions } from '../core/compile.js'
import type { CacheHit, PersistentCacheOptions } from '../core/persistent-cache.js'

/** A compile sent to a worker. */
export interface PoolJob {
  id: number
  file: string
  options: CompileOptions
  /** Whether the answer carries the source map's lines and the contract's text. */
  maps: boolean
}

/** A worker's answer: the compile as data, or nothing (the plugin compiles it). */
export interface PoolAnswer {
  id: number
  made?: CacheHit
}

/**
 * Compiles a build asks for before the pool takes any (those the caches miss after them start the
 * workers). The break-even: a worker's start (loading the compiler and the formats again, and their
 * first runs) cost a build of the bench app 0.3 to 0.5 s more processor time, what its thread
 * spends on 15 to 20 compiles of those contracts; a build of fewer compiles gains nothing from it.
 */
export const START_AFTER = 16
/** Compiles sent to one worker at a time: one running, one waiting, so it never idles between them. */
const PER_WORKER = 2
/**
 * A worker's young generation, in MB: with V8's default a worker's process grew about 28 MB more
 * over 100 compiles, for no less time (a compile's garbage is short-lived either way).
 */
const YOUNG_GENERATION_MB = 8
/**
 * The worker's script: beside this file, as tsc compiles it and as the package's build bundles it
 * (dist/chunks/compile-worker.js, on the compiler's chunks: a worker of the bundled package runs
 * the same code, under the same code identity for the persistent cache, as the plugin that
 * starts it). From the sources (the tests) there is none: no pool.
 */
const BESIDE = new URL('./compile-worker.js', import.meta.url)
const WORKER_SCRIPT = existsSync(fileURLToPath(BESIDE)) ? BESIDE : undefined

/**
 * Cores a machine needs before `workers: true` starts any: on two cores, side by side with the
 * plain app, a worker gained nothing measurable for esbuild, Vite or webpack (the bundler's thread
 * and the machine's other work keep both cores busy) and cost about a tenth more processor time.
 */
const MIN_CORES = 4

/** How many workers the `workers` option asks for on this machine: one core left to the bundler's own thread. */
export function poolSize(option: boolean | number, cores = availableParallelism()): number {
  if (option === false || (option === true && cores < MIN_CORES)) return 0
  return Math.max(0, Math.min(typeof option === 'number' ? option : 4, cores - 1))
}

interface PoolWorker {
  worker: Worker
  running: number
  /** The pool's own listener for the worker's end (only it is taken off at `close`: others' listeners stay). */
  lost: () => void
}

/** A compile waiting for a thread: a worker takes it, or the plugin's own thread (`here`). */
interface Task<R> {
  job: Omit<PoolJob, 'id'>
  here(): Promise<R>
  adopt(made: CacheHit): Promise<R>
  resolve(result: R): void
  reject(error: unknown): void
}

export class CompilePool {
  private workers: PoolWorker[] = []
  private readonly waiting = new Map<number, { task: Task<unknown>; worker: PoolWorker }>()
  /** Compiles no thread has taken yet, in the order asked. */
  private readonly queue: Task<unknown>[] = []
  private nextId = 0
  /** Compiles asked for since the pool was made or last closed (`takes`). */
  private asked = 0
  /** Whether the plugin's own thread is working through the queue. */
  private draining = false
  /** Set when a worker could not start or failed: the rest of the process compiles on its own thread. */
  private broken = false
  /**
   * Set from the build's end (`close`) to the next build's start (`open`): a build that failed ends
   * while some of its compiles are still on their way (Rollup stops at the first error, the other
   * modules' hooks finish after), and those go to the plugin's own thread, never to a worker started
   * after the build ended, which no `close` would end.
   */
  private closed = false

  /**
   * `cache`: the persistent cache's folder the workers write to, as the plugin's compiler does;
   * `script`: the worker's (a test from the sources names the built one).
   */
  constructor(
    private readonly size: number,
    private readonly cache: () => PersistentCacheOptions | undefined,
    private readonly script: URL | undefined = WORKER_SCRIPT,
  ) {
    if (script === undefined) this.broken = true
  }

  /**
   * Whether the pool takes the compile about to be asked (one of the build's first `START_AFTER`,
   * or with no workers, it does not: then the plugin compiles on its own thread, as without a pool).
   */
  takes(): boolean {
    return !this.broken && !this.closed && this.size > 0 && ++this.asked > START_AFTER
  }

  /** A build starts: its compiles may go to workers again (after its first `START_AFTER`). */
  open(): void {
    this.closed = false
    this.asked = 0
  }

  /**
   * A compile (one that `takes` and no cache answered) by whichever thread is free first: a worker
   * (its answer made a result by `adopt`), or the plugin's own thread (`here`), which takes the
   * queue's compiles one at a time and lets the workers' answers in between them. A worker starts
   * when a compile is queued and the pool has room for one.
   */
  compile<R>(job: Omit<PoolJob, 'id'>, here: () => Promise<R>, adopt: (made: CacheHit) => Promise<R>): Promise<R> {
    if (this.broken || this.closed || this.size === 0) return here()
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ job, here, adopt, resolve, reject } as Task<unknown>)
      this.feed()
      void this.drain()
    })
  }

  /**
   * Ends every worker (the build is over); a later build (`open`) starts them again. The compiles
   * a worker had and those still queued are made on the plugin's own thread.
   */
  async close(): Promise<void> {
    this.closed = true
    const workers = this.workers
    this.workers = []
    this.asked = 0
    for (const [id] of this.waiting) this.settle({ id })
    void this.drain()
    for (const { worker, lost } of workers) worker.off('exit', lost)
    await Promise.all(workers.map(({ worker }) => worker.terminate()))
  }

  /** Hands queued compiles to the workers with room (starting workers while the pool has room). */
  private feed(): void {
    while (this.queue.length > 0 && !this.broken && !this.closed) {
      const target = this.available()
      if (!target) return
      const task = this.queue.shift()!
      const id = this.nextId++
      target.running++
      if (target.running === 1) target.worker.ref()
      this.waiting.set(id, { task, worker: target })
      try {
        target.worker.postMessage({ id, ...task.job } satisfies PoolJob)
      } catch {
        this.settle({ id }) // options structured cloning refuses
      }
    }
  }

  /** The plugin's own thread takes the queue's compiles, one at a time, while there are any. */
  private async drain(): Promise<void> {
    if (this.draining) return
    this.draining = true
    try {
      // A turn of the event loop first: the workers are given their share before this thread takes one.
      for (;;) {
        await new Promise((resolve) => setImmediate(resolve))
        const task = this.queue.shift()
        if (!task) return
        await task.here().then(task.resolve, task.reject)
      }
    } finally {
      this.draining = false
    }
  }

  /** The least busy worker with room, or a new one while the pool has room for it. */
  private available(): PoolWorker | undefined {
    let best: PoolWorker | undefined
    for (const candidate of this.workers) if (candidate.running < PER_WORKER && (!best || candidate.running < best.running)) best = candidate
    if (best?.running === 0 || this.workers.length >= this.size) return best
    return this.start() ?? best
  }

  private start(): PoolWorker | undefined {
    let worker: Worker
    try {
      worker = new Worker(this.script!, { workerData: { cache: this.cache() }, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } })
    } catch {
      this.broken = true
      return undefined
    }
    worker.unref()
    const entry: PoolWorker = {
      worker,
      running: 0,
      lost: () => {
        this.broken = true
        this.workers = this.workers.filter((w) => w !== entry)
        for (const [id, job] of this.waiting) if (job.worker === entry) this.settle({ id })
      },
    }
    this.workers.push(entry)
    worker.on('message', (answer: PoolAnswer) => this.settle(answer))
    worker.on('error', entry.lost)
    worker.on('exit', entry.lost)
    return entry
  }

  /** A worker's answer: the compile's result made from it, or (no answer) made on this thread. */
  private settle(answer: PoolAnswer): void {
    const waiting = this.waiting.get(answer.id)
    if (!waiting) return
    this.waiting.delete(answer.id)
    const { task, worker } = waiting
    worker.running--
    if (worker.running === 0) worker.worker.unref()
    const made = answer.made
    ;(made ? task.adopt(made) : task.here()).then(task.resolve, task.reject)
    this.feed()
  }
}
