/** Synthetic but realistic contracts for the benchmarks. */
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { stringify } from 'yaml'

/**
 * A NATS application document with `n` channels: token types, typed addresses with filters,
 * JetStream and core operations, one stream per 50 channels, a consumer per 10, an approval
 * interaction per 100 channels.
 */
/**
 * `sharedPrefix`: every channel is `acme.{region}.{entityId}.thing<i>.<verb>` with three verbs, so
 * channels share their first and last literal (a common `acme.` and a small set of verbs), which
 * the unique last token of the default shape hides from the overlap index.
 *
 * `payloads`: every plain channel carries a message of its own (`components.messages.Event<i>`)
 * whose payload is an object schema of its own (`payloadSchema`): 5 to 15 typed members, some
 * nested, enums, formats, bounds, a pattern, `required`, and shared `Money` and `Address`
 * components by reference, as real services write them. The default shape shares one `Event`
 * payload between all channels, which a compiler that reuses work by content would flatter.
 */
export function natsDocument(n: number, { sharedPrefix = false, payloads = false } = {}): string {
  const VERBS = ['created', 'updated', 'deleted']
  const subjectOf = (i: number, g: number, region: string, entity: string) =>
    sharedPrefix ? `acme.${region}.${entity}.thing${i}.${VERBS[i % 3]}` : `svc${g}.${region}.${entity}.event${i}`
  const channels: Record<string, unknown> = {}
  const profileChannels: Record<string, unknown> = {}
  const operations: Record<string, unknown> = {}
  const profileOperations: Record<string, unknown> = {}
  const streams: Record<string, unknown> = {}
  const consumers: Record<string, unknown> = {}
  const interactions: Record<string, unknown> = {}
  const eventMessages: Record<string, unknown> = {}
  const eventSchemas: Record<string, unknown> = {}
  // One approval interaction (a quorum vote over a group, four channels of its own) per 100
  // channels, counted in `n`: 1 at N = 50, 5 at N = 500, 50 at N = 5,000 (none below 50).
  const approvals = n < 50 ? 0 : Math.max(1, Math.floor(n / 100))
  const plain = n - 4 * approvals
  const groups = Math.ceil(plain / 50)
  for (let g = 0; g < groups; g++) {
    streams[`s${g}`] = {
      authority: 'contract',
      config: {
        name: `S${g}`,
        subjects: sharedPrefix ? Array.from({ length: 50 }, (_, j) => subjectOf(g * 50 + j, g, '*', '*')) : [`svc${g}.>`],
        retention: 'limits',
        storage: 'file',
        num_replicas: 3,
        max_age: 86400000000000,
        max_msgs: 1000000,
        max_bytes: 1073741824,
        discard: 'new',
        duplicate_window: 120000000000,
      },
    }
  }
  for (let i = 0; i < plain; i++) {
    const g = Math.floor(i / 50)
    const id = `channel${i}`
    channels[id] = {
      address: subjectOf(i, g, '{region}', '{entityId}'),
      parameters: { region: {}, entityId: {} },
      messages: { m: { $ref: `#/components/messages/${payloads ? `Event${i}` : 'Event'}` } },
    }
    if (payloads) {
      eventMessages[`Event${i}`] = {
        name: `event${i}`,
        contentType: 'application/json',
        payload: { $ref: `#/components/schemas/Event${i}` },
      }
      eventSchemas[`Event${i}`] = payloadSchema(i)
    }
    profileChannels[id] = {
      parameters: { region: 'region', entityId: 'entityId' },
      filters: { inRegion: subjectOf(i, g, '{region}', '*'), all: subjectOf(i, g, '*', '*') },
    }
    operations[`publish${i}`] = { action: 'send', channel: { $ref: `#/channels/${id}` } }
    profileOperations[`publish${i}`] =
      i % 2 === 0 ? { publish: { api: 'jetstream', confirmation: 'stream-ack', stream: `s${g}` } } : { publish: { api: 'core', confirmation: 'none' } }
    if (i % 10 === 0) {
      operations[`consume${i}`] = { action: 'receive', channel: { $ref: `#/channels/${id}` } }
      profileOperations[`consume${i}`] = { subscribe: { api: 'jetstream', consumer: `c${i}` } }
      consumers[`c${i}`] = {
        stream: `s${g}`,
        authority: 'contract',
        config: {
          durable_name: `c${i}`,
          filter_subject: subjectOf(i, g, '*', '*'),
          ack_policy: 'explicit',
          deliver_policy: 'all',
          ack_wait: 30000000000,
          max_deliver: 5,
          max_ack_pending: 100,
          replay_policy: 'instant',
        },
      }
    }
  }
  for (let k = 0; k < approvals; k++) {
    const channel = (name: string, message: string, address: string, identity = false) => {
      channels[`${name}${k}`] = { address, parameters: { operationId: {}, peerId: {} }, messages: { m: { $ref: `#/components/messages/${message}` } } }
      profileChannels[`${name}${k}`] = {
        parameters: { operationId: 'operationId', peerId: 'peerId' },
        ...(identity ? { publisherIdentity: { kind: 'subject-permission', peerParameter: 'peerId' } } : {}),
      }
    }
    const operation = (id: string, action: 'send' | 'receive', channelName: string) => {
      operations[`${id}${k}`] = { action, channel: { $ref: `#/channels/${channelName}${k}` } }
      profileOperations[`${id}${k}`] = action === 'send' ? { publish: { api: 'core', confirmation: 'none' } } : { subscribe: { api: 'core' } }
    }
    channel('vote', 'VoteRequest', `approvals${k}.{operationId}.vote.{peerId}`)
    channel('ballot', 'Ballot', `approvals${k}.{operationId}.ballot.{peerId}`, true)
    channel('cancel', 'CancelRequest', `approvals${k}.{operationId}.cancel.{peerId}`)
    channel('cancelled', 'CancelResult', `approvals${k}.{operationId}.cancelled.{peerId}`)
    operation('requestVote', 'send', 'vote')
    operation('onBallot', 'receive', 'ballot')
    operation('cancelVote', 'send', 'cancel')
    operation('onVoteCancelled', 'receive', 'cancelled')
    interactions[`approve${k}`] = {
      requestOperation: `requestVote${k}`,
      resultOperation: `onBallot${k}`,
      // The first approval also validates its request payloads at runtime (a generated validator).
      ...(k === 0 ? { capabilities: ['runtime-schema-check'] } : {}),
      inputs: {
        operationId: { source: 'generated', tokenType: 'operationId' },
        group: { source: 'argument', tokenType: 'groupId' },
        request: { source: 'argument', schema: '#/components/schemas/Request' },
      },
      bindings: {
        subject: { operationId: { input: 'operationId' }, peerId: { branch: 'peerId' } },
        payload: {
          '/operationId': { input: 'operationId' },
          '/branchId': { branch: 'id' },
          '/attempt': { branch: 'attempt' },
          '/fence': { branch: 'fence' },
          '/peerId': { branch: 'peerId' },
          '/requestedBy': { context: 'principalId' },
          '/request': { input: 'request' },
        },
      },
      audience: {
        kind: 'group',
        input: 'group',
        resolver: 'voters',
        authorization: 'voterPolicy',
        membership: 'snapshot-at-admission',
        includeSender: false,
        offline: 'exclude',
        lateJoiners: 'exclude',
        onRevocation: 'cancel-open-branches',
      },
      dispatch: { mode: 'independent', branchKey: 'recipient', targetParameter: 'peerId' },
      delivery: {
        mode: 'online-best-effort',
        state: 'memory',
        restart: 'fail-unknown',
        maxAttempts: 1,
        retryBackoffMs: 0,
        recoveryGraceMs: 0,
        settlementGraceMs: 2000,
      },
      correlation: {
        operation: '$message.payload#/operationId',
        branch: '$message.payload#/branchId',
        attempt: '$message.payload#/attempt',
        peer: '$message.payload#/peerId',
        fence: '$message.payload#/fence',
        verifier: 'ballotVerifier',
      },
      completion: {
        mode: 'quorum',
        unit: 'distinct-peers',
        success: { field: '$message.payload#/approve', equals: true },
        fraction: { numerator: 2, denominator: 3 },
        deadlineMs: 60000,
        onTimeout: 'fail',
        onImpossible: 'fail',
        lateResults: 'discard',
        remaining: 'cooperative',
        waitFor: 'decision',
        cancelOperation: `cancelVote${k}`,
        cancelResultOperation: `onVoteCancelled${k}`,
        cancelTimeoutMs: 5000,
      },
      aggregation: { adapter: 'tally' },
    }
  }
  // Copies: a value used twice would come out of `stringify` as a YAML anchor and alias.
  const object = (properties: Record<string, unknown>, required = Object.keys(properties)) => structuredClone({ type: 'object', required, properties })
  const branch = { operationId: { type: 'string' }, branchId: { type: 'string' }, attempt: { type: 'integer' }, fence: { type: 'integer' } }
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
        operationId: { kind: 'token', alphabet: 'hex', first: 'any', minLength: 66, maxLength: 66, prefix: 'op' },
        peerId: { kind: 'token', alphabet: 'lower', first: 'letter', minLength: 3, maxLength: 32, prefix: '' },
        groupId: { kind: 'token', alphabet: 'lower', first: 'letter', minLength: 3, maxLength: 32, prefix: '' },
      },
      channels: profileChannels,
      operations: profileOperations,
      streams,
      consumers,
      adapters: {
        voters: {
          kind: 'audience',
          version: '1.0.0',
          inputSchema: '#/components/schemas/GroupQuery',
          outputSchema: '#/components/schemas/PeerSnapshot',
          description: 'Members of an approver group.',
        },
        voterPolicy: {
          kind: 'authorization',
          version: '1.0.0',
          inputSchema: '#/components/schemas/PolicyQuery',
          outputSchema: '#/components/schemas/PolicyDecision',
          description: 'May a peer vote.',
        },
        ballotVerifier: {
          kind: 'result-verifier',
          version: '1.0.0',
          inputSchema: '#/components/schemas/Ballot',
          outputSchema: '#/components/schemas/PolicyDecision',
          description: 'Checks a ballot against its voter.',
        },
        tally: {
          kind: 'aggregation',
          version: '1.0.0',
          inputSchema: '#/components/schemas/Ballots',
          outputSchema: '#/components/schemas/Outcome',
          description: 'Counts ballots.',
        },
      },
      interactions,
    },
    channels,
    operations,
    components: {
      messages: {
        Event: { payload: { $ref: '#/components/schemas/Event' } },
        ...eventMessages,
        VoteRequest: {
          payload: object({ ...branch, peerId: { type: 'string' }, requestedBy: { type: 'string' }, request: { $ref: '#/components/schemas/Request' } }),
        },
        Ballot: { payload: { $ref: '#/components/schemas/Ballot' } },
        CancelRequest: { payload: object(branch) },
        CancelResult: {
          payload: object({
            operationId: { type: 'string' },
            branchId: { type: 'string' },
            outcome: { type: 'string', enum: ['stopped', 'already-completed', 'unknown'] },
          }),
        },
      },
      schemas: {
        Event: object({ id: { type: 'string' }, at: { type: 'string', format: 'date-time' }, amount: { type: 'number' } }, ['id', 'at']),
        Request: object({ subject: { type: 'string', minLength: 1 }, amount: { type: 'number', minimum: 0 }, reason: { type: 'string' } }, [
          'subject',
          'amount',
        ]),
        Ballot: object({ ...branch, peerId: { type: 'string' }, approve: { type: 'boolean' } }),
        Ballots: { type: 'array', items: { $ref: '#/components/schemas/Ballot' } },
        Outcome: object({ operationId: { type: 'string' }, approved: { type: 'boolean' } }),
        GroupQuery: object({ groupId: { type: 'string' } }),
        PeerSnapshot: object({ revision: { type: 'string' }, peers: { type: 'array', items: { type: 'string' } } }),
        PolicyQuery: object({ peerId: { type: 'string' } }),
        PolicyDecision: object({ allowed: { type: 'boolean' } }),
        ...(payloads ? sharedPayloadSchemas() : {}),
        ...eventSchemas,
      },
    },
  })
}

/** The components the `payloads` schemas share (by `$ref`), each a fresh copy (no YAML alias). */
function sharedPayloadSchemas(): Record<string, unknown> {
  return {
    Money: {
      type: 'object',
      required: ['amount', 'currency'],
      properties: { amount: { type: 'number', minimum: 0 }, currency: { type: 'string', enum: ['EUR', 'USD', 'GBP', 'JPY'] } },
      additionalProperties: false,
    },
    Address: {
      type: 'object',
      required: ['city', 'country'],
      properties: {
        street: { type: 'string', maxLength: 120 },
        city: { type: 'string', minLength: 1 },
        postcode: { type: 'string', pattern: '^[0-9A-Z -]{3,10}$' },
        country: { type: 'string', minLength: 2, maxLength: 2 },
      },
    },
  }
}

/**
 * Channel `i`'s payload under `payloads`: `5 + i % 11` members taken in turn from a pool of
 * typical ones (identifiers with formats, timestamps, enums, bounded numbers, a nested line list,
 * an inline nested object, references to the shared components), about two thirds of them
 * required. Every schema is its own: the status enum and one bound carry `i`.
 */
function payloadSchema(i: number): Record<string, unknown> {
  const pool: Array<[string, () => unknown]> = [
    ['id', () => ({ type: 'string', format: 'uuid' })],
    ['occurredAt', () => ({ type: 'string', format: 'date-time' })],
    ['status', () => ({ type: 'string', enum: ['pending', 'active', 'closed', `state-${i}`] })],
    ['amount', () => ({ $ref: '#/components/schemas/Money' })],
    ['quantity', () => ({ type: 'integer', minimum: 1, maximum: 1000 + i })],
    ['customerEmail', () => ({ type: 'string', format: 'email', maxLength: 254 })],
    ['tags', () => ({ type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 16, uniqueItems: true })],
    ['shipping', () => ({ $ref: '#/components/schemas/Address' })],
    [
      'lines',
      () => ({
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          required: ['sku', 'qty'],
          properties: {
            sku: { type: 'string', minLength: 3, maxLength: 32 },
            qty: { type: 'integer', minimum: 1 },
            price: { $ref: '#/components/schemas/Money' },
          },
          additionalProperties: false,
        },
      }),
    ],
    ['priority', () => ({ type: 'string', enum: ['low', 'normal', 'high'] })],
    ['note', () => ({ type: 'string', maxLength: 500, description: 'Free text from the operator.' })],
    ['confirmed', () => ({ type: 'boolean' })],
    [
      'actor',
      () => ({
        type: 'object',
        required: ['kind', 'id'],
        properties: { kind: { type: 'string', enum: ['user', 'service', 'system'] }, id: { type: 'string', minLength: 1 }, name: { type: ['string', 'null'] } },
      }),
    ],
    ['score', () => ({ type: 'number', minimum: 0, maximum: 1 })],
    ['version', () => ({ type: 'integer', minimum: 0 })],
    ['callbackUrl', () => ({ type: 'string', format: 'uri' })],
  ]
  const count = 5 + (i % 11)
  const properties: Record<string, unknown> = {}
  const required: string[] = []
  for (let k = 0; k < count; k++) {
    const [name, schema] = pool[(i + k) % pool.length]!
    properties[name] = schema()
    if (k % 3 !== 2) required.push(name)
  }
  return { type: 'object', description: `Event ${i}.`, required, properties }
}

/** A Benzene document with `n` request topics, nested schemas sharing references, and events. */
/**
 * A Benzene document of `n` topics. Every topic's request and response schema is its own (an
 * `Id` bound and a status value that vary with the topic and `variant`), as in a real service:
 * identical schemas would let a compiler that reuses work by content (issue 21's incremental
 * recompiles) flatter every figure. The shared `Money`, `Address` and `Audit` are the same in every
 * variant, as common types copied between services are. `variant` makes the documents of one
 * app differ from each other (bench/bundler-build.ts).
 */
export function benzeneDocument(n: number, variant = 0): string {
  const schemas: Record<string, unknown> = {
    Money: {
      type: 'object',
      required: ['Amount', 'Currency'],
      properties: { Amount: { type: 'number', format: 'double' }, Currency: { type: 'string', enum: ['EUR', 'USD', 'GBP'] } },
      additionalProperties: false,
    },
    Address: {
      type: 'object',
      properties: { Street: { type: 'string', nullable: true }, City: { type: 'string' }, Country: { type: 'string' } },
      additionalProperties: false,
    },
    Audit: {
      type: 'object',
      properties: { CreatedBy: { type: 'string' }, At: { type: 'string', format: 'date-time' }, Tags: { type: 'array', items: { type: 'string' } } },
      additionalProperties: false,
    },
  }
  const requests: unknown[] = []
  const events: unknown[] = []
  for (let i = 0; i < n; i++) {
    schemas[`Request${i}`] = {
      type: 'object',
      required: ['Id', 'Total'],
      properties: {
        Id: { type: 'string', maxLength: 16 + i + 10_000 * variant },
        Total: { $ref: '#/components/schemas/Money' },
        Ship: { $ref: '#/components/schemas/Address' },
        Lines: { type: 'array', items: { type: 'object', properties: { Sku: { type: 'string' }, Qty: { type: 'integer', format: 'int32' } } } },
      },
      additionalProperties: false,
    }
    schemas[`Response${i}`] = {
      type: 'object',
      properties: {
        Id: { type: 'string', nullable: true },
        Audit: { $ref: '#/components/schemas/Audit' },
        Status: { type: 'string', enum: ['ok', 'pending', `state-${variant}-${i}`] },
      },
      additionalProperties: false,
    }
    requests.push({
      topic: `service${Math.floor(i / 100)}:operation-${i}`,
      request: { $ref: `#/components/schemas/Request${i}` },
      response: { $ref: `#/components/schemas/Response${i}` },
      example: { Id: 'value' },
    })
    if (i % 10 === 0) events.push({ topic: `service:happened-${i}`, version: 'v1', message: { $ref: `#/components/schemas/Response${i}` } })
  }
  return JSON.stringify(
    { openapi: '3.0.1', info: { title: `synthetic-${n}`, version: '' }, messageEndpoint: '/benzene/invoke', requests, events, components: { schemas } },
    null,
    2,
  )
}

/**
 * A bundle of `apps` application documents with `channels` channels each, written to `dir` with its
 * lock: every channel JetStream-published and captured by its application's own stream, the
 * applications spread over two deployment bindings (the topology tests and bench).
 */
export function natsBundle(dir: string, apps: number, channels: number): string {
  const files: string[] = []
  for (let a = 0; a < apps; a++) {
    const channelIds = Array.from({ length: channels }, (_, c) => `c${c}`)
    const doc = {
      asyncapi: '3.1.0',
      info: { title: `App ${a}`, version: '1.0.0' },
      'x-nats-contract': {
        version: '0.2.0-draft',
        contract: `app${a}`,
        deployment: { binding: a % 2 === 0 ? 'east' : 'west', minimumServerVersion: '2.11.0' },
        tokenTypes: { id: { kind: 'token', alphabet: 'lower', first: 'any', minLength: 1, maxLength: 16, prefix: '' } },
        channels: Object.fromEntries(channelIds.map((c) => [c, { parameters: { id: 'id' } }])),
        operations: Object.fromEntries(channelIds.map((c) => [`send${c}`, { publish: { api: 'jetstream', confirmation: 'stream-ack', stream: 'main' } }])),
        streams: {
          main: {
            authority: 'contract',
            config: {
              name: `APP${a}`,
              subjects: [`app${a}.>`],
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
      },
      channels: Object.fromEntries(
        channelIds.map((c) => [c, { address: `app${a}.${c}.{id}`, parameters: { id: {} }, messages: { m: { payload: { type: 'object' } } } }]),
      ),
      operations: Object.fromEntries(channelIds.map((c) => [`send${c}`, { action: 'send', channel: { $ref: `#/channels/${c}` } }])),
    }
    const rel = `app${a}/asyncapi.yaml`
    mkdirSync(join(dir, `app${a}`), { recursive: true })
    writeFileSync(join(dir, rel), JSON.stringify(doc))
    files.push(rel)
  }
  const sha = (rel: string) =>
    createHash('sha256')
      .update(readFileSync(join(dir, rel)))
      .digest('hex')
  writeFileSync(join(dir, 'bundle.lock.json'), JSON.stringify({ entries: files.map((path) => ({ path, sha256: sha(path) })) }))
  return dir
}
