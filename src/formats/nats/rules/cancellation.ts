import { isObject } from '../document.js'
import { CANCEL_OUTCOMES, CANCEL_REQUEST, CANCEL_RESULT } from '../interaction-facts.js'
import { operationPayloads, schemaAtPointer } from '../schemas.js'
import { natsRule } from './rule.js'
import { actionOf, at, interactions } from './interactions.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over interactions and the messages of their cancel operations: O(interactions + messages x members). */

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
