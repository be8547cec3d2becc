/** The client is typed end to end from the contract: tsc --strict accepts what the profile allows and refuses the rest. */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { TSC, TSC7 } from './helpers/cli.js'
import { typeVerdicts } from './helpers/typecheck.js'

const document = join(import.meta.dirname, '../fixtures/nats/client/orders.asyncapi.yaml')
const dir = join(import.meta.dirname, '.tmp', 'nats-client-types')
const header = `import * as orders from './orders.js'
import { bindContract } from 'unplugin-contracts/runtime/nats/client'
import type { NatsConnection } from '@nats-io/nats-core'
import type { PubAck } from '@nats-io/jetstream'
declare const nc: NatsConnection
const client = bindContract(orders, nc)
`

describe.each([
  ['TypeScript 6', TSC],
  ['TypeScript 7 (native)', TSC7],
])('typed NATS client (%s)', (_name, compiler) => {
  it('operations, parameters and payloads are typed from the contract', async () => {
    const { dts, diagnostics } = await compile(document)
    expect(diagnostics).toEqual([])
    const good = `
client.publish('noteOrder', { region: 'eu', orderId: '0a1b2c3d' }, { text: 'a' })
const ack: Promise<PubAck> = client.publish('placeOrder', { region: 'us', orderId: '0a1b2c3d' }, { orderId: 'x', total: 1, currency: 'EUR', lines: [{ sku: 's', quantity: 1 }] })
client.subscribe('onNote', (m) => { const t: string = m.payload.text; const r: 'eu' | 'us' = m.params.region; void t; void r })
void client.consume('onOrderPlaced', (m) => { const n: number = m.payload.total; const c: 'EUR' | 'USD' = m.payload.currency; void n; void c; m.ack() })
export async function ask() { const r = await client.request('askPrice', { region: 'eu' }, { sku: 'a' }); if (r.ok) { const cents: number = r.payload.cents; return cents } return r.reason }
void ack
`
    const bad: Record<string, string> = {
      'a send on a receive operation': `client.publish('onNote', { region: 'eu', orderId: 'x' }, { text: 'a' })`,
      'a value outside the token domain': `client.publish('noteOrder', { region: 'ap', orderId: 'x' }, { text: 'a' })`,
      'a payload of the wrong type': `client.publish('noteOrder', { region: 'eu', orderId: 'x' }, { text: 1 })`,
      'a member a closed payload does not have': `client.publish('noteOrder', { region: 'eu', orderId: 'x' }, { text: 'a', extra: 1 })`,
      'a required member missing': `void client.publish('placeOrder', { region: 'eu', orderId: 'x' }, { orderId: 'x', total: 1 })`,
      'a core subscription on a JetStream operation': `client.subscribe('onOrderPlaced', () => undefined)`,
      'a plain publish on a request operation': `client.publish('askPrice', { region: 'eu' }, { sku: 'a' })`,
      'a request on a publish operation': `void client.request('noteOrder', { region: 'eu', orderId: 'x' }, { text: 'a' })`,
      'a filter the channel does not have': `client.subscribe('onNote', () => undefined, { filter: 'everywhere' })`,
    }
    const v = typeVerdicts(join(dir, compiler === TSC ? 'ts6' : 'ts7'), { orders: dts! }, { header, good, bad }, compiler)
    expect(v.goodFailed, v.output).toBe(false)
    expect(v.badAccepted, v.output).toEqual([])
  }, 60_000)
})
