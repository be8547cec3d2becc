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

/** A binding source: exactly one of input, context, branch, literal (interactions) or stageInput (pipelines); the rules say which. */
const source = {
  type: 'object',
  minProperties: 1,
  properties: { input: str, context: str, branch: str, literal: {}, stageInput: str },
  additionalProperties: false,
}
const bindings = closed({ subject: map(source), payload: map(source) }, ['subject', 'payload'])

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
        requestReply: closed({ routing: { const: 'native-inbox' }, completion: { const: 'first-response' }, timeoutMs: { type: 'integer' } }, [
          'routing',
          'completion',
          'timeoutMs',
        ]),
      }),
    ),
    streams: map(streamOrConsumer({}, [])),
    consumers: map(streamOrConsumer({ stream: str }, ['stream'])),
    adapters: map(
      closed({ kind: str, version: str, inputSchema: str, outputSchema: str, description: str }, [
        'kind',
        'version',
        'inputSchema',
        'outputSchema',
        'description',
      ]),
    ),
    interactions: map(
      closed(
        {
          requestOperation: str,
          resultOperation: str,
          receiverOperation: operationRef,
          senderOperation: operationRef,
          capabilities: { type: 'array', items: str },
          inputs: map(closed({ source: str, tokenType: str, schema: str }, ['source'])),
          bindings,
          audience: closed(
            {
              kind: str,
              input: str,
              scopeInput: str,
              resolver: str,
              authorization: str,
              membership: str,
              includeSender: { type: 'boolean' },
              offline: str,
              lateJoiners: str,
              onRevocation: str,
            },
            ['kind', 'resolver', 'authorization', 'membership', 'includeSender', 'offline', 'lateJoiners', 'onRevocation'],
          ),
          dispatch: closed({ mode: str, branchKey: str, targetParameter: str, branchesInput: str, selector: str }, ['mode', 'branchKey']),
          delivery: closed(
            {
              mode: str,
              state: str,
              restart: str,
              maxAttempts: { type: 'integer' },
              retryBackoffMs: { type: 'integer' },
              recoveryGraceMs: { type: 'integer' },
              settlementGraceMs: { type: 'integer' },
              adapter: str,
              stateStore: str,
              ownership: closed({ adapter: str, leaseMs: { type: 'integer' }, renewEveryMs: { type: 'integer' }, onLoss: str }, [
                'adapter',
                'leaseMs',
                'renewEveryMs',
                'onLoss',
              ]),
            },
            ['mode', 'state', 'restart', 'maxAttempts', 'retryBackoffMs', 'recoveryGraceMs', 'settlementGraceMs'],
          ),
          correlation: closed({ operation: str, branch: str, attempt: str, peer: str, fence: str, verifier: str }, [
            'operation',
            'branch',
            'attempt',
            'peer',
            'fence',
          ]),
          completion: closed(
            {
              mode: str,
              unit: str,
              success: closed({ field: str, equals: {} }, ['field', 'equals']),
              count: { type: 'integer' },
              fraction: closed({ numerator: { type: 'integer' }, denominator: { type: 'integer' } }, ['numerator', 'denominator']),
              deadlineMs: { type: 'integer' },
              onTimeout: str,
              onImpossible: str,
              lateResults: str,
              remaining: str,
              waitFor: str,
              cancelOperation: str,
              cancelResultOperation: str,
              cancelTimeoutMs: { type: 'integer' },
            },
            ['mode', 'unit'],
          ),
          aggregation: closed({ adapter: str }, ['adapter']),
        },
        ['inputs', 'bindings', 'audience', 'dispatch', 'delivery', 'correlation', 'completion'],
      ),
    ),
    pipelines: map(
      closed(
        {
          steps: { type: 'array', minItems: 1, items: closed({ interaction: str, operation: str, inputAdapter: str, bindings }, ['bindings']) },
          onFailure: str,
        },
        ['steps', 'onFailure'],
      ),
    ),
    workflows: map(closed({ artifact, adapter: str, inputSchema: str, outputSchema: str }, ['artifact', 'adapter', 'inputSchema', 'outputSchema'])),
  },
  ['version', 'contract', 'deployment'],
)
