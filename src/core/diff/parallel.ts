/**
 * `contracts diff` of two large versions on two threads: a worker thread (the format's diff worker,
 * `src/formats/diff-worker.ts`, named by the caller: core names no format) compiles the old version
 * while this thread compiles the new one; each sends the other its model, and the comparison is
 * shared (`SharedComparison`): the worker compares part of it and sends that part back as data.
 *
 * Worth it only for large documents: the worker's start (loading the compiler again in its own
 * thread) and each model's copy to the other thread cost processor time the single thread does not
 * spend (bench/diff.ts). Whatever goes wrong with the worker (it cannot start, it fails, a message
 * cannot be sent) is answered `undefined`: this thread makes that piece itself, and the findings
 * are the same.
 */
import { statSync } from 'node:fs'
import { Worker } from 'node:worker_threads'
import type { Diagnostic } from '../diagnostics.js'

/**
 * The smallest document (in bytes, each version) whose diff is shared with a worker: below it the
 * worker's start costs about what it saves (bench/diff.ts: a 5,000-channel document is about
 * 5.5 MB, its check about 1.4 s of processor time; a worker's start some 0.3 s).
 */
export const SHARED_DIFF_MIN_BYTES = 2 * 1024 * 1024

/** The old version as the worker compiled it: its report, and its model as the differ's `portable` made it (none when it has errors). */
export interface WorkerVersion {
  file: string
  diagnostics: Diagnostic[]
  dependencies: string[]
  model?: unknown
}

/** What the worker is sent: the new version (its model as `portable` made it), or nothing (it stops). */
export interface WorkerNext {
  file: string
  model: unknown
  dependencies: string[]
}

/** The messages the worker sends. */
export type WorkerMessage = { kind: 'old'; old: WorkerVersion } | { kind: 'part'; part: unknown } | { kind: 'failed' }

/** What the worker's start is given. */
export interface WorkerStart {
  file: string
  format: string
}

export interface DiffWorker {
  /** The old version, compiled by the worker; `undefined` when it failed (compile it here). */
  old: Promise<WorkerVersion | undefined>
  /** The worker's part of the comparison; `undefined` when it failed (make it here). */
  part: Promise<unknown>
  /** Sends the new version, for the worker's part. */
  send(next: WorkerNext): void
  /** Ends the worker (whatever it is doing). */
  stop(): void
}

/** Whether both files are large enough to share their diff with a worker (a file that cannot be read: no). */
export function sharedDiffPays(files: readonly string[], minBytes = SHARED_DIFF_MIN_BYTES): boolean {
  try {
    return files.every((file) => statSync(file).size >= minBytes)
  } catch {
    return false
  }
}

/** Starts the diff worker on the old version; `undefined` when it cannot start. */
export function startDiffWorker(script: URL, start: WorkerStart): DiffWorker | undefined {
  let worker: Worker
  try {
    worker = new Worker(script, { workerData: start })
  } catch {
    return undefined
  }
  let settleOld: (old: WorkerVersion | undefined) => void = () => {}
  let settlePart: (part: unknown) => void = () => {}
  const old = new Promise<WorkerVersion | undefined>((resolve) => (settleOld = resolve))
  const part = new Promise<unknown>((resolve) => (settlePart = resolve))
  // A failure answers whatever is still awaited; an answer that already came stays.
  const fail = () => {
    settleOld(undefined)
    settlePart(undefined)
  }
  worker.on('message', (message: WorkerMessage) => {
    if (message.kind === 'old') settleOld(message.old)
    else if (message.kind === 'part') settlePart(message.part)
    else fail()
  })
  worker.on('error', fail)
  worker.on('messageerror', fail)
  worker.on('exit', fail)
  return {
    old,
    part,
    send(next) {
      try {
        worker.postMessage(next)
      } catch {
        fail()
      }
    },
    stop() {
      fail()
      void worker.terminate()
    },
  }
}
