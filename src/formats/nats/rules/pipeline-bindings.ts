import { escapeToken } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../document.js'
import { CONTEXT_FIELDS } from '../interaction-facts.js'
import { deref, destinationAt, operationPayload, schemaAtPointer } from '../schemas.js'
import { checkOverlap, composedConstruction, unboundRequired } from './binding-paths.js'
import { resolveRefs, satisfies } from './binding-types.js'
import { tokenTypeContains } from '../containment.js'
import { natsRule } from './rule.js'
import { actionOf, at, contextTypes, onlyStrings, pipelines, stageInput } from './pipelines.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over pipeline steps and their bindings: O(steps + bindings); each literal schema compiled once per distinct text. */

export const pipelineBindings = natsRule({
  code: 'NATS_PIPELINE_BINDING',
  description:
    'Interaction steps whose bindings are not exactly {subject: {}, payload: {}}; operation steps bound from anything but stageInput, context or literal, leaving a parameter or required field unbound, overlapping, naming a pointer, context field or subject parameter that does not exist, with a literal its destination does not accept, a subject parameter bound to a value that is not a string (an integer context field, a stage input not shown to be a string), or a payload destination its schema forbids.',
  check(ctx, report) {
    for (const [key, steps] of pipelines(ctx)) {
      steps.forEach((step, i) => {
        const b = isObject(step.bindings) ? step.bindings : {}
        const subject = (isObject(b.subject) ? b.subject : {}) as Record<string, Record<string, unknown>>
        const payload = (isObject(b.payload) ? b.payload : {}) as Record<string, Record<string, unknown>>
        const pointer = at(ctx, key, 'steps', i, 'bindings')
        if ('interaction' in step) {
          if (Object.keys(subject).length > 0 || Object.keys(payload).length > 0)
            report(pointer, "An interaction step's bindings are exactly {subject: {}, payload: {}}: the interaction binds its own request.")
          return
        }
        if (actionOf(ctx, step.operation) !== 'send') return
        const input = stageInput(ctx, steps, i)
        for (const [part, map] of [
          ['subject', subject],
          ['payload', payload],
        ] as const) {
          for (const [target, source] of Object.entries(map)) {
            const where = `${pointer}/${part}/${escapeToken(target)}`
            const kinds = isObject(source) ? Object.keys(source) : []
            if (kinds.length !== 1 || !['stageInput', 'context', 'literal'].includes(kinds[0]!))
              report(
                where,
                'An operation step binds from exactly one of {stageInput}, {context} or {literal}; interaction inputs and branch fields do not exist here.',
              )
            else if ('context' in source && !Object.hasOwn(CONTEXT_FIELDS, source.context as string))
              report(where, `${JSON.stringify(source.context)} is not a context field.`)
            else if (
              'stageInput' in source &&
              input &&
              typeof source.stageInput === 'string' &&
              source.stageInput !== '' &&
              !schemaAtPointer(ctx, input, source.stageInput)
            )
              report(where, `${source.stageInput} does not exist in this step's stage input.`)
          }
        }
        const channel = ctx.operationChannel(step.operation)
        if (channel) {
          for (const param of Object.keys(channel.parameters))
            if (!Object.hasOwn(subject, param)) report(`${pointer}/subject`, `Subject parameter {${param}} is not bound.`)
          for (const [param, source] of Object.entries(subject)) {
            const where = `${pointer}/subject/${escapeToken(param)}`
            // Target keys are the step channel's parameters; a literal must be a token of its domain.
            if (!Object.hasOwn(channel.parameters, param)) report(where, `{${param}} is not a parameter of the step's channel.`)
            else if (isObject(source) && 'literal' in source) {
              const domain = ctx.tokenTypes[channel.parameters[param] ?? '']
              if (domain && (typeof source.literal !== 'string' || !tokenTypeContains(domain, { kind: 'enum', values: [source.literal] })))
                report(where, `Literal ${JSON.stringify(source.literal)} is not a token of {${param}}'s domain.`)
            } else if (isObject(source) && 'context' in source) {
              // Tokens are strings: an integer context field can never be one (its domain is checked at run time).
              const types = contextTypes(source.context)
              if (types && !types.every((t) => t === 'string'))
                report(where, `Context field ${JSON.stringify(source.context)} is ${types.join(' or ')}; a subject token is a string.`)
            } else if (isObject(source) && typeof source.stageInput === 'string' && input) {
              // A stage input value must be a string to be a token: proven from its schema, or refused.
              const from = source.stageInput === '' ? deref(ctx, input) : schemaAtPointer(ctx, input, source.stageInput)
              if (from && !onlyStrings(from))
                report(
                  where,
                  `The stage input at ${source.stageInput || '(whole)'} is ${typeof from.type === 'string' ? `a ${from.type}` : 'not shown to be a string'}; a subject token is a string.`,
                )
            }
          }
        }
        // A destination the payload schema forbids (additionalProperties: false, a member of a
        // non-object) can hold no value, whatever its source.
        const root = operationPayload(ctx, step.operation)
        // A payload literal must satisfy the schema it lands in: a declared member's, or what an object says of
        // the members it does not declare (as interactions read it, binding-types.ts).
        for (const [path, source] of Object.entries(payload)) {
          const destination = isObject(source) && root ? destinationAt(ctx, root, path) : undefined
          if (destination && 'forbidden' in destination)
            report(`${pointer}/payload/${escapeToken(path)}`, `The payload schema forbids a value at ${path}: ${destination.forbidden}.`)
          else if (destination && isObject(source) && 'literal' in source && !satisfies(resolveRefs(ctx, destination.schema) as object, source.literal))
            report(`${pointer}/payload/${escapeToken(path)}`, `Literal ${JSON.stringify(source.literal)} does not satisfy the schema at ${path}.`)
        }
        for (const path of unboundRequired(ctx, operationPayload(ctx, step.operation), Object.keys(payload)))
          report(`${pointer}/payload`, `Required payload field ${path} is not bound.`)
        for (const path of composedConstruction(ctx, operationPayload(ctx, step.operation), Object.keys(payload)))
          report(
            `${pointer}/payload`,
            `The payload ${path || '(root)'} is built field by field through a composed or conditional schema; what it requires cannot be proven: bind it whole.`,
          )
        checkOverlap(Object.keys(payload), (p) => `${pointer}/payload/${escapeToken(p)}`, report)
      })
    }
  },
})
