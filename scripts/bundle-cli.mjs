// Run by `npm run build` after tsc: the `contracts` command as one ES module (dist/cli.js), its
// dependencies left as imports. A fresh `contracts check` spent about 40 ms of its 0.24 s loading
// the 200 modules of dist/ one by one (bench/cold-start.ts); the package's own entries (the plugin,
// the API, the runtime) stay separate modules, so that classes and runtime state are one per app.
import { build } from 'esbuild'
import { join } from 'node:path'

const out = join(import.meta.dirname, '../dist/cli.js')
await build({
  entryPoints: [join(import.meta.dirname, '../dist/src/cli/bin.js')],
  outfile: out,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
})
console.log(`wrote ${out}`)
