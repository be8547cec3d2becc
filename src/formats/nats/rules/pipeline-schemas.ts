import { isObject } from '../document.js'
import { destinationAt, operationPayload, sameSchema, schemaAtPointer } from '../schemas.js'
import { natsRule } from './rule.js'
import { at, contextTypes, invocationInput, pipelines, stageInput, stepOutput } from './pipelines.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over pipeline steps and their payload bindings: O(steps + bindings), schema equality by memoized digests. */

/** Schema members that only annotate: a destination with nothing else is constrained by its type alone. */
const ANNOTATIONS = new Set(['type', 'title', 'description', 'examples', 'example', '$comment', 'default'])

/** Does a schema's `type` admit every one of these JSON types? (integer within number; no `type` admits all.) */
function typeAdmits(schema: Record<string, unknown>, types: readonly string[]): boolean {
  const declared = Array.isArray(schema.type) ? schema.type : typeof schema.type === 'string' ? [schema.type] : undefined
  return declared === undefined || types.every((t) => declared.includes(t) || (t === 'integer' && declared.includes('number')))
}

export const pipelineOutput = natsRule({
  code: 'PIPELINE_OUTPUT_UNSUPPORTED',
  description:
    'A later step needs the previous output (it reads stageInput, is a transform, or is an interaction with arguments), but nothing typed produced one (a publication acknowledgment, or an interaction without an aggregation schema).',
  check(ctx, report) {
    for (const [key, steps] of pipelines(ctx)) {
      steps.forEach((step, i) => {
        if (i === 0) return
        const previous = stepOutput(ctx, steps[i - 1]!)
        // A transform takes the previous output; with none, it has nothing to take.
        if (typeof step.inputAdapter === 'string' && !previous)
          return report(
            at(ctx, key, 'steps', i, 'inputAdapter'),
            `Step ${i}'s transform takes the previous step's output, but step ${i - 1} produces no typed output (only an interaction with an aggregation adapter does).`,
          )
        if ('interaction' in step) {
          // An interaction step's typed input is its argument object, which must come from somewhere.
          const interaction = ctx.section('interactions')[step.interaction]
          const inputs = isObject(interaction) && isObject(interaction.inputs) ? Object.values(interaction.inputs) : []
          if (inputs.some((input) => isObject(input) && input.source === 'argument') && !stageInput(ctx, steps, i))
            report(
              at(ctx, key, 'steps', i),
              `Step ${i} is an interaction with arguments, but step ${i - 1} produces no typed output to pass it (only an interaction with an aggregation adapter does).`,
            )
          return
        }
        if (!('operation' in step)) return
        const b = isObject(step.bindings) ? step.bindings : {}
        const reads = ['subject', 'payload'].some((part) => isObject(b[part]) && Object.values(b[part] as object).some((s) => isObject(s) && 'stageInput' in s))
        if (reads && !stageInput(ctx, steps, i))
          report(
            at(ctx, key, 'steps', i, 'bindings'),
            `Step ${i} reads stageInput, but step ${i - 1} produces no typed output (only an interaction with an aggregation adapter does).`,
          )
      })
    }
  },
})

export const pipelineSchemas = natsRule({
  code: 'NATS_PIPELINE_SCHEMA',
  description:
    'A stageInput payload binding whose source and destination schemas are not exactly equal after resolution, a context payload binding whose type the destination does not admit or whose destination constrains more than its type, or a later interaction step whose stage input is not exactly its argument object.',
  check(ctx, report) {
    for (const [key, steps] of pipelines(ctx)) {
      steps.forEach((step, i) => {
        if ('interaction' in step) {
          // "exact resolved schema equality for stage/transform adjacency ... (interaction inputs too)".
          const input = i > 0 ? stageInput(ctx, steps, i) : undefined
          const args = invocationInput(ctx, step)
          if (input && args && !sameSchema(ctx, input, args))
            report(at(ctx, key, 'steps', i), `Step ${i}'s stage input is not exactly the argument object of interaction ${JSON.stringify(step.interaction)}.`)
          return
        }
        if (!('operation' in step)) return
        const input = stageInput(ctx, steps, i)
        const payload = isObject(step.bindings) && isObject(step.bindings.payload) ? (step.bindings.payload as Record<string, Record<string, unknown>>) : {}
        const root = operationPayload(ctx, step.operation)
        for (const [path, source] of Object.entries(payload)) {
          if (!isObject(source) || !root) continue
          const destination = destinationAt(ctx, root, path)
          // Forbidden destinations are NATS_PIPELINE_BINDING's.
          if (destination && 'forbidden' in destination) continue
          const to = destination?.schema
          const where = at(ctx, key, 'steps', i, 'bindings', 'payload', path)
          if ('context' in source) {
            // "source/destination types must be compatible", and an implication the checker cannot
            // prove (a destination constrained beyond its type) fails rather than being accepted.
            const types = contextTypes(source.context)
            if (!types) continue
            if (!to)
              report(
                where,
                `What the payload schema allows at ${path} cannot be read, so context field ${JSON.stringify(source.context)} is not proven to fit it.`,
              )
            else if (!typeAdmits(to, types))
              report(where, `Context field ${JSON.stringify(source.context)} is ${types.join(' or ')}; the payload at ${path} is ${JSON.stringify(to.type)}.`)
            else if (Object.keys(to).some((k) => !ANNOTATIONS.has(k)))
              report(
                where,
                `The payload at ${path} constrains its value beyond its type; nothing proves context field ${JSON.stringify(source.context)} satisfies it.`,
              )
            continue
          }
          if (typeof source.stageInput !== 'string' || !input) continue
          const from = source.stageInput === '' ? input : schemaAtPointer(ctx, input, source.stageInput)
          if (from && !(to && sameSchema(ctx, from, to)))
            report(where, `The stage input at ${source.stageInput || '(whole)'} and the payload at ${path} are not exactly the same schema.`)
        }
      })
    }
  },
})
