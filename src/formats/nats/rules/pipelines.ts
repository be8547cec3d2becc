import type { NatsContext } from '../context.js'
import { isObject } from '../document.js'
import { CONTEXT_FIELDS } from '../interaction-facts.js'
import { localSchema, operationPayload, sameSchema } from '../schemas.js'
import { natsRule } from './rule.js'
import { setOwn } from '../../../runtime/shared/own-property.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over pipeline steps: O(steps), schema equality by memoized digests. */

type Step = Record<string, any>

export const at = (ctx: NatsContext, key: string, ...path: Array<string | number>) => ctx.pointer('x-nats-contract', 'pipelines', key, ...path)

export function pipelines(ctx: NatsContext): Array<[string, Step[], Record<string, unknown>]> {
  return Object.entries(ctx.section('pipelines')).flatMap(([key, p]) =>
    isObject(p) && Array.isArray(p.steps) ? [[key, p.steps.filter(isObject) as Step[], p] as [string, Step[], Record<string, unknown>]] : [],
  )
}

/** The typed output of a step: an interaction's aggregation adapter outputSchema, else nothing. */
export function stepOutput(ctx: NatsContext, step: Step): Record<string, unknown> | undefined {
  if (typeof step.interaction !== 'string') return undefined
  const interaction = ctx.section('interactions')[step.interaction]
  const adapterKey = isObject(interaction) && isObject(interaction.aggregation) ? interaction.aggregation.adapter : undefined
  const adapter = typeof adapterKey === 'string' ? ctx.section('adapters')[adapterKey] : undefined
  return isObject(adapter) ? localSchema(ctx, adapter.outputSchema) : undefined
}

/**
 * The invocation input (profile v0.2, Composition: "For a first operation step, invocation input
 * uses the operation's payload schema"; an interaction step's "argument object contains the
 * declared source: argument inputs"): the first step's stage input.
 */
export function invocationInput(ctx: NatsContext, step: Step): Record<string, unknown> | undefined {
  if (typeof step.operation === 'string') return operationPayload(ctx, step.operation)
  const interaction = typeof step.interaction === 'string' ? ctx.section('interactions')[step.interaction] : undefined
  const inputs = isObject(interaction) && isObject(interaction.inputs) ? interaction.inputs : {}
  const properties: Record<string, unknown> = {}
  for (const [name, input] of Object.entries(inputs)) {
    if (!isObject(input) || input.source !== 'argument') continue
    setOwn(properties, name, typeof input.schema === 'string' ? { $ref: input.schema } : { type: 'string' })
  }
  return { type: 'object', required: Object.keys(properties), properties }
}

/** The stage input of step `i`: the invocation input first, then the previous output, transformed by this step's inputAdapter when present. */
export function stageInput(ctx: NatsContext, steps: Step[], i: number): Record<string, unknown> | undefined {
  if (i === 0) return invocationInput(ctx, steps[0]!)
  const adapter = typeof steps[i]!.inputAdapter === 'string' ? ctx.section('adapters')[steps[i]!.inputAdapter] : undefined
  return isObject(adapter) ? localSchema(ctx, adapter.outputSchema) : stepOutput(ctx, steps[i - 1]!)
}

/** The JSON types a context field's value has (deadlineMs is null only before admission). */
export function contextTypes(field: unknown): string[] | undefined {
  const type = typeof field === 'string' && Object.hasOwn(CONTEXT_FIELDS, field) ? CONTEXT_FIELDS[field] : undefined
  return type === undefined ? undefined : type === 'integer-or-null' ? ['integer', 'null'] : [type]
}

/** Is every value a schema admits a string? (`type: string`, or an enum or const of strings only.) */
export function onlyStrings(schema: Record<string, unknown> | undefined): boolean {
  if (!schema) return false
  if (Array.isArray(schema.enum)) return schema.enum.every((v) => typeof v === 'string')
  if ('const' in schema) return typeof schema.const === 'string'
  return schema.type === 'string'
}

export const actionOf = (ctx: NatsContext, id: unknown) =>
  typeof id === 'string' && isObject(ctx.standard('operations')[id]) ? (ctx.standard('operations')[id] as Record<string, unknown>).action : undefined

export const pipelineSteps = natsRule({
  code: 'NATS_PIPELINE_STEP',
  description: 'A step that is not exactly one of an interaction of this document or a local send operation, or a pipeline whose onFailure is not stop.',
  check(ctx, report) {
    for (const [key, steps, p] of pipelines(ctx)) {
      if (p.onFailure !== 'stop') report(at(ctx, key, 'onFailure'), 'onFailure is stop in v0.2.')
      steps.forEach((step, i) => {
        const pointer = at(ctx, key, 'steps', i)
        if ('interaction' in step === 'operation' in step) report(pointer, 'A step names exactly one of interaction and operation.')
        else if ('interaction' in step && !isObject(ctx.section('interactions')[step.interaction]) && !isObject(ctx.section('pipelines')[step.interaction]))
          report(pointer, `${JSON.stringify(step.interaction)} is not an interaction of this document.`)
        else if ('operation' in step && actionOf(ctx, step.operation) !== 'send')
          report(pointer, `${JSON.stringify(step.operation)} is not a local send operation.`)
      })
    }
  },
})

export const pipelineRecursion = natsRule({
  code: 'NATS_PIPELINE_RECURSION',
  description: 'A pipeline step that names a pipeline (itself or another): recursion is rejected.',
  check(ctx, report) {
    for (const [key, steps] of pipelines(ctx)) {
      steps.forEach((step, i) => {
        if (typeof step.interaction === 'string' && isObject(ctx.section('pipelines')[step.interaction]))
          report(
            at(ctx, key, 'steps', i, 'interaction'),
            `Step ${i} names pipeline ${JSON.stringify(step.interaction)}; pipelines compose interactions and operations, never pipelines.`,
          )
      })
    }
  },
})

export const pipelineAdapters = natsRule({
  code: 'NATS_PIPELINE_ADAPTER',
  description: "An inputAdapter on the first step, or a transform whose inputSchema does not exactly equal the preceding step's output.",
  check(ctx, report) {
    for (const [key, steps] of pipelines(ctx)) {
      steps.forEach((step, i) => {
        if (typeof step.inputAdapter !== 'string') return
        const pointer = at(ctx, key, 'steps', i, 'inputAdapter')
        if (i === 0) return report(pointer, 'The first step takes the invocation input and has no inputAdapter.')
        const adapter = ctx.section('adapters')[step.inputAdapter]
        const previous = stepOutput(ctx, steps[i - 1]!)
        if (isObject(adapter) && previous && !sameSchema(ctx, localSchema(ctx, adapter.inputSchema), previous))
          report(pointer, `Transform ${JSON.stringify(step.inputAdapter)} does not take exactly the preceding step's output.`)
      })
    }
  },
})
