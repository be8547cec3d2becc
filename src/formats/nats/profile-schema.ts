/**
 * The shape of `x-nats-contract` v0.2 as JSON Schema: closed objects everywhere, so that a member
 * the profile does not define is reported (an unsupported capability), and the types of every
 * member the rules read. Meaning (token languages, subjects, authorities) is checked by the rules.
 *
 * Each member carries a `description` (what the profile means by it, in this project's words): the hover text of the
 * editor schema written from this shape (scripts/editor-schemas.ts), kept here so that the shape
 * and its words are one source. ajv ignores the keyword.
 */
const d = <T extends object>(description: string, schema: T) => ({ description, ...schema })
const str = (description: string) => d(description, { type: 'string' })
const int = (description: string) => d(description, { type: 'integer' })
const map = (description: string, value: object) => d(description, { type: 'object', additionalProperties: value })
const closed = (properties: Record<string, object>, required: string[] = []) => ({ type: 'object', properties, required, additionalProperties: false })
const sha = (of: string) => str(`The SHA-256 of ${of}'s exact bytes, 64 lower-case hex digits.`)
const artifact = (of: string) =>
  d(
    `${of}: a locked JSON document of the bundle, by path and digest.`,
    closed({ path: str('A relative POSIX path inside the bundle.'), sha256: sha('the file') }, ['path', 'sha256']),
  )
const operationRef = (description: string) =>
  d(`${description}: a local operation key, or { contract: <import alias>, operation: <key> } for an imported one.`, {
    anyOf: [
      { type: 'string' },
      closed({ contract: str('The alias of the import (a key of imports).'), operation: str('The operation key in the imported contract.') }, [
        'contract',
        'operation',
      ]),
    ],
  })

/** A binding source: exactly one of input, context, branch, literal (interactions) or stageInput (pipelines); the rules say which. */
const source = {
  type: 'object',
  minProperties: 1,
  properties: {
    input: str('The name of an interaction input.'),
    context: str('A field of the attested runtime context (contractId, principalId, senderPeerId, nowMs, ...).'),
    branch: str('A field of the branch: id, peerId, attempt, fence or input.'),
    literal: d('A JSON value, as written.', {}),
    stageInput: str('Pipelines only: a JSON Pointer into the current stage input ("" for the whole value).'),
  },
  additionalProperties: false,
}
const bindings = d(
  'Where subject parameters and payload fields come from; nothing is copied implicitly.',
  closed(
    {
      subject: map('Each subject parameter, by name, and its source.', source),
      payload: map('Each payload destination, by JSON Pointer, and its source; destinations cannot overlap.', source),
    },
    ['subject', 'payload'],
  ),
)

const streamOrConsumer = (what: string, extra: Record<string, object>, extraRequired: string[]) => ({
  type: 'object',
  required: ['authority', ...extraRequired],
  properties: {
    authority: d(`"contract": the contract owns the ${what}'s configuration (config); "external": it is compared with a locked artifact, never overwritten.`, {
      enum: ['contract', 'external'],
    }),
    config: d(`authority contract: the ${what}'s closed native configuration.`, { type: 'object' }),
    artifact: artifact(`authority external: the artifact holding the ${what}'s configuration`),
    pointer: str(`authority external: the JSON Pointer of the ${what}'s configuration in the artifact.`),
    ...extra,
  },
  additionalProperties: false,
})

const api = d('"core" (NATS Core) or "jetstream".', { enum: ['core', 'jetstream'] })

export const profileSchema = d(
  'The NATS contract profile v0.2: the deployment, token types, channel parameters, how each operation publishes or subscribes, streams, consumers, adapters, interactions, pipelines and workflows.',
  closed(
    {
      version: str('The profile version this document is written for: "0.2.0-draft".'),
      contract: str("The contract's id, unique in its bundle."),
      deployment: d(
        'Where the application runs.',
        closed(
          {
            binding: str('The operator-supplied mapping to a NATS system, account and JetStream domain.'),
            minimumServerVersion: str('The oldest NATS server the contract needs (2.11.0 or later for v0.2).'),
          },
          ['binding', 'minimumServerVersion'],
        ),
      ),
      imports: map(
        'Other contracts of the bundle this one uses, by alias; each must match the lock and the document.',
        closed(
          {
            contract: str("The imported contract's id."),
            version: str("The imported contract's info.version."),
            path: str("The imported document's path inside the bundle."),
            sha256: sha('the imported document'),
          },
          ['contract', 'version', 'path', 'sha256'],
        ),
      ),
      links: d('Send operations linked to receive operations across contracts: directions, subject languages and message schemas must agree.', {
        type: 'array',
        items: closed({ send: operationRef('The sending operation'), receive: operationRef('The receiving operation') }, ['send', 'receive']),
      }),
      tokenTypes: map('The token domains subject parameters draw from, by name.', {
        type: 'object',
        required: ['kind'],
        properties: {
          kind: d('"token": a token language (alphabet, first, lengths, prefix); "enum": a list of values.', { enum: ['token', 'enum'] }),
          alphabet: d('token: the characters after the prefix: "lower" (no upper case), "ascii" or "hex" (0-9, a-f).', { enum: ['lower', 'ascii', 'hex'] }),
          first: d('token: "letter" when the part after the prefix starts with a letter; "any" otherwise.', { enum: ['letter', 'any'] }),
          minLength: int('token: the fewest bytes of the whole token (1 to 128).'),
          maxLength: int('token: the most bytes of the whole token (1 to 128).'),
          prefix: str('token: a literal prefix every token starts with (may be empty).'),
          values: d('enum: the distinct tokens allowed.', { type: 'array', items: { type: 'string' } }),
        },
        additionalProperties: false,
      }),
      channels: map(
        'The profile part of each standard channel, by channel id.',
        closed({
          parameters: map("Each address placeholder and the token type (a key of tokenTypes) it draws from; must match the channel's address.", {
            type: 'string',
          }),
          filters: map('Permitted subscription templates, by name: * matches one token, a final > a non-empty suffix.', { type: 'string' }),
          publisherIdentity: d(
            'Binds a parameter to the publishing peer under verified deployment permissions.',
            closed(
              {
                kind: d('Always "subject-permission".', { const: 'subject-permission' }),
                peerParameter: str('The parameter that names the publishing peer.'),
              },
              ['kind', 'peerParameter'],
            ),
          ),
        }),
      ),
      operations: map(
        'The profile part of each standard operation, by operation id: exactly one of publish, subscribe.',
        closed({
          publish: d(
            'How a send operation publishes: { api: core, confirmation: none } or { api: jetstream, confirmation: stream-ack, stream }.',
            closed(
              {
                api,
                confirmation: d('"none" for Core; "stream-ack" for JetStream (the stream stored it).', { enum: ['none', 'stream-ack'] }),
                stream: str('jetstream: the stream (a key of streams) that stores it.'),
              },
              ['api', 'confirmation'],
            ),
          ),
          subscribe: d(
            'How a receive operation subscribes: { api: core } or { api: jetstream, consumer }.',
            closed({ api, consumer: str('jetstream: the durable pull consumer (a key of consumers).') }, ['api']),
          ),
          requestReply: d(
            'A Core request with one reply through the native inbox.',
            closed(
              {
                routing: d('Always "native-inbox".', { const: 'native-inbox' }),
                completion: d('Always "first-response".', { const: 'first-response' }),
                timeoutMs: int('How long to wait for the response, in milliseconds.'),
              },
              ['routing', 'completion', 'timeoutMs'],
            ),
          ),
        }),
      ),
      streams: map('JetStream streams, by key.', streamOrConsumer('stream', {}, [])),
      consumers: map(
        'Durable pull consumers, by key.',
        streamOrConsumer('consumer', { stream: str('The stream (a key of streams) the consumer reads.') }, ['stream']),
      ),
      adapters: map(
        'Adapter protocols the runtime calls, by key.',
        closed(
          {
            kind: str(
              'What the adapter is for, one of: audience, authorization, result-verifier, aggregation, transform, selection, delivery, ownership, state-store, workflow.',
            ),
            version: str("The adapter protocol's exact version."),
            inputSchema: str('A local #/components/schemas/... pointer: the data the adapter is called with.'),
            outputSchema: str('A local #/components/schemas/... pointer: the data it returns.'),
            description: str('What the adapter does.'),
          },
          ['kind', 'version', 'inputSchema', 'outputSchema', 'description'],
        ),
      ),
      interactions: map(
        'Interactions (dispatch to an audience, gather results, complete), by key.',
        closed(
          {
            requestOperation: str('The local send operation that dispatches the work; omitted for gather-only work.'),
            resultOperation: str('The local receive operation results arrive on; omitted for dispatch-only work.'),
            receiverOperation: operationRef("The counterpart's receive operation (through a link)"),
            senderOperation: operationRef("The counterpart's send operation for results (through a link)"),
            capabilities: d('Declared capabilities (for example "runtime-schema-check").', { type: 'array', items: { type: 'string' } }),
            inputs: map(
              'The typed inputs of an invocation, by name.',
              closed(
                {
                  source: str('"argument" (given by the caller) or "generated" (only operationId).'),
                  tokenType: str('The token type (a key of tokenTypes) of the value.'),
                  schema: str('A local #/components/schemas/... pointer typing the value.'),
                },
                ['source'],
              ),
            ),
            bindings,
            audience: d(
              'Who the work is for, resolved and authorized at admission.',
              closed(
                {
                  kind: str('"peer", "group" or "scope".'),
                  input: str('The input naming the peer or group.'),
                  scopeInput: str('kind scope: the input naming the scope.'),
                  resolver: str('The audience adapter (a key of adapters) that resolves members.'),
                  authorization: str('The authorization adapter (a key of adapters), rechecked at dispatch, renewal, result and cancellation.'),
                  membership: str('Always "snapshot-at-admission": later members never grow accepted work.'),
                  includeSender: d('Whether the sender is a member of its own audience.', { type: 'boolean' }),
                  offline: str('"include" (needs durable delivery) or "exclude".'),
                  lateJoiners: str('Always "exclude".'),
                  onRevocation: str('Always "cancel-open-branches".'),
                },
                ['kind', 'resolver', 'authorization', 'membership', 'includeSender', 'offline', 'lateJoiners', 'onRevocation'],
              ),
            ),
            dispatch: d(
              'How work becomes branches.',
              closed(
                {
                  mode: str('"direct", "independent", "one-eligible", "branches" or "none".'),
                  branchKey: str('"recipient" or "declared".'),
                  targetParameter: str('The subject parameter that addresses the recipient.'),
                  branchesInput: str('branches or none: the input holding the branch manifest.'),
                  selector: str('one-eligible: the selection adapter (a key of adapters).'),
                },
                ['mode', 'branchKey'],
              ),
            ),
            delivery: d(
              'Delivery, retries and ownership of branches.',
              closed(
                {
                  mode: str('"online-best-effort" or "durable-per-recipient".'),
                  state: str('"memory" or "durable".'),
                  restart: str('"fail-unknown" (memory) or "resume" (durable).'),
                  maxAttempts: int('Attempts per branch, 1 to 16 (1 for memory state).'),
                  retryBackoffMs: int('The fixed wait before a retry, in milliseconds (0 for memory state).'),
                  recoveryGraceMs: int('How long after the deadline recovery may still run, in milliseconds.'),
                  settlementGraceMs: int('How long after the decision siblings may still settle, in milliseconds.'),
                  adapter: str('The delivery adapter (a key of adapters); durable delivery needs one.'),
                  stateStore: str('The state-store adapter (a key of adapters); durable state needs one.'),
                  ownership: d(
                    'Claims with leases and fencing, for reassignment and multiple attempts.',
                    closed(
                      {
                        adapter: str('The ownership adapter (a key of adapters).'),
                        leaseMs: int("A claim's lease, in milliseconds."),
                        renewEveryMs: int('How often a claim is renewed, in milliseconds: positive, under half the lease.'),
                        onLoss: str('Always "retry".'),
                      },
                      ['adapter', 'leaseMs', 'renewEveryMs', 'onLoss'],
                    ),
                  ),
                },
                ['mode', 'state', 'restart', 'maxAttempts', 'retryBackoffMs', 'recoveryGraceMs', 'settlementGraceMs'],
              ),
            ),
            correlation: d(
              'Payload-only expressions identifying operation, branch, attempt, peer and fence in requests and results.',
              closed(
                {
                  operation: str('Where the operation id is in the payload.'),
                  branch: str('Where the branch id is in the payload.'),
                  attempt: str('Where the attempt number is in the payload.'),
                  peer: str('Where the peer id is in the payload.'),
                  fence: str('Where the fencing token is in the payload.'),
                  verifier: str('The result-verifier adapter (a key of adapters), for result-bearing work.'),
                },
                ['operation', 'branch', 'attempt', 'peer', 'fence'],
              ),
            ),
            completion: d(
              'When the interaction is decided.',
              closed(
                {
                  mode: str('"none", "first-success", "all-terminal", "all-successful" or "quorum".'),
                  unit: str('"distinct-branches" or "distinct-peers".'),
                  success: d(
                    'What makes a result a success: one field equal to one value, without coercion.',
                    closed({ field: str('The result field compared.'), equals: d('The value it must equal.', {}) }, ['field', 'equals']),
                  ),
                  count: int('quorum: the number of successful units needed (or fraction).'),
                  fraction: d(
                    'quorum: ceil(numerator * admitted units / denominator) successful units needed (or count).',
                    closed({ numerator: int('Positive, at most the denominator.'), denominator: int('Positive.') }, ['numerator', 'denominator']),
                  ),
                  deadlineMs: int('Result-bearing work: the deadline from admission, in milliseconds.'),
                  onTimeout: str('"fail" or "partial".'),
                  onImpossible: str('Always "fail".'),
                  lateResults: str('Always "discard".'),
                  remaining: str('What happens to open branches after the decision: "detach" or "cooperative" (cancellation).'),
                  waitFor: str('When a pipeline moves on: "decision" or "settled".'),
                  cancelOperation: str('cooperative: the send operation carrying a CancelRequest.'),
                  cancelResultOperation: str('cooperative: the receive operation carrying a CancelResult.'),
                  cancelTimeoutMs: int('cooperative: how long to wait for a cancellation reply, in milliseconds.'),
                },
                ['mode', 'unit'],
              ),
            ),
            aggregation: d(
              'How results become the typed output.',
              closed({ adapter: str('The aggregation adapter (a key of adapters); its outputSchema types the output.') }, ['adapter']),
            ),
          },
          ['inputs', 'bindings', 'audience', 'dispatch', 'delivery', 'correlation', 'completion'],
        ),
      ),
      pipelines: map(
        'Ordered steps of interactions and sending operations, by key.',
        closed(
          {
            steps: d('The steps, in order; each takes the previous successful typed output.', {
              type: 'array',
              minItems: 1,
              items: closed(
                {
                  interaction: str('The interaction (a key of interactions) this step invokes.'),
                  operation: str('The sending operation this step publishes on.'),
                  inputAdapter: str('A transform adapter (a key of adapters) applied to the previous output; not on the first step.'),
                  bindings,
                },
                ['bindings'],
              ),
            }),
            onFailure: str('Always "stop".'),
          },
          ['steps', 'onFailure'],
        ),
      ),
      workflows: map(
        'Open Workflow 1.0.4 documents of the bundle, by key.',
        closed(
          {
            artifact: artifact('The workflow document'),
            adapter: str('The workflow adapter (a key of adapters).'),
            inputSchema: str('A local #/components/schemas/... pointer: the workflow input.'),
            outputSchema: str('A local #/components/schemas/... pointer: the workflow output.'),
          },
          ['artifact', 'adapter', 'inputSchema', 'outputSchema'],
        ),
      ),
    },
    ['version', 'contract', 'deployment'],
  ),
)
