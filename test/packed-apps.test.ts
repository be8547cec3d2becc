/**
 * New apps on the packed package, one per bundler: `npm pack` of the built package into an empty
 * folder, an app folder per bundler (package.json `"type": "module"`, nothing else set up) with
 * the bundler's config as docs/getting-started.md shows it, and a `src/` importing a Benzene, a
 * NATS and a DASP contract. The tarball is installed once (with its dependencies, from the npm cache
 * at the versions of the project's lock) into the folder that holds the apps; the bundlers, tsc and
 * Node's types are linked there from the project's own install (the same versions: installing them
 * again took three quarters of the install's CPU time). Each app resolves `unplugin-contracts` from
 * that folder, never from this checkout. Each build runs with Node, the
 * sidecars it wrote type-check with the tsconfig the docs show, and an invalid edit fails each
 * build with the code and `file:line:column`.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ContractCompiler } from 'unplugin-contracts'
import { appLock } from './helpers/app-lock.js'
import { runCommand, type CommandResult } from './helpers/run-command.js'

const root = join(import.meta.dirname, '..')
const BUNDLERS = ['vite', 'rollup', 'rolldown', 'esbuild', 'webpack', 'rspack'] as const
type Bundler = (typeof BUNDLERS)[number]
const PACKAGES = ['vite', 'rollup', 'rolldown', 'esbuild', 'webpack', '@rspack/core', 'typescript', '@types/node']
const CONFIG = /^```\w+ ((vite|rollup|rolldown|webpack|rspack)\.config\.(?:m?js|ts)|build\.mjs)\n([\s\S]*?)```/gm

/** docs/getting-started.md's config for each bundler (esbuild's is build.mjs), and its tsconfig.json. */
const guide = readFileSync(join(root, 'docs/getting-started.md'), 'utf8')
const configs = new Map<Bundler, { file: string; text: string }>(
  [...guide.matchAll(CONFIG)].map((m) => [(m[2] ?? 'esbuild') as Bundler, { file: m[1]!, text: m[3]! }]),
)
const tsconfig = /^```jsonc tsconfig\.json\n([\s\S]*?)```/m.exec(guide)![1]!.replace(/^\/\/.*\n/gm, '')

const MAIN = `import { capture } from './payments.spec.json'
import { entryPosted } from './ledger.asyncapi.yaml'
import { isExactSelection, selectionRequest } from './counter.dasp.json'
import { createLocalSender } from 'unplugin-contracts/runtime'

const sender = createLocalSender({ 'payments:capture': (request) => ({ OrderId: request.OrderId, Amount: request.Amount, PaymentId: 'pay-1' }) })
const result = await capture.send(sender, { OrderId: 'order-7', Amount: 42.42, Currency: 'EUR', Method: 'Card' })
console.log(\`benzene \${capture.topic} \${result.status}\`)
console.log(\`nats \${entryPosted.subject.render({ region: 'eu', entryId: 'abcdef012345' })}\`)
console.log(\`dasp \${selectionRequest.dasp} \${selectionRequest.extensions.length} extensions, exact: \${isExactSelection(selectionRequest)}\`)
`

/** Typed use of the same modules, checked with tsc against the sidecars the build wrote. */
const TYPED = `import { capture } from './payments.spec.json'
import { entryPosted } from './ledger.asyncapi.yaml'
import { isExactSelection, selectionRequest } from './counter.dasp.json'

export const topic: 'payments:capture' = capture.topic
export const subject: string = entryPosted.subject.render({ region: 'eu', entryId: 'abcdef012345' })
export const version: 'draft-01' = selectionRequest.dasp
export const exact: boolean = isExactSelection(selectionRequest)
// @ts-expect-error: the contract's region token is 'eu' or 'us'
entryPosted.subject.render({ region: 'mars', entryId: 'abcdef012345' })
// @ts-expect-error: Amount is a number in the contract
void capture.send(undefined as never, { OrderId: 'order-7', Amount: '42', Currency: 'EUR', Method: 'Card' })
`

const EXPECTED = ['benzene payments:capture ok', 'nats ledger.eu.abcdef012345.posted', 'dasp draft-01 2 extensions, exact: true']

let work: string
let apps: string
let install: CommandResult

/** Copies the contracts an app imports into its `src/` (the DASP selection with its definitions and pins). */
function contracts(src: string): void {
  cpSync(join(root, 'fixtures/benzene/valid/payments.spec.json'), join(src, 'payments.spec.json'))
  cpSync(join(root, 'fixtures/nats/valid/ledger.asyncapi.yaml'), join(src, 'ledger.asyncapi.yaml'))
  cpSync(join(root, 'fixtures/dasp/counter.dasp.json'), join(src, 'counter.dasp.json'))
  cpSync(join(root, 'fixtures/dasp/extensions'), join(src, 'extensions'), { recursive: true })
  cpSync(join(root, 'fixtures/dasp/pins'), join(src, 'pins'), { recursive: true })
}

function app(name: string, bundler: Bundler): string {
  const dir = join(apps, name)
  mkdirSync(join(dir, 'src'), { recursive: true })
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }, null, 2) + '\n')
  const config = configs.get(bundler)!
  writeFileSync(join(dir, config.file), config.text)
  writeFileSync(join(dir, 'index.html'), '<!doctype html><script type="module" src="/src/main.js"></script>\n')
  contracts(join(dir, 'src'))
  writeFileSync(join(dir, 'src/main.js'), MAIN)
  writeFileSync(join(dir, 'src/typed.ts'), TYPED)
  return dir
}

/** A package's command, as `node_modules/.bin/<name>` would run it: its `bin` file, from the apps' folder. */
function bin(name: string): string {
  const dir = join(apps, 'node_modules', name)
  const { bin } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { bin: string | Record<string, string> }
  return join(dir, typeof bin === 'string' ? bin : bin[name]!)
}

/** The build as the guide's config runs it: each bundler's command, webpack and Rspack through their Node API (the guide names no CLI). */
function build(dir: string, bundler: Bundler): Promise<CommandResult> {
  const file = configs.get(bundler)!.file
  const webpackLike = (pkg: string, get: string) => [
    '--input-type=module',
    '-e',
    `import * as m from '${pkg}'; const config = (await import('./${file}')).default; const compiler = (${get})(config); compiler.run((e, s) => { if (e || s.hasErrors() || s.hasWarnings()) { console.error(e ?? s.toString('errors-warnings')); process.exit(1) } compiler.close(() => {}) })`,
  ]
  const [command, args] =
    bundler === 'vite'
      ? [process.execPath, [bin('vite'), 'build', '--config', file]]
      : bundler === 'rollup'
        ? [process.execPath, [bin('rollup'), '-c', file]]
        : bundler === 'rolldown'
          ? [process.execPath, [bin('rolldown'), '-c', file]]
          : bundler === 'esbuild'
            ? [process.execPath, [file]]
            : bundler === 'webpack'
              ? [process.execPath, webpackLike('webpack', 'm.default')]
              : [process.execPath, webpackLike('@rspack/core', 'm.rspack')]
  return runCommand(command, args, { cwd: dir, timeoutMs: 240_000 })
}

beforeAll(async () => {
  if (!existsSync(join(root, 'dist/src/index.js'))) throw new Error('the package is not built: run `npm run build` (npm test does, before the suite)')
  work = mkdtempSync(join(tmpdir(), 'unplugin-contracts-packed-'))
  // The build exists (npm test made it before the suite): pack it as it is, without prepack building it again.
  const pack = await runCommand('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: root, timeoutMs: 120_000 })
  expect(pack.status, pack.output).toBe(0)
  const tarball = join(work, (JSON.parse(pack.stdout) as [{ filename: string }])[0].filename)
  apps = join(work, 'apps')
  mkdirSync(apps)
  const { manifest, lock } = appLock(root, tarball, [])
  writeFileSync(join(apps, 'package.json'), JSON.stringify(manifest, null, 2) + '\n')
  writeFileSync(join(apps, 'package-lock.json'), JSON.stringify(lock, null, 2) + '\n')
  install = await runCommand('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: apps, timeoutMs: 300_000 })
  if (install.status !== 0) install = await runCommand('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: apps, timeoutMs: 300_000 })
  // Node resolves a linked package's own imports from where it really is (the project's install).
  for (const name of PACKAGES) {
    const link = join(apps, 'node_modules', name)
    expect(existsSync(link), `${name} is installed with the tarball: it would be the tarball's, not the project's`).toBe(false)
    mkdirSync(dirname(link), { recursive: true })
    symlinkSync(realpathSync(join(root, 'node_modules', name)), link, 'dir')
  }
}, 600_000)

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true })
})

describe('the packed package, installed', () => {
  it('is the tarball, not this checkout', () => {
    expect(install.status, install.output).toBe(0)
    const installed = join(apps, 'node_modules/unplugin-contracts')
    expect(realpathSync(installed)).toBe(installed)
    expect(readdirSync(installed).sort()).toEqual(expect.arrayContaining(['README.md', 'dist', 'docs', 'package.json', 'types']))
    expect(existsSync(join(installed, 'src'))).toBe(false)
  })
})

describe.concurrent('a new app per bundler, on the packed package', () => {
  it.each(BUNDLERS)(
    '%s: the guide’s config builds the app, the bundle runs, an invalid edit fails with its code and position',
    async (bundler) => {
      expect(install.status, install.output).toBe(0)
      expect(configs.has(bundler), `docs/getting-started.md shows no config for ${bundler}`).toBe(true)
      const dir = app(bundler, bundler)
      const built = await build(dir, bundler)
      expect(built.status, built.output).toBe(0)
      const outputs = readdirSync(join(dir, 'dist'), { recursive: true, encoding: 'utf8' }).filter((f) => /\.m?js$/.test(f))
      const bundle = outputs.find((f) => readFileSync(join(dir, 'dist', f), 'utf8').includes('payments:capture'))
      expect(bundle, `no bundle in dist/ (${outputs.join(', ')})`).toBeDefined()
      // Vite builds for the browser: its module-preload polyfill looks at `document` first.
      writeFileSync(join(dir, 'browser.mjs'), 'globalThis.document = { createElement: () => ({ relList: { supports: () => true } }) }\n')
      const ran = await runCommand(process.execPath, [...(bundler === 'vite' ? ['--import', './browser.mjs'] : []), join('dist', bundle!)], {
        cwd: dir,
        timeoutMs: 60_000,
      })
      expect([ran.status, ran.output.trim().split('\n')]).toEqual([0, EXPECTED])
      for (const sidecar of ['payments.spec.d.json.ts', 'ledger.asyncapi.d.yaml.ts', 'counter.dasp.d.json.ts'])
        expect(existsSync(join(dir, 'src', sidecar)), sidecar).toBe(true)

      // The invalid edit, in a copy of the app: a $ref to a schema that does not exist.
      const broken = app(`${bundler}-broken`, bundler)
      const contract = join(broken, 'src/payments.spec.json')
      const text = readFileSync(contract, 'utf8')
      const ref = /"\$ref": "#\/components\/schemas\/([A-Za-z]+)"/.exec(text)!
      writeFileSync(contract, text.slice(0, ref.index) + ref[0].replace(ref[1]!, `${ref[1]}Missing`) + text.slice(ref.index + ref[0].length))
      const { diagnostics } = await new ContractCompiler().compile(contract)
      const error = diagnostics.find((d) => d.severity === 'error')!
      expect(error.code).toBe('BENZENE_REF_MISSING')
      const failed = await build(broken, bundler)
      expect(failed.status).not.toBe(0)
      expect(failed.output).toContain(error.code)
      expect(failed.output).toContain(`payments.spec.json:${error.line}:${error.column}`)
    },
    480_000,
  )
})

describe('types', () => {
  it('every app type-checks against the sidecars its build wrote, with the tsconfig the guide shows', async () => {
    expect(install.status, install.output).toBe(0)
    // One program over the six apps (each `src/` reads its own sidecars): the libraries are read once.
    const config = JSON.parse(tsconfig) as { include: string[] }
    writeFileSync(join(apps, 'tsconfig.json'), JSON.stringify({ ...config, include: BUNDLERS.map((b) => `${b}/${config.include[0]}`) }, null, 2))
    // `--skipDefaultLibCheck`: TypeScript's own lib.*.d.ts are the same in every program and not what
    // this checks (the sidecars, the package's declarations and @types/node still are: skipLibCheck
    // stays off); checking them was about a third of such a program’s CPU time.
    const tsc = await runCommand(process.execPath, [join(apps, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--skipDefaultLibCheck'], {
      cwd: apps,
      timeoutMs: 240_000,
    })
    expect([tsc.status, tsc.output]).toEqual([0, ''])
  }, 260_000)
})
