/**
 * Provisioning, probed from outside against a real nats-server with JetStream: a stream's subjects
 * are a set on the server (nats-server matches a publication against each of them; their order
 * means nothing), so a stream holding the contract's subjects in another order is the contract's
 * stream. Reported as `differs`, it made `contracts nats provision` exit 1 on a server that matches,
 * and `--update` refuse a change that changes nothing on a stream it does not own.
 */
import { connect } from '@nats-io/transport-node'
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream'
import type { NatsConnection } from '@nats-io/nats-core'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { provision, type ContractModule } from '../src/runtime/nats/client/index.js'
import { contracts } from './helpers/cli.js'
import { loadModule } from './helpers/load-module.js'
import { NATS_SERVER, startNatsServer, type NatsServer } from './helpers/nats-server.js'

const root = join(import.meta.dirname, '..')
const tmp = join(import.meta.dirname, '.tmp/probe-provision', String(process.pid))
const dev = { allowOlderServer: true } as const
const SUBJECTS = 'subjects: [shop.*.orders.>]'
const TWO_SUBJECTS = 'subjects: [shop.*.orders.>, shop.*.returns.>]'

/** The orders-client contract whose ORDERS stream takes two subjects, as a file (for the CLI) and a module. */
async function twoSubjectContract(): Promise<{ file: string; module: ContractModule }> {
  const text = readFileSync(join(root, 'fixtures/nats/client/orders.asyncapi.yaml'), 'utf8')
  if (!text.includes(SUBJECTS)) throw new Error('fixture changed: no ORDERS subjects')
  mkdirSync(tmp, { recursive: true })
  const file = join(tmp, 'two-subjects.asyncapi.yaml')
  writeFileSync(file, text.replace(SUBJECTS, TWO_SUBJECTS))
  const result = await compile(file)
  expect(result.diagnostics).toEqual([])
  return { file, module: (await loadModule(result.code!, 'probe-provision')) as unknown as ContractModule }
}

describe.skipIf(!NATS_SERVER)('provisioning compares a stream subject list as the set the server matches (real nats-server)', () => {
  let server: NatsServer
  let nc: NatsConnection
  let jsm: JetStreamManager
  let contract: { file: string; module: ContractModule }

  beforeAll(async () => {
    server = await startNatsServer()
    nc = await connect({ servers: server.url })
    jsm = await jetstreamManager(nc)
    contract = await twoSubjectContract()
    // Made by hand (no mark) with exactly the contract's configuration, the subjects listed the other way round.
    const config = { ...(contract.module.streams.orders!.config as Record<string, unknown>) }
    await jsm.streams.add({ ...config, subjects: ['shop.*.returns.>', 'shop.*.orders.>'] } as never)
  }, 30_000)

  afterAll(async () => {
    await nc?.close()
    await server?.stop()
  })

  it('the same subjects in another order: in sync (none), nothing written, with or without --update', async () => {
    for (const options of [{ dryRun: true }, {}, { update: true }]) {
      const result = await provision(contract.module, nc, { ...dev, ...options })
      const stream = result.plan.find((p) => p.kind === 'stream')!
      expect([stream.name, stream.action, stream.differences, stream.owner]).toEqual(['ORDERS', 'none', [], null])
    }
    const config = (await jsm.streams.info('ORDERS')).config
    // Never rewritten: the hand-made list and the absent mark are as they were.
    expect([config.subjects, config.description ?? '']).toEqual([['shop.*.returns.>', 'shop.*.orders.>'], ''])
  })

  it('contracts nats provision --update on it: the stream is not reported as differing or refused', () => {
    const cli = contracts(['nats', 'provision', contract.file, '--server', server.url, '--update', '--allow-older-server'])
    expect(cli.stdout + cli.stderr).not.toMatch(/ORDERS[^\n]*(differs|refused)|subjects: contract/)
  })

  it('a subject really dropped is still a difference, and still a loss', async () => {
    const result = await provision(
      {
        ...contract.module,
        streams: { orders: { ...contract.module.streams.orders!, config: { ...contract.module.streams.orders!.config, subjects: ['shop.*.orders.>'] } } },
      } as ContractModule,
      nc,
      { ...dev, dryRun: true },
    )
    const stream = result.plan.find((p) => p.kind === 'stream')!
    expect(stream.action).toBe('differs')
    expect(stream.differences).toEqual([expect.objectContaining({ field: 'subjects', loss: expect.stringContaining('"shop.*.returns.>"') })])
  })
})
