/**
 * The package in an app that `npm init -y` made: `"type": "commonjs"`, configs named `.js`. Vite
 * bundles a `vite.config.js` there to CommonJS and loads the plugin with `require()`; webpack and
 * Rspack load `webpack.config.js` / `rspack.config.js` with `require()`, and the config requires the
 * plugin. The package's entries are ES modules, which Node (20.19 and later) can `require()` as long
 * as nothing in their graph awaits at the top level. Each is built for real, in a fresh folder outside
 * the repository: the package resolved through a link `node_modules/unplugin-contracts` to this
 * checkout (as `npm pack` and install would place it), the bundlers through links to ours.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '..')
const app = mkdtempSync(join(tmpdir(), 'contracts-commonjs-app-'))
afterAll(() => rmSync(app, { recursive: true, force: true }))

mkdirSync(join(app, 'node_modules/@rspack'), { recursive: true })
symlinkSync(root, join(app, 'node_modules/unplugin-contracts'), 'dir')
for (const name of ['vite', 'webpack', '@rspack/core']) symlinkSync(join(root, 'node_modules', name), join(app, 'node_modules', name), 'dir')
// What `npm init -y` writes.
writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'commonjs-app', version: '1.0.0', main: 'index.js', type: 'commonjs' }, null, 2))
mkdirSync(join(app, 'src'))
cpSync(join(root, 'fixtures/benzene/valid/payments.spec.json'), join(app, 'src/payments.spec.json'))
// The app's code as Vite reads it (an ES module whatever the package type), and as webpack and Rspack
// read a `.js` file of a CommonJS package (CommonJS).
writeFileSync(join(app, 'src/main.js'), "import { capture } from './payments.spec.json'\nconsole.log(`topic ${capture.topic}`)\n")
writeFileSync(join(app, 'src/index.js'), "const { capture } = require('./payments.spec.json')\nconsole.log(`topic ${capture.topic}`)\n")

/** Runs a command in the app (at most two minutes) and returns its status and what it printed. */
function run(command: string, args: string[]): { status: number | null; output: string } {
  const r = spawnSync(command, args, { cwd: app, encoding: 'utf8', timeout: 120_000, env: { ...process.env, NO_COLOR: '1' } })
  return { status: r.status, output: `${r.stdout}${r.stderr}` }
}

/** The bundle runs, and the contract's topic is in what it prints. */
function runs(bundle: string): void {
  const ran = run(process.execPath, [bundle])
  expect([ran.status, ran.output]).toEqual([0, 'topic payments:capture\n'])
}

describe('an app with "type": "commonjs"', () => {
  it('every entry of the package loads with require(), and a plugin entry is its factory both ways', () => {
    const { exports } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, { default?: string }> }
    const entries = Object.entries(exports)
      .filter(([, target]) => typeof target === 'object' && target.default?.endsWith('.js'))
      .map(([path]) => `unplugin-contracts${path.slice(1)}`)
    expect(entries).toContain('unplugin-contracts/webpack')
    // A top-level await anywhere in an entry's graph would fail here with ERR_REQUIRE_ASYNC_MODULE.
    const script = [
      `for (const entry of ${JSON.stringify(entries)}) {`,
      '  const loaded = require(entry)',
      '  const plugin = /\\/(vite|rollup|rolldown|esbuild|webpack|rspack)$/.test(entry)',
      "  console.log(entry, plugin ? typeof loaded === 'function' && loaded.default === loaded : Object.keys(loaded).length > 0)",
      '}',
    ].join('\n')
    const r = run(process.execPath, ['-e', script])
    expect([r.status, r.output]).toEqual([0, entries.map((e) => `${e} true\n`).join('')])
  })

  it('vite build with a vite.config.js', () => {
    writeFileSync(
      join(app, 'vite.config.js'),
      "import contracts from 'unplugin-contracts/vite'\nexport default { plugins: [contracts()], build: { outDir: 'dist/vite', lib: { entry: 'src/main.js', formats: ['es'], fileName: 'main' } } }\n",
    )
    const built = run(join(root, 'node_modules/.bin/vite'), ['build', '--logLevel', 'error'])
    expect([built.status, built.output]).toEqual([0, ''])
    runs('dist/vite/main.mjs')
  })

  it.each([
    ['webpack', "const webpack = require('webpack')", "require('unplugin-contracts/webpack')"],
    ['rspack', "const { rspack: webpack } = require('@rspack/core')", "require('unplugin-contracts/rspack').default"],
  ])('%s with a CommonJS config that requires the plugin', (name, load, plugin) => {
    writeFileSync(
      join(app, `${name}.config.js`),
      `const contracts = ${plugin}\nmodule.exports = { mode: 'production', target: 'node', entry: './src/index.js', output: { path: __dirname + '/dist/${name}', filename: 'main.js' }, plugins: [contracts()] }\n`,
    )
    // What the bundler's CLI does with the config: require it and run a compiler on it.
    writeFileSync(
      join(app, `build-${name}.js`),
      `${load}\nconst compiler = webpack(require('./${name}.config.js'))\ncompiler.run((error, stats) => compiler.close(() => { if (error || stats.hasErrors()) { console.error(error ?? stats.toString('errors-only')); process.exitCode = 1 } }))\n`,
    )
    const built = run(process.execPath, [`build-${name}.js`])
    expect([built.status, built.output]).toEqual([0, ''])
    runs(`dist/${name}/main.js`)
  })
})
