// Run by `npm run build` after tsc (named for its first job, the `contracts` command): the package's
// entry points bundled from tsc's output, with code splitting. ES modules load one file at a time
// (resolve, read, compile, link), and the package root, each plugin entry and dist/cli.js reached
// about 130 to 210 of them; a fresh process spent more time on that than on its first compile
// (bench/cold-start.ts). Bundled:
//
// - the entries keep their paths (dist/src/index.js, dist/plugins/<bundler>.js, dist/cli.js), so
//   package.json's `exports` and `bin` and the `.d.ts` files beside them are unchanged;
// - what an entry imports on demand (`import()`: each format's code, the NATS topology's projection
//   and pictures, the Rust target) stays a chunk of its own in dist/chunks/, loaded on first use:
//   importing the package loads no format, a NATS compile loads the NATS chunk alone;
// - the runtime (dist/src/runtime/) is never bundled: the compiler imports the files generated
//   modules import, so its classes (`SubjectError`, thrown by `globalSubjectParser`) are one per app;
// - packages stay imports of their own (`packages: 'external'`).
//
// tsc's one-file-per-source output stays beside the bundles (the runtime, the declarations, the
// precompiled validators and the tools that import single files: bench/, tests).
import { build } from 'esbuild'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'

const dist = join(import.meta.dirname, '../dist')
const runtime = join(dist, 'src/runtime')
const chunks = join(dist, 'chunks')
const BANNER = '// Bundled by scripts/bundle-cli.mjs from tsc output (dist/src/); the runtime stays in dist/src/runtime.'
const PLUGINS = ['vite', 'rollup', 'rolldown', 'esbuild', 'webpack', 'rspack']
/** Output path (without `.js`, from dist/) -> tsc's file. */
const entries = {
  'src/index': join(dist, 'src/index.js'),
  ...Object.fromEntries(PLUGINS.map((name) => [`plugins/${name}`, join(dist, `plugins/${name}.js`)])),
  cli: join(dist, 'src/cli/bin.js'),
}

// The entries are overwritten in place: bundling a bundle again would be wrong, so tsc must run first.
for (const [out, file] of Object.entries(entries))
  if (out !== 'cli' && readFileSync(file, 'utf8').includes(BANNER)) throw new Error(`${file} is already bundled: run tsc first (npm run build)`)

/**
 * An import of a runtime file, marked external under a placeholder: esbuild writes an external
 * path as given, and the same code may land in dist/cli.js or in dist/chunks/, so each output's
 * path to dist/src/runtime is written in after the build.
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

const result = await build({
  entryPoints: entries,
  outdir: dist,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  banner: { js: BANNER },
  write: false,
  logLevel: 'warning',
  plugins: [runtimeExternal],
})

rmSync(chunks, { recursive: true, force: true })
for (const output of result.outputFiles) {
  let path = relative(dirname(output.path), runtime).split(sep).join('/')
  if (!path.startsWith('.')) path = `./${path}`
  mkdirSync(dirname(output.path), { recursive: true })
  writeFileSync(output.path, output.text.replaceAll(PLACEHOLDER, path), { mode: output.path === join(dist, 'cli.js') ? 0o755 : 0o644 })
}
console.log(`wrote ${Object.keys(entries).length} entries and ${result.outputFiles.length - Object.keys(entries).length} chunks in ${dist}`)
