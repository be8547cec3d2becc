/** `materializeBranches` (one admission's requests from one read of its bindings) against a full `materialize` per branch. */
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { materialize, materializeBranches, type Interaction } from '../src/runtime/nats/interactions.js'
import { loadModule } from './helpers/load-module.js'
import { ShopBundle } from './helpers/nats-bundle.js'

const interactions: Interaction[] = []
const runs = Number(process.env.PROPERTY_RUNS ?? 200)

beforeAll(async () => {
  const shop = ShopBundle.copy('materialize-branches').relock()
  for (const name of ['payments', 'shipping']) {
    const result = await compile(shop.doc(name))
    expect(result.diagnostics).toEqual([])
    const mod = (await loadModule(result.code!, `${name}-branches`)) as { interactions: Record<string, Interaction> }
    interactions.push(...Object.values(mod.interactions).filter((i) => i.subject))
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
})
