import canonicalize from 'canonicalize'
import { isObject } from '../document.js'
import { operationPayload, operationPayloads, schemaAtPointer } from '../schemas.js'
import { natsRule } from './rule.js'
import { at, interactions } from './interactions.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over interactions and the payload schemas they read: O(interactions + schema sizes read). */

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
