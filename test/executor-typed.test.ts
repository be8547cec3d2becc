/**
 * The executor typed end to end from the contract (tsc --strict, TypeScript 6 and 7): with no type
 * argument written, `createExecutor` takes the result payload (the verifier's and aggregation's
 * argument, what the success predicate reads), the aggregation's output, the invocation's inputs and
 * a manifest's branch input from the generated declaration of the interaction. Every line marked
 * `@ts-expect-error` must be an error (an unused directive fails the check), and the same constructs
 * written correctly must compile.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { TSC, TSC7 } from './helpers/cli.js'
import { ShopBundle } from './helpers/nats-bundle.js'
import { typecheck } from './helpers/typecheck.js'

const dir = join(import.meta.dirname, '.tmp', 'executor-typed')
const MANIFEST = {
  Manifest:
    '{ type: array, items: { type: object, required: [branchId, peerId, input], properties: { branchId: { type: string }, peerId: { type: string }, input: { type: string } } } }',
}

const source = `import * as payments from './payments.js'
import * as manifested from './manifested.js'
import { createExecutor, createResponder, type AdapterCall } from 'unplugin-contracts/runtime/nats/executor'
import type { NatsConnection } from '@nats-io/nats-core'
declare const nc: NatsConnection
const deployment = { senderPeerId: 's', scopeId: 's', systemId: 's', accountId: 'a', jetstreamDomain: 'd', policyRevision: 'p' }
const base = { connection: nc, module: payments, contractDigest: 'ab', deployment }
const audience = () => ({ revision: 'r', peers: ['ann'] })
const authorization = () => ({ allowed: true })

// The result payload and the output come from the contract: RefundBallot in, RefundOutcome out.
const made = createExecutor({
  ...base,
  interaction: payments.interactions.approveRefund,
  adapters: {
    audience,
    authorization,
    verifier: ({ data }) => ({ allowed: data.approve && data.peerId === data.branchId }),
    aggregation: ({ context, data }) => ({ operationId: context.operationId, approved: data.every((ballot) => ballot.approve) }),
  },
})
export async function run() {
  if (!made.ok) return made.code
  const r = await made.value.invoke({ principalId: 'a', idempotencyKey: 'k', inputs: { group: 'approvers', refund: { paymentId: 'pay-12345678', amount: 1 } } })
  if (!r.ok) return r.code
  const approved: boolean | undefined = r.value.output?.approved
  const ballot: payments.RefundBallot | undefined = undefined
  // @ts-expect-error the output's approved is a boolean
  const count: number | undefined = r.value.output?.approved
  return [approved, ballot, count]
}

createExecutor({
  ...base,
  interaction: payments.interactions.approveRefund,
  adapters: {
    audience,
    authorization,
    // @ts-expect-error a ballot's approve is a boolean, not a number
    verifier: ({ data }) => ({ allowed: data.approve.toFixed() === '1' }),
  },
})

createExecutor({
  ...base,
  interaction: payments.interactions.approveRefund,
  adapters: {
    audience,
    authorization,
    // @ts-expect-error an adapter written for another payload is not inferred into the executor's type: it is refused
    verifier: (call: AdapterCall<{ approve: string }>) => ({ allowed: call.data.approve === 'yes' }),
  },
})

createExecutor({
  ...base,
  interaction: payments.interactions.approveRefund,
  adapters: {
    audience,
    authorization,
    // @ts-expect-error the aggregation returns a RefundOutcome (operationId and a boolean approved)
    aggregation: ({ data }) => ({ approved: data.length }),
  },
})

// A branch manifest's input slot (a string here) types the manifest adapter's entries, and the manifest is an input.
const withManifest = createExecutor({
  ...base,
  module: manifested,
  interaction: manifested.interactions.approveRefund,
  adapters: {
    audience,
    authorization,
    manifest: ({ data }) => ({ authenticated: data.entries.every((e) => e.input.length > 0 && e.peerId !== '') && data.digest.length === 64 }),
  },
})
createExecutor({
  ...base,
  module: manifested,
  interaction: manifested.interactions.approveRefund,
  adapters: {
    audience,
    authorization,
    // @ts-expect-error a branch input is a string
    manifest: ({ data }) => ({ authenticated: data.entries.every((e) => e.input.toFixed() === '1') }),
  },
})
export async function branches() {
  if (!withManifest.ok) return
  const refund = { paymentId: 'pay-12345678', amount: 1 }
  await withManifest.value.invoke({ principalId: 'a', idempotencyKey: 'k', inputs: { group: 'approvers', refund, manifest: [{ branchId: 'b1', peerId: 'ann', input: 'x' }] } })
  // @ts-expect-error the manifest is an input of this interaction
  await withManifest.value.invoke({ principalId: 'a', idempotencyKey: 'k', inputs: { group: 'approvers', refund } })
  // @ts-expect-error a manifest entry's input is a string
  await withManifest.value.invoke({ principalId: 'a', idempotencyKey: 'k', inputs: { group: 'approvers', refund, manifest: [{ branchId: 'b1', peerId: 'ann', input: 7 }] } })
}

// The responder's handler is typed from the descriptor: the request payload in, the result payload without its correlated members out.
const peer = { connection: nc, module: payments, interaction: payments.interactions.approveRefund, peerId: 'ann' }
export const responder = createResponder({
  ...peer,
  handler: async ({ payload, signal }) => (signal.aborted ? undefined : { approve: payload.refund.amount < 100 && payload.requestedBy !== '' }),
})
createResponder({
  ...peer,
  // @ts-expect-error a ballot's approve is a boolean
  handler: () => ({ approve: 'yes' }),
})
createResponder({
  ...peer,
  // @ts-expect-error the ballot needs its approve member
  handler: () => ({}),
})
createResponder({
  ...peer,
  // @ts-expect-error a request's refund amount is a number
  handler: ({ payload }) => ({ approve: payload.refund.amount.length > 0 }),
})
// Written by hand, the handler's types still win over the contract's.
export const byHand = createResponder<{ requestedBy: string }, { approve: boolean }>({ ...peer, handler: ({ payload }) => ({ approve: payload.requestedBy === 'alice' }) })

// Type arguments written by hand still win (an untyped descriptor), as before.
const explicit = createExecutor<{ approve: boolean }, { n: number }>({
  ...base,
  interaction: payments.interactions.approveRefund as import('unplugin-contracts/runtime/nats').Interaction,
  adapters: { audience, authorization, aggregation: ({ data }) => ({ n: data.filter((b) => b.approve).length }) },
})
export const n = explicit.ok ? explicit.value : undefined
`

describe.each([
  ['TypeScript 6', TSC],
  ['TypeScript 7 (native)', TSC7],
])('executor typed from the contract (%s)', (_name, compiler) => {
  it('the adapters, the output, the inputs (a manifest included) and the responder handler are the contract types; a wrong adapter, input or handler result is a type error', async () => {
    const [plain, manifested] = await Promise.all([
      compile(ShopBundle.copy('executor-typed').relock().doc('payments')),
      compile(ShopBundle.copy('executor-typed-manifest').withBranchManifest(MANIFEST).relock().doc('payments')),
    ])
    expect(plain.diagnostics).toEqual([])
    expect(manifested.diagnostics).toEqual([])
    // A control: the same wrong aggregation without the directive is reported (the check does run on these files).
    const control = `import * as payments from './payments.js'
import { createExecutor } from 'unplugin-contracts/runtime/nats/executor'
declare const options: Omit<Parameters<typeof createExecutor<undefined, undefined, typeof payments.interactions.approveRefund>>[0], 'adapters'>
createExecutor({ ...options, adapters: { audience: () => ({ revision: 'r', peers: [] }), authorization: () => ({ allowed: true }), aggregation: ({ data }) => ({ approved: data.length }) } })
`
    const r = typecheck(
      join(dir, compiler === TSC ? 'ts6' : 'ts7'),
      { payments: plain.dts!, manifested: manifested.dts! },
      { 'typed.ts': source, 'control.ts': control },
      compiler,
    )
    // Only these files' diagnostics count (nats.js's own declarations need a newer lib than the helper's).
    const ours = r.output.split('\n').filter((l) => /^(typed|control)\.ts\(/.test(l))
    expect(ours.filter((l) => l.startsWith('typed.ts'))).toEqual([])
    expect(ours.filter((l) => l.startsWith('control.ts')).length, r.output).toBeGreaterThan(0)
    // The declaration names the types the executor reads.
    const line = plain.dts!.split('\n').find((l) => l.includes('"approveRefund": $nats.Interaction'))
    expect(line).toContain('readonly __result?: RefundBallot;')
    expect(line).toContain('readonly __output?: RefundOutcome;')
    expect(line).toContain('readonly __request?: ')
    expect(line).toContain(
      `readonly __resultFields?: RefundBallot extends infer R ? (R extends object ? { [P in keyof R as P extends "operationId" | "branchId" | "attempt" | "peerId" | "fence" ? never : P]: R[P] } : R) : never;`,
    )
  }, 120_000)
})
