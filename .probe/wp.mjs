import webpack from 'webpack'
import { rspack } from '@rspack/core'
import w from 'unplugin-contracts/webpack'
import r from 'unplugin-contracts/rspack'
import { build } from 'esbuild'
import e from 'unplugin-contracts/esbuild'
const cfg = (p) => ({ mode: 'production', context: process.cwd(), entry: './broken.js', output: { path: process.cwd() + '/out/w' }, plugins: [p] })
for (const [name, c] of [['webpack', webpack(cfg(w()))], ['rspack', rspack(cfg(r()))]]) {
  await new Promise((done) => c.run((err, stats) => { console.log(`----- ${name}\n` + stats.toString({ colors: false, errorDetails: true })); c.close(done) }))
}
console.log('----- esbuild')
await build({ entryPoints: ['broken.js'], bundle: true, outfile: 'out/e.js', plugins: [e()], logLevel: 'error' }).catch(() => {})
