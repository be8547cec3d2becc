// Run by `npm run build` after tsc: the `contracts` command as one ES module (dist/cli.js), its
// dependencies left as imports. A fresh `contracts check` spent about 40 ms of its 0.24 s loading
// the 200 modules of dist/ one by one (bench/cold-start.ts); the package's own entries (the plugin,
// the API, the runtime) stay separate modules, so that classes and runtime state are one per app.
import { build } from 'esbuild'
import { join } from 'node:path'

const out = join(import.meta.dirname, '../dist/cli.js')
/**
 * What the CLI imports only on demand (`import()`) stays a separate module: bundled, its package
 * imports (nats.js for `nats provision`) would be hoisted to the top of dist/cli.js and loaded by
 * every command (about 15 ms of a `contracts check`).
 */
const lazyModules = {
  name: 'lazy-modules',
  setup(b) {
    b.onResolve({ filter: /runtime\/nats\/client\/index\.js$/ }, (args) =>
      args.kind === 'dynamic-import' ? { path: './src/runtime/nats/client/index.js', external: true } : undefined,
    )
  },
}
await build({
  entryPoints: [join(import.meta.dirname, '../dist/src/cli/bin.js')],
  outfile: out,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
  plugins: [lazyModules],
})
console.log(`wrote ${out}`)
