/**
 * The shape of `x-nats-contract` v0.2 as JSON Schema: closed objects everywhere, so that a member
 * the profile does not define is reported (an unsupported capability), and the types of every
 * member the rules read. Meaning (token languages, subjects, authorities) is checked by the rules.
 */
const str = { type: 'string' }
const map = (value: object) => ({ type: 'object', additionalProperties: value })
const closed = (properties: Record<string, object>, required: string[] = []) => ({ type: 'object', properties, required, additionalProperties: false })
const sha = { type: 'string' }
const artifact = closed({ path: str, sha256: sha }, ['path', 'sha256'])
const operationRef = { anyOf: [str, closed({ contract: str, operation: str }, ['contract', 'operation'])] }

const streamOrConsumer = (extra: Record<string, object>, extraRequired: string[]) => ({
  type: 'object',
  required: ['authority', ...extraRequired],
  properties: { authority: { enum: ['contract', 'external'] }, config: { type: 'object' }, artifact, pointer: str, ...extra },
  additionalProperties: false,
})

export const profileSchema = closed(
  {
    version: str,
    contract: str,
    deployment: closed({ binding: str, minimumServerVersion: str }, ['binding', 'minimumServerVersion']),
    imports: map(closed({ contract: str, version: str, path: str, sha256: sha }, ['contract', 'version', 'path', 'sha256'])),
    links: { type: 'array', items: closed({ send: operationRef, receive: operationRef }, ['send', 'receive']) },
    tokenTypes: map({
      type: 'object',
      required: ['kind'],
      properties: {
        kind: { enum: ['token', 'enum'] },
        alphabet: { enum: ['lower', 'ascii', 'hex'] },
        first: { enum: ['letter', 'any'] },
        minLength: { type: 'integer' },
        maxLength: { type: 'integer' },
        prefix: str,
        values: { type: 'array', items: str },
      },
      additionalProperties: false,
    }),
    channels: map(
      closed({
        parameters: map(str),
        filters: map(str),
        publisherIdentity: closed({ kind: { const: 'subject-permission' }, peerParameter: str }, ['kind', 'peerParameter']),
      }),
    ),
    operations: map(
      closed({
        publish: closed({ api: { enum: ['core', 'jetstream'] }, confirmation: { enum: ['none', 'stream-ack'] }, stream: str }, ['api', 'confirmation']),
        subscribe: closed({ api: { enum: ['core', 'jetstream'] }, consumer: str }, ['api']),
        requestReply: closed({ routing: { const: 'native-inbox' }, completion: { const: 'first-response' }, timeoutMs: { type: 'integer' } }, ['routing', 'completion', 'timeoutMs']),
      }),
    ),
    streams: map(streamOrConsumer({}, [])),
    consumers: map(streamOrConsumer({ stream: str }, ['stream'])),
    // Issue 5 gives these their rules; their members are open here so that part 2 can close them.
    adapters: map({ type: 'object' }),
    interactions: map({ type: 'object' }),
    pipelines: map({ type: 'object' }),
    workflows: map({ type: 'object' }),
  },
  ['version', 'contract', 'deployment'],
)

