/**
 * README's two commands on a fresh clone: the files git tracks (as the working tree has them, so a
 * local run checks uncommitted changes too; CI runs on a clean clone) copied into an empty folder,
 * its dependencies installed, then `npm run demo`. `npm test`, the second command, is this suite:
 * it is not run again inside itself; its script chain is checked to name only what exists.
 *
 * The install: CI's own first step is `npm ci` on a clean clone (.ci/run), which is README's first
 * command exactly; extracting the same 500 MB of packages again here cost about 30 CPU seconds, a
 * twentieth of the whole suite. So the clone's lockfile is checked the way `npm ci` checks it (`npm
 * ci --dry-run` plans the install from it and refuses a lockfile out of step with package.json), and
 * when this checkout's own `node_modules` is the tree that lockfile pins (npm's record of what it
 * installed, `node_modules/.package-lock.json`, names the same packages at the same versions and
 * integrity), the clone gets those files as hard links: the same tree `npm ci` writes, in the clone's
 * own folder. Anything else (a checkout installed from another lockfile, a temporary folder on
 * another file system) runs the real `npm ci` into the clone, as before.
 */
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { installedAsLocked } from './helpers/installed-as-locked.js'
import { runCommand, type CommandResult } from './helpers/run-command.js'
import { execFileSync } from 'node:child_process'

const root = join(import.meta.dirname, '..')
let clone: string
let install: CommandResult
/** How the clone got its packages: `linked` (this checkout's install, the lockfile's tree) or `npm ci`. */
let installedBy: 'linked' | 'npm ci'

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
  // `--ignore-scripts`: the project has no install script of its own, and of its dependencies only two
  // do, neither needed by anything README's commands run: esbuild's checks its native binary and
  // swaps its command for it (esbuild's API finds the binary without it), @scarf/scarf's sends
  // install statistics to scarf.sh (a request off this machine, which no test makes).
  const ci = ['ci', '--no-audit', '--no-fund', '--ignore-scripts']
  // `npm ci`'s own check of the lockfile against package.json, and its plan, without writing anything.
  install = await runCommand('npm', [...ci, '--dry-run', '--offline'], { cwd: clone, timeoutMs: 120_000 })
  if (install.status !== 0) return
  if (installedAsLocked(root, clone) && linkTree(realpathSync(join(root, 'node_modules')), join(clone, 'node_modules'))) {
    installedBy = 'linked'
    return
  }
  installedBy = 'npm ci'
  rmSync(join(clone, 'node_modules'), { recursive: true, force: true })
  // Every package is in the npm cache after the project's own `npm ci`; a cache filled another way
  // (an `npm install` keeps fuller registry documents) may lack what `npm ci` reads, then npm may ask.
  install = await runCommand('npm', [...ci, '--offline'], { cwd: clone, timeoutMs: 300_000 })
  if (install.status !== 0) install = await runCommand('npm', [...ci, '--prefer-offline'], { cwd: clone, timeoutMs: 300_000 })
}, 620_000)

/** `cp -al`: the tree's folders made anew, its files hard links (false where links cannot be made, as across file systems). */
function linkTree(from: string, to: string): boolean {
  try {
    execFileSync('cp', ['-al', from, to], { stdio: 'pipe' })
    return true
  } catch {
    return false
  }
}

afterAll(() => {
  if (clone) rmSync(clone, { recursive: true, force: true })
})

const pkg = () => JSON.parse(readFileSync(join(clone, 'package.json'), 'utf8')) as { scripts: Record<string, string> }

describe('a fresh clone', () => {
  it('`npm ci` accepts the lockfile, and the clone holds the tree it pins in a folder of its own', () => {
    expect(install.status, install.output).toBe(0)
    expect(existsSync(join(clone, 'node_modules/.package-lock.json'))).toBe(true)
    // Whichever way the files came, they are the lockfile's tree.
    expect(installedAsLocked(clone, clone), `installed by ${installedBy}`).toBe(true)
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
