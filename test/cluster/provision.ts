/**
 * Provisioning on a real 5-node JetStream cluster (test/helpers/nats-cluster.ts): the path a
 * contract with `num_replicas: 3` or `5` takes to production. Streams and consumers are created
 * exactly per contract with their replicas placed on distinct servers, compared, updated within
 * ownership (growth 3 -> 5 applied, shrink 5 -> 3 a loss), another contract's claim refused, and
 * the server's refusal (five replicas while one of five servers is down) turned into a sentence.
 * Debian's nats-server is 2.9: every call passes the development override for minimumServerVersion.
 * Sharing the cluster (routes through cuttable proxies): a deaf follower of the claim bucket, then a
 * route cut with both ends running that leaves the durable executor's node in the minority, one way
 * first, then both (./faults.ts).
 */
import { connect } from '@nats-io/transport-node'
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream'
import type { NatsConnection } from '@nats-io/nats-core'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../../src/index.js'
import { provision, type ContractModule, type ProvisionOptions } from '../../src/runtime/nats/client/index.js'
import { loadModule } from '../helpers/load-module.js'
import { groupPeers, NATS_SERVER, startNatsCluster, type NatsCluster } from '../helpers/nats-cluster.js'
import { until } from '../helpers/until.js'
import { durableWorld, type DurableWorld } from './durable-world.js'
import { executorInTheMinority } from './faults.js'

const root = join(import.meta.dirname, '../..')
const ordersDocument = join(root, 'fixtures/nats/client/orders.asyncapi.yaml')
const intruderDocument = join(root, 'fixtures/nats/provision/intruder.asyncapi.yaml')
const tmp = join(import.meta.dirname, '../.tmp/cluster-provision', String(process.pid))
const dev = { allowOlderServer: true } as const

/** The orders-client contract at another version with `num_replicas` set, written under test/.tmp. */
function ordersWith(version: string, replicas: 1 | 3 | 5, maxBytes = 104857600): string {
  const text = readFileSync(ordersDocument, 'utf8')
  for (const from of ['version: 1.0.0', 'num_replicas: 1', 'max_bytes: 104857600']) if (!text.includes(from)) throw new Error(`edit did not apply: ${from}`)
  mkdirSync(tmp, { recursive: true })
  const file = join(tmp, `orders-${version}-r${replicas}.asyncapi.yaml`)
  const edited = text
    .replace('version: 1.0.0', `version: ${version}`)
    .replace('num_replicas: 1', `num_replicas: ${replicas}`)
    .replace('max_bytes: 104857600', `max_bytes: ${maxBytes}`)
  writeFileSync(file, edited)
  return file
}

let loaded = 0
async function moduleOf(file: string): Promise<ContractModule> {
  const result = await compile(file)
  expect(result.diagnostics).toEqual([])
  return (await loadModule(result.code!, `cluster-provision-${loaded++}`)) as unknown as ContractModule
}

const planOf = (result: Awaited<ReturnType<typeof provision>>) => result.plan.map((p) => [p.kind, p.name, p.action])

/**
 * Registers this suite; `test/cluster.test.ts` runs it beside the other cluster suites (each on its
 * own cluster), its tests in order.
 */
export function provisioningOnCluster(): void {
  describe.skipIf(!NATS_SERVER)('provisioning on a 5-node JetStream cluster (num_replicas 3 and 5)', () => {
    let cluster: NatsCluster
    let nc: NatsConnection
    let jsm: JetStreamManager
    /**
     * Provisions as an application would on a cluster: a question the meta group cannot answer yet
     * ("JetStream system temporarily unavailable", or no answer at all: it re-elects when its nodes
     * starve for CPU on a loaded machine) is asked again, bounded (provisioning the same contract
     * again changes nothing); any other answer is the test's.
     */
    const run = async (module: ContractModule, options: ProvisionOptions = {}) => {
      for (let tries = 0; ; tries++) {
        try {
          return await provision(module, nc, { ...dev, ...options })
        } catch (error) {
          if (tries >= 20 || !/temporarily unavailable|TimeoutError|timeout/i.test(String(error))) throw error
          await new Promise((resolve) => setTimeout(resolve, 500))
        }
      }
    }
    /** Where the stream lives: its leader and replicas, each a distinct server of the cluster. */
    const placement = async (stream: string) => {
      const info = await jsm.streams.info(stream)
      const peers = groupPeers(info.cluster)
      return { replicas: info.config.num_replicas, servers: peers.length, known: peers.every((p) => cluster.nodes.some((n) => n.name === p)) }
    }
    /** A change of replicas is applied by the meta leader after it answers: waits (bounded) for the peers to follow. */
    const placed = (stream: string, replicas: number) =>
      until(
        `${stream} on ${replicas} servers`,
        async () => {
          const now = await placement(stream)
          return now.servers === replicas ? now : undefined
        },
        30_000,
      )

    beforeAll(async () => {
      cluster = await startNatsCluster(5, 'p', { cuttableRoutes: true })
      nc = await connect({ servers: cluster.servers, timeout: 5000 })
      jsm = await jetstreamManager(nc, { timeout: 10_000 })
    }, 60_000)

    /** The durable executor's world on this cluster, for the route cut (made by its test). */
    let world: DurableWorld | undefined

    afterAll(async () => {
      await world?.close()
      await nc?.close()
      await cluster?.stop()
      rmSync(tmp, { recursive: true, force: true })
    })

    it.sequential(
      'server refusal (capacity): five replicas of 1 GiB on servers that each reserve 256 MiB fail with the server sentence, its consumer is refused, nothing is created',
      async () => {
        const tooBig = await moduleOf(ordersWith('0.9.0', 5, 1024 * 1024 * 1024))
        const result = await run(tooBig)
        expect(planOf(result)).toEqual([
          ['stream', 'ORDERS', 'failed'],
          ['consumer', 'fulfil', 'refused'],
        ])
        const [stream, consumer] = result.plan
        // The server's own words and code, in one sentence.
        expect(stream!.reason).toMatch(/^the server refused to create it: .*insufficient.* \(JetStream error \d+, status \d+\)\.$/)
        expect(stream!.server).toMatchObject({ code: expect.any(Number), status: expect.any(Number), description: expect.stringMatching(/\S/) })
        expect(consumer!.reason).toBe('its stream ORDERS is not on the server (the server refused it, above).')
        expect(result.inSync).toBe(false)
        await expect(jsm.streams.info('ORDERS')).rejects.toThrow(/not found/i)
      },
    )

    it.sequential(
      'num_replicas 3: the stream is created exactly per contract on three distinct servers, its consumer inherits three replicas; the next plan is none',
      async () => {
        const r3 = await moduleOf(ordersWith('1.0.0', 3))
        const created = await run(r3)
        expect(planOf(created)).toEqual([
          ['stream', 'ORDERS', 'create'],
          ['consumer', 'fulfil', 'create'],
        ])
        expect(created.inSync).toBe(true)
        const config = (await jsm.streams.info('ORDERS')).config as unknown as Record<string, unknown>
        // Every field the contract names, exactly as it names it.
        for (const [field, value] of Object.entries(r3.streams['orders']!.config)) expect([field, config[field]]).toEqual([field, value])
        expect(await placement('ORDERS')).toEqual({ replicas: 3, servers: 3, known: true })
        const consumer = await jsm.consumers.info('ORDERS', 'fulfil')
        expect(groupPeers(consumer.cluster)).toHaveLength(3)
        const again = await run(r3, { dryRun: true })
        expect(again.plan.map((p) => [p.name, p.action, p.differences])).toEqual([
          ['ORDERS', 'none', []],
          ['fulfil', 'none', []],
        ])
        expect(again.inSync).toBe(true)
      },
    )

    it.sequential(
      'placement differences: 3 -> 5 replicas is planned as growth and applied; 5 -> 3 is planned as a loss, refused without allowDataLoss, applied with it',
      async () => {
        const r5 = await moduleOf(ordersWith('1.1.0', 5))
        const dry = await run(r5, { update: true, dryRun: true })
        expect(dry.plan[0]).toMatchObject({ action: 'update', differences: [{ field: 'num_replicas', contract: 5, server: 3 }] })
        expect(dry.plan[0]!.differences[0]!.loss).toBeUndefined()
        expect((await placement('ORDERS')).replicas).toBe(3)
        const grown = await run(r5, { update: true })
        expect(planOf(grown)).toEqual([
          ['stream', 'ORDERS', 'update'],
          ['consumer', 'fulfil', 'none'],
        ])
        expect(await placed('ORDERS', 5)).toEqual({ replicas: 5, servers: 5, known: true })

        const back = await moduleOf(ordersWith('1.2.0', 3))
        const refused = await run(back, { update: true })
        expect(refused.plan[0]).toMatchObject({
          action: 'refused',
          reason: 'not changed: the update loses data (num_replicas); allowDataLoss (--allow-data-loss) applies it.',
          differences: [{ field: 'num_replicas', contract: 3, server: 5, loss: 'keeps fewer copies of every stored message' }],
        })
        expect((await placement('ORDERS')).replicas).toBe(5)
        const shrunk = await run(back, { update: true, allowDataLoss: true })
        expect(shrunk.plan[0]!.action).toBe('update')
        expect(await placed('ORDERS', 3)).toEqual({ replicas: 3, servers: 3, known: true })
      },
    )

    it.sequential(
      'within ownership: another contract naming ORDERS (one replica, other subjects) is refused with the mark it found; the stream keeps its replicas',
      async () => {
        const intruder = await moduleOf(intruderDocument)
        const result = await run(intruder, { update: true, allowDataLoss: true, adopt: true })
        expect(planOf(result)).toEqual([
          ['stream', 'ORDERS', 'refused'],
          ['consumer', 'fulfil', 'refused'],
        ])
        const stream = result.plan[0]!
        expect(stream.reason).toBe('not changed: it carries the mark of contract orders-client 1.2.0, not of contract intruder.')
        expect(stream.differences.find((d) => d.field === 'num_replicas')).toMatchObject({
          contract: 1,
          server: 3,
          loss: 'keeps fewer copies of every stored message',
        })
        expect(await placement('ORDERS')).toEqual({ replicas: 3, servers: 3, known: true })
        expect((await jsm.streams.info('ORDERS')).config.subjects).toEqual(['shop.*.orders.>'])
      },
    )

    it.sequential(
      "partitions around the claim bucket with a fan-out in flight: a deaf follower (it hears none of its peers past its election timeout, they hear it), then renewals commit again; then the executor's node, the claim bucket leader, left in the minority: first one way for a few seconds (no claim renewal commits), then its routes to every peer cut (the executor's and a courier's client connections to it stay up): the executor cannot commit and says so within its bound, admits and decides nothing meanwhile, its courier renews nothing; once healed the fan-out decides once, no handler aborted, and the invocation refused during the cut, tried again with its key, decides once",
      async () => {
        await cluster.ready()
        // The durable world shares this cluster (the suite is the file's shortest) rather than start another.
        world ??= await durableWorld(cluster, 'provision-route-cut', 3)
        await executorInTheMinority(world, cluster)
      },
    )
  })
}
