/**
 * A worker thread of the plugin's compile pool (`compile-pool.ts`): compiles what it is sent with
 * the built-in formats and answers with the result as data (`ContractCompiler.transferable`). It
 * keeps the persistent cache the plugin uses, so each compile it makes is written there as the
 * plugin's own would be.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { ContractCompiler } from '../core/compile.js'
import { PersistentCache, type PersistentCacheOptions } from '../core/persistent-cache.js'
import { formats } from '../formats/index.js'
import type { PoolAnswer, PoolJob } from './compile-pool.js'

const { cache } = workerData as { cache?: PersistentCacheOptions }
// Its answers are kept by the plugin's compiler (`adopt`): here, a result is kept only until it is
// sent (a few, for the compiles that overlap), so the worker's heap does not grow with the build.
const compiler = new ContractCompiler({ formats, maxEntries: 8, ...(cache ? { cache: new PersistentCache(cache) } : {}) })

parentPort!.on('message', (job: PoolJob) => {
  const answer = (message: PoolAnswer) => {
    try {
      parentPort!.postMessage(message)
    } catch {
      // What cannot be sent (a value structured cloning refuses): the plugin compiles it itself.
      parentPort!.postMessage({ id: job.id })
    }
  }
  compiler.transferable(job.file, job.options, job.maps).then(
    (made) => answer({ id: job.id, made }),
    () => answer({ id: job.id }),
  )
})
