/**
 * A contract imported from a package (`@acme/contracts/payments.spec.json`, inside `node_modules`)
 * in each of the six bundlers, with types on: nothing is written into `node_modules` (the folder is
 * the package's: an install replaces it, and it may be read-only), the import is declared instead in
 * the app's `contracts-packages.d.ts`, by the specifier the app wrote (with and without a query),
 * and TypeScript 6 and 7 type the imports from it exactly: an app that uses them checks, one that
 * misuses them fails at the misuse. An app's own contract keeps its sidecar beside it.
 *
 * The same module imports the package contract with and without a query, in both orders: the
 * second import of one specifier from one module, asked while the bundler's resolver was still
 * answering the first, was declined and left to the bundler (Rollup made it an external import).
 */
import { cpSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { bundlers, freshDir } from './helpers/bundlers.js'
import { tsc, TSC, TSC7 } from './helpers/cli.js'
import { projectFolder } from '../src/plugin/package-declarations.js'

const repo = join(import.meta.dirname, '..')
const app = freshDir(join(import.meta.dirname, '.tmp/package-types'))
const contract = join(repo, 'fixtures/benzene/valid/payments.spec.json')
const nats = join(repo, 'fixtures/nats/valid/ledger.asyncapi.yaml')
const pkg = join(app, 'node_modules/@acme/contracts')
mkdirSync(pkg, { recursive: true })
cpSync(contract, join(pkg, 'payments.spec.json'))
cpSync(nats, join(pkg, 'ledger.asyncapi.yaml'))
writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: '@acme/contracts', version: '1.0.0', exports: { './*': './*' } }))
// The package ships declarations of its own beside the contract: the app's, made from what the
// plugin serves with the app's options, must be the ones TypeScript uses.
writeFileSync(join(pkg, 'payments.spec.d.json.ts'), 'export declare const shipped: number\n')
// The package under test, as an app installs it (TypeScript resolves `unplugin-contracts/runtime` through it).
symlinkSync(repo, join(app, 'node_modules/unplugin-contracts'), 'dir')
writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', type: 'module', private: true }))
cpSync(contract, join(app, 'own.spec.json'))

const PLAIN = '@acme/contracts/payments.spec.json'
const QUERY = '@acme/contracts/payments.spec.json?topics=payments:capture'
const LEDGER = '@acme/contracts/ledger.asyncapi.yaml'
const imports = {
  plain: `import * as plain from '${PLAIN}'`,
  query: `import * as query from '${QUERY}'`,
  ledger: `import * as ledger from '${LEDGER}'`,
  own: `import * as own from './own.spec.json'`,
}
const exported =
  'export const names = { plain: Object.keys(plain), query: Object.keys(query), ledger: Object.keys(ledger).length, own: Object.keys(own).length }\n'
const entries = {
  plainFirst: [imports.plain, imports.query, imports.ledger, imports.own, exported].join('\n'),
  queryFirst: [imports.query, imports.own, imports.ledger, imports.plain, exported].join('\n'),
}
for (const [name, text] of Object.entries(entries)) writeFileSync(join(app, `${name}.js`), text)

/** The package's folder, each entry with its kind and size: what a build must leave as it was. */
const listing = () =>
  readdirSync(pkg)
    .sort()
    .map((name) => {
      const stat = lstatSync(join(pkg, name))
      return `${name} ${stat.isSymbolicLink() ? 'link' : stat.size}`
    })
const packageBefore = listing()

// TypeScript's view of the app: the imports used as their declarations say, and one misuse per import.
writeFileSync(
  join(app, 'uses.ts'),
  [
    `import { capture, contractHash } from '${PLAIN}'`,
    `import { capture as only } from '${QUERY}'`,
    `import * as ledger from '${LEDGER}'`,
    `export const topics: string[] = [capture.topic, only.topic, contractHash]`,
    `export const ledgerExports: number = Object.keys(ledger).length`,
    '',
  ].join('\n'),
)
writeFileSync(
  join(app, 'misuses.ts'),
  [
    `import { capture, shipped } from '${PLAIN}'`,
    `import { refund } from '${QUERY}'`,
    `export const n: number = capture.topic`,
    `export { refund, shipped }`,
    '',
  ].join('\n'),
)
const tsconfig = (files: string[]) => ({
  compilerOptions: { target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler', strict: true, noEmit: true, allowArbitraryExtensions: true, types: [] },
  files: ['contracts-packages.d.ts', ...files],
})
writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(tsconfig(['uses.ts'])))
writeFileSync(join(app, 'tsconfig.misuses.json'), JSON.stringify(tsconfig(['misuses.ts'])))

describe.each(Object.keys(bundlers))('%s', (name) => {
  const build = bundlers[name]!
  it.each(Object.keys(entries))('%s: both imports compiled; nothing written into node_modules; the app declares them', async (entry) => {
    const out = await build(join(app, `${entry}.js`), freshDir(join(app, 'out', name, entry)), undefined, { root: app })
    const { names } = (await import(`${pathToFileURL(out).href}?${Date.now()}`)) as { names: { plain: string[]; query: string[]; ledger: number; own: number } }
    // The plain import has every topic; the query import only the one it names; each is a compiled module, not the JSON.
    expect(names.plain).toEqual(expect.arrayContaining(['capture', 'contractHash', 'getAll', 'refund']))
    expect(names.query).toContain('capture')
    expect(names.query).toContain('contractHash')
    expect(names.query).not.toContain('refund')
    expect(names.ledger).toBeGreaterThan(1)
    expect(listing()).toEqual(packageBefore)
    const declared = readFileSync(join(app, 'contracts-packages.d.ts'), 'utf8')
    expect(declared).toMatch(/^\/\/ Generated by unplugin-contracts/)
    for (const specifier of [PLAIN, QUERY, LEDGER]) expect(declared).toContain(`declare module ${JSON.stringify(specifier)} {`)
    expect(lstatSync(join(app, 'own.spec.d.json.ts')).isFile()).toBe(true)
  })
})

describe('TypeScript reads the declarations the builds wrote', () => {
  it.each([
    ['TypeScript 6', TSC],
    ['TypeScript 7', TSC7],
  ])('%s: the app that uses the imports checks; the one that misuses them fails at each misuse', (_name, compiler) => {
    const uses = tsc(['-p', 'tsconfig.json'], app, compiler)
    expect([uses.status, uses.output]).toEqual([0, ''])
    const misuses = tsc(['-p', 'tsconfig.misuses.json'], app, compiler)
    expect(misuses.status).not.toBe(0)
    // The package's own `shipped` is not what TypeScript reads: the app's declarations are.
    expect(misuses.output).toMatch(/misuses\.ts\(1,19\): error TS2305: .*has no exported member 'shipped'/)
    expect(misuses.output).toMatch(/misuses\.ts\(2,10\): error TS2305: .*has no exported member 'refund'/)
    expect(misuses.output).toMatch(/misuses\.ts\(3,14\): error TS2322: Type 'string' is not assignable to type 'number'/)
  })
})

describe('the project file', () => {
  it('is not written with `types: false`, and a file of that name the project did not write is left as it is (the build fails, naming it)', async () => {
    const other = freshDir(join(app, 'other'))
    writeFileSync(join(other, 'package.json'), JSON.stringify({ name: 'other', private: true }))
    writeFileSync(join(other, 'main.js'), `import * as plain from '${PLAIN}'\nexport const n = Object.keys(plain).length\n`)
    // Resolved from `other`: the package is in the app's node_modules, one folder up.
    await bundlers.rollup!(join(other, 'main.js'), join(other, 'out'), { types: false })
    expect(readdirSync(other).sort()).toEqual(['main.js', 'out', 'package.json'])
    writeFileSync(join(other, 'contracts-packages.d.ts'), 'declare const mine: number\n')
    await expect(bundlers.rollup!(join(other, 'main.js'), join(other, 'out'))).rejects.toThrow(/CONTRACTS_WRITE_REFUSED[\s\S]*contracts-packages\.d\.ts/)
    expect(readFileSync(join(other, 'contracts-packages.d.ts'), 'utf8')).toBe('declare const mine: number\n')
    expect(listing()).toEqual(packageBefore)
  })

  it('goes into the nearest folder with a package.json above the importing module (not one inside node_modules), else the bundler root', () => {
    const known = new Map<string, string>()
    const nested = join(app, 'src/deep/er')
    mkdirSync(nested, { recursive: true })
    expect(projectFolder(join(nested, 'main.js'), '/fallback', known)).toBe(app)
    // Kept by folder, for every folder walked through.
    expect(known.get(join(app, 'src/deep'))).toBe(app)
    const workspace = join(app, 'src/deep')
    writeFileSync(join(workspace, 'package.json'), '{}')
    expect(projectFolder(join(nested, 'main.js'), '/fallback', new Map())).toBe(workspace)
    expect(projectFolder(join(pkg, 'index.js'), '/fallback', new Map())).toBe(app)
    expect(projectFolder('\0virtual:entry', '/fallback', new Map())).toBe('/fallback')
    expect(projectFolder('src/main.js', '/fallback', new Map())).toBe('/fallback')
  })
})
