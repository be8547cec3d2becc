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
//   loads the NATS chunks alone;
// - the runtime (dist/src/runtime/) is not bundled into the package's entries: the compiler imports
//   the files generated modules import, so its classes (`SubjectError`, thrown by
//   `globalSubjectParser`) are one per app (the CLI, a process of its own, bundles it);
// - packages stay imports of their own (`packages: 'external'`).
//
// tsc's one-file-per-source output stays beside the bundles (the runtime, the declarations, the
// precompiled validators and the tools that import single files: bench/, tests).
import { build } from 'esbuild'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'

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
    plugins: runtimeInline ? [] : [runtimeExternal],
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

// The package's entries, one build: a process that imports the root and a plugin (a `compiler`
// handed to the plugin) must share one copy of core and of each format, or a model asked for with
// one copy's format would not be the other's.
await bundle(
  {
    'src/index': join(dist, 'src/index.js'),
    ...Object.fromEntries(PLUGINS.map((name) => [`plugins/${name}`, join(dist, `plugins/${name}.js`)])),
  },
  'chunks',
)
// The command, a process of its own: built apart, so that its chunks are cut for what its commands
// load, and the package's for what an import of the package loads. Its runtime is bundled in, as
// it always was (no generated module shares the process): fewer files to load. What it imports on
// demand is a chunk with its packages' imports (nats.js, for `nats provision` only).
await bundle({ cli: join(dist, 'src/cli/bin.js') }, 'cli-chunks', { runtimeInline: true })
