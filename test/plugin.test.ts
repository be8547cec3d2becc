/** The plugin's own decisions: which imports it claims, what it watches. */
import { join } from 'node:path'
import { rollup } from 'rollup'
import { describe, expect, it } from 'vitest'
import contracts from 'unplugin-contracts/rollup'
import { unpluginFactory } from '../src/plugin/factory.js'

const app = join(import.meta.dirname, 'fixtures/app')
const importer = join(app, 'main.js')
const contract = join(app, 'payments.spec.json')

type ResolveHook = { filter?: { id: RegExp }; handler: (id: string, importer?: string) => Promise<string | null> }

/** The plugin's `resolveId` as a bundler calls it: its filter first (an id it does not match never reaches the handler), then the handler. */
function resolver(options?: Parameters<typeof unpluginFactory>[0], framework = 'rollup') {
  const plugin = unpluginFactory(options, { framework } as never) as { resolveId: ResolveHook }
  const { filter, handler } = plugin.resolveId
  return async (id: string, from = importer) => (filter && !filter.id.test(id) ? null : handler.call({} as never, id, from))
}

describe('resolveId', () => {
  it('claims contract imports, with their query, as virtual JavaScript ids', async () => {
    const resolve = resolver()
    expect(await resolve('./payments.spec.json')).toBe(`\0${contract}.contract.js`)
    expect(await resolve('./payments.spec.json?topics=payments:capture')).toBe(`\0${contract}.contract.js?topics=payments:capture`)
    expect(await resolve('./data.json')).toBeNull()
    expect(await resolve('./payments.spec.json.bak')).toBeNull()
  })

  it("gives esbuild the real path, so the module lives in the contract's directory; webpack and Rspack an id without \\0", async () => {
    expect(await resolver(undefined, 'esbuild')('./payments.spec.json')).toBe(`${contract}.contract.js`)
    expect(await resolver(undefined, 'webpack')('./payments.spec.json')).toBe(`${contract}.contract.js`)
    expect(await resolver(undefined, 'rspack')('./payments.spec.json')).toBe(`${contract}.contract.js`)
  })

  it('respects include and exclude', async () => {
    expect(await resolver({ exclude: [/payments/] })('./payments.spec.json')).toBeNull()
    expect(await resolver({ include: ['**/orders.spec.json'] })('./payments.spec.json')).toBeNull()
    expect(await resolver({ include: ['**/payments.spec.json'] })('./payments.spec.json')).not.toBeNull()
  })

  it("leaves a dependency's import of its own contract file alone (it means the JSON)", async () => {
    expect(await resolver()('./payments.spec.json', join(app, 'node_modules/@acme/lib/index.js'))).toBeNull()
  })

  it("resolves the runtime to this package's own build", async () => {
    expect(await resolver()('unplugin-contracts/runtime')).toMatch(/dist\/src\/runtime\/index\.js$/)
  })
})

describe('watching', () => {
  it('the contract is a watch file of the build', async () => {
    const bundle = await rollup({ input: importer, plugins: [contracts({ types: false })] })
    expect(bundle.watchFiles).toContain(contract)
    await bundle.close()
  })
})
