import { escapeToken } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../document.js'
import { natsRule, type NatsRule } from './rule.js'
import type { ErrorObject } from 'ajv'
import { schemaErrors } from './standard.js'

/** Complexity (each rule here, worst case on any input under the size limits): one validation of the profile by its schema (once per document, two rules read it) and a filter over its errors. */

export const profilePresent = natsRule({
  code: 'NATS_PROFILE_MISSING',
  description: 'The document has no `x-nats-contract` object.',
  check(ctx, report) {
    if (!isObject(ctx.doc['x-nats-contract']))
      report(
        '',
        'A NATS contract is an AsyncAPI document with an `x-nats-contract` object at its root; this one has none (its standard part is checked all the same). Add one, at least `x-nats-contract: { version: 0.2.0-draft, contract: <id>, deployment: { binding: <name>, minimumServerVersion: 2.11.0 } }`, with `tokenTypes` and `channels` for the channels it profiles (docs/nats.md).',
      )
  },
})

export const profileVersion = natsRule({
  code: 'NATS_PROFILE_VERSION',
  description: '`x-nats-contract.version` is not exactly `0.2.0-draft` (an unsupported profile).',
  check(ctx, report) {
    if (isObject(ctx.doc['x-nats-contract']) && ctx.profile.version !== '0.2.0-draft') {
      report(
        '/x-nats-contract/version',
        `Profile version ${JSON.stringify(ctx.profile.version ?? null)} is not supported; this compiler implements exactly 0.2.0-draft.`,
      )
    }
  },
})

/** The profile's shape errors, checked once per document (two rules read them): kept on the context. */
function profileErrors(ctx: Parameters<NatsRule['check']>[0]): readonly ErrorObject[] {
  if (!isObject(ctx.doc['x-nats-contract'])) return []
  return (ctx.ruleFacts.profileErrors ??= schemaErrors('profile', ctx.profile))
}

export const profileUnsupported = natsRule({
  code: 'NATS_PROFILE_UNSUPPORTED',
  description: 'A member the profile does not define (x-nats-contract is closed): an unsupported capability.',
  check(ctx, report) {
    for (const e of profileErrors(ctx)) {
      if (e.keyword !== 'additionalProperties') continue
      const name = e.params.additionalProperty as string
      report(
        `/x-nats-contract${e.instancePath}/${escapeToken(name)}`,
        `${JSON.stringify(name)} is not part of profile v0.2 here; unsupported capabilities fail the build.`,
        { member: name },
      )
    }
  },
})

export const profileShape = natsRule({
  code: 'NATS_PROFILE_SHAPE',
  description: 'A profile member is missing or has the wrong type or value.',
  check(ctx, report) {
    const seen = new Set<string>()
    for (const e of profileErrors(ctx)) {
      if (e.keyword === 'additionalProperties' || e.keyword === 'anyOf') continue
      const pointer = `/x-nats-contract${e.instancePath}${e.keyword === 'required' ? '/' + String(e.params.missingProperty) : ''}`
      if (seen.has(pointer)) continue
      seen.add(pointer)
      report(
        pointer,
        `x-nats-contract${e.instancePath.replace(/\//g, '.')} ${e.message}${e.params.allowedValues ? ` (${e.params.allowedValues.join(', ')})` : ''}.`,
        { keyword: e.keyword },
      )
    }
  },
})
