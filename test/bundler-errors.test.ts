/**
 * What a user sees when a contract is invalid, as each bundler prints it: the bundlers' own CLIs
 * (Vite, Rollup, Rolldown) in child processes, webpack's and Rspack's stats text (what their CLIs
 * print) and esbuild's formatted messages. The diagnostic appears once, at the 1-based position the
 * diagnostic gives, with its frame once, no stack from the plugin and no virtual module id.
 */
import { execFileSync } from 'node:child_process'
import { cpSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { stripVTControlCharacters } from 'node:util'
import { describe, expect, it } from 'vitest'
import { freshDir } from './helpers/bundlers.js'

const root = join(import.meta.dirname, '..')
const dir = freshDir(join(import.meta.dirname, '.tmp/bundler-errors'))
cpSync(join(import.meta.dirname, 'fixtures/app/broken.spec.json'), join(dir, 'broken.spec.json'))
writeFileSync(join(dir, 'broken.js'), "import { capture } from './broken.spec.json'\nexport const topic = capture.topic\n")
const contract = join(dir, 'broken.spec.json')

/** Runs a command in the app folder and returns everything it printed (it must fail). */
function failing(command: string, args: string[]): string {
  try {
    execFileSync(command, args, { cwd: dir, encoding: 'utf8', stdio: 'pipe', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } })
  } catch (error) {
    const e = error as { stdout: string; stderr: string; status: number }
    expect(e.status).not.toBe(0)
    return stripVTControlCharacters(e.stdout + e.stderr)
  }
  throw new Error(`${command} ${args.join(' ')} succeeded on an invalid contract`)
}

const script = (name: string, text: string) => (writeFileSync(join(dir, name), text), name)
const bin = (name: string) => join(root, 'node_modules/.bin', name)

const printed: Record<string, () => string> = {
  vite: () =>
    failing(bin('vite'), [
      'build',
      '--config',
      script(
        'vite.config.mjs',
        "import contracts from 'unplugin-contracts/vite'\nexport default { plugins: [contracts()], build: { lib: { entry: 'broken.js', formats: ['es'] }, outDir: 'out/vite' } }\n",
      ),
    ]),
  rollup: () =>
    failing(bin('rollup'), [
      '-c',
      script(
        'rollup.config.mjs',
        "import contracts from 'unplugin-contracts/rollup'\nexport default { input: 'broken.js', output: { file: 'out/rollup.js' }, plugins: [contracts()] }\n",
      ),
    ]),
  rolldown: () =>
    failing(bin('rolldown'), [
      '-c',
      script(
        'rolldown.config.mjs',
        "import contracts from 'unplugin-contracts/rolldown'\nexport default { input: 'broken.js', output: { file: 'out/rolldown.js' }, plugins: [contracts()] }\n",
      ),
    ]),
  esbuild: () =>
    failing(process.execPath, [
      script(
        'esbuild.mjs',
        "import { build } from 'esbuild'\nimport contracts from 'unplugin-contracts/esbuild'\nawait build({ entryPoints: ['broken.js'], bundle: true, outfile: 'out/esbuild.js', plugins: [contracts()], logLevel: 'error', color: false }).catch(() => process.exit(1))\n",
      ),
    ]),
  ...Object.fromEntries(
    [
      ['webpack', "import webpack from 'webpack'", 'webpack'],
      ['rspack', "import { rspack } from '@rspack/core'", 'rspack'],
    ].map(([name, load, call]) => [
      name,
      () =>
        failing(process.execPath, [
          script(
            `${name}.mjs`,
            `${load}\nimport contracts from 'unplugin-contracts/${name}'\nconst compiler = ${call}({ mode: 'production', context: process.cwd(), entry: './broken.js', output: { path: process.cwd() + '/out/${name}' }, plugins: [contracts()] })\ncompiler.run((error, stats) => { console.log(stats.toString({ colors: false, errorDetails: true })); compiler.close(() => process.exit(stats.hasErrors() ? 1 : 0)) })\n`,
          ),
        ]),
    ]),
  ),
}

const count = (text: string, part: string) => text.split(part).length - 1

describe.each(Object.keys(printed))('%s prints a contract error', (name) => {
  it('once, at the diagnostic position, with one frame, no plugin stack and no virtual id', () => {
    const text = printed[name]!()
    expect(count(text, 'error BENZENE_REF_MISSING:'), text).toBe(1)
    expect(count(text, '> 68 |         "$ref": "#/components/schemas/RefundPaymentt"'), text).toBe(1)
    expect(text).toContain(`${contract}:68:17`)
    // Every position printed is the diagnostic's own (1-based) one: no 0-based `68:16` beside it.
    expect(text, text).not.toMatch(/68:16\b/)
    expect(text).not.toContain('\0')
    expect(text).not.toMatch(/%00|\\0|\\u0000/)
    expect(text, text).not.toMatch(/^\s+at .*(dist\/src\/plugin|unplugin\/dist|contractError)/m)
    expect(text).not.toContain('Could not load')
    expect(text).not.toContain('.contract.js ')
  })
})
