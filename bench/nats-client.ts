/**
 * `npm run bench:nats-client`: the client's per-message cost over raw nats.js, publish to receipt,
 * with the same subjects and payloads, against a real nats-server (started here, as the tests do).
 * Ours: `client.publish` (checked render, payload validated, JSON) and `client.subscribe` (subject
 * parsed back, payload decoded and validated). Raw: a template-literal subject and JSON both ways.
 * Target: at most 1.3x raw nats.js per message, validation on; `cpu_ratio`: the same in this process's
 * CPU time (the server's work, the same for both, left out). The module is compiled with the default
 * options (payload validators as data for the runtime's interpreter); `validators_code_*`: the
 * client over the default module paired with the same client over the module compiled with
 * `validators: 'code'` (the default's time over the code form's). A case of `npm run bench` (bench/run.ts);
 * run alone, it merges its row into bench/results.json.
 */
import { join } from 'node:path'
import { connect } from '@nats-io/transport-node'
import { ContractCompiler } from '../dist/src/index.js'
import { formats } from '../dist/src/formats/index.js'
import { bindContract } from '../dist/src/runtime/nats/client/index.js'
import { loadModule } from '../test/helpers/load-module.js'
import { startNatsServer } from '../test/helpers/nats-server.js'
import { pairedRounds } from './paired-cpu.js'
import { mergeIntoResults } from './results-file.js'

/** The `nats-client-pubsub` row: `rounds` paired rounds of 2,000 messages each way. */
export async function natsClientCases(rounds: number): Promise<Record<string, { ratio: number; met: boolean; [k: string]: unknown }>> {
  const N = 2000
  const server = await startNatsServer()
  try {
    const file = join(import.meta.dirname, '../fixtures/nats/client/orders.asyncapi.yaml')
    const compiler = new ContractCompiler({ formats })
    const mod = await loadModule((await compiler.compile(file)).code!, 'bench-orders')
    const codeMod = await loadModule((await compiler.compile(file, { nats: { validators: 'code' } })).code!, 'bench-orders-code')
    const nc = await connect({ servers: server.url })
    const client = bindContract(mod as never, nc, { allowOlderServer: true }) as any
    const codeClient = bindContract(codeMod as never, nc, { allowOlderServer: true }) as any
    const ids = Array.from({ length: 100 }, (_, i) => (0x10000000 + i).toString(16))
    const regions = ['eu', 'us'] as const
    const payloads = ids.map((id) => ({ text: `note ${id}` }))
    const enc = new TextEncoder()
    const dec = new TextDecoder()
    let received = 0
    let done: () => void = () => undefined
    const arrived = () => {
      if (++received === N) done()
    }
    const sub = client.subscribe('onNote', arrived)
    const rawSub = nc.subscribe('raw.*.notes.*', {
      callback: (_e, m) => {
        const [, region, orderId] = m.subject.split('.')
        void region
        void orderId
        JSON.parse(dec.decode(m.data))
        arrived()
      },
    })
    await nc.flush()
    const round = (send: (i: number) => void) => async () => {
      received = 0
      const all = new Promise<void>((resolve) => (done = resolve))
      for (let i = 0; i < N; i++) send(i)
      await all
    }
    const result = await pairedRounds(
      round((i) => nc.publish(`raw.${regions[i & 1]}.notes.${ids[i % 100]}`, enc.encode(JSON.stringify(payloads[i % 100])))),
      round((i) => client.publish('noteOrder', { region: regions[i & 1], orderId: ids[i % 100] }, payloads[i % 100])),
      rounds,
    )
    sub.unsubscribe()
    rawSub.unsubscribe()
    // Each round subscribes the client it publishes with (one subscription at a time, so each
    // message is decoded and validated by the same form that sent it), then unsubscribes.
    const alone = (c: any) => async () => {
      received = 0
      const s = c.subscribe('onNote', arrived)
      await nc.flush()
      const all = new Promise<void>((resolve) => (done = resolve))
      for (let i = 0; i < N; i++) c.publish('noteOrder', { region: regions[i & 1], orderId: ids[i % 100] }, payloads[i % 100])
      await all
      s.unsubscribe()
      await nc.flush()
    }
    const forms = await pairedRounds(alone(codeClient), alone(client), rounds)
    await nc.close()
    return {
      'nats-client-pubsub': {
        ...result,
        target: '<= 1.3',
        met: result.ratio <= 1.3,
        messages: N,
        server: server.version,
        // The default (data) client's time over the code-form client's, paired rounds, each round subscribing and publishing with one of them.
        validators_code_ratio: forms.ratio,
        validators_code_cpu_ratio: forms.cpu_ratio,
        validators_code_spread: forms.spread,
      },
    }
  } finally {
    await server.stop()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await natsClientCases(process.argv.includes('--quick') ? 5 : 15)
  console.log(rows)
  mergeIntoResults(rows)
}
