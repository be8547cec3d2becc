/**
 * The worker thread of a shared diff (core/diff/parallel.ts): compiles the old version with the
 * built-in formats and sends its report and model; then, given the new version's model, makes its
 * part of the comparison (the format differ's `shared.part`) and sends it. A failure says so
 * (`failed`): the diff's own thread then makes what is missing.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { ContractCompiler } from '../core/compile.js'
import { hasErrors } from '../core/diagnostics.js'
import type { WorkerMessage, WorkerNext, WorkerStart } from '../core/diff/parallel.js'
import { versionReader } from '../core/diff/runner.js'
import { loadDiffer } from './diffs.js'
import { formats } from './index.js'

const port = parentPort!
const send = (message: WorkerMessage) => port.postMessage(message)

async function work({ file, format }: WorkerStart): Promise<void> {
  const registered = formats.find((f) => f.name === format)
  const shared = (await loadDiffer(format))?.shared
  if (registered === undefined || shared === undefined) return send({ kind: 'failed' })
  const next = new Promise<WorkerNext>((resolve) => port.once('message', resolve))
  const compiled = await new ContractCompiler({ formats }).model(file, registered)
  const usable = compiled.model !== undefined && !hasErrors(compiled.diagnostics)
  const { diagnostics, dependencies } = compiled
  send({ kind: 'old', old: { file: compiled.file, diagnostics, dependencies, ...(usable ? { model: shared.portable(compiled.model) } : {}) } })
  if (!usable) return
  const given = await next
  const part = await shared.part(
    { file: compiled.file, model: compiled.model, read: versionReader(compiled.file, dependencies) },
    { file: given.file, model: given.model, read: versionReader(given.file, given.dependencies) },
  )
  send({ kind: 'part', part })
}

work(workerData as WorkerStart).catch(() => send({ kind: 'failed' }))
