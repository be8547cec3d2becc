/**
 * Child process for test/probe-pool.test.ts: runs the jobs of a JSON file (argv[2]) with the real
 * bundlers and the plugin as users import it, writes what each build showed to argv[3], prints
 * `DONE`, and then does nothing: the process must end by itself.
 */
import { readFileSync, readdirSync, statSync, writeFileSync, appendFileSync } from 'node:fs'
import { join, relative } from 'node:path'

const [, , jobsFile, outFile] = process.argv
const jobs = JSON.parse(readFileSync(jobsFile, 'utf8'))
const escapes = []
process.on('unhandledRejection', (e) => escapes.push('unhandledRejection: ' + String(e?.stack ?? e)))
process.on('uncaughtException', (e) => escapes.push('uncaughtException: ' + String(e?.stack ?? e)))

let started = 0
const alive = new Set()
process.on('worker', (w) => {
  started++
  alive.add(w)
  w.on('exit', () => alive.delete(w))
})
const tasks = () => readdirSync('/proc/self/task').length
function files(dir) {
  const out = {}
  const walk = (d) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n)
      if (statSync(p).isDirectory()) walk(p)
      else out[relative(dir, p)] = readFileSync(p, 'utf8')
    }
  }
  try {
    walk(dir)
  } catch {
    // no output folder: a failed build
  }
  return out
}
function text(e) {
  if (e && Array.isArray(e.errors) && e.errors.length && e.errors[0].text !== undefined)
    return e.errors.map((m) => `${m.text} @ ${m.location ? `${m.location.file}:${m.location.line}:${m.location.column}` : ''}`).join('\n')
  return String(e?.message ?? e)
}

async function build(job) {
  const { bundler, entry, out, options } = job
  const warnings = []
  let watchFiles
  if (bundler === 'vite') {
    const { build } = await import('vite')
    const { default: contracts } = await import('unplugin-contracts/vite')
    await build({
      configFile: false,
      logLevel: 'silent',
      root: join(entry, '..'),
      plugins: [contracts(options)],
      build: {
        outDir: out,
        emptyOutDir: true,
        minify: false,
        sourcemap: true,
        lib: { entry, formats: ['es'], fileName: () => 'main.js' },
        rollupOptions: { onwarn: (w) => warnings.push(`${w.code ?? ''} ${w.message}`) },
      },
    })
  } else if (bundler === 'rollup') {
    const { rollup } = await import('rollup')
    const { default: contracts } = await import('unplugin-contracts/rollup')
    const bundle = await rollup({ input: entry, plugins: [contracts(options)], onwarn: (w) => warnings.push(`${w.code ?? ''} ${w.message}`) })
    watchFiles = [...bundle.watchFiles].sort()
    await bundle.write({ file: join(out, 'main.js'), format: 'es', sourcemap: true })
    await bundle.close()
  } else if (bundler === 'esbuild') {
    const { build } = await import('esbuild')
    const { default: contracts } = await import('unplugin-contracts/esbuild')
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      sourcemap: true,
      outfile: join(out, 'main.js'),
      plugins: [contracts(options)],
      logLevel: 'silent',
    })
    for (const w of result.warnings) warnings.push(`${w.text} @ ${w.location ? `${w.location.file}:${w.location.line}:${w.location.column}` : ''}`)
  } else if (bundler === 'webpack') {
    const { default: webpack } = await import('webpack')
    const { default: contracts } = await import('unplugin-contracts/webpack')
    const compiler = webpack({
      mode: 'production',
      context: join(entry, '..'),
      entry,
      target: 'node',
      devtool: 'source-map',
      output: { path: out, filename: 'main.js', library: { type: 'module' }, module: true, chunkFormat: 'module' },
      experiments: { outputModule: true },
      optimization: { minimize: false },
      plugins: [contracts(options)],
    })
    await new Promise((resolve, reject) =>
      compiler.run((error, stats) =>
        compiler.close(() => {
          if (error) return reject(error)
          for (const w of stats.compilation.warnings) warnings.push(String(w.message))
          if (stats.hasErrors()) reject(new Error(stats.compilation.errors.map((e) => String(e.message)).join('\n----\n')))
          else resolve()
        }),
      ),
    )
  } else if (bundler === 'rollup-watch') {
    // Rollup's watch mode: the first build, then each edit of job.edits after a BUNDLE_END/ERROR.
    const { watch } = await import('rollup')
    const { default: contracts } = await import('unplugin-contracts/rollup')
    const events = []
    const watcher = watch({
      input: entry,
      plugins: [contracts(options)],
      onwarn: () => {},
      output: { file: join(out, 'main.js'), format: 'es' },
      watch: { buildDelay: 50 },
    })
    let step = 0
    await new Promise((resolve) => {
      watcher.on('event', (event) => {
        if (event.code === 'BUNDLE_END') {
          events.push('ok')
          event.result.close()
        } else if (event.code === 'ERROR') {
          events.push('error: ' + (text(event.error).match(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/)?.[0] ?? text(event.error)))
          event.result?.close()
        } else return
        if (step < job.edits.length) {
          const [file, append] = job.edits[step++]
          setTimeout(() => appendFileSync(file, append), 200)
        } else resolve()
      })
      // A bound on the whole watch (first build and each edit's rebuild), never a claim about speed:
      // 20 s was reached on the 2-core machine under load (a clean-clone run saw no event at all).
      setTimeout(resolve, 50000).unref()
    })
    await watcher.close()
    return { events }
  }
  return { watchFiles, warnings }
}

const results = []
for (const job of jobs) {
  const before = tasks()
  started = 0
  let result
  try {
    const { watchFiles, events, warnings } = (await build(job)) ?? {}
    result = { ok: true, files: job.bundler === 'rollup-watch' ? {} : files(job.out), watchFiles, events, warnings }
  } catch (e) {
    result = { ok: false, error: text(e) }
  }
  if (job.settle) await new Promise((r) => setTimeout(r, job.settle))
  if (job.gc && globalThis.gc) globalThis.gc()
  results.push({
    ...result,
    workersStarted: started,
    workersAlive: alive.size,
    tasksBefore: before,
    tasksAfter: tasks(),
    heap: process.memoryUsage().heapUsed,
    resources: process.getActiveResourcesInfo(),
  })
}
writeFileSync(outFile, JSON.stringify({ results, escapes }))
process.stdout.write('DONE\n')
