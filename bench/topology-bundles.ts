/** Bundles that make big topology pictures, for the hostile bench families and the tests (no build needed). */
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * A bundle of one application with one channel, one stream and `consumers` durable consumers on it
 * (a projection of `consumers + 4` nodes): the shape that made ELK take 270 s and 1.31 GB at 5,000
 * consumers. Returns the bundle folder.
 */
export function consumerBundle(dir: string, consumers: number): string {
  const names = Array.from({ length: consumers }, (_, i) => `c${i}`)
  const doc = {
    asyncapi: '3.1.0',
    info: { title: 'Many consumers', version: '1.0.0' },
    'x-nats-contract': {
      version: '0.2.0-draft',
      contract: 'crowd',
      deployment: { binding: 'crowd-prod', minimumServerVersion: '2.11.0' },
      tokenTypes: { id: { kind: 'token', alphabet: 'lower', first: 'any', minLength: 1, maxLength: 16, prefix: '' } },
      channels: { events: { parameters: { id: 'id' } } },
      operations: { publish: { publish: { api: 'jetstream', confirmation: 'stream-ack', stream: 'events' } } },
      streams: {
        events: {
          authority: 'contract',
          config: {
            name: 'EVENTS',
            subjects: ['crowd.>'],
            retention: 'limits',
            storage: 'file',
            num_replicas: 1,
            max_age: 86400000000000,
            max_msgs: 1000,
            max_bytes: 1000000,
            discard: 'new',
            duplicate_window: 120000000000,
          },
        },
      },
      consumers: Object.fromEntries(
        names.map((name) => [
          name,
          {
            stream: 'events',
            authority: 'contract',
            config: {
              durable_name: name,
              filter_subject: `crowd.${name}.>`,
              ack_policy: 'explicit',
              deliver_policy: 'all',
              ack_wait: 2000000000,
              max_deliver: 5,
              max_ack_pending: 100,
              replay_policy: 'instant',
            },
          },
        ]),
      ),
    },
    channels: { events: { address: 'crowd.{id}', parameters: { id: {} }, messages: { m: { payload: { type: 'object' } } } } },
    operations: { publish: { action: 'send', channel: { $ref: '#/channels/events' } } },
  }
  mkdirSync(join(dir, 'crowd'), { recursive: true })
  writeFileSync(join(dir, 'crowd/asyncapi.yaml'), JSON.stringify(doc))
  const sha256 = createHash('sha256')
    .update(readFileSync(join(dir, 'crowd/asyncapi.yaml')))
    .digest('hex')
  writeFileSync(join(dir, 'bundle.lock.json'), JSON.stringify({ entries: [{ path: 'crowd/asyncapi.yaml', sha256 }] }))
  return dir
}

/**
 * A projection written by hand (no compile), as `topology()` would give it: `apps` applications on
 * two bindings, each with `channels` channels captured by its own stream, and `consumers` consumers
 * on the first application's stream. Returns the path of its JSON.
 */
export function syntheticProjection(dir: string, apps: number, channels: number, consumers = 0): string {
  const nodes: Array<Record<string, unknown>> = []
  const edges: Array<Record<string, unknown>> = []
  for (let a = 0; a < apps; a++) {
    const contract = `app${a}`
    const binding = a % 2 === 0 ? 'east' : 'west'
    nodes.push({ id: `app:${contract}`, kind: 'application', contract, label: `${contract} 1.0.0`, data: { contract, binding } })
    const stream = `stream:${binding}/APP${a}`
    nodes.push({ id: stream, kind: 'stream', contract, label: `APP${a}`, data: { binding, name: `APP${a}`, owner: contract } })
    for (let c = 0; c < channels; c++) {
      const id = `channel:${contract}/c${c}`
      nodes.push({ id, kind: 'channel', contract, label: `${contract}.c${c}.{id}`, data: { channel: `c${c}`, address: `${contract}.c${c}.{id}` } })
      edges.push({ from: id, to: stream, kind: 'capture', label: 'captured' })
    }
  }
  for (let i = 0; i < consumers; i++) {
    const id = `consumer:east/APP0/c${i}`
    nodes.push({ id, kind: 'consumer', contract: 'app0', label: `c${i}`, data: { binding: 'east', stream: 'APP0', name: `c${i}`, owner: 'app0' } })
    edges.push({ from: id, to: 'stream:east/APP0', kind: 'consumer-stream', label: `app0.c${i}.>` })
  }
  const file = join(dir, 'topology.json')
  mkdirSync(dir, { recursive: true })
  writeFileSync(file, JSON.stringify({ nodes, edges }))
  return file
}
