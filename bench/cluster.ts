/**
 * `npx tsx bench/cluster.ts` (after `npm run build`): JetStream publish and durable consume through
 * the client on a real 3-node cluster (three replicas, test/helpers/nats-cluster.ts) against raw
 * nats.js on the same cluster and stream, per message. Ours: `client.publish` (checked subject,
 * validated payload, expected stream, message id) and `client.consume` on the contract's durable
 * consumer (subject parsed back, payload decoded and validated, explicit ack). Raw: `js.publish` with
 * the same expectations and a hand-written consume of a twin durable consumer (same configuration,
 * its own filter), JSON both ways. Each round publishes N messages concurrently and waits until all
 * N are acknowledged by the stream and consumed. Target: at most 1.3x raw nats.js per message.
 * A case of `npm run bench` (bench/run.ts); run alone, it merges its row into bench/results.json.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect } from '@nats-io/transport-node'
import { jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream'
import { ContractCompiler } from '../dist/src/index.js'
import { formats } from '../dist/src/formats/index.js'
import { bindContract, provision } from '../dist/src/runtime/nats/client/index.js'
import { loadModule } from '../test/helpers/load-module.js'
import { startNatsCluster } from '../test/helpers/nats-cluster.js'
import { paired } from './measure.js'
import { mergeIntoResults } from './results-file.js'

const N = 500

/** The `cluster-publish-consume-3` row: `rounds` paired rounds of N messages each way. */
export async function clusterCases(rounds: number): Promise<Record<string, { ratio: number; met: boolean; [k: string]: unknown }>> {
  const cluster = await startNatsCluster(3, 'b')
  const dir = mkdtempSync(join(tmpdir(), 'bench-cluster-'))
  try {
    // orders-client with three replicas: the contract a cluster deployment would provision.
    const document = join(dir, 'orders.asyncapi.yaml')
    const source = readFileSync(join(import.meta.dirname, '../fixtures/nats/client/orders.asyncapi.yaml'), 'utf8')
    writeFileSync(document, source.replace('num_replicas: 1', 'num_replicas: 3'))
    const compiled = await new ContractCompiler({ formats }).compile(document)
    if (!compiled.code) throw new Error(JSON.stringify(compiled.diagnostics))
    const mod = (await loadModule(compiled.code, 'bench-cluster-orders')) as any
    const nc = await connect({ servers: cluster.servers })
    const provisioned = await provision(mod, nc, { allowOlderServer: true })
    if (!provisioned.inSync) throw new Error(JSON.stringify(provisioned.plan))
    await cluster.streamLeader('ORDERS')
    const client = bindContract(mod, nc, { allowOlderServer: true }) as any
    const js = jetstream(nc)
    const jsm = await jetstreamManager(nc)
    // The raw side's twin of the contract consumer: the same configuration on a subject of its own.
    await jsm.consumers.add('ORDERS', { ...mod.consumers.fulfil.config, durable_name: 'raw', filter_subject: 'shop.*.orders.*.raw' })
    // Both consumers led from one server, so neither side pays an extra hop the other does not
    // (asking the raw consumer's leader to step down until it lands there; bounded).
    const fulfilLeader = await cluster.consumerLeader('ORDERS', 'fulfil')
    for (let i = 0; i < 10 && (await cluster.consumerLeader('ORDERS', 'raw')) !== fulfilLeader; i++)
      await nc.request('$JS.API.CONSUMER.LEADER.STEPDOWN.ORDERS.raw', undefined, { timeout: 5000 }).catch(() => undefined)
    const rawLeader = await cluster.consumerLeader('ORDERS', 'raw')

    const ids = Array.from({ length: 100 }, (_, i) => (0x10000000 + i).toString(16))
    const payloads = ids.map((orderId, i) => ({ orderId, total: i, currency: 'EUR' }))
    const enc = new TextEncoder()
    const dec = new TextDecoder()
    let received = 0
    let done: () => void = () => undefined
    const arrived = () => {
      if (++received === N) done()
    }
    const ours = await client.consume('onOrderPlaced', (m: { ack(): void }) => {
      m.ack()
      arrived()
    })
    const raw = await (
      await js.consumers.get('ORDERS', 'raw')
    ).consume({
      callback: (m: JsMsg) => {
        const [, region, , orderId] = m.subject.split('.')
        void region
        void orderId
        JSON.parse(dec.decode(m.data))
        m.ack()
        arrived()
      },
    })
    let sent = 0
    const round = (send: (i: number, id: string) => Promise<unknown>) => async () => {
      received = 0
      const all = new Promise<void>((resolve) => (done = resolve))
      const acks: Array<Promise<unknown>> = []
      for (let i = 0; i < N; i++) acks.push(send(i, `m${sent++}`))
      await Promise.all(acks)
      await all
    }
    const result = await paired(
      {
        raw: round((i, id) =>
          js.publish(`shop.eu.orders.${ids[i % 100]}.raw`, enc.encode(JSON.stringify(payloads[i % 100])), { msgID: id, expect: { streamName: 'ORDERS' } }),
        ),
        client: round((i, id) => client.publish('placeOrder', { region: 'eu', orderId: ids[i % 100] }, payloads[i % 100], { msgID: id })),
      },
      rounds,
    )
    await ours.stop()
    await raw.close()
    await nc.close()
    return {
      'cluster-publish-consume-3': {
        ours_ms: result.ms.client / N,
        baseline_ms: result.ms.raw / N,
        ratio: result.ratio.client,
        spread: result.spread.client,
        target: '<= 1.3',
        met: result.ratio.client <= 1.3,
        messages: N,
        replicas: 3,
        servers: cluster.nodes.length,
        same_consumer_leader: rawLeader === fulfilLeader,
      },
    }
  } finally {
    await cluster.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await clusterCases(process.argv.includes('--quick') ? 5 : 11)
  console.log(rows)
  mergeIntoResults(rows)
}
