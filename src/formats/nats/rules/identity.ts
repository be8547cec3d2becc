import { compareVersions } from '../../../runtime/shared/semver.js'
import { isObject } from '../document.js'
import { natsRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): constant per document. */

export const identityNonEmpty = natsRule({
  code: 'NATS_IDENTITY_EMPTY',
  description: '`x-nats-contract.contract` or `info.version` is empty.',
  check(ctx, report) {
    if (ctx.profile.contract === '') report('/x-nats-contract/contract', 'The contract id must not be empty.')
    const info = isObject(ctx.doc.info) ? ctx.doc.info : {}
    if (info.version === '') report('/info/version', '`info.version` must not be empty: (contract, info.version) is the identity of a contract in its bundle.')
  },
})

export const bindingNonEmpty = natsRule({
  code: 'NATS_BINDING_EMPTY',
  description: '`deployment.binding` is empty.',
  check(ctx, report) {
    const deployment = ctx.section('deployment')
    if (deployment.binding === '')
      report(
        '/x-nats-contract/deployment/binding',
        'The deployment binding names an operator-supplied NATS system/account/JetStream domain mapping; it cannot be empty.',
      )
  },
})

/** The oldest server profile v0.2 runs on ("Version 0.2 requires NATS server 2.11.0 or later"). */
const MINIMUM_SERVER = '2.11.0'

/**
 * Versions are SemVer 2.0.0 exactly, as the NATS client's server-version check reads them
 * (`runtime/shared/semver.ts`): `2.11` and `v2.11.0` are not versions (the `semver` package, used
 * before, accepted a leading `v` or `=` and surrounding space). A pre-release precedes its
 * release, so `2.11.0-rc.1` is below 2.11.0; build metadata is ignored (`2.11.0+build.7` is 2.11.0).
 */
export const serverVersion = natsRule({
  code: 'NATS_SERVER_VERSION',
  description: '`deployment.minimumServerVersion` is not a SemVer version, or is below 2.11.0 (a pre-release of 2.11.0 included).',
  check(ctx, report) {
    const deployment = ctx.section('deployment')
    if (typeof deployment.minimumServerVersion !== 'string') return
    const text = deployment.minimumServerVersion
    const pointer = '/x-nats-contract/deployment/minimumServerVersion'
    // SemVer 2.0.0 exactly (no `v` prefix, no surrounding space), compared by its precedence rules.
    const order = compareVersions(text, MINIMUM_SERVER)
    if (order === undefined) return report(pointer, `${JSON.stringify(text)} is not a SemVer version like 2.11.0.`)
    if (order < 0)
      report(
        pointer,
        `Profile v0.2 requires NATS server 2.11.0 or later, not ${text}${/^[^+]*-/.test(text) ? ' (a pre-release comes before its release)' : ''}.`,
      )
  },
})
