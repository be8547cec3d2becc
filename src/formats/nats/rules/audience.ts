import { isObject } from '../document.js'
import { deref, localSchema, schemaAtPointer } from '../schemas.js'
import { natsRule } from './rule.js'
import { at, interactions } from './interactions.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over interactions, each reference an object or set lookup: O(interactions + the manifest schemas read). */

export const audienceRule = natsRule({
  code: 'NATS_AUDIENCE',
  description: 'An audience with an unknown kind, a missing or unknown input, or other than the fixed membership, lateJoiners and onRevocation values.',
  check(ctx, report) {
    for (const [key, it] of interactions(ctx)) {
      const a = it.audience
      if (!isObject(a)) continue
      const bad = (field: string, message: string) => report(at(ctx, key, 'audience', field), message)
      const inputs = isObject(it.inputs) ? it.inputs : {}
      if (!['peer', 'group', 'scope'].includes(a.kind as string)) bad('kind', 'Audience kind is peer, group or scope.')
      else if (
        a.kind === 'scope'
          ? typeof a.scopeInput !== 'string' || !Object.hasOwn(inputs, a.scopeInput)
          : typeof a.input !== 'string' || !Object.hasOwn(inputs, a.input)
      ) {
        bad(
          a.kind === 'scope' ? 'scopeInput' : 'input',
          `A ${a.kind} audience names the interaction input that identifies it (${a.kind === 'scope' ? 'scopeInput' : 'input'}).`,
        )
      }
      if (a.membership !== 'snapshot-at-admission') bad('membership', 'membership is snapshot-at-admission in v0.2.')
      if (a.lateJoiners !== 'exclude') bad('lateJoiners', 'lateJoiners is exclude in v0.2.')
      if (a.onRevocation !== 'cancel-open-branches') bad('onRevocation', 'onRevocation is cancel-open-branches in v0.2.')
      if (a.offline !== 'include' && a.offline !== 'exclude') bad('offline', 'offline is include or exclude.')
    }
  },
})

export const offlineNeedsDurable = natsRule({
  code: 'NATS_OFFLINE_DELIVERY',
  description: 'An audience that includes offline peers without durable delivery.',
  check(ctx, report) {
    for (const [key, it] of interactions(ctx)) {
      if (it.audience?.offline === 'include' && it.delivery?.mode !== 'durable-per-recipient')
        report(at(ctx, key, 'audience', 'offline'), 'Offline inclusion requires durable-per-recipient delivery.')
    }
  },
})

export const dispatchRule = natsRule({
  code: 'NATS_DISPATCH',
  description:
    'A dispatch mode or branch key outside the profile, or a mode without what it needs (direct: one peer; branches and none: a manifest input, a typed array of {branchId, peerId, input}; one-eligible: a selector), or a branch-input binding without a manifest.',
  check(ctx, report) {
    for (const [key, it] of interactions(ctx)) {
      const d = it.dispatch
      if (!isObject(d)) continue
      const bad = (field: string, message: string) => report(at(ctx, key, 'dispatch', field), message)
      const inputs = isObject(it.inputs) ? it.inputs : {}
      if (!['direct', 'independent', 'one-eligible', 'branches', 'none'].includes(d.mode as string))
        bad('mode', 'Dispatch mode is direct, independent, one-eligible, branches or none.')
      if (d.branchKey !== 'recipient' && d.branchKey !== 'declared') bad('branchKey', 'branchKey is recipient or declared.')
      if (d.mode === 'direct' && it.audience?.kind !== 'peer') bad('mode', 'Direct dispatch goes to one peer: its audience kind is peer.')
      if (
        (d.mode === 'branches' || d.mode === 'none') &&
        (typeof d.branchesInput !== 'string' ||
          !Object.hasOwn(inputs, d.branchesInput) ||
          !isObject(inputs[d.branchesInput]) ||
          !('schema' in (inputs[d.branchesInput] as object)))
      ) {
        bad('branchesInput', `Dispatch mode ${d.mode} reads an explicit branch manifest: branchesInput names an input with a schema.`)
      } else if (d.mode === 'branches' || d.mode === 'none') {
        // "A branch manifest is a typed array of {branchId, peerId, input}" (unique ids and authorized
        // recipients are the runtime's to check on the concrete manifest).
        const manifest = localSchema(ctx, (inputs[d.branchesInput as string] as Record<string, unknown>).schema)
        const items = manifest?.type === 'array' ? deref(ctx, manifest.items) : undefined
        const required = new Set(Array.isArray(items?.required) ? items.required : [])
        const typed = (field: string) => schemaAtPointer(ctx, items, `/${field}`)?.type === 'string'
        if (!items || items.type !== 'object' || !['branchId', 'peerId', 'input'].every((f) => required.has(f)) || !typed('branchId') || !typed('peerId'))
          bad('branchesInput', "A branch manifest is a typed array of objects requiring branchId and peerId (strings) and input (the branch's data).")
      }
      // A branch's input is a slot of its manifest entry: it exists only where there is a manifest.
      if (d.mode !== 'branches' && d.mode !== 'none' && isObject(it.bindings)) {
        for (const part of ['subject', 'payload'] as const) {
          const map = isObject(it.bindings[part]) ? (it.bindings[part] as Record<string, unknown>) : {}
          for (const [target, source] of Object.entries(map))
            if (isObject(source) && source.branch === 'input')
              report(
                at(ctx, key, 'bindings', part, target),
                `{branch: input} reads the branch manifest's input slot; dispatch mode ${String(d.mode)} has no manifest.`,
              )
        }
      }
      if (d.mode === 'one-eligible' && typeof d.selector !== 'string')
        bad('selector', 'One-eligible dispatch selects its peer with a selection adapter (selector).')
      if (typeof d.targetParameter === 'string') {
        const channel = ctx.operationChannel(it.requestOperation)
        if (!channel || !Object.hasOwn(channel.parameters, d.targetParameter))
          bad('targetParameter', `targetParameter ${JSON.stringify(d.targetParameter)} is not a subject parameter of the request channel.`)
      }
    }
  },
})
