/**
 * A contract import resolves as the bundler resolves any other file: through its alias option,
 * tsconfig `paths` (where the bundler reads them by itself) and package specifiers, in each of the
 * six bundlers. The bundle must hold the compiled module (a client with its topic), not the raw JSON.
 */
import { cpSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { bundlers, freshDir, resolves } from './helpers/bundlers.js'
import { pathToFileURL } from 'node:url'

const app = freshDir(join(import.meta.dirname, '.tmp/resolve-specifiers'))
const contract = join(import.meta.dirname, '../fixtures/benzene/valid/payments.spec.json')
mkdirSync(join(app, 'contracts'))
cpSync(contract, join(app, 'contracts/payments.spec.json'))
// A package that ships contracts, as `npm install @acme/contracts` leaves it.
mkdirSync(join(app, 'node_modules/@acme/contracts'), { recursive: true })
cpSync(contract, join(app, 'node_modules/@acme/contracts/payments.spec.json'))
writeFileSync(
  join(app, 'node_modules/@acme/contracts/package.json'),
  JSON.stringify({ name: '@acme/contracts', version: '1.0.0', exports: { './*': './contracts/*', './payments.spec.json': './payments.spec.json' } }),
)
// A dependency that imports its own `*.spec.json` as data: that stays JSON.
mkdirSync(join(app, 'node_modules/@acme/lib'), { recursive: true })
cpSync(contract, join(app, 'node_modules/@acme/lib/payments.spec.json'))
writeFileSync(join(app, 'node_modules/@acme/lib/package.json'), JSON.stringify({ name: '@acme/lib', version: '1.0.0', type: 'module', exports: './index.js' }))
writeFileSync(join(app, 'node_modules/@acme/lib/index.js'), "import doc from './payments.spec.json'\nexport const title = doc.info.title\n")
writeFileSync(join(app, 'dependency.js'), "export { title } from '@acme/lib'\n")
writeFileSync(
  join(app, 'tsconfig.json'),
  JSON.stringify({ compilerOptions: { allowJs: true, paths: { '~contracts/*': ['./contracts/*'] } }, include: ['*.js'] }),
)
const entry = (name: string, specifier: string) => {
  const file = join(app, `${name}.js`)
  writeFileSync(file, `import { capture, contractHash } from '${specifier}'\nexport const topic = capture.topic\nexport const hash = contractHash\n`)
  return file
}
const forms = {
  alias: entry('alias', '@contracts/payments.spec.json'),
  tsconfig: entry('tsconfig', '~contracts/payments.spec.json'),
  package: entry('package', '@acme/contracts/payments.spec.json'),
}

describe.each(Object.keys(bundlers))('%s', (name) => {
  const build = bundlers[name]!
  const out = (form: string) => freshDir(join(app, 'out', name, form))
  const compiled = async (file: string) => {
    const module = (await import(`${pathToFileURL(file).href}?${Date.now()}`)) as { topic: string; hash: string }
    expect(module.topic).toBe('payments:capture')
    expect(module.hash).toMatch(/^sha256:[0-9a-f]{64}$/)
  }

  // Only the forms the bundler resolves by itself (Rollup needs an alias or node-resolve plugin of the app's).
  if (resolves[name]!.alias)
    it("an alias from the bundler's own option", async () => {
      await compiled(await build(forms.alias, out('alias'), { types: false }, { alias: { '@contracts': join(app, 'contracts') } }))
    })

  if (resolves[name]!.tsconfig)
    it('a tsconfig `paths` mapping the bundler reads', async () => {
      await compiled(await build(forms.tsconfig, out('tsconfig'), { types: false }, { tsconfig: join(app, 'tsconfig.json') }))
    })

  it("a package specifier, through the package's `exports`", async () => {
    await compiled(await build(forms.package, out('package'), { types: false }))
  })

  if (name !== 'rollup')
    it('a dependency importing its own *.spec.json gets the JSON, not a contract module', async () => {
      const file = await build(join(app, 'dependency.js'), out('dependency'), { types: false })
      const module = (await import(`${pathToFileURL(file).href}?${Date.now()}`)) as { title: string }
      expect(module.title).toBe('payments-api')
    })
})
