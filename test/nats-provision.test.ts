/**
 * Provisioning changes only what it owns, and turns every server answer into a sentence, against a
 * real nats-server with JetStream (test/helpers/nats-server.ts). Two contracts share one server:
 * orders-client (fixtures/nats/client) owns ORDERS; intruder (fixtures/nats/provision) names the
 * same stream as its own. Debian's nats-server is 2.9: every call passes the documented
 * development override for the contracts' minimumServerVersion 2.11.0.
 */
import { connect } from '@nats-io/transport-node'
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream'
import type { NatsConnection } from '@nats-io/nats-core'
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { connect as connectTcp, createServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { provision, type ContractModule, type ProvisionOptions } from '../src/runtime/nats/client/index.js'
import { lossOf } from '../src/runtime/nats/client/provision-loss.js'
import { markDescription, ownershipProblem, readMark } from '../src/runtime/nats/client/provision-mark.js'
import { contracts } from './helpers/cli.js'
import { loadModule } from './helpers/load-module.js'
import { freePort, NATS_SERVER, startNatsServer, type NatsServer } from './helpers/nats-server.js'
import { connectedNatsServer } from './helpers/nats-connected.js'

const root = join(import.meta.dirname, '..')
const ordersDocument = join(root, 'fixtures/nats/client/orders.asyncapi.yaml')
const intruderDocument = join(root, 'fixtures/nats/provision/intruder.asyncapi.yaml')
const legacyDocument = join(root, 'fixtures/nats/provision/legacy.asyncapi.yaml')
const tmp = join(import.meta.dirname, '.tmp/nats-provision', String(process.pid))
const dev = { allowOlderServer: true } as const
/** Version 1.1.0 of orders-client: one more subject on its stream (growth only). */
const V110: Array<[string, string]> = [
  ['version: 1.0.0', 'version: 1.1.0'],
  ['subjects: [shop.*.orders.>]', 'subjects: [shop.*.orders.>, shop.*.returns.>]'],
]

/** A copy of the orders-client contract with edits (a later version of it, say), written under test/.tmp. */
function ordersVariant(name: string, edits: Array<[from: string, to: string]>): string {
  let text = readFileSync(ordersDocument, 'utf8')
  for (const [from, to] of edits) {
    if (!text.includes(from)) throw new Error(`edit did not apply: ${from}`)
    text = text.replace(from, to)
  }
  mkdirSync(tmp, { recursive: true })
  const file = join(tmp, `${name}.asyncapi.yaml`)
  writeFileSync(file, text)
  return file
}

let loaded = 0
async function moduleOf(file: string): Promise<ContractModule> {
  const result = await compile(file)
  expect(result.diagnostics).toEqual([])
  return (await loadModule(result.code!, `provision-${loaded++}`)) as unknown as ContractModule
}

const run = (module: ContractModule, nc: NatsConnection, options: ProvisionOptions = {}) => provision(module, nc, { ...dev, ...options })
const planOf = (result: Awaited<ReturnType<typeof provision>>) => result.plan.map((p) => [p.kind, p.name, p.action])
/** No crash reached the terminal: no stack frame, no TypeError. */
const noCrash = (stderr: string) => expect(stderr).not.toMatch(/TypeError|^\s+at /m)

describe.skipIf(!NATS_SERVER)('provisioning changes only what it owns (two contracts, one nats-server)', () => {
  let server: NatsServer
  let nc: NatsConnection
  let jsm: JetStreamManager
  let orders: ContractModule
  let intruder: ContractModule
  const stored = async (stream: string) => (await jsm.streams.info(stream)).state.messages
  const ordersStream = async () => (await jsm.streams.info('ORDERS')).config

  beforeAll(async () => {
    server = await startNatsServer()
    nc = await connect({ servers: server.url })
    jsm = await jetstreamManager(nc)
    orders = await moduleOf(ordersDocument)
    intruder = await moduleOf(intruderDocument)
  }, 30_000)

  afterAll(async () => {
    await nc?.close()
    await server?.stop()
  })

  it('orders-client creates ORDERS and its consumer, each marked with its contract id and version', async () => {
    const created = await run(orders, nc)
    expect(planOf(created)).toEqual([
      ['stream', 'ORDERS', 'create'],
      ['consumer', 'fulfil', 'create'],
    ])
    expect(created.inSync).toBe(true)
    const mark = 'unplugin-contracts owner {"contract":"orders-client","version":"1.0.0"}'
    expect((await ordersStream()).description).toBe(mark)
    expect((await jsm.consumers.info('ORDERS', 'fulfil')).config.description).toBe(mark)
    const again = await run(orders, nc, { dryRun: true })
    expect(again.plan.map((p) => [p.name, p.action, p.owner])).toEqual([
      ['ORDERS', 'none', { contract: 'orders-client', version: '1.0.0' }],
      ['fulfil', 'none', { contract: 'orders-client', version: '1.0.0' }],
    ])
    const js = jetstream(nc)
    for (let i = 0; i < 5; i++) await js.publish(`shop.eu.orders.0000000${i}.placed`, JSON.stringify({ orderId: `0000000${i}`, total: i, currency: 'EUR' }))
    expect(await stored('ORDERS')).toBe(5)
  })

  it('intruder names ORDERS as its own (authority: contract) and updates: refused with the mark it found; subjects, max_msgs and the messages stay', async () => {
    for (const options of [{ update: true }, { update: true, allowDataLoss: true }, { update: true, allowDataLoss: true, adopt: true }]) {
      const result = await run(intruder, nc, options)
      expect(planOf(result)).toEqual([
        ['stream', 'ORDERS', 'refused'],
        ['consumer', 'fulfil', 'refused'],
      ])
      expect(result.inSync).toBe(false)
      const [stream, consumer] = result.plan
      expect(stream!.owner).toEqual({ contract: 'orders-client', version: '1.0.0' })
      expect(stream!.reason).toBe('not changed: it carries the mark of contract orders-client 1.0.0, not of contract intruder.')
      // The plan says what the claimed change would have lost.
      expect(stream!.differences).toEqual([
        expect.objectContaining({ field: 'max_msgs', contract: 1, server: 100000, loss: expect.stringContaining('deleted') }),
        expect.objectContaining({ field: 'subjects', contract: ['evil.>'], server: ['shop.*.orders.>'], loss: expect.stringContaining('"shop.*.orders.>"') }),
      ])
      expect(consumer!.reason).toMatch(/^not changed: it carries the mark of contract orders-client 1\.0\.0/)
    }
    const config = await ordersStream()
    expect([config.subjects, config.max_msgs]).toEqual([['shop.*.orders.>'], 100000])
    expect((await jsm.consumers.info('ORDERS', 'fulfil')).config.filter_subject).toBe('shop.*.orders.*.placed')
    expect(await stored('ORDERS')).toBe(5)
  })

  it('contracts nats provision: the intruder plan marks the loss and the owner, the refusal is a sentence, exit 1, nothing changed', async () => {
    const cli = contracts(['nats', 'provision', intruderDocument, '--server', server.url, '--allow-older-server', '--update', '--allow-data-loss'])
    expect(cli.status).toBe(1)
    expect(cli.stdout).toContain('stream ORDERS (contract): refused\n')
    expect(cli.stdout).toMatch(/ {4}max_msgs: contract 1, server 100000 - LOSES DATA: lowers max_msgs/)
    expect(cli.stdout).toMatch(/ {4}subjects: contract \["evil\.>"\], server \["shop\.\*\.orders\.>"\] - LOSES DATA: stops storing "shop\.\*\.orders\.>"/)
    expect(cli.stdout).toContain('    owner: contract orders-client 1.0.0\n')
    expect(cli.stdout).toContain('  stream ORDERS: refused\n')
    expect(cli.stderr).toContain(
      'contracts: intruder: stream ORDERS: not changed: it carries the mark of contract orders-client 1.0.0, not of contract intruder.\n',
    )
    noCrash(cli.stderr)
    expect((await ordersStream()).subjects).toEqual(['shop.*.orders.>'])
    expect(await stored('ORDERS')).toBe(5)
  })

  it("orders-client's own update that lowers max_msgs is refused without allowDataLoss and applied with it (the plan names the loss)", async () => {
    const shrunk = await moduleOf(ordersVariant('shrink', [['max_msgs: 100000', 'max_msgs: 3']]))
    const refused = await run(shrunk, nc, { update: true })
    expect(refused.plan[0]).toMatchObject({
      name: 'ORDERS',
      action: 'refused',
      reason: 'not changed: the update loses data (max_msgs); allowDataLoss (--allow-data-loss) applies it.',
      differences: [{ field: 'max_msgs', contract: 3, server: 100000, loss: 'lowers max_msgs: what is stored beyond the new limit is deleted' }],
    })
    expect([(await ordersStream()).max_msgs, await stored('ORDERS')]).toEqual([100000, 5])

    const cli = contracts([
      'nats',
      'provision',
      join(tmp, 'shrink.asyncapi.yaml'),
      '--server',
      server.url,
      '--allow-older-server',
      '--update',
      '--allow-data-loss',
    ])
    expect(cli.stdout).toContain('    max_msgs: contract 3, server 100000 - LOSES DATA: lowers max_msgs: what is stored beyond the new limit is deleted\n')
    expect(cli.stdout).toContain('  stream ORDERS: updated\n')
    expect(cli.status).toBe(0)
    noCrash(cli.stderr)
    expect([(await ordersStream()).max_msgs, await stored('ORDERS')]).toEqual([3, 3])
  })

  it('a growth-only update of its own stream is applied (a higher limit, one more subject) and the mark moves to the new version; the older version is refused', async () => {
    const grown = await moduleOf(ordersVariant('grow', V110))
    const dry = await run(grown, nc, { update: true, dryRun: true })
    expect(dry.plan[0]).toMatchObject({ action: 'update' })
    const cli = contracts(['nats', 'provision', join(tmp, 'grow.asyncapi.yaml'), '--server', server.url, '--allow-older-server', '--update', '--dry-run'])
    expect(cli.stdout).toContain('    max_msgs: contract 100000, server 3 - no data lost\n')
    expect(dry.plan[0]!.differences.map((d) => [d.field, d.loss])).toEqual([
      ['max_msgs', undefined],
      ['subjects', undefined],
    ])
    const applied = await run(grown, nc, { update: true })
    expect(planOf(applied)).toEqual([
      ['stream', 'ORDERS', 'update'],
      ['consumer', 'fulfil', 'none'],
    ])
    expect(applied.inSync).toBe(true)
    const config = await ordersStream()
    expect([config.max_msgs, config.subjects, config.description]).toEqual([
      100000,
      ['shop.*.orders.>', 'shop.*.returns.>'],
      'unplugin-contracts owner {"contract":"orders-client","version":"1.1.0"}',
    ])
    expect(await stored('ORDERS')).toBe(3)
    // Version 1.0.0 would drop the new subject again: not its to change any more.
    const older = await run(orders, nc, { update: true, allowDataLoss: true })
    expect(older.plan[0]).toMatchObject({
      action: 'refused',
      reason: "not changed: it carries the mark of contract orders-client 1.1.0, newer than this contract's 1.0.0.",
    })
    expect((await ordersStream()).subjects).toEqual(['shop.*.orders.>', 'shop.*.returns.>'])
  })

  it('its own consumer: a longer ack wait is applied; a new filter (pending messages outside it are never delivered) only with allowDataLoss', async () => {
    const slower = await moduleOf(ordersVariant('ack-wait', [...V110, ['ack_wait: 2000000000', 'ack_wait: 4000000000']]))
    const applied = await run(slower, nc, { update: true })
    expect(applied.plan[1]).toMatchObject({ name: 'fulfil', action: 'update', differences: [{ field: 'ack_wait', contract: 4000000000, server: 2000000000 }] })
    expect((await jsm.consumers.info('ORDERS', 'fulfil')).config.ack_wait).toBe(4000000000)

    const narrowed = await moduleOf(
      ordersVariant('filter', [
        ...V110,
        ['ack_wait: 2000000000', 'ack_wait: 4000000000'],
        ['filter_subject: shop.*.orders.*.placed', 'filter_subject: shop.eu.orders.*.placed'],
      ]),
    )
    const refused = await run(narrowed, nc, { update: true })
    expect(refused.plan[1]).toMatchObject({
      name: 'fulfil',
      action: 'refused',
      reason: 'not changed: the update loses data (filter_subject); allowDataLoss (--allow-data-loss) applies it.',
      differences: [{ field: 'filter_subject', loss: expect.stringContaining('never delivered') }],
    })
    expect((await jsm.consumers.info('ORDERS', 'fulfil')).config.filter_subject).toBe('shop.*.orders.*.placed')
    const forced = await run(narrowed, nc, { update: true, allowDataLoss: true })
    expect(forced.plan[1]).toMatchObject({ name: 'fulfil', action: 'update' })
    expect((await jsm.consumers.info('ORDERS', 'fulfil')).config.filter_subject).toBe('shop.eu.orders.*.placed')

    // Widened back: every message pending under the narrower filter still matches the wider one, so
    // nothing is lost and no allowDataLoss is needed (an outside pass: any change was refused).
    const widened = await run(slower, nc, { update: true })
    expect(widened.plan[1]).toMatchObject({ name: 'fulfil', action: 'update', differences: [{ field: 'filter_subject', contract: 'shop.*.orders.*.placed' }] })
    expect(widened.plan[1]!.differences[0]!.loss).toBeUndefined()
    expect((await jsm.consumers.info('ORDERS', 'fulfil')).config.filter_subject).toBe('shop.*.orders.*.placed')
  })

  it('an unmarked stream and consumer made by hand: identical is in sync (owner: no mark, not adopted); an update is refused; --adopt marks them, then updates', async () => {
    const legacy = await moduleOf(legacyDocument)
    const stream = legacy.streams.legacy!.config as Record<string, unknown>
    const consumer = legacy.consumers.audit!.config as Record<string, unknown>
    await jsm.streams.add({ ...stream } as never)
    await jsm.consumers.add('LEGACY', { ...consumer } as never)
    const same = await run(legacy, nc)
    expect(same.plan.map((p) => [p.name, p.action, p.owner])).toEqual([
      ['LEGACY', 'none', null],
      ['audit', 'none', null],
    ])
    expect(same.inSync).toBe(true)
    expect((await jsm.streams.info('LEGACY')).config.description).toBeUndefined()

    await jsm.streams.update('LEGACY', { max_msgs: 500 } as never)
    const refused = await run(legacy, nc, { update: true })
    expect(refused.plan[0]).toMatchObject({ action: 'refused', owner: null, reason: expect.stringContaining('it carries no ownership mark') })
    expect((await jsm.streams.info('LEGACY')).config.max_msgs).toBe(500)

    const adopted = await run(legacy, nc, { update: true, adopt: true })
    expect(planOf(adopted)).toEqual([
      ['stream', 'LEGACY', 'update'],
      ['consumer', 'audit', 'adopt'],
    ])
    expect(adopted.inSync).toBe(true)
    const mark = 'unplugin-contracts owner {"contract":"legacy","version":"1.0.0"}'
    expect([(await jsm.streams.info('LEGACY')).config.max_msgs, (await jsm.streams.info('LEGACY')).config.description]).toEqual([1000, mark])
    expect((await jsm.consumers.info('LEGACY', 'audit')).config.description).toBe(mark)
  })
})

describe.skipIf(!NATS_SERVER)('contracts nats provision: every server answer is one sentence and an exit status', () => {
  let server: NatsServer

  beforeAll(async () => {
    server = await startNatsServer()
  }, 30_000)

  afterAll(async () => {
    await server?.stop()
  })

  it('a consumer on a missing external stream (the nats-orders fulfilment service on an empty server): exit 1, one sentence', () => {
    const cli = contracts(['nats', 'provision', 'examples/nats-orders/fulfilment/asyncapi.yaml', '--server', server.url, '--allow-older-server'])
    expect(cli.status).toBe(1)
    expect(cli.stdout).toContain('stream ORDERS (external): missing')
    expect(cli.stderr).toContain('contracts: fulfilment: consumer fulfil: its stream ORDERS is not on the server (external: this contract never creates it).\n')
    noCrash(cli.stderr)
  })

  it("the repository's ledger fixture (3 replicas) on a single server: the server's own reason and code, exit 1", () => {
    const cli = contracts(['nats', 'provision', 'fixtures/nats/valid/ledger.asyncapi.yaml', '--server', server.url, '--allow-older-server'])
    expect(cli.status).toBe(1)
    expect(cli.stderr).toMatch(
      /^contracts: ledger: stream LEDGER: the server refused to create it: replicas > 1 not supported in non-clustered mode \(JetStream error \d+, status \d+\)\.$/m,
    )
    expect(cli.stderr).toContain('consumer auditor: its stream LEDGER is not on the server (the server refused it, above).')
    expect(cli.stdout).toContain('  stream LEDGER: failed\n')
    noCrash(cli.stderr)
  })

  it('--update on storage: refused as a loss, and with --allow-data-loss the server refuses it in its own words; exit 1 both times', () => {
    const created = contracts(['nats', 'provision', ordersDocument, '--server', server.url, '--allow-older-server'])
    expect(created.status).toBe(0)
    const memory = ordersVariant('memory', [['storage: file', 'storage: memory']])
    const refused = contracts(['nats', 'provision', memory, '--server', server.url, '--allow-older-server', '--update'])
    expect(refused.status).toBe(1)
    expect(refused.stdout).toContain('    storage: contract "memory", server "file" - LOSES DATA: changes storage')
    expect(refused.stderr).toContain('stream ORDERS: not changed: the update loses data (storage); allowDataLoss (--allow-data-loss) applies it.')
    const forced = contracts(['nats', 'provision', memory, '--server', server.url, '--allow-older-server', '--update', '--allow-data-loss'])
    expect(forced.status).toBe(1)
    expect(forced.stderr).toMatch(
      /^contracts: orders-client: stream ORDERS: the server refused the update: .*storage.* \(JetStream error \d+, status \d+\)\.$/im,
    )
    for (const r of [refused, forced]) noCrash(r.stderr)
  })

  it('an unreachable --server: one sentence naming it, exit 3; --allow-data-loss without --update is a usage error', async () => {
    const url = `nats://127.0.0.1:${await freePort()}`
    const cli = contracts(['nats', 'provision', ordersDocument, '--server', url, '--allow-older-server'])
    expect(cli.status).toBe(3)
    expect(cli.stderr).toMatch(new RegExp(`^contracts: cannot reach the NATS server at ${url.replace(/\./g, '\\.')} \\(.+\\)\\.\\n$`))
    noCrash(cli.stderr)
    const usage = contracts(['nats', 'provision', ordersDocument, '--server', server.url, '--allow-data-loss'])
    expect([usage.status, usage.stderr]).toEqual([2, expect.stringContaining('--allow-data-loss goes with --update')])
  })

  it('tls:// asks for TLS (a server without it is not reached in plain text); another scheme and a file that is no creds file are usage errors (an outside pass)', () => {
    const tls = contracts(['nats', 'provision', ordersDocument, '--server', server.url.replace('nats://', 'tls://'), '--allow-older-server', '--dry-run'])
    expect(tls.status).toBe(3)
    expect(tls.stdout).toBe('')
    const http = contracts(['nats', 'provision', ordersDocument, '--server', server.url.replace('nats://', 'http://'), '--allow-older-server'])
    expect([http.status, http.stderr]).toEqual([2, expect.stringContaining('is not a server URL (nats://host:port, or tls://host:port for TLS)')])
    const creds = contracts(['nats', 'provision', ordersDocument, '--server', server.url, '--allow-older-server', '--creds', ordersDocument])
    expect([creds.status, creds.stderr]).toEqual([2, expect.stringContaining('is not a NATS credentials file')])
  })

  it('a --server that accepts the connection and never answers: the sentence, then exit 3 (an outside pass: it ran on until killed)', async () => {
    // Accepted by the kernel while spawnSync blocks this process; nothing is ever written back.
    const silent = createServer(() => {})
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    try {
      const url = `nats://127.0.0.1:${(silent.address() as AddressInfo).port}`
      const cli = spawnSync(
        process.execPath,
        [join(root, 'dist/cli.js'), 'nats', 'provision', ordersDocument, '--server', url, '--allow-older-server', '--dry-run'],
        {
          cwd: root,
          encoding: 'utf8',
          timeout: 90_000,
        },
      )
      expect([cli.status, cli.signal]).toEqual([3, null])
      expect(cli.stderr).toMatch(/^contracts: cannot reach the NATS server at .+ \(TimeoutError: .+\)\.\n$/)
    } finally {
      silent.close()
    }
  }, 120_000)
})

describe.skipIf(!NATS_SERVER)(
  'server fields the contract leaves out, at values that change what is kept or delivered (an outside pass found them in sync)',
  () => {
    // One nats-server and one connection for the block (helpers/nats-connected.ts).
    const nats = connectedNatsServer()
    let nc: NatsConnection
    let jsm: JetStreamManager
    let orders: ContractModule
    beforeAll(async () => {
      nc = nats.nc
      jsm = await jetstreamManager(nc)
      orders = await moduleOf(ordersDocument)
    }, 30_000)
    const streamConfig = () => JSON.parse(JSON.stringify(Object.values(orders.streams)[0]!.config)) as Record<string, unknown>
    const consumerConfig = () => JSON.parse(JSON.stringify(Object.values(orders.consumers)[0]!.config)) as Record<string, unknown>
    const mark = () => markDescription({ contract: orders.contract.id, version: orders.contract.version })

    it('a stream keeping one message a subject with rollups allowed, and a consumer delivering headers only that the server deletes when idle: differs; an update sets the defaults back; then in sync', async () => {
      await jsm.streams.add({ ...streamConfig(), description: mark(), max_msgs_per_subject: 1, allow_rollup_hdrs: true } as never)
      await jsm.consumers.add('ORDERS', { ...consumerConfig(), description: mark(), headers_only: true, inactive_threshold: 3_600_000_000_000 } as never)
      const planned = await run(orders, nc, { dryRun: true })
      expect(planned.inSync).toBe(false)
      expect(planned.plan.map((p) => [p.name, p.action, p.differences.map((d) => [d.field, d.contract, d.server])])).toEqual([
        [
          'ORDERS',
          'differs',
          [
            ['max_msgs_per_subject', -1, 1],
            ['allow_rollup_hdrs', false, true],
          ],
        ],
        [
          'fulfil',
          'differs',
          [
            ['headers_only', false, true],
            ['inactive_threshold', 0, 3_600_000_000_000],
          ],
        ],
      ])
      const updated = await run(orders, nc, { update: true })
      expect(planOf(updated)).toEqual([
        ['stream', 'ORDERS', 'update'],
        ['consumer', 'fulfil', 'update'],
      ])
      const [stream, consumer] = [(await jsm.streams.info('ORDERS')).config, (await jsm.consumers.info('ORDERS', 'fulfil')).config]
      expect([stream.max_msgs_per_subject, stream.allow_rollup_hdrs, consumer.headers_only ?? false, consumer.inactive_threshold ?? 0]).toEqual([
        -1,
        false,
        false,
        0,
      ])
      const again = await run(orders, nc, { update: true })
      expect([planOf(again), again.inSync]).toEqual([
        [
          ['stream', 'ORDERS', 'none'],
          ['consumer', 'fulfil', 'none'],
        ],
        true,
      ])
    })

    it("--adopt says it replaces an operator's description with the mark, and what the text was (an outside pass: it went without a word)", async () => {
      await jsm.streams.delete('ORDERS')
      await jsm.streams.add({ ...streamConfig(), description: 'made by hand for the audit team' } as never)
      const planned = await run(orders, nc, { dryRun: true, adopt: true })
      const stream = planned.plan.find((p) => p.kind === 'stream')!
      expect([stream.action, stream.owner, stream.reason]).toEqual([
        'adopt',
        null,
        'marking it replaces its description "made by hand for the audit team" with the mark.',
      ])
      await run(orders, nc, { adopt: true })
      expect((await jsm.streams.info('ORDERS')).config.description).toBe(mark())
      await jsm.consumers.add('ORDERS', { ...consumerConfig(), description: mark() } as never)
    })

    it('a push consumer under the contract’s name and mark: refused on every update, never reported updated (it stayed push)', async () => {
      await jsm.consumers.delete('ORDERS', 'fulfil')
      await jsm.consumers.add('ORDERS', { ...consumerConfig(), description: mark(), deliver_subject: 'push.fulfil' } as never)
      for (let round = 0; round < 2; round++) {
        const result = await run(orders, nc, { update: true, allowDataLoss: true })
        const consumer = result.plan.find((p) => p.kind === 'consumer')!
        expect([consumer.action, result.inSync]).toEqual(['refused', false])
        expect(consumer.reason).toMatch(/^not changed: an update cannot change deliver_subject \(it is a push consumer/)
        expect((await jsm.consumers.info('ORDERS', 'fulfil')).config.deliver_subject).toBe('push.fulfil')
      }
    })
  },
)

describe.skipIf(!NATS_SERVER)('the connection lost in the middle of a run (an outside pass: four streams created, none reported)', () => {
  let server: NatsServer
  beforeAll(async () => {
    server = await startNatsServer()
  }, 30_000)
  afterAll(async () => {
    await server?.stop()
  })

  it('the result keeps what was done, the stream in flight failed as unknown, the rest failed as not attempted; nothing throws', async () => {
    const streams = Object.fromEntries(
      Array.from({ length: 6 }, (_, i) => [
        `s${i}`,
        {
          authority: 'contract',
          config: {
            name: `CUT${i}`,
            subjects: [`cut${i}.>`],
            retention: 'limits',
            storage: 'memory',
            num_replicas: 1,
            max_age: 86400000000000,
            max_msgs: 1000,
            max_bytes: 1048576,
            discard: 'new',
            duplicate_window: 120000000000,
          },
        },
      ]),
    )
    const doc = {
      asyncapi: '3.1.0',
      info: { title: 'cut', version: '1.0.0' },
      'x-nats-contract': {
        version: '0.2.0-draft',
        contract: 'cut',
        deployment: { binding: 'test-local', minimumServerVersion: '2.11.0' },
        tokenTypes: {},
        channels: {},
        operations: {},
        streams,
      },
      channels: {},
      operations: {},
    }
    mkdirSync(tmp, { recursive: true })
    const file = join(tmp, 'cut.asyncapi.json')
    writeFileSync(file, JSON.stringify(doc))
    const module = await moduleOf(file)
    // A proxy that forwards both ways and cuts the connection when the client asks for the third stream to be made.
    const port = Number(new URL(server.url).port)
    let creates = 0
    const proxy = createServer((client) => {
      const upstream = connectTcp(port, '127.0.0.1')
      const cut = () => {
        client.destroy()
        upstream.destroy()
      }
      client.on('error', cut)
      upstream.on('error', cut)
      upstream.on('data', (d: Buffer) => client.write(d))
      client.on('data', (d: Buffer) => {
        creates += (d.toString('latin1').match(/\$JS\.API\.STREAM\.CREATE\./g) ?? []).length
        // The third request is never forwarded: the stream in flight was not made, though the client cannot know.
        if (creates >= 3) {
          cut()
          proxy.close()
        } else upstream.write(d)
      })
    })
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
    const nc = await connect({ servers: `nats://127.0.0.1:${(proxy.address() as AddressInfo).port}`, reconnect: false })
    const result = await run(module, nc)
    await nc.close().catch(() => undefined)
    expect(result.interrupted).toEqual(expect.any(String))
    expect(result.inSync).toBe(false)
    expect(result.plan.map((p) => [p.name, p.action])).toEqual([
      ['CUT0', 'create'],
      ['CUT1', 'create'],
      ['CUT2', 'failed'],
      ['CUT3', 'failed'],
      ['CUT4', 'failed'],
      ['CUT5', 'failed'],
    ])
    expect(result.plan[2]!.reason).toMatch(/^the server stopped answering \(.+\): whether it was changed is not known\.$/)
    expect(result.plan[3]!.reason).toBe('not attempted: the server stopped answering (above).')
    // What it reported as done is on the server.
    const direct = await connect({ servers: server.url })
    const jsm = await jetstreamManager(direct)
    for (const name of ['CUT0', 'CUT1']) expect((await jsm.streams.info(name)).config.name).toBe(name)
    await direct.close()
  }, 60_000)
})

describe('the ownership mark and the data-loss table, without a server', () => {
  it('reads back exactly the mark it writes; text that starts as a mark but is no readable one is an unreadable mark, never no mark', () => {
    const odd = { contract: 'a "b"} owner {"contract":"x', version: '1.0.0' }
    expect(readMark(markDescription(odd))).toEqual(odd)
    for (const text of [undefined, '', 'orders', 'owned by unplugin-contracts owner {}']) expect(readMark(text)).toBeNull()
    // No mark would let --adopt take the resource over: each of these is someone's.
    for (const text of [
      'unplugin-contracts owner ',
      'unplugin-contracts owner {"contract":1,"version":"1"}',
      'unplugin-contracts owner null',
      'unplugin-contracts owner {"contract":"intruder","version":"1.0.0"} (billing team: do not touch)',
      'unplugin-contracts owner {"contract":"intr\u001buder","version":"1.0.0"}'.replace('\\u001b', '\u001b'),
      'Unplugin-Contracts owner {"contract":"intruder","version":"1.0.0"}',
      ' unplugin-contracts owner {"contract":"intruder","version":"1.0.0"}',
      // Not what provisioning writes (an outside pass saw these read as marks, the first as "own"):
      'unplugin-contracts owner {"contract":"other","version":"1.0.0","contract":"own"}',
      'unplugin-contracts owner {"contract":"own","version":"1.0.0","extra":1}',
      'unplugin-contracts owner {"version":"1.0.0","contract":"own"}',
      'unplugin-contracts owner { "contract": "own", "version": "1.0.0" }',
      'unplugin-contracts owner {"contract":"\\u001b[31mevil\\nFAKE","version":"1.0.0"}',
    ])
      expect(readMark(text), text).toEqual({ contract: '', version: '', unreadable: text })
    expect(readMark(`unplugin-contracts owner ${'x'.repeat(500)}`)?.unreadable).toHaveLength(120)
  })

  it('an owner is the same contract id at the same or an older version; adopt takes only an unmarked resource', () => {
    const self = { contract: 'orders', version: '1.2.0' }
    expect(ownershipProblem(self, { contract: 'orders', version: '1.2.0' }, false)).toBeUndefined()
    expect(ownershipProblem(self, { contract: 'orders', version: '1.1.9' }, false)).toBeUndefined()
    expect(ownershipProblem(self, { contract: 'orders', version: '1.10.0' }, false)).toMatch(/newer than this contract's 1\.2\.0/)
    expect(ownershipProblem(self, { contract: 'intruder', version: '1.2.0' }, true)).toMatch(/mark of contract intruder/)
    expect(ownershipProblem(self, null, false)).toMatch(/no ownership mark/)
    expect(ownershipProblem(self, null, true)).toBeUndefined()
    for (const adopt of [false, true])
      expect(ownershipProblem(self, { contract: '', version: '', unreadable: 'unplugin-contracts owner {' }, adopt)).toMatch(
        /an unreadable mark .*never taken over/,
      )
  })

  it('growth loses nothing; a lower limit, a dropped subject, another retention do; unknown fields are not rules', () => {
    expect(lossOf('stream', 'max_msgs', 200, 100)).toBeUndefined()
    expect(lossOf('stream', 'max_msgs', 100, -1)).toMatch(/lowers max_msgs/)
    expect(lossOf('stream', 'subjects', ['a.>', 'b.>'], ['a.>'])).toBeUndefined()
    expect(lossOf('stream', 'subjects', ['b.>'], ['a.>'])).toMatch(/stops storing "a\.>"/)
    expect(lossOf('stream', 'retention', 'workqueue', 'limits')).toMatch(/retention/)
    expect(lossOf('stream', 'discard', 'new', 'old')).toBeUndefined()
    expect(lossOf('consumer', 'ack_wait', 1, 2)).toBeUndefined()
    expect(lossOf('stream', 'constructor', 1, 2)).toBeUndefined()
  })

  // An outside pass: provisioning refused as losses a stream's subjects widened (`a.eu.>` to `a.>`),
  // the same subjects written differently (within, pattern by pattern), a consumer filter widened and
  // retention to limits, where nothing stored or pending is lost; the diff called them info or a warning.
  it('reads subjects and filters with their wildcards: widened is no loss, narrowed is; retention to limits is no loss', () => {
    expect(lossOf('stream', 'subjects', ['a.>'], ['a.eu.>'])).toBeUndefined()
    expect(lossOf('stream', 'subjects', ['a.*.x', 'b.>'], ['a.eu.x', 'b.c.>'])).toBeUndefined()
    expect(lossOf('stream', 'subjects', ['a.eu.>'], ['a.>'])).toMatch(/stops storing "a\.>"/)
    expect(lossOf('stream', 'subjects', ['a.*'], ['a.>'])).toMatch(/stops storing "a\.>"/)
    // Covered only by the new subjects together: counted (pairwise, as the diff warns of it).
    expect(lossOf('stream', 'subjects', ['a.*', 'a.*.>'], ['a.>'])).toMatch(/stops storing "a\.>"/)
    expect(lossOf('consumer', 'filter_subject', 'a.>', 'a.eu.x')).toBeUndefined()
    expect(lossOf('consumer', 'filter_subject', 'a.*.x', 'a.eu.x')).toBeUndefined()
    expect(lossOf('consumer', 'filter_subject', 'a.eu.x', 'a.*.x')).toMatch(/never delivered/)
    expect(lossOf('consumer', 'filter_subject', 'a.us.x', 'a.eu.x')).toMatch(/never delivered/)
    expect(lossOf('stream', 'retention', 'limits', 'interest')).toBeUndefined()
    expect(lossOf('stream', 'retention', 'interest', 'limits')).toMatch(/retention/)
    expect(lossOf('stream', 'retention', 'workqueue', 'interest')).toMatch(/retention/)
  })
})
