// Run by `npm run build` after tsc (named for its first job, the `contracts` command): the package's
// entry points bundled from tsc's output, with code splitting. ES modules load one file at a time
// (resolve, read, compile, link), and the package root, each plugin entry and dist/cli.js reached
// about 130 to 210 of them; a fresh process spent more time on that than on its first compile
// (bench/cold-start.ts). Bundled:
//
// - the entries keep their paths (dist/src/index.js, dist/plugins/<bundler>.js, dist/cli.js), so
//   package.json's `exports` and `bin` and the `.d.ts` files beside them are unchanged;
// - what an entry imports on demand (`import()`: each format's code, the NATS topology's projection
//   and pictures, the Rust target) stays in chunks of its own (dist/chunks/, dist/cli-chunks/),
//   loaded on first use: importing the package or a plugin loads no format, and a NATS compile
//   loads the NATS chunks alone. The package's chunks are cut by Rollup, by what loads them
//   (`bundlePackage`): the package root is two files, a first NATS compile four more; the
//   command's by esbuild;
// - a runtime file (dist/src/runtime/) that exports a class stays an import of its own in the
//   package's entries, with the runtime files it imports: the compiler imports the file generated
//   modules import, so its classes (`SubjectError`, thrown by `globalSubjectParser`) are one per
//   app. The rest of the runtime the compiler uses (JSON Pointer, schema checks, pattern budgets:
//   functions and data) is bundled into its chunks: each ES module is resolved, read, compiled and
//   linked apart, and the thirteen such files a first NATS compile loaded cost a fresh process
//   about a sixth of its CPU time for the import and first compile (bench/cold-start.ts). The
//   CLI, a process of its own, bundles the whole runtime;
// - packages stay imports of their own (`packages: 'external'`).
//
// tsc's one-file-per-source output stays beside the bundles (the runtime, the declarations, the
// precompiled validators and the tools that import single files: bench/, tests).
import { build, transformSync } from 'esbuild'
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

const dist = join(import.meta.dirname, '../dist')
const runtime = join(dist, 'src/runtime')
const BANNER = '// Bundled by scripts/bundle-cli.mjs from tsc output (dist/src/).'
const PLUGINS = ['vite', 'rollup', 'rolldown', 'esbuild', 'webpack', 'rspack']

/**
 * An import of a runtime file, marked external under a placeholder: esbuild writes an external
 * path as given, and the same code may land in an entry or in a chunk, at other depths, so each
 * output's path to dist/src/runtime is written in after the build.
 */
const PLACEHOLDER = '@@unplugin-contracts-runtime@@'
const runtimeExternal = {
  name: 'runtime-external',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      const target = join(args.resolveDir, args.path)
      if (!target.startsWith(runtime + sep) || args.importer.startsWith(runtime + sep)) return undefined
      return { path: `${PLACEHOLDER}/${relative(runtime, target).split(sep).join('/')}`, external: true }
    })
  },
}

/**
 * One build: `entries` (output path from dist/ without `.js` -> tsc's file), overwritten in place,
 * and their chunks in `chunkDir` (emptied first); the runtime imported from dist/src/runtime, or
 * bundled in with `runtimeInline`. The entries must be tsc's: bundling a bundle
 * again would be wrong, so tsc must run first.
 */
async function bundle(entries, chunkDir, { runtimeInline = false } = {}) {
  for (const [out, file] of Object.entries(entries))
    if (join(dist, `${out}.js`) === file && readFileSync(file, 'utf8').includes(BANNER))
      throw new Error(`${file} is already bundled: run tsc first (npm run build)`)
  const result = await build({
    entryPoints: entries,
    outdir: dist,
    chunkNames: `${chunkDir}/[name]-[hash]`,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    banner: { js: BANNER },
    write: false,
    logLevel: 'warning',
    plugins: runtimeInline ? [bundledPackagesEsbuild] : [runtimeExternal, bundledPackagesEsbuild],
  })
  rmSync(join(dist, chunkDir), { recursive: true, force: true })
  for (const output of result.outputFiles) {
    let path = relative(dirname(output.path), runtime).split(sep).join('/')
    if (!path.startsWith('.')) path = `./${path}`
    mkdirSync(dirname(output.path), { recursive: true })
    writeFileSync(output.path, output.text.replaceAll(PLACEHOLDER, path), { mode: output.path === join(dist, 'cli.js') ? 0o755 : 0o644 })
  }
  const count = Object.keys(entries).length
  console.log(`wrote ${count} ${count === 1 ? 'entry' : 'entries'} and ${result.outputFiles.length - count} chunks (dist/${chunkDir})`)
}

/** The format whose code a module of tsc's output is (`dist/src/formats/<name>/index.js` loads it), or undefined. */
/** A format's options module, loaded on its own for a compile the persistent cache answers. */
const FORMAT_OPTIONS = /[\\/]dist[\\/]src[\\/]formats[\\/][a-z]+[\\/]options\.js$/
const FORMAT_ROOT = /[\\/]dist[\\/]src[\\/]formats[\\/]([a-z]+)[\\/]index\.js$/

/** Whether a runtime file of tsc's output exports a class (`export class X`, or a class named in an `export { }` list). */
function exportsAClass(text) {
  return [...text.matchAll(/^(export\s+)?(?:default\s+)?class\s+([A-Za-z_$][\w$]*)/gm)].some(
    ([, exported, name]) => exported !== undefined || new RegExp(`^export\\s*\\{[^}]*\\b${name}\\b`, 'm').test(text),
  )
}

/** The relative imports (static, re-exports and `import()`) of a file of tsc's output, as paths. */
function relativeImports(file, text) {
  const found = text.matchAll(/(?:^(?:import|export)\b[^;]*?\bfrom\s*|\bimport\(\s*)['"](\.\.?\/[^'"]+)['"]/gm)
  return [...found].map(([, path]) => join(dirname(file), path))
}

/**
 * The runtime files the package's code (reached from `roots`) imports where tsc wrote them rather
 * than bundling a copy: each that exports a class (one module per app, or an app's `instanceof`
 * would miss what the compiler's copy made), and every runtime file those import (loaded with
 * them anyway: a copy would be compiled twice). Read from tsc's output.
 */
function keptRuntimeFiles(roots) {
  const texts = new Map()
  const text = (file) => {
    if (!texts.has(file)) texts.set(file, readFileSync(file, 'utf8'))
    return texts.get(file)
  }
  const inRuntime = (file) => file.startsWith(runtime + sep)
  const seen = new Set()
  const kept = new Set()
  const stack = [...roots]
  while (stack.length > 0) {
    const file = stack.pop()
    if (seen.has(file)) continue
    seen.add(file)
    for (const target of relativeImports(file, text(file))) {
      if (!target.endsWith('.js')) continue
      if (!inRuntime(target)) stack.push(target)
      else if (!inRuntime(file) && exportsAClass(text(target))) kept.add(target)
    }
  }
  const keptStack = [...kept]
  while (keptStack.length > 0) {
    const file = keptStack.pop()
    for (const target of relativeImports(file, text(file)))
      if (inRuntime(target) && !kept.has(target)) {
        kept.add(target)
        keptStack.push(target)
      }
  }
  return kept
}

/**
 * Packages the package's chunks hold a copy of (by name: its license, as a legal comment esbuild's
 * printing keeps): `canonicalize`, 2 KB that three NATS rules import, and `get-east-asian-width`,
 * 10 KB in four modules that the code frames import (a diagnostic's caret under wide characters).
 * Left as imports, the first resolved a package from node_modules on a first NATS compile's path
 * (about 3% of a fresh process's CPU time for its import and first compile, bench/cold-start.ts),
 * and the second on the package root's own import (about 6%: the first package resolution of the
 * process, then four modules read and compiled apart). The versions are the ones package.json pins;
 * the runtime files still import their packages.
 */
const BUNDLED_PACKAGES = { canonicalize: 'Apache-2.0', 'get-east-asian-width': 'MIT' }

/** The package.json of the package whose entry file is `entry`: the nearest one above it that names it. */
function packageJsonOf(name, entry) {
  for (let dir = dirname(entry); dirname(dir) !== dir; dir = dirname(dir)) {
    const file = join(dir, 'package.json')
    const manifest = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined
    if (manifest?.name === name) return manifest
  }
  throw new Error(`scripts/bundle-cli.mjs: no package.json of ${name} above ${entry}`)
}

/**
 * BUNDLED_PACKAGES in the esbuild builds (the command's): resolved to their files, so that they are
 * bundled in where every other package stays an import of its own (`packages: 'external'`). A
 * `contracts check` resolved both from node_modules, the first package resolutions of its process.
 */
const bundledPackagesEsbuild = {
  name: 'bundled-packages',
  setup(b) {
    const names = Object.keys(BUNDLED_PACKAGES).map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    const entries = new Map(Object.keys(BUNDLED_PACKAGES).map((name) => [fileURLToPath(import.meta.resolve(name)), name]))
    b.onResolve({ filter: new RegExp(`^(?:${names.join('|')})$`) }, (args) => ({ path: fileURLToPath(import.meta.resolve(args.path)) }))
    // Each package's name, version and license as a legal comment, as the Rollup build writes it.
    b.onLoad({ filter: /\.m?js$/ }, (args) => {
      const name = entries.get(args.path)
      if (name === undefined) return undefined
      const { version } = packageJsonOf(name, args.path)
      return {
        contents: `/*! ${name} ${version} | ${BUNDLED_PACKAGES[name]} | bundled from node_modules/${name} */\n${readFileSync(args.path, 'utf8')}`,
        loader: 'js',
      }
    })
  },
}

const bundledPackages = {
  name: 'bundled-packages',
  resolveId(id) {
    return Object.hasOwn(BUNDLED_PACKAGES, id) ? fileURLToPath(import.meta.resolve(id)) : null
  },
  transform(code, id) {
    for (const [name, license] of Object.entries(BUNDLED_PACKAGES))
      if (id === fileURLToPath(import.meta.resolve(name))) {
        const { version } = packageJsonOf(name, id)
        return { code: `/*! ${name} ${version} | ${license} | bundled from node_modules/${name} */\n${code}`, map: null }
      }
    return null
  },
}

/**
 * The package's entries bundled by Rollup, whose chunks can be chosen (esbuild cuts a chunk for
 * every set of entries and `import()`s that reach a module, which made the package root 14 files
 * and a first NATS compile 11 more). Chunks:
 * - `core`: everything the package root imports statically, one file (loaded by any import);
 * - one per built-in format (`nats`, `benzene`, `dasp`): the modules only that format's code
 *   reaches, loaded on the first file it claims;
 * - `formats`: the modules two or more formats share (schema code, rules, YAML reading), loaded
 *   on the first compile of any format;
 * - the rest (the plugins' own code, diff, topology pictures) as Rollup cuts it.
 * Entries and the runtime as the esbuild build does (see above).
 */
async function bundlePackage(entries, chunkDir) {
  for (const [out, file] of Object.entries(entries))
    if (join(dist, `${out}.js`) === file && readFileSync(file, 'utf8').includes(BANNER))
      throw new Error(`${file} is already bundled: run tsc first (npm run build)`)
  const { rollup } = await import('rollup')
  const kept = keptRuntimeFiles(Object.values(entries))
  const warnings = []
  const build = await rollup({
    input: entries,
    preserveEntrySignatures: 'strict',
    // Packages stay imports of their own, but for BUNDLED_PACKAGES; a kept runtime file
    // (`keptRuntimeFiles`) is imported where tsc wrote it, from the package's code and from the
    // runtime files bundled in alike.
    external: (id, importer) => {
      if (!/^\.\.?\//.test(id) && !id.startsWith('/')) return !Object.hasOwn(BUNDLED_PACKAGES, id)
      if (importer === undefined) return false
      const target = id.startsWith('/') ? id : join(dirname(importer), id)
      return kept.has(target)
    },
    onwarn: (warning) => warnings.push(warning),
    plugins: [bundledPackages],
  })
  const closures = new Map()
  /** Every module `id` imports statically, itself included (externals left out). */
  const closure = (id, info) => {
    let set = closures.get(id)
    if (set) return set
    set = new Set()
    const stack = [id]
    while (stack.length > 0) {
      const at = stack.pop()
      if (set.has(at)) continue
      const module = info(at)
      if (!module || module.isExternal) continue
      set.add(at)
      stack.push(...module.importedIds)
    }
    closures.set(id, set)
    return set
  }
  let core, formatRoots, otherRoots
  const { output } = await build.generate({
    format: 'es',
    dir: dist,
    entryFileNames: '[name].js',
    chunkFileNames: `${chunkDir}/[name]-[hash].js`,
    banner: BANNER,
    manualChunks(id, { getModuleInfo, getModuleIds }) {
      if (core === undefined) {
        core = closure(entries['src/index'], getModuleInfo)
        const ids = [...getModuleIds()].filter((m) => !getModuleInfo(m).isExternal)
        formatRoots = ids.filter((m) => FORMAT_ROOT.test(m))
        // What loads code of a format's without loading the format: the plugins, and a format's
        // options (all a compile the persistent cache answers loads). Other `import()`s (diff,
        // topology pictures) load the chunks of the formats they need.
        otherRoots = [
          ...Object.entries(entries).flatMap(([name, file]) => (name === 'src/index' ? [] : [file])),
          ...ids.filter((m) => getModuleInfo(m).dynamicImporters.length > 0 && FORMAT_OPTIONS.test(m)),
        ]
      }
      // The root entry keeps its own module; the rest of what it reaches is one chunk.
      if (core.has(id)) return id === entries['src/index'] ? undefined : 'core'
      const reaching = formatRoots.filter((root) => closure(root, getModuleInfo).has(id))
      if (reaching.length === 0) return undefined
      // A module something else loads without that format (a format's options do, for a compile
      // the persistent cache answers) gets a chunk of its own, named for what loads it: left to
      // Rollup, it would join the format's chunk (Rollup puts a manual chunk's unassigned
      // dependencies in it), and loading the options would load the whole format.
      const apart = otherRoots.filter((root) => {
        const reached = closure(root, getModuleInfo)
        return reached.has(id) && !reaching.some((format) => reached.has(format))
      })
      if (apart.length > 0)
        return [
          ...reaching.map((root) => FORMAT_ROOT.exec(root)[1]),
          ...new Set(apart.map((root) => (FORMAT_OPTIONS.test(root) ? 'options' : 'plugins'))),
        ].join('-')
      return reaching.length === 1 ? FORMAT_ROOT.exec(reaching[0])[1] : 'formats'
    },
  })
  await build.close()
  const relevant = warnings.filter((w) => !['CIRCULAR_DEPENDENCY', 'THIS_IS_UNDEFINED', 'INVALID_ANNOTATION'].includes(w.code))
  if (relevant.length > 0) throw new Error(`rollup: ${relevant.map((w) => w.message).join('\n')}`)
  rmSync(join(dist, chunkDir), { recursive: true, force: true })
  for (const file of output) {
    const path = join(dist, file.fileName)
    mkdirSync(dirname(path), { recursive: true })
    // Rollup keeps every comment of tsc's output; esbuild's printing drops them (not the `@__PURE__`
    // annotations) and is otherwise the same code: a third fewer bytes for each process to read.
    const code = file.type === 'chunk' ? transformSync(file.code, { loader: 'js', format: 'esm', target: 'node20' }).code : file.source
    writeFileSync(path, code, { mode: 0o644 })
  }
  const count = Object.keys(entries).length
  console.log(`wrote ${count} entries and ${output.length - count} chunks (dist/${chunkDir}, rollup)`)
}

// tsc's own package root, before the bundle below takes its place: the test suite loads the compiler
// one module per source file, as its sources are (vitest.config.ts, BUILT), and the root is the one
// such module the bundle overwrites. Not in the package (package.json `files`).
copyFileSync(join(dist, 'src/index.js'), join(dist, 'src/index.unbundled.js'))

// The package's entries, one build: a process that imports the root and a plugin (a `compiler`
// handed to the plugin) must share one copy of core and of each format, or a model asked for with
// one copy's format would not be the other's.
await bundlePackage(
  {
    'src/index': join(dist, 'src/index.js'),
    ...Object.fromEntries(PLUGINS.map((name) => [`plugins/${name}`, join(dist, `plugins/${name}.js`)])),
    // The compile pool's worker, beside the chunk that starts it: it runs the same chunks as the
    // plugin (not tsc's file-per-module output), so its compiles are the bundled code's and are
    // kept in the persistent cache under the same code identity.
    'chunks/compile-worker': join(dist, 'src/plugin/compile-worker.js'),
  },
  'chunks',
)
// The command, a process of its own: built apart, so that its chunks are cut for what its commands
// load, and the package's for what an import of the package loads. Its runtime is bundled in, as
// it always was (no generated module shares the process): fewer files to load. What it imports on
// demand is a chunk with its packages' imports (nats.js, for `nats provision` only).
await bundle({ cli: join(dist, 'src/cli/bin.js') }, 'cli-chunks', { runtimeInline: true })
