import { isObject } from '../document.js'
import type { NatsRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): constant per document. */

export const identityNonEmpty: NatsRule = {
  code: 'NATS_IDENTITY_EMPTY',
  description: '`x-nats-contract.contract` or `info.version` is empty.',
  check(ctx) {
    if (ctx.profile.contract === '') ctx.report(this.code, '/x-nats-contract/contract', 'The contract id must not be empty.')
    const info = isObject(ctx.doc.info) ? ctx.doc.info : {}
    if (info.version === '')
      ctx.report(this.code, '/info/version', '`info.version` must not be empty: (contract, info.version) is the identity of a contract in its bundle.')
  },
}

export const bindingNonEmpty: NatsRule = {
  code: 'NATS_BINDING_EMPTY',
  description: '`deployment.binding` is empty.',
  check(ctx) {
    const deployment = ctx.section('deployment')
    if (deployment.binding === '')
      ctx.report(
        this.code,
        '/x-nats-contract/deployment/binding',
        'The deployment binding names an operator-supplied NATS system/account/JetStream domain mapping; it cannot be empty.',
      )
  },
}

/** `major.minor.patch` with an optional pre-release or build part. */
function parseVersion(text: string): [number, number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:[-+][0-9A-Za-z.-]+)?$/.exec(text)
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined
}

export const serverVersion: NatsRule = {
  code: 'NATS_SERVER_VERSION',
  description: '`deployment.minimumServerVersion` is not a version, or is below 2.11.0.',
  check(ctx) {
    const deployment = ctx.section('deployment')
    if (typeof deployment.minimumServerVersion !== 'string') return
    const version = parseVersion(deployment.minimumServerVersion)
    const pointer = '/x-nats-contract/deployment/minimumServerVersion'
    if (!version) return ctx.report(this.code, pointer, `${JSON.stringify(deployment.minimumServerVersion)} is not a version like 2.11.0.`)
    const [major, minor] = version
    if (major < 2 || (major === 2 && minor < 11))
      ctx.report(this.code, pointer, `Profile v0.2 requires NATS server 2.11.0 or later, not ${deployment.minimumServerVersion}.`)
  },
}
