/**
 * `materialize` builds the subject parameters and the payload as plain objects whose members are
 * assigned (a definition each was most of its time), except `__proto__`, the one key whose
 * assignment would set the prototype instead: a binding to `/__proto__` (or a path through it) and a
 * subject parameter named `__proto__` still give own, enumerable members, in `materialize` and in
 * `materializeBranches`' template path alike, and nothing reaches `Object.prototype`.
 */
import { describe, expect, it } from 'vitest'
import { createInteraction, materialize, materializeBranches } from '../src/runtime/nats/interactions.js'
import { createChannel } from '../src/runtime/nats/subjects.js'

const token = { kind: 'token', alphabet: 'lower', first: 'letter', minLength: 1, maxLength: 16, prefix: '' } as const
const channel = createChannel({
  id: 'vote',
  address: 'votes.{__proto__}.{peerId}',
  // Parsed, not written as a literal: `__proto__:` in a literal sets the prototype instead.
  parameters: JSON.parse(JSON.stringify({ proto: token, peerId: token }).replace('"proto"', '"__proto__"')),
  filters: [],
  source: { document: 'test', pointer: '/channels/vote' } as never,
})

const interaction = createInteraction(
  {
    id: 'protoVote',
    requestOperation: 'requestVote',
    capabilities: [],
    inputs: { topic: { source: 'argument', tokenType: token }, note: { source: 'argument' } },
    bindings: {
      subject: JSON.parse('{"__proto__":{"input":"topic"},"peerId":{"branch":"peerId"}}'),
      payload: {
        '/__proto__': { input: 'note' },
        '/nested/__proto__/x': { input: 'topic' },
        '/branchId': { branch: 'id' },
        '/peerId': { branch: 'peerId' },
      },
    },
  },
  channel,
)

const inputs = { topic: 'refunds', note: 'kept' }
const own = (o: object, key: string) => Object.getOwnPropertyDescriptor(o, key)

describe('materialize members named __proto__', () => {
  it('are own enumerable members of the payload, and the subject renders the parameter', () => {
    const { subject, payload } = materialize(interaction, { inputs, branch: { id: 'ann', peerId: 'ann', attempt: 1, fence: 0 } })
    expect(subject).toBe('votes.refunds.ann')
    expect(own(payload, '__proto__')).toMatchObject({ value: 'kept', enumerable: true, writable: true })
    expect(Object.getPrototypeOf(payload)).toBe(Object.prototype)
    const nested = payload['nested'] as Record<string, unknown>
    expect(own(own(nested, '__proto__')!.value as object, 'x')?.value).toBe('refunds')
    expect(JSON.parse(JSON.stringify(payload))).toEqual(
      JSON.parse('{"__proto__":"kept","nested":{"__proto__":{"x":"refunds"}},"branchId":"ann","peerId":"ann"}'),
    )
    expect(Object.hasOwn(Object.prototype, 'x')).toBe(false)
  })

  it('are the same in every branch of materializeBranches (the template path)', () => {
    const requestFor = materializeBranches(interaction, { inputs })
    for (const peer of ['ann', 'bob', 'cat']) {
      const made = requestFor({ id: peer, peerId: peer, attempt: 1, fence: 0 })
      const whole = materialize(interaction, { inputs, branch: { id: peer, peerId: peer, attempt: 1, fence: 0 } })
      expect(made.subject).toBe(`votes.refunds.${peer}`)
      expect(JSON.stringify(made.payload)).toBe(JSON.stringify(whole.payload))
      expect(own(made.payload, '__proto__')?.value).toBe('kept')
    }
  })
})
