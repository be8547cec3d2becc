/**
 * What a user sees when a contract is invalid, as each bundler prints it: the bundlers' own CLIs
 * (Vite, Rollup, Rolldown) in child processes, webpack's and Rspack's stats text (what their CLIs
 * print), esbuild as the docs' `build.mjs` runs it, and `contracts check`. The contract has two
 * errors: each diagnostic appears once, in order, its header (code, message, 1-based
 * `file:line:column`) followed by its own frame, with no stack from the plugin and no virtual module id.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { stripVTControlCharacters } from 'node:util'
import { describe, expect, it } from 'vitest'
import { freshDir } from './helpers/bundlers.js'

const root = join(import.meta.dirname, '..')
const dir = freshDir(join(import.meta.dirname, '.tmp/bundler-errors'))
mkdirSync(join(dir, 'src'))
// Two errors: a missing schema at 57:17 (the first `PaymentDto` reference, misspelled here) and the fixture's own at 68:17.
const fixture = readFileSync(join(import.meta.dirname, 'fixtures/app/broken.spec.json'), 'utf8')
const twoErrors = fixture.replace('"#/components/schemas/PaymentDto"', '"#/components/schemas/PaymentDtoo"')
expect(twoErrors).not.toBe(fixture)
writeFileSync(join(dir, 'src/broken.spec.json'), twoErrors)
writeFileSync(join(dir, 'src/main.js'), "import { capture } from './broken.spec.json'\nexport const topic = capture.topic\n")
const contract = join(dir, 'src/broken.spec.json')

/** Runs a command in the app folder (at most two minutes) and returns everything it printed (it must fail). */
function failing(command: string, args: string[]): string {
  try {
    execFileSync(command, args, { cwd: dir, encoding: 'utf8', stdio: 'pipe', timeout: 120_000, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } })
  } catch (error) {
    const e = error as { stdout: string; stderr: string; status: number }
    expect(e.status).not.toBe(0)
    return stripVTControlCharacters(e.stdout + e.stderr)
  }
  throw new Error(`${command} ${args.join(' ')} succeeded on an invalid contract`)
}

/** Runs a command in the app folder (at most two minutes) that must succeed, and returns everything it printed. */
function passing(command: string, args: string[]): string {
  const r = spawnSync(command, args, { cwd: dir, encoding: 'utf8', timeout: 120_000, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } })
  expect(r.status, r.stdout + r.stderr).toBe(0)
  return stripVTControlCharacters(r.stdout + r.stderr)
}

const script = (name: string, text: string) => (writeFileSync(join(dir, name), text), name)
const bin = (name: string) => join(root, 'node_modules/.bin', name)

/** The docs' esbuild script (docs/getting-started.md), as a user copies it. */
function docsBuildScript(): string {
  const docs = readFileSync(join(root, 'docs/getting-started.md'), 'utf8')
  const block = /^```js build\.mjs\n([\s\S]*?)^```/m.exec(docs)
  expect(block, 'the build.mjs block of docs/getting-started.md').not.toBeNull()
  return block![1]!
}

const printed: Record<string, () => string> = {
  vite: () =>
    failing(bin('vite'), [
      'build',
      '--config',
      script(
        'vite.config.mjs',
        "import contracts from 'unplugin-contracts/vite'\nexport default { plugins: [contracts()], build: { lib: { entry: 'src/main.js', formats: ['es'] }, outDir: 'out/vite' } }\n",
      ),
    ]),
  rollup: () =>
    failing(bin('rollup'), [
      '-c',
      script(
        'rollup.config.mjs',
        "import contracts from 'unplugin-contracts/rollup'\nexport default { input: 'src/main.js', output: { file: 'out/rollup.js' }, plugins: [contracts()] }\n",
      ),
    ]),
  rolldown: () =>
    failing(bin('rolldown'), [
      '-c',
      script(
        'rolldown.config.mjs',
        "import contracts from 'unplugin-contracts/rolldown'\nexport default { input: 'src/main.js', output: { file: 'out/rolldown.js' }, plugins: [contracts()] }\n",
      ),
    ]),
  esbuild: () => failing(process.execPath, [script('build.mjs', docsBuildScript())]),
  // Production mode without the minifier: it changes none of the printed text, and webpack's
  // (terser) took about three quarters of its build's processor time.
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
            `${load}\nimport contracts from 'unplugin-contracts/${name}'\nconst compiler = ${call}({ mode: 'production', optimization: { minimize: false }, context: process.cwd(), entry: './src/main.js', output: { path: process.cwd() + '/out/${name}' }, plugins: [contracts()] })\ncompiler.run((error, stats) => { console.log(stats.toString({ colors: false, errorDetails: true })); compiler.close(() => process.exit(stats.hasErrors() ? 1 : 0)) })\n`,
          ),
        ]),
    ]),
  ),
  cli: () => failing(process.execPath, [join(root, 'dist/cli.js'), 'check', 'src/broken.spec.json']),
}

const count = (text: string, part: string) => text.split(part).length - 1

/** Each diagnostic's parts, in the order a reader must meet them: header, position, then its own frame. */
const parts = [
  'error BENZENE_REF_MISSING: $ref points at components.schemas["PaymentDtoo"], which does not exist.',
  `at ${contract}:57:17 (/requests/2/response/$ref)`,
  '> 57 |         "$ref": "#/components/schemas/PaymentDtoo"',
  'error BENZENE_REF_MISSING: $ref points at components.schemas["RefundPaymentt"], which does not exist.',
  `at ${contract}:68:17 (/requests/3/request/$ref)`,
  '> 68 |         "$ref": "#/components/schemas/RefundPaymentt"',
]

describe.each(Object.keys(printed))('%s prints a contract with two errors', (name) => {
  it('each diagnostic once, in order, with its own frame; no plugin stack, no virtual id', () => {
    const all = printed[name]!()
    // webpack and Rspack list the modules they built before the errors (the contract's by its path, never a virtual id); the errors follow.
    expect(all).not.toMatch(/_virtual_|\.virtual\/|\.contract\.js/)
    const text = name === 'webpack' || name === 'rspack' ? all.slice(all.indexOf('ERROR in')) : all
    for (const part of parts) expect(count(text, part), `${part}\n\n${text}`).toBe(1)
    const at = parts.map((part) => text.indexOf(part))
    expect(at, text).toEqual([...at].sort((a, b) => a - b))
    // The first frame ends before the second diagnostic begins: its last context line comes before the second header.
    expect(text.indexOf('59 |       "example": {'), text).toBeGreaterThan(at[2]!)
    expect(text.indexOf('59 |       "example": {'), text).toBeLessThan(at[3]!)
    if (name === 'webpack' || name === 'rspack') expect(text, text).toMatch(/^ERROR in \.\/src\/broken\.spec\.json$/m)
    // Every position printed is the diagnostic's own (1-based) one: no 0-based `57:16` beside it.
    expect(text, text).not.toMatch(/(57|68):16\b/)
    expect(text).not.toContain('\0')
    expect(text).not.toMatch(/%00|\\0|\\u0000|_virtual_|\.virtual\/|\.contract\.js|Module build failed/)
    expect(text, text).not.toMatch(/^\s+at .*(dist\/src\/plugin|unplugin\/dist|contractError|node_modules\/esbuild)/m)
    expect(text).not.toContain('Could not load')
  })
})

// A contract with a warning (a `reserved` flag on an event, which has none) builds; webpack and
// Rspack print the warning once, under the contract's path, without the loader line or a stack.
const warned = JSON.parse(readFileSync(join(root, 'fixtures/benzene/valid/payments.spec.json'), 'utf8')) as { events: Array<Record<string, unknown>> }
warned.events[0]!.reserved = true
writeFileSync(join(dir, 'src/warned.spec.json'), JSON.stringify(warned, null, 2) + '\n')
writeFileSync(join(dir, 'src/warned.js'), "import { capture } from './warned.spec.json'\nexport const topic = capture.topic\n")

describe.each([
  ['webpack', "import webpack from 'webpack'", 'webpack'],
  ['rspack', "import { rspack } from '@rspack/core'", 'rspack'],
])('%s prints a contract warning', (name, load, call) => {
  it('once, under the contract path, with its frame; no loader line, no stack, no virtual id in it', () => {
    const all = passing(process.execPath, [
      script(
        `${name}-warned.mjs`,
        `${load}\nimport contracts from 'unplugin-contracts/${name}'\nconst compiler = ${call}({ mode: 'production', optimization: { minimize: false }, context: process.cwd(), entry: './src/warned.js', output: { path: process.cwd() + '/out/${name}-warned' }, plugins: [contracts()] })\ncompiler.run((error, stats) => { console.log(stats.toString({ colors: false, errorDetails: true })); compiler.close(() => process.exit(stats.hasErrors() ? 1 : 0)) })\n`,
      ),
    ])
    const text = all.slice(all.indexOf('WARNING in'))
    expect(text, all).toMatch(/^WARNING in \.\/src\/warned\.spec\.json$/m)
    expect(count(text, 'warning BENZENE_EVENT_RESERVED:'), text).toBe(1)
    expect(count(text, `at ${join(dir, 'src/warned.spec.json')}:`), text).toBe(1)
    expect(count(text, '"reserved": true'), text).toBe(1)
    expect(text).not.toMatch(/_virtual_|\.virtual\/|\.contract\.js|Module Warning|^\s+at .*(unplugin\/dist|dist\/chunks)/m)
  })
})
