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
