/**
 * A subscription to a named filter with some of its placeholders left out (docs/nats.md, subscribe):
 * each one left out is a `*` in the subscription subject, and only subjects the filter delivers
 * reach the handler. A filter that names one placeholder twice (`pair.{a}.to.{a}`), left out, is
 * two wildcards on the wire: a subject with two values there reaches the subscription and must not
 * reach the handler. Against a real nats-server, the messages sent by a raw nats.js peer.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { bindContract, type ContractModule } from '../src/runtime/nats/client/index.js'
import { loadModule } from './helpers/load-module.js'
import { NATS_SERVER } from './helpers/nats-server.js'
import { connectedNatsServer, reached } from './helpers/nats-connected.js'
import { withEdits } from './helpers/fixture-edits.js'

const root = join(import.meta.dirname, '..')
const tmp = join(import.meta.dirname, '.tmp/nats-filter-wildcards', String(process.pid))

/** The orders-client contract with a channel of two region parameters and a filter naming one of them twice. */
function pairDocument(): string {
  const text = readFileSync(join(root, 'fixtures/nats/client/orders.asyncapi.yaml'), 'utf8')
  const edits: Array<[string, string]> = [
    [
      '    priceQuery:\n      parameters: { region: region }\n',
      '    priceQuery:\n      parameters: { region: region }\n    pair:\n      parameters: { a: region, b: region }\n      filters:\n        same: pair.{a}.to.{a}\n',
    ],
    ['    answerPrice:\n      subscribe: { api: core }\n', '    answerPrice:\n      subscribe: { api: core }\n    onPair:\n      subscribe: { api: core }\n'],
    [
      '  priceReply:\n',
      '  pair:\n    address: pair.{a}.to.{b}\n    parameters: { a: {}, b: {} }\n    messages:\n      paired:\n        payload: { type: object }\n  priceReply:\n',
    ],
    [
      '  answerPrice:\n    action: receive\n',
      "  onPair:\n    action: receive\n    channel: { $ref: '#/channels/pair' }\n  answerPrice:\n    action: receive\n",
    ],
  ]
  return withEdits(text, edits)
}

let module: ContractModule
beforeAll(async () => {
  mkdirSync(tmp, { recursive: true })
  const file = join(tmp, 'pair.asyncapi.yaml')
  writeFileSync(file, pairDocument())
  const result = await compile(file)
  expect(result.diagnostics).toEqual([])
  module = (await loadModule(result.code!, 'nats-filter-wildcards')) as unknown as ContractModule
}, 60_000)

describe.skipIf(!NATS_SERVER)('a filter with a placeholder left out (real nats-server)', () => {
  const nats = connectedNatsServer()

  it('renders it as a wildcard, and hands on only the subjects the filter delivers: pair.eu.to.eu and pair.us.to.us, not pair.eu.to.us', async () => {
    expect((module.channels.pair!.filters as Record<string, { render(p: object): string }>).same!.render({})).toBe('pair.*.to.*')
    const client = bindContract(module, nats.nc, { allowOlderServer: true })
    const got: string[] = []
    const subscribe = client.subscribe.bind(client) as (...a: unknown[]) => { unsubscribe(): void }
    const sub = subscribe('onPair', (m: { subject: string }) => void got.push(m.subject), { filter: 'same' })
    // A second subscription on the whole channel sees every message: when it has all three, the filtered one has had its chance.
    const all: string[] = []
    const whole = subscribe('onPair', (m: { subject: string }) => void all.push(m.subject))
    await nats.nc.flush()
    for (const subject of ['pair.eu.to.us', 'pair.eu.to.eu', 'pair.us.to.us']) nats.nc.publish(subject, '{}')
    await nats.nc.flush()
    await reached(() => all.length, 3, 5_000)
    await reached(() => got.length, 2, 2_000)
    sub.unsubscribe()
    whole.unsubscribe()
    expect(all.sort()).toEqual(['pair.eu.to.eu', 'pair.eu.to.us', 'pair.us.to.us'])
    expect(got.sort()).toEqual(['pair.eu.to.eu', 'pair.us.to.us'])
    // Given, the value fills both places.
    expect((module.channels.pair!.filters as Record<string, { render(p: object): string }>).same!.render({ a: 'us' })).toBe('pair.us.to.us')
  }, 30_000)
})
