/**
 * A small NATS document for tests that change one thing of it: one channel `placed` on
 * `orders.{region}.placed`, a publisher `pub` and a subscriber `sub` of it. `profile` is what the
 * profile holds after its channels (the operations, then any streams or consumers), as YAML lines
 * indented under `x-nats-contract`; `message` the message's own lines (its payload by default).
 */
export function miniNatsDocument(options: { profile?: readonly string[]; message?: readonly string[] } = {}): string {
  const profile = options.profile ?? ['  operations:', '    pub: { publish: { api: core, confirmation: none } }', '    sub: { subscribe: { api: core } }']
  const message = options.message ?? ['        payload: { type: integer }']
  return [
    'asyncapi: 3.1.0',
    'info: { title: M, version: 1.0.0 }',
    'x-nats-contract:',
    '  version: 0.2.0-draft',
    '  contract: m',
    '  deployment: { binding: b, minimumServerVersion: 2.11.0 }',
    '  tokenTypes:',
    '    region: { kind: enum, values: [eu, us] }',
    '  channels:',
    '    placed: { parameters: { region: region } }',
    ...profile,
    'channels:',
    '  placed:',
    '    address: orders.{region}.placed',
    '    parameters: { region: {} }',
    '    messages:',
    '      placed:',
    ...message,
    'operations:',
    "  pub: { action: send, channel: { $ref: '#/channels/placed' } }",
    "  sub: { action: receive, channel: { $ref: '#/channels/placed' } }",
    '',
  ].join('\n')
}

/** One channel `c` with the messages given (name to the message's YAML flow mapping), a publisher `pub` and a subscriber `sub`; `ops` replaces the operations. */
export function natsChannelDocument(
  messages: Record<string, string>,
  options: { channel?: string; terms?: string; parameters?: string; ops?: string[]; region?: string } = {},
): string {
  const channel = options.channel ?? 'c'
  return [
    'asyncapi: 3.1.0',
    'info: { title: T, version: 1.0.0 }',
    'x-nats-contract:',
    '  version: 0.2.0-draft',
    '  contract: t',
    '  deployment: { binding: b, minimumServerVersion: 2.11.0 }',
    '  tokenTypes:',
    `    region: ${options.region ?? '{ kind: enum, values: [eu, us] }'}`,
    "    peer: { kind: token, alphabet: lower, first: letter, minLength: 1, maxLength: 20, prefix: '' }",
    '  channels:',
    `    ${channel}:`,
    '      parameters: { region: region, peer: peer }',
    ...(options.terms ? [`      ${options.terms}`] : []),
    '  operations:',
    '    pub: { publish: { api: core, confirmation: none } }',
    '    sub: { subscribe: { api: core } }',
    'channels:',
    `  ${channel}:`,
    '    address: o.{region}.{peer}.x',
    `    parameters: ${options.parameters ?? '{ region: {}, peer: {} }'}`,
    '    messages:',
    ...Object.entries(messages).map(([name, body]) => `      ${name}: ${body}`),
    'operations:',
    ...(options.ops ?? [
      `  pub: { action: send, channel: { $ref: '#/channels/${channel}' } }`,
      `  sub: { action: receive, channel: { $ref: '#/channels/${channel}' } }`,
    ]),
    '',
  ].join('\n')
}

/** `document` (a NATS document without components) with `schemas` (name to schema) as its component schemas, each on one line. */
export function withComponentSchemas(document: string, schemas: Readonly<Record<string, unknown>>): string {
  return [
    document.trimEnd(),
    'components:',
    '  schemas:',
    ...Object.entries(schemas).map(([name, schema]) => `    ${name}: ${JSON.stringify(schema)}`),
    '',
  ].join('\n')
}
