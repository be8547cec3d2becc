/**
 * Outside compatibility pass on the checker for AsyncAPI 3.1.0 documents under the `x-nats-contract`
 * profile v0.2: closed shapes and strict readings must still accept every form the design documents
 * show and what producers really write; only a MUST of a specification is an error, a SHOULD at most
 * a warning; and one shape error must never hide every other rule's verdict.
 *
 * Method: a document the project accepts (a copy of fixtures/nats/valid/ledger.asyncapi.yaml, and
 * the layout's own interaction and bundle examples, written inline here), varied ONE allowed way at a
 * time; each variant must compile without a diagnostic. Forms that hold are pinned ("Holds
 * (pinned)"); forms refused although a specification allows them are tests that fail on the defect
 * ("DEFECT"), each with the sentence that allows the form. Where a row names "@asyncapi/parser", the
 * official parser (3.6.6) was run on the same variant while writing this file and reported no error.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import YAML from 'yaml'
import { afterAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'

const work = join(import.meta.dirname, '.tmp/probe-compat-nats', String(process.pid))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** The accepted ledger document (fixtures/nats/valid/ledger.asyncapi.yaml), inline. */
const LEDGER = `asyncapi: 3.1.0
info:
  title: Ledger
  version: 2.0.0
x-nats-contract:
  version: 0.2.0-draft
  contract: ledger
  deployment:
    binding: ledger-prod
    minimumServerVersion: 2.11.0
  tokenTypes:
    region: { kind: enum, values: [eu, us] }
    entryId: { kind: token, alphabet: hex, first: any, minLength: 12, maxLength: 12, prefix: '' }
    account: { kind: token, alphabet: ascii, first: letter, minLength: 3, maxLength: 32, prefix: acct_ }
  channels:
    entryPosted:
      parameters:
        region: region
        entryId: entryId
      filters:
        inRegion: ledger.{region}.*.posted
        everything: ledger.>
      publisherIdentity:
        kind: subject-permission
        peerParameter: region
    balanceQuery:
      parameters:
        account: account
  operations:
    postEntry:
      publish: { api: jetstream, confirmation: stream-ack, stream: ledger }
    onEntryPosted:
      subscribe: { api: jetstream, consumer: auditor }
    queryBalance:
      publish: { api: core, confirmation: none }
      requestReply: { routing: native-inbox, completion: first-response, timeoutMs: 1500 }
    answerBalance:
      subscribe: { api: core }
  streams:
    ledger:
      authority: contract
      config:
        name: LEDGER
        subjects: [ledger.eu.>, ledger.us.>]
        retention: limits
        storage: file
        num_replicas: 3
        max_age: 2592000000000000
        max_msgs: 50000000
        max_bytes: 53687091200
        discard: new
        duplicate_window: 120000000000
  consumers:
    auditor:
      stream: ledger
      authority: contract
      config:
        durable_name: auditor
        filter_subject: ledger.>
        ack_policy: explicit
        deliver_policy: all
        ack_wait: 30000000000
        max_deliver: 5
        max_ack_pending: 1000
        replay_policy: instant
channels:
  entryPosted:
    address: ledger.{region}.{entryId}.posted
    parameters:
      region: {}
      entryId: {}
    messages:
      posted:
        $ref: '#/components/messages/EntryPosted'
  balanceQuery:
    address: ledger.balance.{account}
    parameters:
      account: {}
    messages:
      query:
        payload: { type: object, properties: { account: { type: string } } }
  balanceReply:
    messages:
      balance:
        payload: { type: object, properties: { cents: { type: integer } } }
operations:
  postEntry:
    action: send
    channel: { $ref: '#/channels/entryPosted' }
  onEntryPosted:
    action: receive
    channel: { $ref: '#/channels/entryPosted' }
  queryBalance:
    action: send
    channel: { $ref: '#/channels/balanceQuery' }
    reply:
      channel: { $ref: '#/channels/balanceReply' }
  answerBalance:
    action: receive
    channel: { $ref: '#/channels/balanceQuery' }
components:
  messages:
    EntryPosted:
      payload:
        type: object
        required: [entryId, cents]
        properties:
          entryId: { type: string }
          cents: { type: integer }
`

/**
 * The interaction and pipeline of the layout's "Inside an interaction and a pipeline", lines as the
 * layout writes them (comments included), completed into a standalone document: the token types,
 * adapters, channels, operations and schemas the example names.
 */
const BALLOTS = `asyncapi: 3.1.0
info: { title: Ballots, version: 1.0.0 }
x-nats-contract:
  version: 0.2.0-draft
  contract: ballots
  deployment: { binding: prod-core, minimumServerVersion: 2.11.0 }
  tokenTypes:
    operationId: { kind: token, alphabet: hex, first: any, prefix: op, minLength: 66, maxLength: 66 }
    peerId: { kind: token, alphabet: lower, first: letter, minLength: 3, maxLength: 32, prefix: '' }
    groupId: { kind: token, alphabet: lower, first: letter, minLength: 3, maxLength: 32, prefix: '' }
  channels:
    ballotRequest:
      parameters: { operationId: operationId, peerId: peerId }
    ballotResult:
      parameters: { operationId: operationId, peerId: peerId }
      publisherIdentity: { kind: subject-permission, peerParameter: peerId }
    outcome:
      parameters: { operationId: operationId }
  operations:
    requestBallot: { publish: { api: core, confirmation: none } }
    onBallotResult: { subscribe: { api: core } }
    publishOutcome: { publish: { api: core, confirmation: none } }
  adapters:
    voters: { kind: audience, version: 1.0.0, inputSchema: '#/components/schemas/GroupQuery', outputSchema: '#/components/schemas/PeerSnapshot', description: Members of a voter group. }
    voterPolicy: { kind: authorization, version: 1.0.0, inputSchema: '#/components/schemas/PolicyQuery', outputSchema: '#/components/schemas/PolicyDecision', description: May a peer vote. }
    ballotVerifier: { kind: result-verifier, version: 1.0.0, inputSchema: '#/components/schemas/Ballot', outputSchema: '#/components/schemas/PolicyDecision', description: Checks a ballot against its voter. }
    tally: { kind: aggregation, version: 1.0.0, inputSchema: '#/components/schemas/Ballots', outputSchema: '#/components/schemas/Outcome', description: Counts ballots. }
  interactions:
    collectBallots:
      requestOperation: requestBallot          # local send operation key
      resultOperation: onBallotResult          # local receive operation key
      capabilities: [runtime-schema-check]     # optional; the only capability v0.2 defines
      inputs:
        operationId: { source: generated, tokenType: operationId }
        group:       { source: argument,  tokenType: groupId }
        question:    { source: argument,  schema: '#/components/schemas/Question' }
      bindings:
        subject: { peerId: { branch: peerId }, operationId: { input: operationId } }   # parameter -> source
        payload:                                                                       # JSON Pointer -> source
          /operationId: { input: operationId }
          /branchId:    { branch: id }
          /attempt:     { branch: attempt }
          /fence:       { branch: fence }
          /requestedBy: { context: principalId }
          /kind:        { literal: ballot }
      audience: { kind: group, input: group, resolver: voters, authorization: voterPolicy,
                  membership: snapshot-at-admission, includeSender: false, offline: exclude,
                  lateJoiners: exclude, onRevocation: cancel-open-branches }
      dispatch: { mode: independent, branchKey: recipient }
      delivery: { mode: online-best-effort, state: memory, restart: fail-unknown, maxAttempts: 1,
                  retryBackoffMs: 0, recoveryGraceMs: 0, settlementGraceMs: 2000 }
      correlation:                              # payload-only runtime expressions
        operation: '$message.payload#/operationId'
        branch:    '$message.payload#/branchId'
        attempt:   '$message.payload#/attempt'
        peer:      '$message.payload#/peerId'
        fence:     '$message.payload#/fence'
        verifier: ballotVerifier                # adapter key, kind result-verifier
      completion:
        mode: quorum
        unit: distinct-peers
        success: { field: '$message.payload#/approve', equals: true }
        fraction: { numerator: 2, denominator: 3 }   # or count: <n>
        deadlineMs: 60000
        onTimeout: fail
        onImpossible: fail
        lateResults: discard
        remaining: detach                        # cooperative adds cancelOperation,
        waitFor: decision                        # cancelResultOperation, cancelTimeoutMs
      aggregation: { adapter: tally }            # kind aggregation; its outputSchema is the typed output
  pipelines:
    announceOutcome:
      onFailure: stop
      steps:
        - interaction: collectBallots            # or operation: <local send operation key>
          bindings: { subject: {}, payload: {} }
        - operation: publishOutcome              # may add inputAdapter: <adapter key, kind transform>
          bindings:
            subject: { operationId: { stageInput: /operationId } }
            payload: { /approved: { stageInput: /approved } }
channels:
  ballotRequest:
    address: votes.{operationId}.request.{peerId}
    parameters: { operationId: {}, peerId: {} }
    messages: { request: { $ref: '#/components/messages/BallotRequest' } }
  ballotResult:
    address: votes.{operationId}.result.{peerId}
    parameters: { operationId: {}, peerId: {} }
    messages: { ballot: { payload: { $ref: '#/components/schemas/Ballot' } } }
  outcome:
    address: votes.{operationId}.outcome
    parameters: { operationId: {} }
    messages: { outcome: { payload: { type: object, required: [approved], properties: { approved: { type: boolean } } } } }
operations:
  requestBallot: { action: send, channel: { $ref: '#/channels/ballotRequest' } }
  onBallotResult: { action: receive, channel: { $ref: '#/channels/ballotResult' } }
  publishOutcome: { action: send, channel: { $ref: '#/channels/outcome' } }
components:
  messages:
    BallotRequest:
      payload:
        type: object
        required: [operationId, branchId, attempt, fence, requestedBy, kind]
        properties:
          operationId: { type: string }
          branchId: { type: string }
          attempt: { type: integer }
          fence: { type: integer }
          peerId: { type: string }
          requestedBy: { type: string }
          kind: { const: ballot }
          question: { $ref: '#/components/schemas/Question' }
  schemas:
    Question: { type: object, required: [text], properties: { text: { type: string } } }
    Ballot:
      type: object
      required: [operationId, branchId, attempt, fence, peerId, approve]
      properties:
        operationId: { type: string }
        branchId: { type: string }
        attempt: { type: integer }
        fence: { type: integer }
        peerId: { type: string }
        approve: { type: boolean }
    Ballots: { type: array, items: { $ref: '#/components/schemas/Ballot' } }
    Outcome:
      type: object
      required: [operationId, approved]
      properties: { operationId: { type: string }, approved: { type: boolean } }
    GroupQuery: { type: object, required: [groupId], properties: { groupId: { type: string } } }
    PeerSnapshot: { type: object, required: [revision, peers], properties: { revision: { type: string }, peers: { type: array, items: { type: string } } } }
    PolicyQuery: { type: object, required: [peerId], properties: { peerId: { type: string } } }
    PolicyDecision: { type: object, required: [allowed], properties: { allowed: { type: boolean } } }
`

/** `text` with each (from, to) replaced once; every `from` must occur. */
function edit(text: string, ...pairs: string[]): string {
  for (let i = 0; i < pairs.length; i += 2) {
    const [from, to] = [pairs[i]!, pairs[i + 1]!]
    if (!text.includes(from)) throw new Error(`edit did not apply: ${JSON.stringify(from)}`)
    text = text.replace(from, () => to)
  }
  return text
}
/** `text` with a block inserted at the head of `components:`. */
const withComponents = (text: string, block: string) => edit(text, 'components:\n', `components:\n${block}`)

/** The ballots document with `/peerId` bound from the branch (the form the checker accepts today). */
const BALLOTS_PEER_BOUND = edit(
  BALLOTS,
  '          /requestedBy: { context: principalId }\n',
  '          /requestedBy: { context: principalId }\n          /peerId:      { branch: peerId }\n',
)

let count = 0
/** One standalone document (no bundle.lock.json above it), compiled. */
async function check(text: string, ext = '.asyncapi.yaml') {
  const file = join(work, 'single', `doc-${count++}${ext}`)
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, text)
  return (await compile(file)).diagnostics
}
/** A bundle: the files (relative path -> text) and a lock of all of them; compiles `doc`. */
async function checkBundle(files: Record<string, string>, doc: string) {
  const root = join(work, 'bundles', `bundle-${count++}`)
  const entries = Object.entries(files).map(([path, text]) => {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
    return { path, sha256: sha256(text) }
  })
  writeFileSync(join(root, 'bundle.lock.json'), JSON.stringify({ entries }, null, 2))
  return (await compile(join(root, doc))).diagnostics
}
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')
/** Diagnostics as `code pointer (severity): message`, for readable failures. */
const shown = (diagnostics: ReadonlyArray<{ code: string; pointer: string; severity: string; message: string }>) =>
  diagnostics.map((d) => `${d.code} ${d.pointer} (${d.severity}): ${d.message}`)

const LEDGER_PAYLOAD = `      payload:
        type: object
        required: [entryId, cents]
        properties:
          entryId: { type: string }
          cents: { type: integer }
`
const withPayload = (payload: string) => edit(LEDGER, LEDGER_PAYLOAD, payload)
const withEntryMessage = (members: string) => edit(LEDGER, '    EntryPosted:\n      payload:', `    EntryPosted:\n${members}      payload:`)
const MULTI_FORMAT = (format: string) => `      payload:
        schemaFormat: ${format}
        schema:
          type: object
          required: [entryId, cents]
          properties:
            entryId: { type: string }
            cents: { type: integer }
`

// ---------------------------------------------------------------------------------------------
// The standard part: forms of AsyncAPI 3.1.0 that producers write, one at a time.
// ---------------------------------------------------------------------------------------------

const standardForms: Array<[name: string, text: string]> = [
  // Holds (pinned): the starting document itself.
  ['the ledger document as it is', LEDGER],
  // Holds (pinned): Info Object with every field, tags, externalDocs and an x- member (3.1.0 Info, Contact, License, Tag objects).
  [
    'info with description, termsOfService, contact, license, tags, externalDocs and x-',
    edit(
      LEDGER,
      'info:\n  title: Ledger\n',
      `info:
  title: Ledger
  description: |
    The ledger **application**.
  termsOfService: https://example.com/terms
  contact: { name: Ledger team, url: https://example.com, email: ledger@example.com, x-c: 1 }
  license: { name: Apache 2.0, url: https://www.apache.org/licenses/LICENSE-2.0, x-l: 1 }
  tags:
    - name: finance
      description: Money.
      externalDocs: { url: https://example.com/finance, x-d: 1 }
      x-t: 1
  externalDocs: { description: More, url: https://example.com/docs }
  x-audience: internal
`,
    ),
  ],
  // Holds (pinned): the root `id` (3.1.0 AsyncAPI Object: "id | Identifier").
  ['a root id', edit(LEDGER, 'info:\n', "id: 'urn:example:ledger'\ninfo:\n")],
  // Holds (pinned): defaultContentType at the document level.
  ['defaultContentType: application/json', edit(LEDGER, 'info:\n', 'defaultContentType: application/json\ninfo:\n')],
  // Holds (pinned): a vendor defaultContentType.
  ['defaultContentType: application/vnd.ledger+json', edit(LEDGER, 'info:\n', 'defaultContentType: application/vnd.ledger+json\ninfo:\n')],
  // Holds (pinned): a root x- extension beside x-nats-contract.
  ['a root x- member beside x-nats-contract', edit(LEDGER, 'info:\n', 'x-generator: studio\ninfo:\n')],
  // Holds (pinned): servers with host:port, protocol nats, title/summary/description, variables, security refs, tags, externalDocs, x-.
  [
    'servers with variables, security, tags and x-',
    withComponents(
      edit(
        LEDGER,
        'x-nats-contract:\n',
        `servers:
  production:
    host: '{env}.nats.example.com:4222'
    protocol: nats
    protocolVersion: '2.11'
    title: Production
    summary: The production cluster.
    description: NATS cluster.
    variables:
      env:
        enum: [eu, us]
        default: eu
        description: Region.
        examples: [eu]
        x-v: 1
    security:
      - $ref: '#/components/securitySchemes/userPass'
    tags: [{ name: prod }]
    externalDocs: { url: https://example.com/servers }
    bindings: { x-sb: 1 }
    x-owner: ops
x-nats-contract:
`,
      ),
      `  securitySchemes:
    userPass:
      type: userPassword
      description: NATS user and password.
      x-s: 1
    cert:
      type: X509
`,
    ),
  ],
  // Holds (pinned): a server given by $ref to components.servers; security given inline and by $ref, oauth2 with flows and scopes.
  [
    'a server by $ref and security schemes of several kinds',
    withComponents(
      edit(
        LEDGER,
        'x-nats-contract:\n',
        `servers:
  prod: { $ref: '#/components/servers/prod' }
  backup:
    host: nats.example.com
    protocol: nats
    security:
      - $ref: '#/components/securitySchemes/up'
      - $ref: '#/components/securitySchemes/cert'
      - type: httpApiKey
        name: token
        in: query
      - $ref: '#/components/securitySchemes/oauth'
x-nats-contract:
`,
      ),
      `  servers:
    prod: { host: nats.example.com, protocol: nats }
  securitySchemes:
    up: { type: userPassword, description: NATS user/password }
    cert: { type: X509 }
    oauth:
      type: oauth2
      flows:
        clientCredentials:
          tokenUrl: https://example.com/token
          availableScopes: { 'ledger:read': Read }
      scopes: ['ledger:read']
`,
    ),
  ],
  // Holds (pinned): a channel's servers list naming a root server.
  [
    'a channel with servers',
    edit(
      LEDGER,
      'x-nats-contract:\n',
      "servers:\n  production: { host: 'nats.example.com', protocol: nats }\nx-nats-contract:\n",
      '    address: ledger.{region}.{entryId}.posted\n',
      "    address: ledger.{region}.{entryId}.posted\n    servers:\n      - $ref: '#/servers/production'\n",
    ),
  ],
  // Holds (pinned): title, summary, description, tags, externalDocs, x- on a channel.
  [
    'a channel with title, summary, description, tags, externalDocs and x-',
    edit(
      LEDGER,
      '    address: ledger.{region}.{entryId}.posted\n',
      `    address: ledger.{region}.{entryId}.posted
    title: Entry posted
    summary: An entry was posted.
    description: Every posted entry.
    tags: [{ name: ledger }]
    externalDocs: { url: https://example.com/entries }
    x-team: ledger
`,
    ),
  ],
  // Holds (pinned): channel bindings with a nats key (3.1.0 Channel Bindings Object: "nats").
  [
    'channel bindings: nats: {}',
    edit(LEDGER, '    address: ledger.{region}.{entryId}.posted\n', '    address: ledger.{region}.{entryId}.posted\n    bindings:\n      nats: {}\n'),
  ],
  // Holds (pinned): Parameter Object with description, enum, default, examples, payload location and x-.
  [
    'parameters with description, enum, default, examples, a payload location and x-',
    edit(
      LEDGER,
      '    parameters:\n      region: {}\n      entryId: {}\n',
      `    parameters:
      region:
        description: The region.
        enum: [eu, us]
        default: eu
        examples: [eu, us]
        x-note: r
      entryId:
        description: Entry id.
        location: $message.payload#/entryId
`,
    ),
  ],
  // Holds (pinned): a parameter by $ref to components.parameters.
  [
    'a parameter by $ref to components.parameters',
    withComponents(
      edit(LEDGER, '    parameters:\n      region: {}\n', "    parameters:\n      region: { $ref: '#/components/parameters/region' }\n"),
      '  parameters:\n    region:\n      description: Region.\n      enum: [eu, us]\n',
    ),
  ],
  // Holds (pinned): Message Object fields name, title, summary, description, contentType, tags, externalDocs, deprecated, x-.
  [
    'a message with name, title, summary, description, contentType, tags, externalDocs, deprecated and x-',
    withEntryMessage(`      name: EntryPosted
      title: Entry posted
      summary: An entry was posted.
      description: A posted entry.
      contentType: application/json
      deprecated: false
      tags: [{ name: ledger }, { name: entries, description: Entries }]
      externalDocs: { url: https://example.com/msg }
      x-kind: event
`),
  ],
  // Holds (pinned): a structured-suffix content type with parameters.
  ['contentType: application/cloudevents+json; charset=utf-8', withEntryMessage('      contentType: application/cloudevents+json; charset=utf-8\n')],
  // Holds (pinned): a text content type on a string payload.
  [
    'contentType: text/plain on a string payload',
    edit(
      LEDGER,
      '        payload: { type: object, properties: { cents: { type: integer } } }',
      '        contentType: text/plain\n        payload: { type: string }',
    ),
  ],
  // Holds (pinned): correlationId located in the payload, with description and x-.
  [
    'a correlationId in the payload',
    withEntryMessage('      correlationId:\n        description: The entry.\n        location: $message.payload#/entryId\n        x-c: 1\n'),
  ],
  // Holds (pinned): correlationId by $ref to components.correlationIds.
  [
    'a correlationId by $ref',
    withComponents(
      withEntryMessage("      correlationId: { $ref: '#/components/correlationIds/entry' }\n"),
      '  correlationIds:\n    entry: { location: "$message.payload#/entryId" }\n',
    ),
  ],
  // Holds (pinned): message examples with name, summary, payload.
  [
    'message examples',
    withEntryMessage(`      examples:
        - name: small
          summary: A small entry.
          payload: { entryId: 0a1b2c3d4e5f, cents: 100 }
        - payload: { entryId: 0a1b2c3d4e60, cents: 5 }
`),
  ],
  // Holds (pinned): message traits by $ref (components.messageTraits) and inline, with x- on the trait.
  [
    'message traits by $ref and inline',
    withComponents(
      withEntryMessage(
        "      traits:\n        - $ref: '#/components/messageTraits/common'\n        - contentType: application/json\n          summary: inline trait\n",
      ),
      '  messageTraits:\n    common:\n      contentType: application/json\n      description: Common.\n      tags: [{ name: common }]\n      x-t: 1\n',
    ),
  ],
  // Holds (pinned): message bindings with a nats key.
  ['message bindings: nats: {}', withEntryMessage('      bindings:\n        nats: {}\n')],
  // Holds (pinned): a headers schema of type object.
  ['a headers schema', withEntryMessage('      headers:\n        type: object\n        properties:\n          traceId: { type: string }\n')],
  // Holds (pinned): a message written inline in the channel (not by $ref).
  [
    'a channel message inline',
    edit(
      LEDGER,
      "      posted:\n        $ref: '#/components/messages/EntryPosted'\n",
      `      posted:
        name: posted
        contentType: application/json
        payload:
          type: object
          required: [entryId, cents]
          properties:
            entryId: { type: string }
            cents: { type: integer }
`,
    ),
  ],
  // Holds (pinned): a channel with two messages.
  [
    'a channel with two messages',
    edit(
      LEDGER,
      "      posted:\n        $ref: '#/components/messages/EntryPosted'\n",
      "      posted:\n        $ref: '#/components/messages/EntryPosted'\n      reversed:\n        payload: { type: object, required: [entryId], properties: { entryId: { type: string }, reversed: { const: true } } }\n",
    ),
  ],
  // Holds (pinned): a channel message by $ref to a message of another channel, and to a component message.
  [
    'a channel message by $ref to another channel’s message',
    edit(
      LEDGER,
      '      balance:\n        payload: { type: object, properties: { cents: { type: integer } } }',
      "      balance:\n        $ref: '#/channels/balanceQuery/messages/query'",
    ),
  ],
  // Holds (pinned): a message without a payload (3.1.0 Message Object: payload is not required).
  [
    'a message without a payload',
    edit(
      LEDGER,
      '      balance:\n        payload: { type: object, properties: { cents: { type: integer } } }',
      '      balance:\n        name: balance\n        summary: The balance, any JSON.',
    ),
  ],
  // Holds (pinned): an empty payload schema.
  ['payload: {}', edit(LEDGER, '        payload: { type: object, properties: { cents: { type: integer } } }', '        payload: {}')],
  // Holds (pinned): a channel with an address and no messages, and one with an empty messages map.
  [
    'channels without messages',
    edit(
      LEDGER,
      '  balanceReply:\n',
      '  spare:\n    address: ledger.spare\n  spareToo:\n    address: ledger.spare-too\n    messages: {}\n  balanceReply:\n',
      '    balanceQuery:\n      parameters:\n        account: account\n',
      '    balanceQuery:\n      parameters:\n        account: account\n    spare:\n      parameters: {}\n    spareToo:\n      parameters: {}\n',
    ),
  ],
  // Holds (pinned): an operation with title, summary, description, tags, externalDocs, x-.
  [
    'an operation with title, summary, description, tags, externalDocs and x-',
    edit(
      LEDGER,
      '  postEntry:\n    action: send\n',
      '  postEntry:\n    title: Post an entry\n    summary: Posts.\n    description: Posts an entry.\n    tags: [{ name: write }]\n    externalDocs: { url: https://example.com/post }\n    x-op: 1\n    action: send\n',
    ),
  ],
  // Holds (pinned): tags and externalDocs by $ref.
  [
    'tags and externalDocs by $ref',
    withComponents(
      edit(
        LEDGER,
        '  postEntry:\n    action: send\n',
        "  postEntry:\n    tags: [{ $ref: '#/components/tags/w' }]\n    externalDocs: { $ref: '#/components/externalDocs/d' }\n    action: send\n",
      ),
      '  tags:\n    w: { name: write }\n  externalDocs:\n    d: { url: https://example.com }\n',
    ),
  ],
  // Holds (pinned): operation security by $ref.
  [
    'operation security',
    withComponents(
      edit(LEDGER, '  postEntry:\n    action: send\n', "  postEntry:\n    security: [{ $ref: '#/components/securitySchemes/up' }]\n    action: send\n"),
      '  securitySchemes:\n    up: { type: userPassword }\n',
    ),
  ],
  // Holds (pinned): operation messages listing a message of its channel, and messages: [].
  [
    'operation messages (a subset of its channel’s)',
    edit(
      LEDGER,
      "    channel: { $ref: '#/channels/entryPosted' }\n  onEntryPosted:",
      "    channel: { $ref: '#/channels/entryPosted' }\n    messages:\n      - $ref: '#/channels/entryPosted/messages/posted'\n  onEntryPosted:",
    ),
  ],
  [
    'operation messages: []',
    edit(
      LEDGER,
      "    channel: { $ref: '#/channels/entryPosted' }\n  onEntryPosted:",
      "    channel: { $ref: '#/channels/entryPosted' }\n    messages: []\n  onEntryPosted:",
    ),
  ],
  // Holds (pinned): a reply with messages, with x-, and reply messages: [].
  [
    'reply messages and x- on the reply',
    edit(
      LEDGER,
      "    reply:\n      channel: { $ref: '#/channels/balanceReply' }\n",
      "    reply:\n      x-r: 1\n      channel: { $ref: '#/channels/balanceReply' }\n      messages:\n        - $ref: '#/channels/balanceReply/messages/balance'\n",
    ),
  ],
  [
    'reply messages: []',
    edit(
      LEDGER,
      "    reply:\n      channel: { $ref: '#/channels/balanceReply' }\n",
      "    reply:\n      channel: { $ref: '#/channels/balanceReply' }\n      messages: []\n",
    ),
  ],
  // Holds (pinned): a reply channel whose address is null ("When null or absent, it MUST be interpreted as unknown"), written null and ~.
  ['a reply channel with address: null', edit(LEDGER, '  balanceReply:\n    messages:', '  balanceReply:\n    address: null\n    messages:')],
  ['a reply channel with address: ~', edit(LEDGER, '  balanceReply:\n    messages:', '  balanceReply:\n    address: ~\n    messages:')],
  // Holds (pinned): a core responder declaring the reply it answers on.
  [
    'a responder with a reply',
    edit(
      LEDGER,
      "    channel: { $ref: '#/channels/balanceQuery' }\ncomponents:",
      "    channel: { $ref: '#/channels/balanceQuery' }\n    reply:\n      channel: { $ref: '#/channels/balanceReply' }\ncomponents:",
    ),
  ],
  // Holds (pinned): operation bindings nats queue (inline, bindingVersion unquoted), by $ref, and through an operation trait.
  [
    'operation bindings: nats queue',
    edit(
      LEDGER,
      '  answerBalance:\n    action: receive\n',
      '  answerBalance:\n    bindings: { nats: { queue: balance, bindingVersion: 0.1.0 }, x-b: 1 }\n    action: receive\n',
    ),
  ],
  [
    'operation bindings by $ref',
    withComponents(
      edit(
        LEDGER,
        '  answerBalance:\n    action: receive\n',
        "  answerBalance:\n    bindings: { $ref: '#/components/operationBindings/q' }\n    action: receive\n",
      ),
      '  operationBindings:\n    q:\n      nats: { queue: balance }\n',
    ),
  ],
  [
    'operation traits by $ref carrying the queue binding',
    withComponents(
      edit(
        LEDGER,
        '  answerBalance:\n    action: receive\n',
        "  answerBalance:\n    traits: [{ $ref: '#/components/operationTraits/q' }]\n    action: receive\n",
      ),
      "  operationTraits:\n    q:\n      summary: Queue group.\n      x-t: 1\n      bindings:\n        nats: { queue: balance, bindingVersion: '0.1.0' }\n",
    ),
  ],
  // Holds (pinned): component operations and channels the application does not implement, and the other component maps.
  [
    'components: operations, channels, tags, externalDocs, serverVariables, servers, replyAddresses, bindings, x-',
    withComponents(
      LEDGER,
      `  x-c: 1
  operations:
    spare:
      action: send
      channel: { $ref: '#/channels/entryPosted' }
  channels:
    spare:
      address: spare.{x}
      parameters: { x: {} }
  tags:
    t: { name: t }
  externalDocs:
    d: { url: https://example.com }
  serverVariables:
    v: { default: a }
  servers:
    s: { host: nats.example.com, protocol: nats }
  replyAddresses:
    r: { location: '$message.payload#/r' }
  channelBindings:
    c: { nats: {} }
  messageBindings:
    m: { nats: {} }
  serverBindings:
    s: { nats: {} }
`,
    ),
  ],
  // Holds (pinned): a Reference Object with sibling members, which "SHALL be ignored" (3.1.0 Reference Object).
  [
    'an operation channel $ref with a description beside it',
    edit(
      LEDGER,
      "    channel: { $ref: '#/channels/entryPosted' }\n  onEntryPosted:",
      "    channel: { $ref: '#/channels/entryPosted', description: The entry channel. }\n  onEntryPosted:",
    ),
  ],
  [
    'a channel message $ref with a summary beside it',
    edit(LEDGER, "        $ref: '#/components/messages/EntryPosted'\n", "        $ref: '#/components/messages/EntryPosted'\n        summary: Posted.\n"),
  ],
  [
    'a schema $ref with a description beside it',
    withComponents(
      edit(LEDGER, '          cents: { type: integer }\n', "          cents: { $ref: '#/components/schemas/Cents', description: The amount. }\n"),
      '  schemas:\n    Cents: { type: integer }\n',
    ),
  ],
  // Holds (pinned): a payload $ref into another message's payload, a nested schema, and a channel message's payload.
  [
    'a payload $ref to another message’s payload',
    edit(
      LEDGER,
      '        payload: { type: object, properties: { cents: { type: integer } } }',
      "        payload: { $ref: '#/components/messages/EntryPosted/payload' }",
    ),
  ],
  [
    'a payload $ref to a nested schema',
    withComponents(
      edit(
        LEDGER,
        '        payload: { type: object, properties: { cents: { type: integer } } }',
        "        payload: { $ref: '#/components/schemas/Wrapper/properties/inner' }",
      ),
      '  schemas:\n    Wrapper:\n      type: object\n      properties:\n        inner: { type: object, properties: { cents: { type: integer } } }\n',
    ),
  ],
  // Holds (pinned): channel ids and operation ids with punctuation (only the case-sensitive key is fixed), a channel id with "/" referenced as ~1.
  ['channel ids with "-" and "."', LEDGER.replaceAll('entryPosted', 'entry-posted.v1')],
  ['operation ids with "-" and "."', LEDGER.replaceAll('postEntry', 'post-entry.v1')],
  [
    'a channel id with "/" referenced as ~1',
    LEDGER.replaceAll('balanceQuery', 'ledger/balance').replaceAll('#/channels/ledger/balance', '#/channels/ledger~1balance'),
  ],
  // Holds (pinned): component names with dots and hyphens, names of JavaScript built-ins and reserved words, percent-encoded fragments.
  [
    'component schema names with dots, hyphens, reserved words and built-ins',
    withComponents(
      edit(
        LEDGER,
        '          cents: { type: integer }\n',
        "          cents: { $ref: '#/components/schemas/com.example.Cents' }\n          memo: { $ref: '#/components/schemas/memo-text' }\n          d: { $ref: '#/components/schemas/default' }\n          o: { $ref: '#/components/schemas/Object' }\n          p: { $ref: '#/components/schemas/Promise' }\n",
      ),
      '  schemas:\n    com.example.Cents: { type: integer }\n    memo-text: { type: string }\n    default: { type: string }\n    Object: { type: object }\n    Promise: { type: string }\n',
    ),
  ],
  [
    'a $ref fragment with %20',
    withComponents(
      edit(LEDGER, '          cents: { type: integer }\n', "          cents: { $ref: '#/components/schemas/Cents%20Amount' }\n"),
      '  schemas:\n    Cents Amount: { type: integer }\n',
    ),
  ],
  [
    'a message component named with dots and hyphens',
    edit(
      LEDGER,
      "        $ref: '#/components/messages/EntryPosted'\n",
      "        $ref: '#/components/messages/ledger.entry-posted.v1'\n",
      'components:\n  messages:\n',
      'components:\n  messages:\n    ledger.entry-posted.v1:\n      payload: { type: object }\n',
    ),
  ],
  // Holds (pinned): payload property names that are not identifiers, and text that would break a JSDoc comment.
  [
    'payload property names that are not identifiers',
    edit(
      LEDGER,
      '          cents: { type: integer }\n',
      "          cents: { type: integer, description: 'ends */ here /* and @type {x} `back`' }\n          prénom: { type: string }\n          a-b: { type: string }\n          1abc: { type: string }\n          constructor: { type: string }\n          'x y': { type: string }\n",
    ),
  ],
  // Holds (pinned): x- members on channel, operation, message, schema, parameter, components, correlationId, multi-format schema.
  [
    'x- members on every object that "MAY be extended"',
    edit(
      LEDGER,
      '  balanceReply:\n    messages:',
      '  balanceReply:\n    x-ch: { any: [1, 2] }\n    messages:',
      '      region: {}\n      entryId: {}\n',
      '      region: { x-p: 1 }\n      entryId: {}\n',
      '    EntryPosted:\n      payload:',
      "    EntryPosted:\n      x-m: 1\n      correlationId: { location: '$message.payload#/entryId', x-c: 1 }\n      payload:",
      '          cents: { type: integer }\n',
      '          cents: { type: integer, x-unit: cents }\n',
    ),
  ],
  // Holds (pinned): Multi Format Schema Object, every format the 3.1.0 table says "every implementation MUST support", and 3.0.0.
  ...[
    'application/vnd.aai.asyncapi;version=3.1.0',
    'application/vnd.aai.asyncapi+json;version=3.1.0',
    'application/vnd.aai.asyncapi+yaml;version=3.1.0',
    'application/schema+json;version=draft-07',
    'application/schema+yaml;version=draft-07',
    'application/vnd.aai.asyncapi+json;version=3.0.0',
  ].map((format): [string, string] => [`a multi-format payload: ${format}`, withPayload(MULTI_FORMAT(format))]),
  [
    'a multi-format payload with an x- member',
    withPayload(MULTI_FORMAT('application/schema+json;version=draft-07').replace('        schemaFormat:', '        x-mf: 1\n        schemaFormat:')),
  ],
  [
    'a multi-format component schema, referenced',
    withComponents(
      withPayload("      payload: { $ref: '#/components/schemas/Entry' }\n"),
      '  schemas:\n    Entry:\n      schemaFormat: application/schema+json;version=draft-07\n      schema:\n        type: object\n        required: [entryId, cents]\n        properties:\n          entryId: { type: string }\n          cents: { type: integer }\n',
    ),
  ],
  [
    'a multi-format payload whose schema is a $ref',
    withComponents(
      withPayload(
        "      payload:\n        schemaFormat: application/vnd.aai.asyncapi+json;version=3.1.0\n        schema:\n          $ref: '#/components/schemas/Entry'\n",
      ),
      '  schemas:\n    Entry:\n      type: object\n      properties: { cents: { type: integer } }\n',
    ),
  ],
  [
    'multi-format headers',
    withEntryMessage(
      '      headers:\n        schemaFormat: application/vnd.aai.asyncapi+json;version=3.1.0\n        schema:\n          type: object\n          properties: { traceId: { type: string } }\n',
    ),
  ],
  // Holds (pinned): draft-07 keywords the AsyncAPI Schema Object allows: $comment, title, readOnly, writeOnly, deprecated, examples,
  // default, const, if/then/else, dependencies, propertyNames, contains, contentMediaType, type lists, externalDocs, x-.
  [
    'draft-07 keywords: if/then/else, const, examples, $comment, readOnly, deprecated, ...',
    withPayload(`      payload:
        $comment: The posted entry.
        title: Entry
        description: A posted entry.
        type: object
        required: [entryId, cents]
        properties:
          entryId: { type: string, readOnly: true, examples: [0a1b2c3d4e5f], default: '000000000000' }
          cents: { type: integer, deprecated: true, writeOnly: false, exclusiveMinimum: 0 }
          kind: { const: posted }
          currency: { type: string, enum: [EUR, USD], default: EUR }
          memo: { type: [string, 'null'], maxLength: 200, contentMediaType: text/plain }
          tags: { type: array, items: { type: string }, uniqueItems: true, contains: { const: a }, maxItems: 5 }
          meta: { type: object, propertyNames: { pattern: '^[a-z]+$' }, additionalProperties: { type: string }, minProperties: 0 }
          anything: true
          nothing: false
        if: { properties: { kind: { const: posted } } }
        then: { required: [currency] }
        else: { required: [memo] }
        dependencies: { memo: [kind] }
        examples:
          - { entryId: 0a1b2c3d4e5f, cents: 1, currency: EUR }
        externalDocs: { url: https://example.com/entry }
        x-go-type: Entry
`),
  ],
  // Holds (pinned): discriminator as a string (3.1.0 Schema Object "discriminator | string"), with oneOf of component schemas.
  [
    'discriminator as a string',
    withComponents(
      withPayload(
        "      payload:\n        type: object\n        required: [kind]\n        properties: { kind: { type: string } }\n        discriminator: kind\n        oneOf:\n          - $ref: '#/components/schemas/Debit'\n          - $ref: '#/components/schemas/Credit'\n",
      ),
      '  schemas:\n    Debit:\n      type: object\n      required: [kind, cents]\n      properties: { kind: { const: Debit }, cents: { type: integer } }\n    Credit:\n      type: object\n      required: [kind, cents]\n      properties: { kind: { const: Credit }, cents: { type: integer } }\n',
    ),
  ],
  // Holds (pinned): allOf/anyOf/not, $id/$schema, definitions referenced locally, recursion through components, formats (JSON Schema and AsyncAPI's).
  [
    'allOf, anyOf and not',
    withPayload(
      '      payload:\n        allOf:\n          - type: object\n            required: [entryId]\n            properties: { entryId: { type: string } }\n          - anyOf:\n              - required: [cents]\n              - required: [memo]\n        not: { required: [forbidden] }\n',
    ),
  ],
  [
    '$id and $schema in a payload',
    withPayload(
      "      payload:\n        $id: 'https://example.com/schemas/entry.json'\n        $schema: 'http://json-schema.org/draft-07/schema#'\n        type: object\n        properties: { cents: { type: integer } }\n",
    ),
  ],
  [
    'definitions referenced from the same payload',
    withPayload(
      "      payload:\n        type: object\n        definitions:\n          Money: { type: integer, minimum: 0 }\n        properties:\n          cents: { $ref: '#/components/messages/EntryPosted/payload/definitions/Money' }\n",
    ),
  ],
  [
    'a recursive component schema',
    withComponents(
      withPayload("      payload:\n        $ref: '#/components/schemas/Entry'\n"),
      "  schemas:\n    Entry:\n      type: object\n      properties:\n        parent: { $ref: '#/components/schemas/Entry' }\n        cents: { type: integer }\n",
    ),
  ],
  [
    'formats of JSON Schema and of AsyncAPI (int32, int64, float, double, byte, binary, password) and a custom one',
    withPayload(
      '      payload:\n        type: object\n        properties:\n          at: { type: string, format: date-time }\n          id: { type: string, format: uuid }\n          mail: { type: string, format: email }\n          n: { type: integer, format: int64 }\n          s: { type: integer, format: int32 }\n          f: { type: number, format: float }\n          d: { type: number, format: double }\n          blob: { type: string, format: byte }\n          bin: { type: string, format: binary }\n          secret: { type: string, format: password }\n          custom: { type: string, format: money-code }\n',
    ),
  ],
  // Holds (pinned): patterns: anchored, with patternProperties, a Unicode property escape, an ECMA-262 identity escape.
  [
    'patterns and patternProperties',
    withPayload(
      "      payload:\n        type: object\n        properties:\n          entryId: { type: string, pattern: '^[0-9a-f]{12}$' }\n          name: { type: string, pattern: '^\\p{L}+$' }\n          phone: { type: string, pattern: '^\\d{3}\\-\\d{4}$' }\n        patternProperties:\n          '^x_': { type: string }\n",
    ),
  ],
  // Holds (pinned): a root channel given by $ref whose target has no address (a reply channel).
  [
    'a root reply channel by $ref to components.channels',
    withComponents(
      edit(
        LEDGER,
        '  balanceReply:\n    messages:\n      balance:\n        payload: { type: object, properties: { cents: { type: integer } } }\n',
        "  balanceReply:\n    $ref: '#/components/channels/balanceReply'\n",
      ),
      '  channels:\n    balanceReply:\n      messages:\n        balance:\n          payload: { type: object, properties: { cents: { type: integer } } }\n',
    ),
  ],
]

describe('the standard part: producer forms of AsyncAPI 3.1.0 compile without a diagnostic', () => {
  it.each(standardForms)('%s', async (_name, text) => {
    expect(shown(await check(text))).toEqual([])
  })
})

// ---------------------------------------------------------------------------------------------
// The text: YAML and JSON as producers write them.
// ---------------------------------------------------------------------------------------------

const textForms: Array<[name: string, text: string, ext?: string]> = [
  // Holds (pinned): a UTF-8 BOM, CRLF line ends, both, and no final newline.
  ['a BOM', `\uFEFF${LEDGER}`],
  ['CRLF line ends', LEDGER.replace(/\n/g, '\r\n')],
  ['a BOM and CRLF', `\uFEFF${LEDGER.replace(/\n/g, '\r\n')}`],
  ['no final newline', LEDGER.replace(/\n$/, '')],
  // Holds (pinned): comments on every line, a document start marker, a %YAML 1.2 directive with an end marker.
  ['a comment on every line', `# Ledger contract\n${LEDGER.replace(/\n/g, '  # c\n')}`],
  ['--- before the document', `---\n${LEDGER}`],
  ['%YAML 1.2, --- and ...', `%YAML 1.2\n---\n${LEDGER}...\n`],
  // Holds (pinned): quoted scalars (single and double) for versions, ids, names, enum values, and quoted keys.
  [
    'quoted scalars',
    edit(
      LEDGER,
      'asyncapi: 3.1.0',
      "asyncapi: '3.1.0'",
      '  version: 2.0.0',
      '  version: "2.0.0"',
      '  version: 0.2.0-draft',
      '  version: "0.2.0-draft"',
      '    minimumServerVersion: 2.11.0',
      "    minimumServerVersion: '2.11.0'",
      '  contract: ledger',
      '  contract: "ledger"',
      '        name: LEDGER',
      '        name: "LEDGER"',
      '    action: send',
      '    action: "send"',
      'region: { kind: enum, values: [eu, us] }',
      "region: { kind: 'enum', values: ['eu', \"us\"] }",
    ),
  ],
  [
    'quoted keys',
    edit(
      LEDGER,
      'x-nats-contract:',
      '"x-nats-contract":',
      '  tokenTypes:',
      "  'tokenTypes':",
      '    entryPosted:\n      parameters:',
      '    "entryPosted":\n      "parameters":',
    ),
  ],
  // Holds (pinned): the whole document in flow style, in block style, and as JSON text in a YAML file.
  ['everything in flow style', YAML.stringify(YAML.parse(LEDGER), { collectionStyle: 'flow', lineWidth: 120 })],
  ['everything in block style', YAML.stringify(YAML.parse(LEDGER), { collectionStyle: 'block' })],
  ['JSON text in a .yaml file', JSON.stringify(YAML.parse(LEDGER), null, 2)],
  // Holds (pinned): the claimed extensions .asyncapi.json (strict JSON, with CRLF) and .asyncapi.yml.
  ['a .asyncapi.json document', JSON.stringify(YAML.parse(LEDGER), null, 2), '.asyncapi.json'],
  ['a .asyncapi.json document with CRLF', JSON.stringify(YAML.parse(LEDGER), null, 2).replace(/\n/g, '\r\n'), '.asyncapi.json'],
  ['a .asyncapi.yml document', LEDGER, '.asyncapi.yml'],
  // Holds (pinned): block scalars (| and >-) and a double-quoted string folded over lines.
  [
    'block scalars',
    edit(LEDGER, '  title: Ledger\n', '  title: >-\n    Ledger\n  description: |\n    Line one.\n\n    Line two with: colons, # hashes and "quotes".\n'),
  ],
  [
    'a double-quoted string over lines',
    edit(LEDGER, '  title: Ledger\n', '  title: Ledger\n  description: "A long\n    description folded\n    over lines"\n'),
  ],
  // Holds (pinned): a tab between a key and its value, an explicit ? key.
  ['a tab after the colon', edit(LEDGER, '        retention: limits', '        retention:\tlimits')],
  ['an explicit ? key', edit(LEDGER, '        storage: file', '        ? storage\n        : file')],
  // Holds (pinned): YAML 1.2 reads on/off/yes/no/y/n as strings, so they are valid enum token values.
  [
    'enum values on, off, yes, no, y, n',
    edit(
      LEDGER,
      '    region: { kind: enum, values: [eu, us] }',
      '    region: { kind: enum, values: [eu, us] }\n    toggle: { kind: enum, values: [on, off, yes, no, y, n] }',
    ),
  ],
  // Holds (pinned): explicit tags of the YAML JSON schema ("Tags MUST be limited to those allowed by the JSON Schema ruleset": so those are allowed).
  [
    '!!str, !<tag:yaml.org,2002:str>, !!map and !!seq',
    edit(
      LEDGER,
      '  version: 2.0.0\n',
      '  version: !!str 2.0.0\n',
      '  deployment:\n',
      '  deployment: !!map\n',
      'subjects: [ledger.eu.>, ledger.us.>]',
      'subjects: !!seq [ledger.eu.>, ledger.us.>]',
      '  title: Ledger',
      '  title: !<tag:yaml.org,2002:str> Ledger',
    ),
  ],
  // Holds (pinned): anchors and aliases in the standard part: a payload, a scalar, empty parameter objects, an operation's channel reference, a whole message.
  [
    'an aliased payload',
    edit(
      LEDGER,
      '      query:\n        payload: { type: object, properties: { account: { type: string } } }',
      '      query:\n        payload: &obj { type: object, properties: { account: { type: string } } }',
      '      balance:\n        payload: { type: object, properties: { cents: { type: integer } } }',
      '      balance:\n        payload: *obj',
    ),
  ],
  ['an aliased scalar', edit(LEDGER, '  title: Ledger', '  title: &t Ledger', '    EntryPosted:\n', '    EntryPosted:\n      title: *t\n')],
  [
    'aliased parameter objects',
    edit(LEDGER, '    parameters:\n      region: {}\n      entryId: {}\n', '    parameters:\n      region: &empty {}\n      entryId: *empty\n'),
  ],
  [
    'an aliased operation channel reference',
    edit(
      LEDGER,
      "  postEntry:\n    action: send\n    channel: { $ref: '#/channels/entryPosted' }",
      "  postEntry:\n    action: send\n    channel: &ep { $ref: '#/channels/entryPosted' }",
      "  onEntryPosted:\n    action: receive\n    channel: { $ref: '#/channels/entryPosted' }",
      '  onEntryPosted:\n    action: receive\n    channel: *ep',
    ),
  ],
  [
    'an aliased whole message',
    edit(
      LEDGER,
      '      query:\n        payload: { type: object, properties: { account: { type: string } } }',
      '      query: &q\n        payload: { type: object, properties: { account: { type: string } } }',
      '      balance:\n        payload: { type: object, properties: { cents: { type: integer } } }',
      '      balance: *q',
    ),
  ],
  // Holds (pinned): anchors and aliases in the profile: a token type, a duration, a whole operation entry (with its standard operation), a whole channel entry.
  [
    'an aliased token type',
    edit(LEDGER, '    region: { kind: enum, values: [eu, us] }', '    region: &region { kind: enum, values: [eu, us] }\n    zone: *region'),
  ],
  [
    'an aliased duration',
    edit(
      LEDGER,
      '        duplicate_window: 120000000000',
      '        duplicate_window: &window 120000000000',
      '        ack_wait: 30000000000',
      '        ack_wait: *window',
    ),
  ],
  [
    'an aliased operation entry and standard operation',
    edit(
      LEDGER,
      '    answerBalance:\n      subscribe: { api: core }',
      '    answerBalance: &coreSub\n      subscribe: { api: core }\n    auditBalance: *coreSub',
      "  answerBalance:\n    action: receive\n    channel: { $ref: '#/channels/balanceQuery' }\n",
      "  answerBalance: &recv\n    action: receive\n    channel: { $ref: '#/channels/balanceQuery' }\n  auditBalance: *recv\n",
    ),
  ],
  [
    'an aliased profile channel entry',
    edit(
      LEDGER,
      '    balanceQuery:\n      parameters:\n        account: account\n',
      '    balanceQuery: &bq\n      parameters:\n        account: account\n    balanceAudit: *bq\n',
      '  balanceReply:\n',
      '  balanceAudit:\n    address: ledger.audit.{account}\n    parameters: { account: {} }\n  balanceReply:\n',
    ),
  ],
]

describe('the text: YAML and JSON forms compile without a diagnostic', () => {
  it.each(textForms)('%s', async (_name, text, ext) => {
    expect(shown(await check(text, ext))).toEqual([])
  })
})

// ---------------------------------------------------------------------------------------------
// The profile: forms the seed and the layout show.
// ---------------------------------------------------------------------------------------------

const profileForms: Array<[name: string, text: string]> = [
  // Holds (pinned): the profile object first or last in the document, not only after info.
  [
    'x-nats-contract first in the document',
    (() => {
      const [i, j] = [LEDGER.indexOf('x-nats-contract:'), LEDGER.indexOf('\nchannels:')]
      return LEDGER.slice(i, j + 1) + LEDGER.slice(0, i) + LEDGER.slice(j + 1)
    })(),
  ],
  [
    'x-nats-contract last in the document',
    (() => {
      const [i, j] = [LEDGER.indexOf('x-nats-contract:'), LEDGER.indexOf('\nchannels:')]
      return LEDGER.slice(0, i) + LEDGER.slice(j + 1) + LEDGER.slice(i, j + 1)
    })(),
  ],
  // Holds (pinned): deployment in flow style with members reordered, a later server version, SemVer build metadata.
  [
    'deployment in flow style, reordered, 2.12.1',
    edit(
      LEDGER,
      '  deployment:\n    binding: ledger-prod\n    minimumServerVersion: 2.11.0\n',
      '  deployment: { minimumServerVersion: 2.12.1, binding: ledger-prod }\n',
    ),
  ],
  ['minimumServerVersion with build metadata', edit(LEDGER, '    minimumServerVersion: 2.11.0', '    minimumServerVersion: 2.11.0+build.7')],
  // Holds (pinned): contract ids, bindings and info.version are free strings (the seed gives them no syntax).
  ...['ledger.core', 'acme/ledger', 'Ledger_Core-1', 'urn:acme:ledger'].map((c): [string, string] => [
    `contract id ${c}`,
    edit(LEDGER, '  contract: ledger', `  contract: '${c}'`),
  ]),
  ...['acme/prod:eu-west', 'prod core'].map((b): [string, string] => [`binding ${b}`, edit(LEDGER, '    binding: ledger-prod', `    binding: '${b}'`)]),
  ...['2024.01', 'v2', '2.0.0-beta.1+exp.sha.5114f85', 'release 7'].map((v): [string, string] => [
    `info.version ${v}`,
    edit(LEDGER, '  version: 2.0.0\n', `  version: '${v}'\n`),
  ]),
  // Holds (pinned): empty optional maps and lists (imports, links, adapters, interactions, pipelines, workflows).
  [
    'empty imports, links, adapters, interactions, pipelines and workflows',
    edit(LEDGER, '  tokenTypes:\n', '  imports: {}\n  links: []\n  adapters: {}\n  interactions: {}\n  pipelines: {}\n  workflows: {}\n  tokenTypes:\n'),
  ],
  // Holds (pinned): a link between two local operations ("a local key").
  ['a link between two local operations', edit(LEDGER, '  tokenTypes:\n', '  links:\n    - { send: postEntry, receive: onEntryPosted }\n  tokenTypes:\n')],
  // Holds (pinned): token types: block style with members reordered, bounds 1..128, prefix with digits/hyphen/underscore, "" prefix, a single enum value, mixed enum tokens.
  [
    'a token type in block style, members reordered',
    edit(
      LEDGER,
      "    entryId: { kind: token, alphabet: hex, first: any, minLength: 12, maxLength: 12, prefix: '' }",
      "    entryId:\n      prefix: ''\n      maxLength: 12\n      minLength: 12\n      first: any\n      alphabet: hex\n      kind: token",
    ),
  ],
  [
    'token bounds 1..128, first any, empty prefix',
    edit(
      LEDGER,
      '    account: { kind: token, alphabet: ascii, first: letter, minLength: 3, maxLength: 32, prefix: acct_ }',
      "    account: { kind: token, alphabet: ascii, first: any, minLength: 1, maxLength: 128, prefix: '' }",
    ),
  ],
  ['a prefix with digits, hyphen and underscore', edit(LEDGER, 'prefix: acct_ }', 'prefix: acct-01_ }')],
  [
    'a token whose only length is its prefix plus one',
    edit(LEDGER, 'minLength: 3, maxLength: 32, prefix: acct_ }', 'minLength: 6, maxLength: 6, prefix: acct_ }'),
  ],
  ['prefix: "" double-quoted', edit(LEDGER, "maxLength: 12, prefix: '' }", 'maxLength: 12, prefix: "" }')],
  [
    'an enum of one value, and of mixed tokens',
    edit(
      LEDGER,
      '    region: { kind: enum, values: [eu, us] }',
      "    region: { kind: enum, values: [eu, us] }\n    only: { kind: enum, values: [x] }\n    mixed: { kind: enum, values: [eu-west_1, '01', AP] }",
    ),
  ],
  [
    'an enum in block style',
    edit(LEDGER, '    region: { kind: enum, values: [eu, us] }', '    region:\n      kind: enum\n      values:\n        - eu\n        - us'),
  ],
  // Holds (pinned): a placeholder mapped to a token type of another name.
  [
    'a placeholder typed by a token type of another name',
    edit(LEDGER, '      parameters:\n        account: account\n', '      parameters:\n        account: entryId\n'),
  ],
  // Holds (pinned): a literal channel (parameters: {}), with an exact-subject filter and a tail filter; a profiled reply channel (parameters: {}).
  [
    'a literal channel with parameters: {} and filters',
    edit(
      LEDGER,
      '    balanceQuery:\n      parameters:\n        account: account\n',
      "    balanceQuery:\n      parameters:\n        account: account\n    health:\n      parameters: {}\n      filters: { exact: ledger.health, tail: 'ledger.>' }\n",
      '  balanceReply:\n',
      '  health:\n    address: ledger.health\n    messages: { ping: { payload: { type: object } } }\n  balanceReply:\n',
      '  answerBalance:\n    action: receive\n',
      "  ping:\n    action: send\n    channel: { $ref: '#/channels/health' }\n  answerBalance:\n    action: receive\n",
      '    answerBalance:\n      subscribe: { api: core }\n',
      '    answerBalance:\n      subscribe: { api: core }\n    ping:\n      publish: { api: core, confirmation: none }\n',
    ),
  ],
  [
    'a profiled reply channel with parameters: {}',
    edit(
      LEDGER,
      '    balanceQuery:\n      parameters:\n        account: account\n',
      '    balanceQuery:\n      parameters:\n        account: account\n    balanceReply:\n      parameters: {}\n',
    ),
  ],
  // Holds (pinned): filters ">" alone, "*" at every position, a literal token where a placeholder is.
  ['a filter ">" alone', edit(LEDGER, '        everything: ledger.>', "        everything: '>'")],
  ['a filter of wildcards only', edit(LEDGER, '        everything: ledger.>', "        everything: '*.*.*.*'")],
  [
    'filters with literal tokens',
    edit(LEDGER, '        everything: ledger.>', '        euOnly: ledger.eu.*.posted\n        one: ledger.us.0a1b2c3d4e5f.posted'),
  ],
  // Holds (pinned): publisherIdentity in flow style, reordered, on another placeholder.
  [
    'publisherIdentity in flow style on entryId',
    edit(
      LEDGER,
      '      publisherIdentity:\n        kind: subject-permission\n        peerParameter: region\n',
      '      publisherIdentity: { peerParameter: entryId, kind: subject-permission }\n',
    ),
  ],
  // Holds (pinned): operation forms with members reordered, requestReply in block style, timeoutMs 1 and a day.
  [
    'publish members reordered',
    edit(
      LEDGER,
      '      publish: { api: jetstream, confirmation: stream-ack, stream: ledger }',
      '      publish: { stream: ledger, confirmation: stream-ack, api: jetstream }',
    ),
  ],
  [
    'requestReply in block style',
    edit(
      LEDGER,
      '      requestReply: { routing: native-inbox, completion: first-response, timeoutMs: 1500 }',
      '      requestReply:\n        timeoutMs: 1500\n        completion: first-response\n        routing: native-inbox',
    ),
  ],
  ['timeoutMs: 1', edit(LEDGER, 'timeoutMs: 1500', 'timeoutMs: 1')],
  ['timeoutMs: a day', edit(LEDGER, 'timeoutMs: 1500', 'timeoutMs: 86400000')],
  // Holds (pinned): every allowed stream/consumer value (interest, memory, 5 replicas, discard old, deliver new), subjects in block style, members reordered.
  [
    'retention interest, storage memory, 5 replicas, discard old, deliver_policy new',
    edit(
      LEDGER,
      '        retention: limits\n        storage: file\n        num_replicas: 3\n',
      '        retention: interest\n        storage: memory\n        num_replicas: 5\n',
      '        discard: new\n',
      '        discard: old\n',
      '        deliver_policy: all',
      '        deliver_policy: new',
    ),
  ],
  [
    'stream subjects in block style, one quoted',
    edit(LEDGER, '        subjects: [ledger.eu.>, ledger.us.>]', "        subjects:\n          - ledger.eu.>\n          - 'ledger.us.>'"),
  ],
  [
    'stream config members reordered',
    edit(
      LEDGER,
      '        name: LEDGER\n        subjects: [ledger.eu.>, ledger.us.>]\n',
      '        subjects: [ledger.eu.>, ledger.us.>]\n        name: LEDGER\n',
    ),
  ],
  // Holds (pinned): limits at 2^53 - 1 and a max_age of a year (exact int64 reading).
  [
    'limits of 2^53 - 1 and a year of max_age',
    edit(
      LEDGER,
      '        max_msgs: 50000000\n        max_bytes: 53687091200',
      '        max_msgs: 9007199254740991\n        max_bytes: 9007199254740991',
      '        max_age: 2592000000000000',
      '        max_age: 31536000000000000',
    ),
  ],
  [
    'stream and durable names with mixed case, digits, "_" and "-"',
    edit(LEDGER, '        name: LEDGER\n', '        name: Ledger_EU-1\n', '        durable_name: auditor', '        durable_name: auditor-v2_x'),
  ],
  // Holds (pinned): the layout's interaction and pipeline, with /peerId bound from the branch (see the DEFECT below for the layout's own bindings).
  ['the layout’s interaction and pipeline, /peerId bound', BALLOTS_PEER_BOUND],
  [
    'the layout’s interaction without capabilities',
    edit(BALLOTS_PEER_BOUND, '      capabilities: [runtime-schema-check]     # optional; the only capability v0.2 defines\n', ''),
  ],
  [
    'the layout’s quorum with count instead of fraction',
    edit(BALLOTS_PEER_BOUND, '        fraction: { numerator: 2, denominator: 3 }   # or count: <n>', '        count: 2'),
  ],
  [
    'the layout’s dispatch in block style',
    edit(
      BALLOTS_PEER_BOUND,
      '      dispatch: { mode: independent, branchKey: recipient }',
      '      dispatch:\n        mode: independent\n        branchKey: recipient',
    ),
  ],
  // Holds (pinned): the layout's "may add inputAdapter: <adapter key, kind transform>", with a pre-release adapter version.
  [
    'an operation step with an inputAdapter of kind transform',
    edit(
      BALLOTS_PEER_BOUND,
      '        - operation: publishOutcome              # may add inputAdapter: <adapter key, kind transform>\n',
      '        - operation: publishOutcome\n          inputAdapter: toNotice\n',
      '    tally: {',
      "    toNotice: { kind: transform, version: 2.0.0-rc.1, inputSchema: '#/components/schemas/Outcome', outputSchema: '#/components/schemas/Outcome', description: Passes the outcome on. }\n    tally: {",
    ),
  ],
]

describe('the profile: forms the seed and the layout show compile without a diagnostic', () => {
  it.each(profileForms)('%s', async (_name, text) => {
    expect(shown(await check(text))).toEqual([])
  })
})

// ---------------------------------------------------------------------------------------------
// Bundles: $refs to other files of the bundle, imports and links, external artifacts.
// ---------------------------------------------------------------------------------------------

const DOC = 'ledger/asyncapi/asyncapi.yaml'
const ENTRY_JSON = JSON.stringify(
  {
    Entry: { type: 'object', required: ['entryId', 'cents'], properties: { entryId: { type: 'string' }, cents: { $ref: '#/Money' } } },
    Money: { type: 'integer', minimum: 0 },
  },
  null,
  2,
)
const ENTRY_YAML =
  "Entry:\n  type: object\n  required: [entryId, cents]\n  properties:\n    entryId: { type: string }\n    cents: { $ref: '#/Money' }\nMoney: &m { type: integer, minimum: 0 }\nAlso: *m\n"

const bundleForms: Array<[name: string, files: Record<string, string>]> = [
  // Holds (pinned): a standalone document inside a bundle.
  ['the ledger inside a bundle', { [DOC]: LEDGER }],
  // Holds (pinned): payload $refs into locked files: JSON with a fragment, "./" prefix, a YAML file (anchors, BOM, CRLF), a parent folder, a whole file.
  ['a payload $ref entry.json#/Entry', { [DOC]: withPayload("      payload: { $ref: 'entry.json#/Entry' }\n"), 'ledger/asyncapi/entry.json': ENTRY_JSON }],
  ['a payload $ref ./entry.json#/Entry', { [DOC]: withPayload("      payload: { $ref: './entry.json#/Entry' }\n"), 'ledger/asyncapi/entry.json': ENTRY_JSON }],
  [
    'a payload $ref into a YAML file with anchors',
    { [DOC]: withPayload("      payload: { $ref: 'schemas/entry.yaml#/Entry' }\n"), 'ledger/asyncapi/schemas/entry.yaml': ENTRY_YAML },
  ],
  [
    'a payload $ref into a YAML file with a BOM and CRLF',
    {
      [DOC]: withPayload("      payload: { $ref: 'schemas/entry.yaml#/Entry' }\n"),
      'ledger/asyncapi/schemas/entry.yaml': `\uFEFF${ENTRY_YAML.replace(/\n/g, '\r\n')}`,
    },
  ],
  [
    'a payload $ref ../../common/entry.json#/Entry',
    { [DOC]: withPayload("      payload: { $ref: '../../common/entry.json#/Entry' }\n"), 'common/entry.json': ENTRY_JSON },
  ],
  [
    'a payload $ref to a whole file',
    {
      [DOC]: withPayload("      payload: { $ref: 'money.json' }\n"),
      'ledger/asyncapi/money.json': JSON.stringify({ type: 'object', properties: { cents: { type: 'integer' } } }),
    },
  ],
  [
    'a payload $ref with an escaped pointer (~1)',
    {
      [DOC]: withPayload("      payload: { $ref: 'entry.json#/definitions/a~1b' }\n"),
      'ledger/asyncapi/entry.json': JSON.stringify({ definitions: { 'a/b': { type: 'object' } } }),
    },
  ],
  // Holds (pinned): a message, a component schema and a parameter by $ref into locked files.
  [
    'a channel message $ref into messages.yaml',
    {
      [DOC]: edit(LEDGER, "        $ref: '#/components/messages/EntryPosted'\n", "        $ref: 'messages.yaml#/EntryPosted'\n"),
      'ledger/asyncapi/messages.yaml': 'EntryPosted:\n  name: posted\n  payload:\n    type: object\n    properties:\n      cents: { type: integer }\n',
    },
  ],
  [
    'a component schema $ref into a locked file',
    {
      [DOC]: withComponents(withPayload("      payload: { $ref: '#/components/schemas/Entry' }\n"), "  schemas:\n    Entry: { $ref: 'entry.json#/Entry' }\n"),
      'ledger/asyncapi/entry.json': ENTRY_JSON,
    },
  ],
  [
    'a parameter $ref into a locked file',
    {
      [DOC]: edit(LEDGER, '    parameters:\n      region: {}\n', "    parameters:\n      region: { $ref: 'params.yaml#/region' }\n"),
      'ledger/asyncapi/params.yaml': 'region:\n  description: Region.\n',
    },
  ],
  // Holds (pinned): a file name with a space or a non-ASCII letter written raw in the $ref.
  ['a raw "my entry.json" $ref', { [DOC]: withPayload("      payload: { $ref: 'my entry.json#/Entry' }\n"), 'ledger/asyncapi/my entry.json': ENTRY_JSON }],
  ['a raw "café.json" $ref', { [DOC]: withPayload("      payload: { $ref: 'café.json#/Entry' }\n"), 'ledger/asyncapi/café.json': ENTRY_JSON }],
]

describe('bundles: references into locked files compile without a diagnostic', () => {
  it.each(bundleForms)('%s', async (_name, files) => {
    expect(shown(await checkBundle(files, DOC))).toEqual([])
  })
})

describe('bundles: the layout’s imports, links and external artifacts', () => {
  const STREAMS = JSON.stringify(
    {
      streams: [
        {
          name: 'AUDIT',
          subjects: ['audit.>'],
          retention: 'limits',
          storage: 'file',
          num_replicas: 3,
          max_age: 86400000000000,
          max_msgs: 1000000,
          max_bytes: 1073741824,
          discard: 'new',
          duplicate_window: 120000000000,
        },
      ],
      consumers: [
        {
          durable_name: 'reader',
          filter_subject: 'audit.>',
          ack_policy: 'explicit',
          deliver_policy: 'all',
          ack_wait: 30000000000,
          max_deliver: 5,
          max_ack_pending: 100,
          replay_policy: 'instant',
        },
      ],
    },
    null,
    2,
  )
  const CAPTURED = 'ledger/asyncapi/asyncapi.yaml'
  const PAYMENTS = 'payments/asyncapi/asyncapi.yaml'
  /** The imported contract of the layout's example: it receives what payments captures (onCapture). */
  const ledger = `asyncapi: 3.1.0
info: { title: Ledger, version: 2.0.0 }
x-nats-contract:
  version: 0.2.0-draft
  contract: ledger
  deployment: { binding: prod-core, minimumServerVersion: 2.11.0 }
  tokenTypes:
    region:    { kind: enum, values: [eu, us] }
    paymentId: { kind: token, alphabet: lower, first: letter, minLength: 8, maxLength: 40, prefix: pay- }
  channels:
    captured:
      parameters: { zone: region, payment: paymentId }
  operations:
    onCapture: { subscribe: { api: core } }
channels:
  captured:
    address: payments.{zone}.{payment}.captured
    parameters: { zone: {}, payment: {} }
    messages: { captured: { payload: { $ref: '#/components/schemas/Captured' } } }
operations:
  onCapture: { action: receive, channel: { $ref: '#/channels/captured' } }
components:
  schemas:
    Captured:
      type: object
      required: [paymentId, cents]
      properties:
        paymentId: { type: string }
        cents: { type: integer }
`
  /** The layout's "One application document", its lines kept (comments included), completed where it elides. */
  const payments = (alias: string) => `asyncapi: 3.1.0                       # the standard part: AsyncAPI 3.1.0, validated as such
info: { title: Payments, version: 1.4.0 }
x-nats-contract:                      # the profile: one object at the document root
  version: 0.2.0-draft                # exact string; anything else is an unsupported profile
  contract: payments                  # contract id; (contract, info.version) is unique in a bundle
  deployment: { binding: prod-core, minimumServerVersion: 2.11.0 }
  imports:                            # alias -> locked contract
    ${alias}: { contract: ledger, version: 2.0.0, path: ledger/asyncapi/asyncapi.yaml, sha256: ${sha256(ledger)} }
  links:
    - send: capturePayment                              # local operation key
      receive: { contract: ${alias}, operation: onCapture } # contract = import alias
  tokenTypes:
    region:    { kind: enum, values: [eu, us] }
    paymentId: { kind: token, alphabet: lower, first: letter, minLength: 8, maxLength: 40, prefix: pay- }
  channels:                           # keyed by the STANDARD channel id
    paymentCaptured:
      parameters: { region: region, paymentId: paymentId }   # placeholder -> token type
      filters:                                               # name -> subscription template
        inRegion: payments.{region}.*.captured
        all: payments.>
      # optional: publisherIdentity: { kind: subject-permission, peerParameter: <a placeholder> }
    paymentQuery:
      parameters: { paymentId: paymentId }
  operations:                         # keyed by the STANDARD operation id
    capturePayment: { publish: { api: jetstream, confirmation: stream-ack, stream: payments } }
    onCaptured:     { subscribe: { api: jetstream, consumer: billing } }
    getPayment:
      publish: { api: core, confirmation: none }
      requestReply: { routing: native-inbox, completion: first-response, timeoutMs: 2000 }
  streams:                            # local key -> stream
    payments: { authority: contract, config: { name: PAYMENTS, subjects: [payments.>], retention: limits,
                storage: file, num_replicas: 3, max_age: 86400000000000, max_msgs: 1000000,
                max_bytes: 1073741824, discard: new, duplicate_window: 120000000000 } }
    audit:    { authority: external, artifact: { path: native/streams.json, sha256: ${sha256(STREAMS)} }, pointer: /streams/0 }
  consumers:                          # local key -> durable pull consumer; \`stream\` names a local stream key
    billing: { stream: payments, authority: contract, config: { durable_name: billing,
               filter_subject: payments.*.*.captured, ack_policy: explicit, deliver_policy: all,
               ack_wait: 30000000000, max_deliver: 5, max_ack_pending: 100, replay_policy: instant } }
    reader: { stream: audit, authority: external, artifact: { path: native/streams.json, sha256: ${sha256(STREAMS)} }, pointer: /consumers/0 }
channels:                             # standard AsyncAPI channels: the ONLY place addresses live
  paymentCaptured:
    address: payments.{region}.{paymentId}.captured
    parameters: { region: {}, paymentId: {} }
    messages: { captured: { $ref: '#/components/messages/PaymentCaptured' } }
  paymentQuery:
    address: payments.query.{paymentId}
    parameters: { paymentId: {} }
    messages: { query: { payload: { type: object } } }
  paymentReply:
    messages: { payment: { $ref: '#/components/messages/PaymentCaptured' } }
operations:
  capturePayment: { action: send, channel: { $ref: '#/channels/paymentCaptured' } }
  onCaptured: { action: receive, channel: { $ref: '#/channels/paymentCaptured' } }
  getPayment: { action: send, channel: { $ref: '#/channels/paymentQuery' }, reply: { channel: { $ref: '#/channels/paymentReply' } } }
components: { schemas: { Captured: { type: object, required: [paymentId, cents], properties: { paymentId: { type: string, description: an annotation }, cents: { type: integer } } } }, messages: { PaymentCaptured: { payload: { $ref: '#/components/schemas/Captured' } } } }
`

  // Holds (pinned): the layout's application document (imports, a local-send -> imported-receive link, filters, the three
  // operation forms, a contract stream, an external stream and consumer from a locked JSON artifact), compiled from either side.
  it('the layout’s application document and the contract it imports both compile clean', async () => {
    const files = { [CAPTURED]: ledger, [PAYMENTS]: payments('ledger'), 'native/streams.json': STREAMS }
    expect(shown(await checkBundle(files, PAYMENTS))).toEqual([])
    expect(shown(await checkBundle(files, CAPTURED))).toEqual([])
  })

  // Holds (pinned): an import alias other than the imported contract's id ("contract = import alias").
  it('an import alias other than the contract id', async () => {
    const files = { [CAPTURED]: ledger, [PAYMENTS]: payments('books'), 'native/streams.json': STREAMS }
    expect(shown(await checkBundle(files, PAYMENTS))).toEqual([])
  })
})

// ---------------------------------------------------------------------------------------------
// Every rule's verdict beside a shape error.
// ---------------------------------------------------------------------------------------------

const WINDOW = ['        duplicate_window: 120000000000', '        duplicate_window: 2592000000000001']
const WINDOW_AT = ['NATS_STREAM_WINDOW', '/x-nats-contract/streams/ledger/config/duplicate_window']
const OVERLAP = [
  '    address: ledger.balance.{account}',
  '    address: ledger.eu.{account}.posted',
  '      parameters:\n        account: account\n',
  '      parameters:\n        account: entryId\n',
]
const OVERLAP_AT = ['NATS_CHANNEL_OVERLAP', '/channels/balanceQuery/address']
const QUORUM = ['fraction: { numerator: 2, denominator: 3 }', 'fraction: { numerator: 4, denominator: 3 }']
const QUORUM_AT = ['NATS_QUORUM', '/x-nats-contract/interactions/collectBallots/completion/fraction']
const PIPELINE = ['      onFailure: stop', '      onFailure: continue']
const PIPELINE_AT = ['NATS_PIPELINE_STEP', '/x-nats-contract/pipelines/announceOutcome/onFailure']

/** [name, document, the shape error (code, pointer), the rule finding elsewhere (code, pointer)]. */
const besideShapeErrors: Array<[name: string, text: string, shape: string[], rule: string[]]> = [
  // Holds (pinned): an unknown member of a profile channel, of the profile root, of an operation form, of an interaction,
  // of a pipeline, of an adapter, of an audience, of a binding source: the rule elsewhere still reports.
  [
    'an unknown member of a profile channel; a stream window',
    edit(LEDGER, '      publisherIdentity:\n', '      color: red\n      publisherIdentity:\n', ...WINDOW),
    ['NATS_PROFILE_UNSUPPORTED', '/x-nats-contract/channels/entryPosted/color'],
    WINDOW_AT,
  ],
  [
    'an unknown member of the profile root; a channel overlap',
    edit(LEDGER, '  tokenTypes:\n', '  color: red\n  tokenTypes:\n', ...OVERLAP),
    ['NATS_PROFILE_UNSUPPORTED', '/x-nats-contract/color'],
    OVERLAP_AT,
  ],
  [
    'an unknown member of an operation form; a stream window',
    edit(
      LEDGER,
      '      publish: { api: jetstream, confirmation: stream-ack, stream: ledger }',
      '      publish: { api: jetstream, confirmation: stream-ack, stream: ledger, priority: high }',
      ...WINDOW,
    ),
    ['NATS_PROFILE_UNSUPPORTED', '/x-nats-contract/operations/postEntry/publish/priority'],
    WINDOW_AT,
  ],
  [
    'an unknown member of a token type in use; a channel overlap',
    edit(
      LEDGER,
      "    entryId: { kind: token, alphabet: hex, first: any, minLength: 12, maxLength: 12, prefix: '' }",
      "    entryId: { kind: token, alphabet: hex, first: any, minLength: 12, maxLength: 12, prefix: '', note: ids }",
      ...OVERLAP,
    ),
    ['NATS_PROFILE_UNSUPPORTED', '/x-nats-contract/tokenTypes/entryId/note'],
    OVERLAP_AT,
  ],
  [
    'an unknown member of an interaction; a pipeline onFailure',
    edit(BALLOTS_PEER_BOUND, '      aggregation: { adapter: tally }', '      aggregation: { adapter: tally }\n      priority: high', ...PIPELINE),
    ['NATS_PROFILE_UNSUPPORTED', '/x-nats-contract/interactions/collectBallots/priority'],
    PIPELINE_AT,
  ],
  [
    'an unknown member of a pipeline; a quorum fraction',
    edit(BALLOTS_PEER_BOUND, '      onFailure: stop', '      onFailure: stop\n      retries: 3', ...QUORUM),
    ['NATS_PROFILE_UNSUPPORTED', '/x-nats-contract/pipelines/announceOutcome/retries'],
    QUORUM_AT,
  ],
  [
    'an unknown member of an adapter; a quorum fraction',
    edit(BALLOTS_PEER_BOUND, 'description: Counts ballots. }', 'description: Counts ballots., color: red }', ...QUORUM),
    ['NATS_PROFILE_UNSUPPORTED', '/x-nats-contract/adapters/tally/color'],
    QUORUM_AT,
  ],
  [
    'an unknown member of an audience; a pipeline onFailure',
    edit(BALLOTS_PEER_BOUND, 'onRevocation: cancel-open-branches }', 'onRevocation: cancel-open-branches, color: red }', ...PIPELINE),
    ['NATS_PROFILE_UNSUPPORTED', '/x-nats-contract/interactions/collectBallots/audience/color'],
    PIPELINE_AT,
  ],
  [
    'an unknown member of a binding source; a quorum fraction',
    edit(BALLOTS_PEER_BOUND, '          /kind:        { literal: ballot }', '          /kind:        { literal: ballot, note: x }', ...QUORUM),
    ['NATS_PROFILE_UNSUPPORTED', '/x-nats-contract/interactions/collectBallots/bindings/payload/~1kind/note'],
    QUORUM_AT,
  ],
  // Holds (pinned): a wrong type and a missing member (NATS_PROFILE_SHAPE); the rule elsewhere still reports.
  [
    'timeoutMs as a string; a stream window',
    edit(LEDGER, 'timeoutMs: 1500', "timeoutMs: '1500'", ...WINDOW),
    ['NATS_PROFILE_SHAPE', '/x-nats-contract/operations/queryBalance/requestReply/timeoutMs'],
    WINDOW_AT,
  ],
  [
    'deployment without binding; a stream window',
    edit(LEDGER, '    binding: ledger-prod\n', '', ...WINDOW),
    ['NATS_PROFILE_SHAPE', '/x-nats-contract/deployment/binding'],
    WINDOW_AT,
  ],
  [
    'an interaction missing most members; a channel overlap',
    edit(LEDGER, '  streams:\n', '  interactions:\n    bad: { requestOperation: postEntry }\n  streams:\n', ...OVERLAP),
    ['NATS_PROFILE_SHAPE', '/x-nats-contract/interactions/bad/inputs'],
    OVERLAP_AT,
  ],
  // Holds (pinned): closed native configurations with an unsupported field; the rule elsewhere still reports.
  [
    'an unsupported stream field; a disjoint filter',
    edit(
      LEDGER,
      '        discard: new\n',
      '        discard: new\n        max_msgs_per_subject: 10\n',
      '        inRegion: ledger.{region}.*.posted',
      '        inRegion: ledger.{region}.*.deleted',
    ),
    ['NATS_STREAM_CONFIG', '/x-nats-contract/streams/ledger/config/max_msgs_per_subject'],
    ['NATS_FILTER_DISJOINT', '/x-nats-contract/channels/entryPosted/filters/inRegion'],
  ],
  [
    'a push consumer field; a stream window',
    edit(LEDGER, '        replay_policy: instant', '        replay_policy: instant\n        deliver_subject: push.here', ...WINDOW),
    ['NATS_CONSUMER_CONFIG', '/x-nats-contract/consumers/auditor/config/deliver_subject'],
    WINDOW_AT,
  ],
  // Holds (pinned): a shape error and a rule finding in the same object (channel, operation, stream, consumer).
  [
    'an unknown member of a channel; its own disjoint filter',
    edit(
      LEDGER,
      '      publisherIdentity:\n',
      '      color: red\n      publisherIdentity:\n',
      '        inRegion: ledger.{region}.*.posted',
      '        inRegion: ledger.{region}.*.deleted',
    ),
    ['NATS_PROFILE_UNSUPPORTED', '/x-nats-contract/channels/entryPosted/color'],
    ['NATS_FILTER_DISJOINT', '/x-nats-contract/channels/entryPosted/filters/inRegion'],
  ],
  [
    'an unknown member of an operation form; its own direction',
    edit(
      LEDGER,
      '    onEntryPosted:\n      subscribe: { api: jetstream, consumer: auditor }',
      '    onEntryPosted:\n      publish: { api: core, confirmation: none, color: red }',
    ),
    ['NATS_PROFILE_UNSUPPORTED', '/x-nats-contract/operations/onEntryPosted/publish/color'],
    ['NATS_OPERATION_DIRECTION', '/x-nats-contract/operations/onEntryPosted/publish'],
  ],
  [
    'an unsupported stream field; its own window',
    edit(LEDGER, '        discard: new\n', '        discard: new\n        max_msgs_per_subject: 10\n', ...WINDOW),
    ['NATS_STREAM_CONFIG', '/x-nats-contract/streams/ledger/config/max_msgs_per_subject'],
    WINDOW_AT,
  ],
  [
    'an unsupported consumer field; its own filter outside the stream',
    edit(
      LEDGER,
      '        replay_policy: instant',
      '        replay_policy: instant\n        color: red',
      '        filter_subject: ledger.>',
      '        filter_subject: ledger.*.*.posted',
    ),
    ['NATS_CONSUMER_CONFIG', '/x-nats-contract/consumers/auditor/config/color'],
    ['NATS_CONSUMER_OUTSIDE_STREAM', '/x-nats-contract/consumers/auditor/config/filter_subject'],
  ],
  // Holds (pinned): profile rule errors beside each other: an invalid token type, a filter syntax error, a channel overlap.
  [
    'an incomplete unused token type; a channel overlap',
    edit(LEDGER, '    region: { kind: enum, values: [eu, us] }', '    region: { kind: enum, values: [eu, us] }\n    bogus: { kind: token }', ...OVERLAP),
    ['NATS_TOKEN_TYPE', '/x-nats-contract/tokenTypes/bogus'],
    OVERLAP_AT,
  ],
  [
    'a filter syntax error; a channel overlap',
    edit(LEDGER, '        everything: ledger.>', '        everything: ledger.>.x', ...OVERLAP),
    ['NATS_FILTER_SYNTAX', '/x-nats-contract/channels/entryPosted/filters/everything'],
    OVERLAP_AT,
  ],
  // Holds (pinned): shape errors of the standard part (NATS_ASYNCAPI_SCHEMA, NATS_REF_UNRESOLVED); the profile's rules still report.
  [
    'an unknown member of a standard channel; a stream window',
    edit(LEDGER, '  balanceReply:\n    messages:', '  balanceReply:\n    color: red\n    messages:', ...WINDOW),
    ['NATS_ASYNCAPI_SCHEMA', '/channels/balanceReply/color'],
    WINDOW_AT,
  ],
  [
    'an unknown member of a standard channel; the server version',
    edit(
      LEDGER,
      '  balanceReply:\n    messages:',
      '  balanceReply:\n    color: red\n    messages:',
      '    minimumServerVersion: 2.11.0',
      '    minimumServerVersion: 2.10.0',
    ),
    ['NATS_ASYNCAPI_SCHEMA', '/channels/balanceReply/color'],
    ['NATS_SERVER_VERSION', '/x-nats-contract/deployment/minimumServerVersion'],
  ],
  ['an unknown root member; a stream window', edit(LEDGER, 'info:\n', 'color: red\ninfo:\n', ...WINDOW), ['NATS_ASYNCAPI_SCHEMA', '/color'], WINDOW_AT],
  [
    'an unknown member of a standard channel; a channel overlap',
    edit(LEDGER, '  balanceReply:\n    messages:', '  balanceReply:\n    color: red\n    messages:', ...OVERLAP),
    ['NATS_ASYNCAPI_SCHEMA', '/channels/balanceReply/color'],
    OVERLAP_AT,
  ],
  [
    'an unknown member of the channel itself; its stream capture',
    edit(
      LEDGER,
      '    address: ledger.{region}.{entryId}.posted\n',
      '    address: ledger.{region}.{entryId}.posted\n    color: red\n',
      '        subjects: [ledger.eu.>, ledger.us.>]',
      '        subjects: [ledger.eu.>]',
    ),
    ['NATS_ASYNCAPI_SCHEMA', '/channels/entryPosted/color'],
    ['NATS_STREAM_CAPTURE', '/x-nats-contract/operations/postEntry/publish/stream'],
  ],
  [
    'an unknown member of a message; a stream window',
    edit(
      LEDGER,
      '        payload: { type: object, properties: { cents: { type: integer } } }',
      '        payload: { type: object, properties: { cents: { type: integer } } }\n        color: red',
      ...WINDOW,
    ),
    ['NATS_ASYNCAPI_SCHEMA', '/channels/balanceReply/messages/balance/color'],
    WINDOW_AT,
  ],
  [
    'a schema type outside the vocabulary; a stream window',
    edit(LEDGER, '          cents: { type: integer }\n', '          cents: { type: int }\n', ...WINDOW),
    ['NATS_ASYNCAPI_SCHEMA', '/components/messages/EntryPosted/payload/properties/cents/type'],
    WINDOW_AT,
  ],
  [
    'an action AsyncAPI 3 does not have; a stream window',
    edit(LEDGER, '  postEntry:\n    action: send\n', '  postEntry:\n    action: publish\n', ...WINDOW),
    ['NATS_ASYNCAPI_SCHEMA', '/operations/postEntry/action'],
    WINDOW_AT,
  ],
  [
    'an unresolved channel $ref; a stream window',
    edit(LEDGER, "    channel: { $ref: '#/channels/entryPosted' }\n  onEntryPosted", "    channel: { $ref: '#/channels/nowhere' }\n  onEntryPosted", ...WINDOW),
    ['NATS_REF_UNRESOLVED', '/operations/postEntry/channel/$ref'],
    WINDOW_AT,
  ],
]

describe('a shape error never hides another rule’s verdict', () => {
  it.each(besideShapeErrors)('%s', async (_name, text, [shapeCode, shapePointer], [ruleCode, rulePointer]) => {
    const found = (await check(text)).map((d) => [d.code, d.pointer])
    expect(found).toContainEqual([shapeCode, shapePointer])
    expect(found).toContainEqual([ruleCode, rulePointer])
  })
})

// ---------------------------------------------------------------------------------------------
// Defects: valid forms refused, errors where the text says SHOULD, a crash.
// ---------------------------------------------------------------------------------------------

describe('defects: forms a specification or the layout allows', () => {
  // DEFECT: a root channel given as a Reference Object to components.channels is not followed: the profile rules read it
  // as a channel without an address (NATS_PARAMETERS_MISMATCH "address none (the channel has no address)", then
  // NATS_STREAM_CAPTURE and NATS_CONSUMER_FILTER "has no address (a reply channel)"). Expected: no diagnostic, the
  // channel read through its reference. AsyncAPI 3.1.0, Channels Object: "{channelId} | Channel Object | Reference
  // Object | An identifier for the described channel." (@asyncapi/parser accepts the document.)
  it('a root channel given by $ref to components.channels is read through its reference', async () => {
    const text = withComponents(
      edit(
        LEDGER,
        "  entryPosted:\n    address: ledger.{region}.{entryId}.posted\n    parameters:\n      region: {}\n      entryId: {}\n    messages:\n      posted:\n        $ref: '#/components/messages/EntryPosted'\n",
        "  entryPosted:\n    $ref: '#/components/channels/entryPosted'\n",
      ),
      "  channels:\n    entryPosted:\n      address: ledger.{region}.{entryId}.posted\n      parameters:\n        region: {}\n        entryId: {}\n      messages:\n        posted:\n          $ref: '#/components/messages/EntryPosted'\n",
    )
    expect(shown(await check(text))).toEqual([])
  })

  // DEFECT: a root operation given as a Reference Object to components.operations crashes the compiler:
  // CONTRACTS_INTERNAL "the NATS module cannot write the action of operation postEntry in its compact form".
  // Expected: no diagnostic. AsyncAPI 3.1.0, Operations Object: "{operationId} | Operation Object | Reference Object |
  // The operation this application MUST implement." (@asyncapi/parser accepts the document.)
  it('a root send operation given by $ref to components.operations compiles (no internal error)', async () => {
    const text = withComponents(
      edit(
        LEDGER,
        "  postEntry:\n    action: send\n    channel: { $ref: '#/channels/entryPosted' }\n",
        "  postEntry:\n    $ref: '#/components/operations/postEntry'\n",
      ),
      "  operations:\n    postEntry:\n      action: send\n      channel: { $ref: '#/channels/entryPosted' }\n",
    )
    expect(shown(await check(text))).toEqual([])
  })

  // DEFECT: the same for a core receive operation (answerBalance): CONTRACTS_INTERNAL, as above.
  it('a root receive operation given by $ref to components.operations compiles (no internal error)', async () => {
    const text = withComponents(
      edit(
        LEDGER,
        "  answerBalance:\n    action: receive\n    channel: { $ref: '#/channels/balanceQuery' }\n",
        "  answerBalance:\n    $ref: '#/components/operations/answerBalance'\n",
      ),
      "  operations:\n    answerBalance:\n      action: receive\n      channel: { $ref: '#/channels/balanceQuery' }\n",
    )
    expect(shown(await check(text))).toEqual([])
  })

  // DEFECT: a request operation given by $ref is refused NATS_REQUEST_REPLY "requestReply is for a core send only",
  // though the operation it names is a core send with a reply channel without address. Expected: no diagnostic.
  // AsyncAPI 3.1.0, Operations Object: "{operationId} | Operation Object | Reference Object".
  it('a root request operation given by $ref to components.operations keeps its requestReply', async () => {
    const text = withComponents(
      edit(
        LEDGER,
        "  queryBalance:\n    action: send\n    channel: { $ref: '#/channels/balanceQuery' }\n    reply:\n      channel: { $ref: '#/channels/balanceReply' }\n",
        "  queryBalance:\n    $ref: '#/components/operations/queryBalance'\n",
      ),
      "  operations:\n    queryBalance:\n      action: send\n      channel: { $ref: '#/channels/balanceQuery' }\n      reply:\n        channel: { $ref: '#/channels/balanceReply' }\n",
    )
    expect(shown(await check(text))).toEqual([])
  })

  // DEFECT: an operation's reply given as a Reference Object to components.replies is not followed: NATS_REQUEST_REPLY
  // "Operation queryBalance needs a standard reply with a channel for the native inbox". Expected: no diagnostic (the
  // reply it names has the channel balanceReply, which has no address). AsyncAPI 3.1.0, Operation Object: "reply |
  // Operation Reply Object | Reference Object | The definition of the reply in a request-reply operation."; Components
  // Object: "replies | Map[string, Operation Reply Object | Reference Object]". (@asyncapi/parser accepts the document.)
  it('a reply given by $ref to components.replies is read through its reference', async () => {
    const text = withComponents(
      edit(LEDGER, "    reply:\n      channel: { $ref: '#/channels/balanceReply' }\n", "    reply: { $ref: '#/components/replies/balance' }\n"),
      "  replies:\n    balance:\n      channel: { $ref: '#/channels/balanceReply' }\n      messages: [{ $ref: '#/channels/balanceReply/messages/balance' }]\n",
    )
    expect(shown(await check(text))).toEqual([])
  })

  // DEFECT: a Parameter Object's `location` in the headers is refused NATS_UNSUPPORTED "$message.header#/region
  // correlates through a header". A parameter location is not correlation: AsyncAPI 3.1.0, Parameter Object: "location |
  // string | A runtime expression that specifies the location of the parameter value." The profile refuses only
  // "Header correlation/success predicates" ("Header correlation/success predicates are unsupported in this version"),
  // and the project's own NATS_UNSUPPORTED then read "a correlationId or reply address located in message headers".
  // Expected: no diagnostic. (@asyncapi/parser accepts the document.)
  it('a channel parameter whose location is in the headers is not header correlation', async () => {
    const text = edit(LEDGER, '    parameters:\n      region: {}\n', "    parameters:\n      region: { location: '$message.header#/region' }\n")
    expect(shown(await check(text))).toEqual([])
  })

  // DEFECT: a parameter given as a Reference Object to another channel's Parameter Object is refused NATS_REF_KIND
  // "$ref ... is here to name a parameter; it names something else", though `#/channels/entryPosted/parameters/region`
  // is a Parameter Object. Expected: no diagnostic. AsyncAPI 3.1.0, Parameters Object: "{parameterName} | Parameter
  // Object | Reference Object"; Reference Object: "A simple object to allow referencing other components in the
  // specification, internally and externally." (@asyncapi/parser accepts the document.)
  it('a parameter given by $ref to another channel’s parameter names a parameter', async () => {
    const text = edit(LEDGER, '    parameters:\n      account: {}\n', "    parameters:\n      account: { $ref: '#/channels/entryPosted/parameters/region' }\n")
    expect(shown(await check(text))).toEqual([])
  })

  // Reviewed (the defect reported here was half right): a `pattern` that is no regular expression at all (an unclosed
  // class) was refused as NATS_ASYNCAPI_SCHEMA "must match format regex", a schema violation, where the Schema Object
  // says only SHOULD and @asyncapi/parser accepts the document. It is now NATS_PATTERN_INVALID: still an error, since
  // no validator can check what it asks (the project's rule: an error where the generator cannot do what is asked,
  // named as unsupported), at the pattern, in every position (`pattern`, a `patternProperties` name).
  it('a `pattern` that is no regular expression is NATS_PATTERN_INVALID at the pattern (no validator can check it), not a schema violation', async () => {
    const diagnostics = await check(edit(LEDGER, '          entryId: { type: string }\n', "          entryId: { type: string, pattern: '[0-9a-f' }\n"))
    expect(diagnostics.map((d) => [d.code, d.severity, d.pointer])).toEqual([
      ['NATS_PATTERN_INVALID', 'error', '/components/messages/EntryPosted/payload/properties/entryId/pattern'],
    ])
  })

  it('a `patternProperties` name that is no regular expression is NATS_PATTERN_INVALID at the name', async () => {
    const diagnostics = await check(
      edit(
        LEDGER,
        '          entryId: { type: string }\n',
        "          entryId: { type: string }\n          meta: { type: object, patternProperties: { '[a-': { type: string } } }\n",
      ),
    )
    expect(diagnostics.map((d) => [d.code, d.severity, d.pointer])).toEqual([
      ['NATS_PATTERN_INVALID', 'error', '/components/messages/EntryPosted/payload/properties/meta/patternProperties/[a-'],
    ])
  })

  it('a pattern as .NET writes it, (?i)^[0-9a-f]+$, compiles with a warning (SHOULD) and is read case-insensitively', async () => {
    const diagnostics = await check(edit(LEDGER, '          entryId: { type: string }\n', "          entryId: { type: string, pattern: '(?i)^[0-9a-f]+$' }\n"))
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([])
    expect(diagnostics.map((d) => d.code)).toContain('NATS_PATTERN_DIALECT')
  })

  // DEFECT: the layout's own interaction ("Inside an interaction and a pipeline": payload bindings /operationId,
  // /branchId, /attempt, /fence, /requestedBy, /kind; correlation peer '$message.payload#/peerId') is refused
  // NATS_BINDING_CORRELATION "/peerId carries the peer correlation and must be bound from branch:peerId", though
  // nothing binds /peerId from business data and the request schema does not require it. Without peerId in the request
  // schema it is NATS_CORRELATION instead, so no completion of the layout's example compiles. Expected: no diagnostic.
  // The layout: "every form shown there must be accepted"; the seed forbids only overwriting: "correlation metadata
  // cannot be overwritten by business data", and requires binding only "Every required payload field must be bound";
  // docs/nats.md: NATS_BINDING_CORRELATION is "A payload location that correlation reads is bound from business data
  // instead of the fact it names."
  it('the layout’s interaction, bindings exactly as shown, compiles', async () => {
    expect(shown(await check(BALLOTS))).toEqual([])
  })

  // DEFECT: a `$ref` to a locked file whose name holds a space, written as a URI ("my%20entry.json"), is read as the
  // literal name "my%20entry.json": NATS_UNLOCKED_FILE "ledger/asyncapi/my%20entry.json is read for validation but
  // bundle.lock.json does not list it". Expected: no diagnostic (the lock lists "my entry.json"). AsyncAPI 3.1.0,
  // Reference Object: "The Reference Object is defined by JSON Reference and follows the same structure, behavior and
  // rules"; JSON Reference: "The "$ref" string value contains a URI [RFC3986]"; RFC 3986 2.1: a percent-encoded octet
  // is "used to represent a data octet in a component" (a space is %20, é is %C3%A9). A same-document fragment with %20
  // (#/components/schemas/Cents%20Amount) is decoded, and pinned above.
  it('a $ref to a locked file is percent-decoded (my%20entry.json names "my entry.json")', async () => {
    const files = { [DOC]: withPayload("      payload: { $ref: 'my%20entry.json#/Entry' }\n"), 'ledger/asyncapi/my entry.json': ENTRY_JSON }
    expect(shown(await checkBundle(files, DOC))).toEqual([])
  })
})
