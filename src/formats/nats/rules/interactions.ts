import canonicalize from 'canonicalize'
import type { NatsContext } from '../context.js'
import { isObject } from '../document.js'
import { CANCEL_OUTCOMES, CANCEL_REQUEST, CANCEL_RESULT, OPERATION_ID_DOMAIN } from '../interaction-facts.js'
import { resolveConfig } from '../resources.js'
import { deref, localSchema, operationPayload, operationPayloads, schemaAtPointer } from '../schemas.js'
import { natsRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over interactions, each reference to an operation, link, stream or consumer a map or set lookup: O(interactions + links + schema sizes read). */

type Interaction = Record<string, any>
const at = (ctx: NatsContext, key: string, ...path: Array<string | number>) => ctx.pointer('x-nats-contract', 'interactions', key, ...path)

export function interactions(ctx: NatsContext): Array<[string, Interaction]> {
  return Object.entries(ctx.section('interactions')).filter((e): e is [string, Interaction] => isObject(e[1]))
}

const actionOf = (ctx: NatsContext, id: unknown) =>
  typeof id === 'string' && isObject(ctx.standard('operations')[id]) ? (ctx.standard('operations')[id] as Record<string, unknown>).action : undefined
function add(index: Map<unknown, Set<string>>, key: unknown, value: string): void {
  let set = index.get(key)
  if (!set) index.set(key, (set = new Set()))
  set.add(value)
}

export const interactionOperations = natsRule({
  code: 'NATS_INTERACTION_OPERATION',
  description:
    'requestOperation/resultOperation are not local send/receive operations, or receiverOperation/senderOperation are not imported counterparts reached through a matching link.',
  check(ctx, report) {
    // Links indexed by their local end, and each imported end canonicalized once: O(interactions +
    // links), where scanning every link for every interaction was their product.
    const links = Array.isArray(ctx.profile.links) ? ctx.profile.links.filter(isObject) : []
    const bySend = new Map<unknown, Set<string>>()
    const byReceive = new Map<unknown, Set<string>>()
    for (const l of links) {
      if (isObject(l.receive)) add(bySend, l.send, canonicalize(l.receive)!)
      if (isObject(l.send)) add(byReceive, l.receive, canonicalize(l.send)!)
    }
    const linked = (index: Map<unknown, Set<string>>, local: unknown, imported: unknown) =>
      isObject(imported) && index.get(local)?.has(canonicalize(imported)!) === true
    for (const [key, it] of interactions(ctx)) {
      if (it.requestOperation !== undefined && actionOf(ctx, it.requestOperation) !== 'send')
        report(at(ctx, key, 'requestOperation'), `requestOperation ${JSON.stringify(it.requestOperation)} must be a local send operation.`)
      if (it.resultOperation !== undefined && actionOf(ctx, it.resultOperation) !== 'receive')
        report(at(ctx, key, 'resultOperation'), `resultOperation ${JSON.stringify(it.resultOperation)} must be a local receive operation.`)
      if (it.receiverOperation !== undefined && !linked(bySend, it.requestOperation, it.receiverOperation)) {
        report(at(ctx, key, 'receiverOperation'), 'receiverOperation must be an imported {contract, operation} that a link connects to requestOperation.')
      }
      if (it.senderOperation !== undefined && !linked(byReceive, it.resultOperation, it.senderOperation)) {
        report(at(ctx, key, 'senderOperation'), 'senderOperation must be an imported {contract, operation} that a link connects to resultOperation.')
      }
    }
  },
})

export const interactionShape = natsRule({
  code: 'NATS_INTERACTION_SHAPE',
  description:
    'An interaction with neither request nor result, gather-only work (no requestOperation) that dispatches, or dispatch-only work (no resultOperation) that expects completion.',
  check(ctx, report) {
    for (const [key, it] of interactions(ctx)) {
      const mode = it.dispatch?.mode
      if (it.requestOperation === undefined && it.resultOperation === undefined)
        report(at(ctx, key), 'An interaction needs a requestOperation, a resultOperation, or both.')
      else if (it.requestOperation === undefined && mode !== 'none')
        report(at(ctx, key, 'dispatch', 'mode'), 'Gather-only work (no requestOperation) has dispatch mode none.')
      else if (it.requestOperation !== undefined && mode === 'none')
        report(at(ctx, key, 'dispatch', 'mode'), 'Dispatch mode none gathers without dispatching: it has no requestOperation.')
      if (it.resultOperation === undefined && it.completion?.mode !== 'none')
        report(at(ctx, key, 'completion', 'mode'), 'Dispatch-only work (no resultOperation) has completion mode none.')
    }
  },
})

export const inputForms = natsRule({
  code: 'NATS_INPUT_FORM',
  description: 'An input is not {source: argument|generated, tokenType} or {source: argument|generated, schema}.',
  check(ctx, report) {
    const types = ctx.section('tokenTypes')
    for (const [key, it] of interactions(ctx)) {
      for (const [name, input] of Object.entries(isObject(it.inputs) ? it.inputs : {})) {
        if (!isObject(input)) continue
        const pointer = at(ctx, key, 'inputs', name)
        if (input.source !== 'argument' && input.source !== 'generated')
          report(pointer, `Input ${JSON.stringify(name)} has source ${JSON.stringify(input.source)}; sources are argument and generated.`)
        else if ('tokenType' in input === 'schema' in input) report(pointer, `Input ${JSON.stringify(name)} has exactly one of tokenType and schema.`)
        else if (typeof input.tokenType === 'string' && !Object.hasOwn(types, input.tokenType))
          report(pointer, `Input ${JSON.stringify(name)} names token type ${JSON.stringify(input.tokenType)}, which tokenTypes does not define.`)
      }
    }
  },
})

export const generatedInputs = natsRule({
  code: 'NATS_GENERATED_INPUT',
  description: '`generated` on anything but the operationId input with exactly the op + 64 hex domain.',
  check(ctx, report) {
    for (const [key, it] of interactions(ctx)) {
      for (const [name, input] of Object.entries(isObject(it.inputs) ? it.inputs : {})) {
        if (!isObject(input) || input.source !== 'generated') continue
        const type = typeof input.tokenType === 'string' ? ctx.section('tokenTypes')[input.tokenType] : undefined
        if (name !== 'operationId')
          report(at(ctx, key, 'inputs', name), `Only the operationId input may be generated in v0.2; ${JSON.stringify(name)} is an argument.`)
        else if (!isObject(type) || canonicalize({ ...type, prefix: type.prefix }) !== canonicalize(OPERATION_ID_DOMAIN)) {
          report(
            at(ctx, key, 'inputs', name, 'tokenType'),
            'A generated operationId has exactly the domain {kind: token, alphabet: hex, first: any, prefix: op, minLength: 66, maxLength: 66}.',
          )
        }
      }
    }
  },
})

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

const EXPRESSION = /^\$message\.payload#(\/.*)?$/

export const correlationRule = natsRule({
  code: 'NATS_CORRELATION',
  description:
    'Correlation that is not payload-only, that every request and result message payload does not carry with the same type at the same location, or result-bearing work without a verifier.',
  check(ctx, report) {
    for (const [key, it] of interactions(ctx)) {
      const c = it.correlation
      if (!isObject(c)) continue
      // Every message the request and result operations may carry, not only the first.
      const payloads = [
        ...(it.requestOperation !== undefined ? operationPayloads(ctx, it.requestOperation) : []),
        ...(it.resultOperation !== undefined ? operationPayloads(ctx, it.resultOperation) : []),
      ]
      for (const field of ['operation', 'branch', 'attempt', 'peer', 'fence']) {
        const expr = c[field]
        const pointer = at(ctx, key, 'correlation', field)
        if (typeof expr !== 'string' || !EXPRESSION.test(expr)) {
          report(pointer, `${JSON.stringify(expr)} is not a payload expression ($message.payload#/...); header correlation is unsupported in v0.2.`)
          continue
        }
        const location = expr.slice('$message.payload#'.length)
        // Types compare by value: `[string, null]` twice is one type.
        const types = payloads.map((root) => (root === undefined ? undefined : canonicalize(schemaAtPointer(ctx, root, location)?.type)))
        if (types.some((t) => t === undefined) || new Set(types).size > 1)
          report(pointer, `${expr} must exist with the same type in the request and the result payloads.`)
      }
      if (it.resultOperation !== undefined && typeof c.verifier !== 'string')
        report(at(ctx, key, 'correlation'), 'Result-bearing work names a result-verifier adapter (verifier).')
    }
  },
})

const RESULT_FIELDS = ['deadlineMs', 'onTimeout', 'onImpossible', 'lateResults', 'remaining', 'waitFor'] as const

export const completionRule = natsRule({
  code: 'NATS_COMPLETION',
  description: 'A completion mode or unit outside the profile, an untyped or coercing success predicate, or result-bearing work without its fixed fields.',
  check(ctx, report) {
    for (const [key, it] of interactions(ctx)) {
      const c = it.completion
      if (!isObject(c)) continue
      const bad = (field: string, message: string) => report(at(ctx, key, 'completion', ...(field ? [field] : [])), message)
      if (!['none', 'first-success', 'all-terminal', 'all-successful', 'quorum'].includes(c.mode as string))
        bad('mode', 'Completion mode is none, first-success, all-terminal, all-successful or quorum.')
      if (c.unit !== 'distinct-branches' && c.unit !== 'distinct-peers') bad('unit', 'Completion unit is distinct-branches or distinct-peers.')
      // "result-bearing one-eligible completion counts distinct branches": reassignment moves a
      // branch between peers, so peers are not what it counts.
      else if (it.dispatch?.mode === 'one-eligible' && it.resultOperation !== undefined && c.unit !== 'distinct-branches')
        bad('unit', 'Result-bearing one-eligible work counts distinct branches (a reassigned branch changes peers), not distinct peers.')
      if (isObject(c.success)) {
        const expr = typeof c.success.field === 'string' ? c.success.field : ''
        const result = it.resultOperation !== undefined ? operationPayload(ctx, it.resultOperation) : undefined
        const target = EXPRESSION.test(expr) ? schemaAtPointer(ctx, result, expr.slice('$message.payload#'.length)) : undefined
        const equalsType =
          typeof c.success.equals === 'number'
            ? Number.isInteger(c.success.equals)
              ? ['integer', 'number']
              : ['number']
            : [c.success.equals === null ? 'null' : typeof c.success.equals]
        if (!target) bad('success', `The success field ${JSON.stringify(expr)} is not a payload expression into the result schema.`)
        else if (!equalsType.includes(String(target.type)))
          bad('success', `The success predicate compares a ${String(target.type)} with ${JSON.stringify(c.success.equals)}; there is no coercion.`)
      }
      if (it.resultOperation !== undefined && c.mode !== 'none') {
        const missing = RESULT_FIELDS.filter((f) => !(f in c))
        if (missing.length > 0) bad('', `Result-bearing completion needs ${missing.join(', ')}.`)
        if ('deadlineMs' in c && !(Number.isSafeInteger(c.deadlineMs) && (c.deadlineMs as number) > 0))
          bad('deadlineMs', 'deadlineMs is a positive integer of milliseconds.')
        if ('onTimeout' in c && c.onTimeout !== 'fail' && c.onTimeout !== 'partial') bad('onTimeout', 'onTimeout is fail or partial.')
        if ('onImpossible' in c && c.onImpossible !== 'fail') bad('onImpossible', 'onImpossible is fail.')
        if ('lateResults' in c && c.lateResults !== 'discard') bad('lateResults', 'lateResults is discard.')
        if ('remaining' in c && c.remaining !== 'detach' && c.remaining !== 'cooperative') bad('remaining', 'remaining is detach or cooperative.')
        if ('waitFor' in c && c.waitFor !== 'decision' && c.waitFor !== 'settled') bad('waitFor', 'waitFor is decision or settled.')
      }
      if ((c.mode === 'first-success' || c.mode === 'quorum' || c.mode === 'all-successful') && !isObject(c.success))
        bad('success', `Completion mode ${c.mode} needs a success predicate.`)
    }
  },
})

export const quorumRule = natsRule({
  code: 'NATS_QUORUM',
  description:
    'A threshold on a mode other than quorum, a quorum without exactly one of count or fraction, a fraction outside 0 < numerator <= denominator, or a count that can never be met.',
  check(ctx, report) {
    for (const [key, it] of interactions(ctx)) {
      const c = it.completion
      if (!isObject(c)) continue
      const bad = (field: string, message: string) => report(at(ctx, key, 'completion', ...(field ? [field] : [])), message)
      const hasCount = 'count' in c
      const hasFraction = 'fraction' in c
      if (c.mode !== 'quorum') {
        if (hasCount || hasFraction) bad(hasCount ? 'count' : 'fraction', `Only quorum completion has a threshold; ${String(c.mode)} has none.`)
        continue
      }
      if (hasCount === hasFraction) bad('', 'Quorum has exactly one of count and fraction.')
      if (hasFraction && isObject(c.fraction)) {
        const { numerator, denominator } = c.fraction as { numerator: number; denominator: number }
        if (!(Number.isSafeInteger(numerator) && Number.isSafeInteger(denominator) && numerator > 0 && denominator > 0 && numerator <= denominator))
          bad('fraction', 'A quorum fraction has a positive numerator no greater than its positive denominator.')
      }
      if (hasCount) {
        const count = c.count as number
        const onePeer = it.dispatch?.mode === 'direct' || it.audience?.kind === 'peer' || it.dispatch?.mode === 'one-eligible'
        if (!(Number.isSafeInteger(count) && count > 0)) bad('count', 'A quorum count is a positive integer.')
        else if (onePeer && count > 1)
          bad('count', `A quorum of ${count} can never be met: this interaction reaches one ${c.unit === 'distinct-peers' ? 'peer' : 'branch'}.`)
      }
    }
  },
})

export const cancellationRule = natsRule({
  code: 'NATS_CANCELLATION',
  description: 'Cooperative cancellation without its cancel operation, cancel result operation and timeout (or those fields without cooperative cancellation).',
  check(ctx, report) {
    for (const [key, it] of interactions(ctx)) {
      const c = it.completion
      if (!isObject(c)) continue
      const fields = ['cancelOperation', 'cancelResultOperation', 'cancelTimeoutMs']
      if (c.remaining === 'cooperative') {
        if (actionOf(ctx, c.cancelOperation) !== 'send')
          report(
            at(ctx, key, 'completion', 'cancelOperation'),
            'Cooperative cancellation sends CancelRequest through a local send operation (cancelOperation).',
          )
        if (actionOf(ctx, c.cancelResultOperation) !== 'receive')
          report(
            at(ctx, key, 'completion', 'cancelResultOperation'),
            'Cooperative cancellation receives CancelResult through a local receive operation (cancelResultOperation).',
          )
        if (!(Number.isSafeInteger(c.cancelTimeoutMs) && (c.cancelTimeoutMs as number) > 0))
          report(at(ctx, key, 'completion', 'cancelTimeoutMs'), 'Cooperative cancellation has a positive cancelTimeoutMs.')
      } else {
        for (const f of fields) if (f in c) report(at(ctx, key, 'completion', f), `${f} belongs to cooperative cancellation (remaining: cooperative).`)
      }
    }
  },
})

/**
 * The cancel operations carry the fixed CancelRequest and CancelResult data (interaction-facts.ts):
 * every message of the cancel operation requires operationId, branchId (strings), attempt and fence
 * (integers); every message of the cancel result operation requires operationId, branchId and an
 * `outcome` whose values are exactly stopped, already-completed and unknown. O(messages x members).
 */
export const cancelSchemas = natsRule({
  code: 'NATS_CANCEL_SCHEMA',
  description:
    'A cancel operation whose messages do not carry the fixed CancelRequest (operationId, branchId, attempt, fence) or CancelResult (operationId, branchId, outcome: stopped | already-completed | unknown) data.',
  check(ctx, report) {
    for (const [key, it] of interactions(ctx)) {
      const c = isObject(it.completion) ? it.completion : {}
      for (const [field, shape] of [
        ['cancelOperation', CANCEL_REQUEST],
        ['cancelResultOperation', CANCEL_RESULT],
      ] as const) {
        const op = c[field]
        if (typeof op !== 'string') continue
        const problems: string[] = []
        for (const payload of operationPayloads(ctx, op)) {
          const required = new Set(payload && Array.isArray(payload.required) ? payload.required : [])
          for (const [member, type] of Object.entries(shape)) {
            const schema = schemaAtPointer(ctx, payload, `/${member}`)
            if (!required.has(member) || schema?.type !== type) problems.push(`${member} (a required ${type})`)
          }
          if (field === 'cancelResultOperation') {
            const values = schemaAtPointer(ctx, payload, '/outcome')?.enum
            if (!Array.isArray(values) || [...values].sort().join() !== [...CANCEL_OUTCOMES].sort().join())
              problems.push(`outcome values exactly ${CANCEL_OUTCOMES.join(', ')}`)
          }
        }
        if (problems.length > 0)
          report(
            at(ctx, key, 'completion', field),
            `${op} carries the fixed ${field === 'cancelOperation' ? 'CancelRequest' : 'CancelResult'} data; its messages lack ${[...new Set(problems)].join(', ')}.`,
          )
      }
    }
  },
})
