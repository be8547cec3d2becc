/**
 * README's two commands on a fresh clone: the files git tracks (as the working tree has them, so a
 * local run checks uncommitted changes too; CI runs on a clean clone) copied into an empty folder,
 * `npm ci` from the npm cache, then `npm run demo`. `npm test`, the second command, is this suite:
 * it is not run again inside itself; its script chain is checked to name only what exists.
 */
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCommand, type CommandResult } from './helpers/run-command.js'
import { execFileSync } from 'node:child_process'

const root = join(import.meta.dirname, '..')
let clone: string
let install: CommandResult

/** The files a clone has: tracked ones, and new ones not ignored (a local run's uncommitted work). */
function cloneFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '' && existsSync(join(root, f)) && !lstatSync(join(root, f)).isDirectory())
}

beforeAll(async () => {
  clone = mkdtempSync(join(tmpdir(), 'unplugin-contracts-clone-'))
  for (const file of new Set(cloneFiles())) {
    mkdirSync(dirname(join(clone, file)), { recursive: true })
    cpSync(join(root, file), join(clone, file), { verbatimSymlinks: true })
  }
  // Every package is in the npm cache after the project's own `npm ci`; a cache filled another way
  // (an `npm install` keeps fuller registry documents) may lack what `npm ci` reads, then npm may ask.
  // `--ignore-scripts`: the project has no install script of its own, and of its dependencies only two
  // do, neither needed by anything README's commands run: esbuild's checks its native binary and
  // swaps its command for it (esbuild's API finds the binary without it), @scarf/scarf's sends
  // install statistics to scarf.sh (a request off this machine, which no test makes).
  const ci = ['ci', '--no-audit', '--no-fund', '--ignore-scripts']
  install = await runCommand('npm', [...ci, '--offline'], { cwd: clone, timeoutMs: 300_000 })
  if (install.status !== 0) install = await runCommand('npm', [...ci, '--prefer-offline'], { cwd: clone, timeoutMs: 300_000 })
}, 620_000)

afterAll(() => {
  if (clone) rmSync(clone, { recursive: true, force: true })
})

const pkg = () => JSON.parse(readFileSync(join(clone, 'package.json'), 'utf8')) as { scripts: Record<string, string> }

describe('a fresh clone', () => {
  it('`npm ci` installs what the lockfile pins into the clone itself', () => {
    expect(install.status, install.output).toBe(0)
    expect(existsSync(join(clone, 'node_modules/.package-lock.json'))).toBe(true)
    expect(lstatSync(join(clone, 'node_modules')).isSymbolicLink()).toBe(false)
    expect(existsSync(join(clone, 'test/.tmp'))).toBe(false)
    // What `--ignore-scripts` leaves out: no script of the project's own, and only the two dependencies' above.
    expect(Object.keys(pkg().scripts).filter((name) => /^(pre|post)?(install|prepare)$|^prepublish$/.test(name))).toEqual([])
    const lock = JSON.parse(readFileSync(join(clone, 'package-lock.json'), 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> }
    const scripted = Object.keys(lock.packages).filter((path) => lock.packages[path]!.hasInstallScript)
    expect(scripted).toEqual(['node_modules/@scarf/scarf', 'node_modules/esbuild'])
  })

  it('`npm run demo` builds the package and the example and runs it against the local service', async () => {
    expect(install.status, install.output).toBe(0)
    expect(existsSync(join(clone, 'dist'))).toBe(false)
    const demo = await runCommand('npm', ['run', 'demo'], { cwd: clone, timeoutMs: 420_000 })
    expect(demo.status, demo.output).toBe(0)
    expect(demo.stdout).toMatch(/^payments-api contract sha256:[0-9a-f]{64}$/m)
    for (const line of [
      'capture -> created: pay-1 42.42 EUR',
      'refund -> ok: pay-1-r1',
      'invalid capture -> validation-error: /Amount must be number',
      'event payment:captured -> accepted',
      'drift check (whole-service): the service serves this contract',
      'health check hash: matches',
    ])
      expect(demo.stdout).toContain(line)
  }, 440_000)

  it('`npm test`: README shows it, and its script chain names only scripts, files and commands that exist', () => {
    expect(install.status, install.output).toBe(0)
    const readme = readFileSync(join(clone, 'README.md'), 'utf8')
    const setup = /```sh\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('## Set up')))![1]!
    expect(setup).toMatch(/^npm ci && npm run demo\b/m)
    expect(setup).toMatch(/^npm test\b/m)
    const { scripts } = pkg()
    const problems: string[] = []
    const seen = new Set<string>()
    /** Node scripts the chain runs, read for the commands they start (the linters may run beside the suite). */
    const files: string[] = []
    const check = (name: string) => {
      if (seen.has(name)) return
      seen.add(name)
      const script = scripts[name]
      if (script === undefined) return void problems.push(`no script ${name}`)
      for (const command of script.split(/&&|\|\|/).map((c) => c.trim())) {
        const words = command.split(/\s+/)
        const run = /^npm run (\S+)/.exec(command)
        if (run) check(run[1]!)
        else if (words[0] === 'node') {
          if (!existsSync(join(clone, words[1]!))) problems.push(`${name}: ${command}: no file ${words[1]}`)
          else files.push(readFileSync(join(clone, words[1]!), 'utf8'))
        } else if (!existsSync(join(clone, 'node_modules/.bin', words[0]!))) problems.push(`${name}: ${command}: no command ${words[0]}`)
      }
    }
    for (const name of ['pretest', 'test']) if (scripts[name] !== undefined) check(name)
    expect(problems).toEqual([])
    // It builds first (in pretest, or a script of the chain runs `npm run build` before vitest), and
    // lints: through the lint script, or a script of the chain running both linters.
    const builds = /(^|&&\s*)npm run build\b/.test(scripts.pretest ?? '') || files.some((text) => /'run', 'build'[\s\S]*'vitest'/.test(text))
    expect(builds, 'npm test does not build before the suite').toBe(true)
    expect(scripts.build, 'no build script').toBeDefined()
    const lints = seen.has('lint') || files.some((text) => text.includes("'eslint'") && text.includes("'prettier'"))
    expect(lints, 'npm test runs no linter').toBe(true)
    for (const bin of ['eslint', 'prettier', 'vitest', 'tsc']) expect(existsSync(join(clone, 'node_modules/.bin', bin)), bin).toBe(true)
  })
})
