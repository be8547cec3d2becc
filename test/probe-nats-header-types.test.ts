/**
 * Headers types against what the client checks, with tsc 6 and 7: a headers schema with a required
 * pattern, an optional enum under a name that is no JS identifier (`x-tier`), an optional
 * `Nats-Msg-Id`, closed. The handler's `headerValues` is the object the validator accepted: of the
 * `Nats-` names, those the schema names (an optional `Nats-Msg-Id` may be there), no other.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { TSC, TSC7 } from './helpers/cli.js'
import { typeVerdicts } from './helpers/typecheck.js'

const root = join(import.meta.dirname, '..')
const tmp = join(import.meta.dirname, '.tmp/probe-nats-header-types', String(process.pid))
const NOTED = '      noted:\n        payload:'
const WITH_HEADERS = `      noted:
        headers:
          type: object
          required: [traceId]
          additionalProperties: false
          properties:
            traceId: { type: string, pattern: "^[0-9a-f]{8}$" }
            x-tier: { type: string, enum: [gold, silver] }
            Nats-Msg-Id: { type: string }
        payload:`

async function declarations(): Promise<string> {
  const text = readFileSync(join(root, 'fixtures/nats/client/orders.asyncapi.yaml'), 'utf8')
  if (!text.includes(NOTED)) throw new Error('fixture changed: no noted message')
  mkdirSync(tmp, { recursive: true })
  const file = join(tmp, 'header-types.asyncapi.yaml')
  writeFileSync(file, text.replace(NOTED, WITH_HEADERS))
  const result = await compile(file)
  expect(result.diagnostics).toEqual([])
  return result.dts!
}

describe.each([
  ['TypeScript 6', TSC],
  ['TypeScript 7 (native)', TSC7],
])('headers typed as the validator reads them (%s)', (_name, compiler) => {
  it('an enum header is its literals, an optional one may be missing, and headerValues holds the Nats- names the schema names', async () => {
    const dts = await declarations()
    const header = `import * as orders from './orders.js'
import { bindContract } from 'unplugin-contracts/runtime/nats/client'
import type { NatsConnection } from '@nats-io/nats-core'
declare const nc: NatsConnection
const client = bindContract(orders, nc)
const note = [{ region: 'eu', orderId: '0a1b2c3d' }, { text: 'a' }] as const
`
    const good = `
client.publish('noteOrder', ...note, { headers: { traceId: '0a1b2c3d', 'x-tier': 'gold' } })
client.publish('noteOrder', ...note, { headers: { traceId: '0a1b2c3d', 'Nats-Msg-Id': 'm1' } })
client.subscribe('onNote', (m) => {
  const tier: 'gold' | 'silver' | undefined = m.headerValues['x-tier']
  const t: string = m.headerValues.traceId
  const id: string | undefined = m.headerValues['Nats-Msg-Id']
  void tier; void t; void id
})
`
    const bad: Record<string, string> = {
      'an enum header off its literals': `client.publish('noteOrder', ...note, { headers: { traceId: '0a1b2c3d', 'x-tier': 'platinum' } })`,
      'an optional header read as always there': `client.subscribe('onNote', (m) => { const t: 'gold' | 'silver' = m.headerValues['x-tier']; void t })`,
      'a name the closed schema does not have': `client.subscribe('onNote', (m) => { const o: string = m.headerValues['other']; void o })`,
      'an optional Nats- name the schema declares, read as always there': `client.subscribe('onNote', (m) => { const id: string = m.headerValues['Nats-Msg-Id']; void id })`,
      'a Nats- name the schema does not name (left out of what is checked)': `client.subscribe('onNote', (m) => { const s: string | undefined = m.headerValues['Nats-Expected-Stream']; void s })`,
    }
    const v = typeVerdicts(join(tmp, compiler === TSC ? 'ts6' : 'ts7'), { orders: dts }, { header, good, bad }, compiler)
    expect(v.goodFailed, v.output).toBe(false)
    expect(v.badAccepted, v.output).toEqual([])
  }, 120_000)
})
