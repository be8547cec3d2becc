/** `import topology from './bundle.lock.json?topology'`: the projection as a frozen module in every bundler, and typed. */
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { topology } from '../src/index.js'
import { bundlers } from './helpers/bundlers.js'
import { TSC, TSC7 } from './helpers/cli.js'
import { typecheck } from './helpers/typecheck.js'

const root = join(import.meta.dirname, '.tmp', `topology-import-${process.pid}`)
afterAll(() => rmSync(root, { recursive: true, force: true }))

const app = `import topology from './shop/bundle.lock.json?topology'
export const run = () => ({
  nodes: topology.nodes.length,
  edges: topology.edges.length,
  frozen: Object.isFrozen(topology) && Object.isFrozen(topology.nodes[0]),
  links: topology.edges.filter((e) => e.kind === 'link').map((e) => e.from + ' -> ' + e.to),
})
`

describe.each(Object.keys(bundlers))('%s', (name) => {
  it('bundles the projection of the shop bundle as frozen data', async () => {
    const dir = join(root, name)
    mkdirSync(dir, { recursive: true })
    cpSync(join(import.meta.dirname, '../fixtures/nats/shop'), join(dir, 'shop'), { recursive: true })
    writeFileSync(join(dir, 'main.js'), app)
    const file = await bundlers[name]!(join(dir, 'main.js'), join(dir, 'dist'), { types: false })
    const script = `const { run } = await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(JSON.stringify(run()))`
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }))
    const expected = (await topology(join(dir, 'shop'))).topology!
    expect(out).toEqual({
      nodes: expected.nodes.length,
      edges: expected.edges.length,
      frozen: true,
      links: ['operation:orders/placeOrder -> operation:payments/onOrderPlaced', 'operation:payments/capturePayment -> operation:shipping/onPaymentCaptured'],
    })
  }, 60_000)
})

describe.each([
  ['TypeScript 6', TSC],
  ['TypeScript 7 (native)', TSC7],
])('types (%s)', (label, compiler) => {
  it('the topology-import reference types the import (tsc --strict), the package installed as an app has it', () => {
    // An app's node_modules: a type reference resolves through the package's `exports`, as it does for users.
    const dir = join(root, `types-${label.split(' ')[1]}`)
    mkdirSync(join(dir, 'node_modules'), { recursive: true })
    symlinkSync(join(import.meta.dirname, '..'), join(dir, 'node_modules', 'unplugin-contracts'), 'dir')
    const r = typecheck(
      dir,
      {},
      {
        'env.d.ts': '/// <reference types="unplugin-contracts/topology-import" />\n',
        'main.ts': `import topology from './shop/bundle.lock.json?topology'
import type { Topology } from 'unplugin-contracts'
const t: Topology = topology
const kinds: string[] = t.nodes.map((n) => n.kind)
// @ts-expect-error the projection is read-only
t.nodes.push(t.nodes[0]!)
export { kinds }
`,
      },
      compiler,
    )
    expect(r.output).toBe('')
    expect(r.status).toBe(0)
  })
})
