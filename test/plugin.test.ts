/** The plugin's own decisions: which imports it claims, what it watches. */
import { join } from 'node:path'
import { rollup } from 'rollup'
import { describe, expect, it } from 'vitest'
import contracts from 'unplugin-contracts/rollup'
import { unpluginFactory } from '../src/plugin/factory.js'

const app = join(import.meta.dirname, 'fixtures/app')
const importer = join(app, 'main.js')
const contract = join(app, 'payments.spec.json')

function resolver(options?: Parameters<typeof unpluginFactory>[0], framework = 'rollup') {
  const plugin = unpluginFactory(options, { framework } as never) as { resolveId: (id: string, importer?: string) => string | null }
  return (id: string) => plugin.resolveId.call({} as never, id, importer)
}

describe('resolveId', () => {
  it('claims contract imports, with their query, as virtual JavaScript ids', () => {
    const resolve = resolver()
    expect(resolve('./payments.spec.json')).toBe(`\0${contract}.contract.js`)
    expect(resolve('./payments.spec.json?topics=payments:capture')).toBe(`\0${contract}.contract.js?topics=payments:capture`)
    expect(resolve('./data.json')).toBeNull()
    expect(resolve('./payments.spec.json.bak')).toBeNull()
  })

  it("gives esbuild the real path, so the module lives in the contract's directory", () => {
    expect(resolver(undefined, 'esbuild')('./payments.spec.json')).toBe(`${contract}.contract.js`)
  })

  it('respects include and exclude', () => {
    expect(resolver({ exclude: [/payments/] })('./payments.spec.json')).toBeNull()
    expect(resolver({ include: ['**/orders.spec.json'] })('./payments.spec.json')).toBeNull()
    expect(resolver({ include: ['**/payments.spec.json'] })('./payments.spec.json')).not.toBeNull()
  })

  it("resolves the runtime to this package's own build", () => {
    expect(resolver()('unplugin-contracts/runtime')).toMatch(/dist\/src\/runtime\/index\.js$/)
  })
})

describe('watching', () => {
  it('the contract is a watch file of the build', async () => {
    const bundle = await rollup({ input: importer, plugins: [contracts({ types: false })] })
    expect(bundle.watchFiles).toContain(contract)
    await bundle.close()
  })
})
