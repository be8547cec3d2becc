import { isObject } from '../document.js'
import { resolveConfig } from '../resources.js'
import { natsRule } from './rule.js'
import { at, interactions } from './interactions.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over interactions, each stream, consumer or operation a map lookup: O(interactions). */

const nonNegativeInt = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0

export const deliveryRule = natsRule({
  code: 'NATS_DELIVERY',
  description: 'Delivery values outside the profile, attempts outside 1..16, or a memory/durable execution without what it requires.',
  check(ctx, report) {
    for (const [key, it] of interactions(ctx)) {
      const d = it.delivery
      if (!isObject(d)) continue
      const bad = (field: string, message: string) => report(at(ctx, key, 'delivery', ...(field ? [field] : [])), message)
      if (!['online-best-effort', 'durable-per-recipient'].includes(d.mode as string))
        bad('mode', 'Delivery mode is online-best-effort or durable-per-recipient.')
      if (d.state !== 'memory' && d.state !== 'durable') bad('state', 'Delivery state is memory or durable.')
      if (d.restart !== 'fail-unknown' && d.restart !== 'resume') bad('restart', 'restart is fail-unknown or resume.')
      if (!(Number.isSafeInteger(d.maxAttempts) && (d.maxAttempts as number) >= 1 && (d.maxAttempts as number) <= 16))
        bad('maxAttempts', 'maxAttempts is an integer in 1..16.')
      for (const field of ['retryBackoffMs', 'recoveryGraceMs', 'settlementGraceMs'])
        if (!nonNegativeInt(d[field])) bad(field, `${field} is a non-negative integer of milliseconds.`)
      if (d.state === 'memory') {
        if (d.maxAttempts !== 1 || d.retryBackoffMs !== 0) bad('', 'Memory execution makes one attempt with zero retry backoff.')
        if (d.mode !== 'online-best-effort' || d.restart !== 'fail-unknown') bad('', 'Memory execution is online-best-effort and fails unknown on restart.')
      }
      if (d.state === 'durable') {
        if (d.restart !== 'resume') bad('restart', 'Durable execution resumes after a restart.')
        if (typeof d.stateStore !== 'string' || typeof d.adapter !== 'string')
          bad('', 'Durable execution needs a state-store adapter (stateStore) and a delivery adapter (adapter).')
        if (d.mode !== 'durable-per-recipient') bad('mode', 'Durable execution delivers durable-per-recipient.')
      }
    }
  },
})

export const ownershipRule = natsRule({
  code: 'NATS_OWNERSHIP',
  description:
    'Ownership renewal not positive and below half the lease, onLoss other than retry, or missing where reassignment or more than one attempt needs it.',
  check(ctx, report) {
    for (const [key, it] of interactions(ctx)) {
      const d = it.delivery
      if (!isObject(d)) continue
      const o = d.ownership
      const needs = it.dispatch?.mode === 'one-eligible' || (d.maxAttempts as number) > 1
      if (!isObject(o)) {
        if (needs)
          report(
            at(ctx, key, 'delivery'),
            'Reassignment (one-eligible) and more than one attempt need ownership: {adapter, leaseMs, renewEveryMs, onLoss: retry}.',
          )
        continue
      }
      const bad = (field: string, message: string) => report(at(ctx, key, 'delivery', 'ownership', field), message)
      if (!(Number.isSafeInteger(o.leaseMs) && (o.leaseMs as number) > 0)) bad('leaseMs', 'leaseMs is a positive integer.')
      if (!(Number.isSafeInteger(o.renewEveryMs) && (o.renewEveryMs as number) > 0 && (o.renewEveryMs as number) * 2 < (o.leaseMs as number)))
        bad('renewEveryMs', 'renewEveryMs is positive and less than half of leaseMs.')
      if (o.onLoss !== 'retry') bad('onLoss', 'onLoss is retry.')
      if (d.state !== 'durable') bad('adapter', 'Ownership (claims with fencing) needs durable state.')
    }
  },
})

/** Durations of the native configs are nanoseconds; interaction timings are milliseconds. */
const NS_PER_MS = 1_000_000

export const durableResources = natsRule({
  code: 'NATS_DURABLE_RESOURCES',
  description:
    'Durable delivery without the native resources it needs: file-backed limits retention with discard new covering deadline plus grace, a JetStream request, and for result-bearing work a retained result stream and durable result consumer.',
  check(ctx, report) {
    for (const [key, it] of interactions(ctx)) {
      const d = it.delivery
      if (!isObject(d) || d.mode !== 'durable-per-recipient') continue
      const period = ((it.completion?.deadlineMs ?? 0) + (d.recoveryGraceMs ?? 0) + (d.settlementGraceMs ?? 0)) * NS_PER_MS
      const checkStream = (streamKey: unknown, field: string, what: string) => {
        const stream = typeof streamKey === 'string' ? resolveConfig(ctx, 'streams', streamKey) : undefined
        const c = isObject(stream?.config) ? stream.config : undefined
        if (!c) return report(at(ctx, key, field), `Durable delivery needs ${what} on a JetStream stream of this contract.`)
        const problems: string[] = []
        if (c.storage !== 'file') problems.push('file storage')
        if (c.retention !== 'limits') problems.push('limits retention')
        if (c.discard !== 'new') problems.push('discard new')
        if (!((c.max_age as number) >= period)) problems.push(`max_age of at least ${period} ns (deadline plus recovery and settlement grace)`)
        if (!((c.duplicate_window as number) >= period)) problems.push(`duplicate_window of at least ${period} ns`)
        if (problems.length > 0)
          report(at(ctx, key, field), `Stream ${JSON.stringify(streamKey)} carries ${what} for durable delivery and needs ${problems.join(', ')}.`)
      }
      const request = ctx.section('operations')[it.requestOperation]
      if (it.requestOperation !== undefined) {
        const publish = isObject(request) && isObject(request.publish) ? request.publish : undefined
        if (publish?.api !== 'jetstream')
          report(at(ctx, key, 'requestOperation'), 'Durable delivery publishes requests through JetStream (a core publish cannot be recovered).')
        else checkStream(publish.stream, 'requestOperation', 'its requests')
        if (it.dispatch?.mode === 'independent') {
          // "Durable independent delivery requires ... addressed branches": the request subject
          // carries a branch token (the target parameter, bound from the branch's peer or id).
          const target = it.dispatch?.targetParameter
          const channel = ctx.operationChannel(it.requestOperation)
          const params = channel?.tokens?.flatMap((t) => (typeof t === 'object' ? [t.param] : [])) ?? []
          const subject = isObject(it.bindings) && isObject(it.bindings.subject) ? it.bindings.subject : {}
          const source = typeof target === 'string' && Object.hasOwn(subject, target) ? subject[target] : undefined
          const addressed = isObject(source) && (source.branch === 'peerId' || source.branch === 'id')
          if (typeof target !== 'string')
            report(
              at(ctx, key, 'dispatch'),
              'Durable independent delivery addresses each branch (targetParameter), so each logical peer has its own filtered durable consumer.',
            )
          else if (!params.includes(target) || !addressed)
            report(
              at(ctx, key, 'dispatch', 'targetParameter'),
              `Durable independent delivery addresses each branch in the request subject: ${JSON.stringify(target)} must be a parameter of the request channel bound from the branch (peerId or id).`,
            )
        }
      }
      if (it.resultOperation !== undefined) {
        const result = ctx.section('operations')[it.resultOperation]
        const subscribe = isObject(result) && isObject(result.subscribe) ? result.subscribe : undefined
        const consumer = typeof subscribe?.consumer === 'string' ? ctx.section('consumers')[subscribe.consumer] : undefined
        if (subscribe?.api !== 'jetstream' || !isObject(consumer))
          report(
            at(ctx, key, 'resultOperation'),
            'Result-bearing durable work receives results through a durable JetStream consumer (a core-only result path cannot recover).',
          )
        else checkStream(consumer.stream, 'resultOperation', 'its results')
      }
    }
  },
})
