/** Synthetic but realistic contracts for the benchmarks. */
import { stringify } from 'yaml'

/**
 * A NATS application document with `n` channels: token types, typed addresses with filters,
 * JetStream and core operations, one stream per 50 channels, a consumer per 10, a few interactions.
 */
export function natsDocument(n: number): string {
  const channels: Record<string, unknown> = {}
  const profileChannels: Record<string, unknown> = {}
  const operations: Record<string, unknown> = {}
  const profileOperations: Record<string, unknown> = {}
  const streams: Record<string, unknown> = {}
  const consumers: Record<string, unknown> = {}
  const groups = Math.ceil(n / 50)
  for (let g = 0; g < groups; g++) {
    streams[`s${g}`] = {
      authority: 'contract',
      config: { name: `S${g}`, subjects: [`svc${g}.>`], retention: 'limits', storage: 'file', num_replicas: 3, max_age: 86400000000000, max_msgs: 1000000, max_bytes: 1073741824, discard: 'new', duplicate_window: 120000000000 },
    }
  }
  for (let i = 0; i < n; i++) {
    const g = Math.floor(i / 50)
    const id = `channel${i}`
    channels[id] = {
      address: `svc${g}.{region}.{entityId}.event${i}`,
      parameters: { region: {}, entityId: {} },
      messages: { m: { $ref: '#/components/messages/Event' } },
    }
    profileChannels[id] = { parameters: { region: 'region', entityId: 'entityId' }, filters: { inRegion: `svc${g}.{region}.*.event${i}`, all: `svc${g}.*.*.event${i}` } }
    operations[`publish${i}`] = { action: 'send', channel: { $ref: `#/channels/${id}` } }
    profileOperations[`publish${i}`] = i % 2 === 0 ? { publish: { api: 'jetstream', confirmation: 'stream-ack', stream: `s${g}` } } : { publish: { api: 'core', confirmation: 'none' } }
    if (i % 10 === 0) {
      operations[`consume${i}`] = { action: 'receive', channel: { $ref: `#/channels/${id}` } }
      profileOperations[`consume${i}`] = { subscribe: { api: 'jetstream', consumer: `c${i}` } }
      consumers[`c${i}`] = {
        stream: `s${g}`,
        authority: 'contract',
        config: { durable_name: `c${i}`, filter_subject: `svc${g}.*.*.event${i}`, ack_policy: 'explicit', deliver_policy: 'all', ack_wait: 30000000000, max_deliver: 5, max_ack_pending: 100, replay_policy: 'instant' },
      }
    }
  }
  return stringify({
    asyncapi: '3.1.0',
    info: { title: `Synthetic ${n}`, version: '1.0.0' },
    'x-nats-contract': {
      version: '0.2.0-draft',
      contract: `synthetic${n}`,
      deployment: { binding: 'bench', minimumServerVersion: '2.11.0' },
      tokenTypes: {
        region: { kind: 'enum', values: ['eu', 'us', 'ap'] },
        entityId: { kind: 'token', alphabet: 'lower', first: 'letter', minLength: 4, maxLength: 40, prefix: 'e-' },
      },
      channels: profileChannels,
      operations: profileOperations,
      streams,
      consumers,
    },
    channels,
    operations,
    components: {
      messages: { Event: { payload: { $ref: '#/components/schemas/Event' } } },
      schemas: { Event: { type: 'object', required: ['id', 'at'], properties: { id: { type: 'string' }, at: { type: 'string', format: 'date-time' }, amount: { type: 'number' } } } },
    },
  })
}

/** A Benzene document with `n` request topics, nested schemas sharing references, and events. */
export function benzeneDocument(n: number): string {
  const schemas: Record<string, unknown> = {
    Money: { type: 'object', required: ['Amount', 'Currency'], properties: { Amount: { type: 'number', format: 'double' }, Currency: { type: 'string', enum: ['EUR', 'USD', 'GBP'] } }, additionalProperties: false },
    Address: { type: 'object', properties: { Street: { type: 'string', nullable: true }, City: { type: 'string' }, Country: { type: 'string' } }, additionalProperties: false },
    Audit: { type: 'object', properties: { CreatedBy: { type: 'string' }, At: { type: 'string', format: 'date-time' }, Tags: { type: 'array', items: { type: 'string' } } }, additionalProperties: false },
  }
  const requests: unknown[] = []
  const events: unknown[] = []
  for (let i = 0; i < n; i++) {
    schemas[`Request${i}`] = {
      type: 'object',
      required: ['Id', 'Total'],
      properties: { Id: { type: 'string' }, Total: { $ref: '#/components/schemas/Money' }, Ship: { $ref: '#/components/schemas/Address' }, Lines: { type: 'array', items: { type: 'object', properties: { Sku: { type: 'string' }, Qty: { type: 'integer', format: 'int32' } } } } },
      additionalProperties: false,
    }
    schemas[`Response${i}`] = { type: 'object', properties: { Id: { type: 'string', nullable: true }, Audit: { $ref: '#/components/schemas/Audit' }, Status: { type: 'string', enum: ['ok', 'pending'] } }, additionalProperties: false }
    requests.push({ topic: `service${Math.floor(i / 100)}:operation-${i}`, request: { $ref: `#/components/schemas/Request${i}` }, response: { $ref: `#/components/schemas/Response${i}` }, example: { Id: 'value' } })
    if (i % 10 === 0) events.push({ topic: `service:happened-${i}`, version: 'v1', message: { $ref: `#/components/schemas/Response${i}` } })
  }
  return JSON.stringify({ openapi: '3.0.1', info: { title: `synthetic-${n}`, version: '' }, messageEndpoint: '/benzene/invoke', requests, events, components: { schemas } }, null, 2)
}
