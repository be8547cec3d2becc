/**
 * `materializeBranches` (one admission's requests from one read of its bindings) against a full
 * `materialize` per branch; the executor's expected result subject against parsing it.
 */
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { materialize, materializeBranches, type Interaction } from '../src/runtime/nats/interactions.js'
import { expectedSubject } from '../src/runtime/nats/executor/dispatch/expected-subject.js'
import type { Channel } from '../src/runtime/nats/subjects.js'
import { loadModule } from './helpers/load-module.js'
import { ShopBundle } from './helpers/nats-bundle.js'

const interactions: Interaction[] = []
const channels: Channel<any, any, any>[] = []
const runs = Number(process.env.PROPERTY_RUNS ?? 200)

beforeAll(async () => {
  const shop = ShopBundle.copy('materialize-branches').relock()
  for (const name of ['payments', 'shipping']) {
    const result = await compile(shop.doc(name))
    expect(result.diagnostics).toEqual([])
    const mod = (await loadModule(result.code!, `${name}-branches`)) as {
      interactions: Record<string, Interaction>
      channels: Record<string, Channel<any, any, any>>
    }
    interactions.push(...Object.values(mod.interactions).filter((i) => i.subject))
    channels.push(...Object.values(mod.channels).filter((c) => c.subject && Object.keys(c.parameters).length > 0))
  }
  expect(interactions.map((i) => i.id)).toContain('approveRefund')
})

type Outcome = { ok: true; subject: string; text: string; payload: unknown } | { ok: false; name: string; code: unknown; message: string; errors: unknown }
const outcomeOf = (f: () => { subject: string; payload: Record<string, unknown> }): Outcome => {
  try {
    const { subject, payload } = f()
    return { ok: true, subject, text: JSON.stringify(payload), payload }
  } catch (error) {
    const e = error as Error & { code?: unknown; errors?: unknown }
    return { ok: false, name: e.name, code: e.code, message: e.message, errors: e.errors }
  }
}

const token = fc.stringMatching(/^[a-z][a-z0-9-]{0,11}$/)
const op = fc.stringMatching(/^[0-9a-f]{64}$/).map((h) => `op${h}`)
// Mostly well-formed values, sometimes anything JSON (or not) can hold: both paths must agree either way.
const anyValue = fc.oneof(token, fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(undefined, -0, 2.5, '', NaN))
const integer = fc.oneof(fc.nat({ max: 5 }), fc.constantFrom(-1, -0, 1.5, Number.MAX_SAFE_INTEGER + 2, '1'))
const refund = fc.oneof(fc.record({ paymentId: fc.stringMatching(/^pay-[0-9]{1,8}$/), amount: fc.integer({ min: 0, max: 1000 }) }), anyValue)
const branch = fc.record({ id: fc.oneof(token, anyValue), peerId: fc.oneof(token, token, anyValue), attempt: integer, fence: integer })

describe('materializeBranches', () => {
  it('gives each branch exactly what a full materialize gives it: the same subject and payload JSON, or the same error', () => {
    fc.assert(
      fc.property(
        fc.nat(),
        fc.record({ operationId: op, group: fc.oneof(token, anyValue), refund, other: fc.oneof(token, anyValue) }),
        fc.record({ principalId: fc.oneof(token, token, fc.constant('')), nowMs: integer, deadlineMs: fc.oneof(integer, fc.constant(null)) }),
        fc.array(branch, { minLength: 1, maxLength: 6 }),
        (pick, given, context, branches) => {
          const interaction = interactions[pick % interactions.length]!
          const inputs: Record<string, unknown> = {}
          // The interaction's own inputs, each given a value of the kind drawn.
          for (const name of Object.keys(interaction.inputs)) {
            const drawn = name === 'operationId' ? given.operationId : name === 'refund' ? given.refund : name === 'group' ? given.group : given.other
            if (drawn !== undefined) inputs[name] = drawn
          }
          const values = { inputs, context }
          const each = materializeBranches(interaction, values)
          for (const b of branches) {
            const fast = outcomeOf(() => each(b))
            const whole = outcomeOf(() => materialize(interaction, { ...values, branch: b }))
            expect(fast).toEqual(whole)
          }
        },
      ),
      { numRuns: runs },
    )
  })

  it('writes only the branch members: every request of an admission keeps its own id, peer, attempt and fence', () => {
    const approve = interactions.find((i) => i.id === 'approveRefund')!
    const operationId = 'op' + 'cd'.repeat(32)
    const each = materializeBranches(approve, {
      inputs: { operationId, group: 'approvers', refund: { paymentId: 'pay-1', amount: 10 } },
      context: { principalId: 'alice' },
    })
    const peers = ['ann', 'bob', 'cat']
    const requests = peers.map((p, i) => each({ id: `b-${p}`, peerId: p, attempt: 1, fence: i }))
    expect(requests.map((r) => r.subject)).toEqual(peers.map((p) => `payments.refunds.${operationId}.vote.${p}`))
    expect(requests.map((r) => r.payload)).toEqual(
      peers.map((p, i) => ({
        operationId,
        branchId: `b-${p}`,
        attempt: 1,
        fence: i,
        peerId: p,
        requestedBy: 'alice',
        refund: { paymentId: 'pay-1', amount: 10 },
      })),
    )
  })

  it('accepts as the expected result subject only what parses with the peer at the target parameter', () => {
    const piece = fc.oneof(token, fc.constantFrom('', '*', '>', 'a.b', 'op' + 'ab'.repeat(32), 'payments', 'refunds', 'ballot', 'x'.repeat(200)))
    let accepted = 0
    fc.assert(
      fc.property(
        fc.nat(),
        fc.nat(),
        fc.dictionary(fc.oneof(token, fc.constantFrom('operationId', 'peerId', 'region')), piece),
        piece,
        fc.boolean(),
        (c, t, values, peer, honest) => {
          const channel = channels[c % channels.length]!
          const params = Object.keys(channel.parameters)
          const target = params[t % params.length]!
          const is = expectedSubject(channel, target, new Set(Object.keys(values)))?.((param) => values[param])
          if (is === undefined) return
          // The subject a peer answers on (when its values render), or one drawn at random.
          let subject = [...Object.values(values), peer].join('.')
          if (honest) {
            try {
              subject = channel.subject!.render({ ...values, [target]: peer })
            } catch {
              // A peer id out of its domain: the drawn subject stands.
            }
          }
          const parsed = channel.subject!.tryParse(subject) as Record<string, string> | undefined
          if (is(subject, peer)) {
            accepted++
            expect(parsed?.[target]).toBe(peer)
          }
        },
      ),
      { numRuns: runs * 5 },
    )
    expect(accepted).toBeGreaterThan(0)
  })
})
