/** Part 2 descriptors and runtime helpers: operationId, quorumThreshold, materialize. */
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { materialize, operationId, quorumThreshold, MaterializeError } from '../src/runtime/nats/interactions.js'
import { loadModule } from './helpers/load-module.js'
import { ShopBundle } from './helpers/nats-bundle.js'

let payments: Record<string, any>
let shipping: Record<string, any>
const runs = Number(process.env.PROPERTY_RUNS ?? 200)

beforeAll(async () => {
  const shop = ShopBundle.copy('interactions').relock()
  const p = await compile(shop.doc('payments'))
  const s = await compile(shop.doc('shipping'))
  expect([...p.diagnostics, ...s.diagnostics]).toEqual([])
  payments = await loadModule(p.code!, 'payments-interactions')
  shipping = await loadModule(s.code!, 'shipping-interactions')
})

const op = 'op' + 'ab'.repeat(32)

describe('descriptors', () => {
  it('interactions, pipelines, workflows and adapters are frozen, normalized and linked to their source', () => {
    const approve = payments.interactions.approveRefund
    expect(Object.isFrozen(approve)).toBe(true)
    expect(approve).toMatchObject({
      id: 'approveRefund',
      requestOperation: 'requestRefundVote',
      requestChannel: 'refundVote',
      completion: { mode: 'quorum', fraction: { numerator: 2, denominator: 3 }, remaining: 'cooperative', cancelOperation: 'cancelRefundVote' },
      inputs: { operationId: { source: 'generated', tokenTypeName: 'operationId' } },
      source: { file: 'payments/asyncapi/asyncapi.yaml', pointer: '/x-nats-contract/interactions/approveRefund' },
    })
    expect(approve.subject).toBe(payments.refundVote.subject)
    expect(payments.pipelines.announceRefund.steps.map((s: any) => s.interaction ?? s.operation)).toEqual(['approveRefund', 'publishRefundOutcome'])
    expect(payments.workflows.refundFlow).toMatchObject({ adapter: 'refundWorkflow', artifact: { path: 'payments/workflows/refund.yaml' } })
    expect(payments.adapters.tally).toMatchObject({ kind: 'aggregation', version: '1.1.0', outputSchema: '#/components/schemas/RefundOutcome' })
    expect(shipping.interactions.assignCourier).toMatchObject({
      dispatch: { mode: 'one-eligible' },
      delivery: { state: 'durable', ownership: { leaseMs: 30000 } },
    })
  })
})

describe('materialize', () => {
  const values = {
    inputs: { operationId: op, group: 'approvers', refund: { paymentId: 'pay-1', amount: 10 } },
    context: { principalId: 'alice' },
    branch: { id: 'b-1', peerId: 'bob', attempt: 1, fence: 7 },
  }

  it('applies the bindings: subject from inputs and branch, payload from every source', () => {
    expect(materialize(payments.interactions.approveRefund, values)).toEqual({
      subject: `payments.refunds.${op}.vote.bob`,
      payload: { operationId: op, branchId: 'b-1', attempt: 1, fence: 7, peerId: 'bob', requestedBy: 'alice', refund: { paymentId: 'pay-1', amount: 10 } },
    })
  })

  it('checks every subject value against its domain, context and branch values included', () => {
    expect(() => materialize(payments.interactions.approveRefund, { ...values, branch: { ...values.branch, peerId: 'Bob.Smith' } })).toThrow(
      expect.objectContaining({ name: 'SubjectError', code: 'SUBJECT_INVALID_VALUE' }),
    )
    expect(() => materialize(payments.interactions.approveRefund, { ...values, inputs: { ...values.inputs, operationId: 'op123' } })).toThrow(MaterializeError)
    expect(() => materialize(payments.interactions.approveRefund, { ...values, context: {} })).toThrow(
      expect.objectContaining({ code: 'MATERIALIZE_MISSING_VALUE' }),
    )
  })

  it('validates every input declared with a schema before dispatch, without runtime-schema-check too', () => {
    expect(payments.interactions.approveRefund.capabilities).not.toContain('runtime-schema-check')
    for (const refund of [42, { paymentId: 'pay-1' }, { paymentId: 'pay-1', amount: 'ten' }]) {
      expect(() => materialize(payments.interactions.approveRefund, { ...values, inputs: { ...values.inputs, refund } }), JSON.stringify(refund)).toThrow(
        expect.objectContaining({
          name: 'MaterializeError',
          code: 'MATERIALIZE_INVALID_INPUT',
          errors: [expect.objectContaining({ code: expect.any(String) })],
        }),
      )
    }
    expect(materialize(payments.interactions.approveRefund, values).payload).toMatchObject({ refund: values.inputs.refund })
  })

  it('with runtime-schema-check, validates the materialized payload with the generated validator', async () => {
    const shop = ShopBundle.copy('schema-check')
    shop.withRuntimeSchemaCheck().relock()
    const mod = await loadModule((await compile(shop.doc('payments'))).code!, 'payments-checked')
    expect(materialize(mod.interactions.approveRefund, values).subject).toContain('.vote.bob')
    // A bad input is refused as an input; a bad value from elsewhere (context) by the payload check.
    const badInput = { ...values, inputs: { ...values.inputs, refund: { paymentId: 'pay-1', amount: 'ten' } } }
    expect(() => materialize(mod.interactions.approveRefund, badInput)).toThrow(
      expect.objectContaining({ code: 'MATERIALIZE_INVALID_INPUT', errors: [expect.objectContaining({ path: '/amount' })] }),
    )
    const badContext = { ...values, context: { principalId: 7 } }
    expect(() => materialize(mod.interactions.approveRefund, badContext)).toThrow(
      expect.objectContaining({ code: 'MATERIALIZE_INVALID_PAYLOAD', errors: [expect.objectContaining({ path: '/requestedBy' })] }),
    )
  })

  it("validates a {branch: input} value against the manifest's input slot before dispatch", async () => {
    const shop = ShopBundle.copy('branch-input-slot')
      .withBranchManifest({
        Manifest: "{ type: array, items: { $ref: '#/components/schemas/Branch' } }",
        Branch:
          '{ type: object, required: [branchId, peerId, input], properties: { branchId: { type: string }, peerId: { type: string }, input: { type: string, minLength: 3 } } }',
      })
      .edit('payments/asyncapi/asyncapi.yaml', '          /requestedBy: { context: principalId }', '          /requestedBy: { branch: input }')
      // A branch input is never proven statically (NATS_BINDING_UNPROVEN), so the payload is checked too.
      .withRuntimeSchemaCheck()
      .relock()
    const result = await compile(shop.doc('payments'))
    expect(result.diagnostics).toEqual([])
    const mod = await loadModule(result.code!, 'payments-branch-slot')
    const withInput = (input: unknown) => ({ ...values, branch: { ...values.branch, input } })
    expect(materialize(mod.interactions.approveRefund, withInput('carol')).payload).toMatchObject({ requestedBy: 'carol' })
    for (const bad of ['ab', 42, null, { name: 'carol' }])
      expect(() => materialize(mod.interactions.approveRefund, withInput(bad)), JSON.stringify(bad)).toThrow(
        expect.objectContaining({ code: 'MATERIALIZE_INVALID_INPUT', message: expect.stringContaining('manifest slot') }),
      )
  })

  it('with runtime-schema-check, a hostile payload pattern runs in linear time: an attack input is refused at once', async () => {
    const shop = ShopBundle.copy('schema-check-redos')
    shop
      .withRuntimeSchemaCheck()
      .edit('payments/asyncapi/asyncapi.yaml', 'paymentId: { type: string }', "paymentId: { type: string, pattern: '^(p+)+$$' }")
      .relock()
    const result = await compile(shop.doc('payments'))
    expect(result.diagnostics).toEqual([])
    expect(result.code).toContain('runtime/linear-pattern')
    const mod = await loadModule(result.code!, 'payments-redos')
    const attack = { ...values, inputs: { ...values.inputs, refund: { paymentId: 'p'.repeat(40) + '!', amount: 10 } } }
    expect(() => materialize(mod.interactions.approveRefund, attack)).toThrow(expect.objectContaining({ code: 'MATERIALIZE_INVALID_INPUT' }))
    expect(
      materialize(mod.interactions.approveRefund, { ...values, inputs: { ...values.inputs, refund: { paymentId: 'ppp', amount: 10 } } }).subject,
    ).toContain('.vote.bob')
  })

  it('never yields a subject outside its channel language (property)', () => {
    const token = fc.string({ minLength: 0, maxLength: 40 })
    fc.assert(
      fc.property(token, token, fc.string({ maxLength: 70 }), (peerId, principal, operation) => {
        let result: { subject: string } | undefined
        try {
          result = materialize(payments.interactions.approveRefund, {
            ...values,
            inputs: { ...values.inputs, operationId: operation },
            branch: { ...values.branch, peerId },
            context: { principalId: principal },
          })
        } catch {
          return true
        }
        return payments.refundVote.subject.matches(result.subject)
      }),
      { numRuns: runs * 5 },
    )
  })
})

describe('quorumThreshold', () => {
  it('is ceil(numerator * units / denominator), exactly (property against BigInt arithmetic)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e6 }), fc.integer({ min: 1, max: 1e6 }), fc.integer({ min: 0, max: 1e9 }), (a, b, units) => {
        const [numerator, denominator] = a <= b ? [a, b] : [b, a]
        const t = quorumThreshold(numerator, denominator, units)
        // The smallest integer t with t * denominator >= numerator * units.
        const need = BigInt(numerator) * BigInt(units)
        return BigInt(t) * BigInt(denominator) >= need && (t === 0 || BigInt(t - 1) * BigInt(denominator) < need) && t <= units
      }),
      { numRuns: runs * 5 },
    )
  })

  it('refuses what the profile forbids', () => {
    expect(() => quorumThreshold(3, 2, 5)).toThrow(RangeError)
    expect(() => quorumThreshold(0, 2, 5)).toThrow(RangeError)
    expect(() => quorumThreshold(1, 2, -1)).toThrow(RangeError)
    expect(quorumThreshold(2, 3, 4)).toBe(3)
  })
})

describe('operationId', () => {
  it('is op + 64 lowercase hex and depends on every part', async () => {
    const id = await operationId('alice', 'a'.repeat(64), 'key-1')
    expect(id).toMatch(/^op[0-9a-f]{64}$/)
    expect(await operationId('alice', 'a'.repeat(64), 'key-2')).not.toBe(id)
    // Length prefixes keep ("ab", "c") and ("a", "bc") apart.
    expect(await operationId('ab', 'c', '')).not.toBe(await operationId('a', 'bc', ''))
  })
})
