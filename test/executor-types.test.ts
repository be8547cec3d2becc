/** The executor is typed from the contract: an invocation's inputs are the interaction's declared inputs (tsc --strict, TS 6 and 7). */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { TSC, TSC7 } from './helpers/cli.js'
import { ShopBundle } from './helpers/nats-bundle.js'
import { typeVerdicts } from './helpers/typecheck.js'

const dir = join(import.meta.dirname, '.tmp', 'executor-types')
const header = `import * as payments from './payments.js'
import { createExecutor } from 'unplugin-contracts/runtime/nats/executor'
import type { NatsConnection } from '@nats-io/nats-core'
declare const nc: NatsConnection
const deployment = { senderPeerId: 's', scopeId: 's', systemId: 's', accountId: 'a', jetstreamDomain: 'd', policyRevision: 'p' }
const made = createExecutor({
  connection: nc,
  module: payments,
  interaction: payments.interactions.approveRefund,
  contractDigest: 'ab',
  deployment,
  adapters: { audience: () => ({ revision: 'r', peers: ['ann'] }), authorization: () => ({ allowed: true }) },
})
if (!made.ok) throw new Error(made.message)
const executor = made.value
`

describe.each([
  ['TypeScript 6', TSC],
  ['TypeScript 7 (native)', TSC7],
])('typed executor (%s)', (_name, compiler) => {
  it("an invocation's inputs come from the interaction's declared inputs, without the generated operation id", async () => {
    const { dts, diagnostics } = await compile(ShopBundle.copy('executor-types').relock().doc('payments'))
    expect(diagnostics).toEqual([])
    const good = `
export async function run() {
  const r = await executor.invoke({ principalId: 'alice', idempotencyKey: 'k', inputs: { group: 'approvers', refund: { paymentId: 'pay-12345678', amount: 1 } } })
  if (r.ok) { const outcome: 'success' | 'failure' | 'partial' | 'cancelled' | 'indeterminate' = r.value.decision.outcome; return outcome }
  return r.code
}
`
    const bad: Record<string, string> = {
      'a refund amount of the wrong type': `void executor.invoke({ principalId: 'a', idempotencyKey: 'k', inputs: { group: 'approvers', refund: { paymentId: 'pay-12345678', amount: 'one' } } })`,
      'a missing input': `void executor.invoke({ principalId: 'a', idempotencyKey: 'k', inputs: { refund: { paymentId: 'pay-12345678', amount: 1 } } })`,
      'a group that is not a string': `void executor.invoke({ principalId: 'a', idempotencyKey: 'k', inputs: { group: 7, refund: { paymentId: 'pay-12345678', amount: 1 } } })`,
      'an input the interaction does not declare': `void executor.invoke({ principalId: 'a', idempotencyKey: 'k', inputs: { group: 'approvers', refund: { paymentId: 'pay-12345678', amount: 1 }, extra: 1 } })`,
    }
    const v = typeVerdicts(join(dir, compiler === TSC ? 'ts6' : 'ts7'), { payments: dts! }, { header, good, bad }, compiler)
    expect(v.goodFailed, v.output).toBe(false)
    expect(v.badAccepted, v.output).toEqual([])
  }, 60_000)
})
