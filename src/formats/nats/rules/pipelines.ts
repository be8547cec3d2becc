import { escapeToken } from '../../../runtime/shared/json-pointer.js'
import { join } from 'node:path'
import type { NatsContext } from '../context.js'
import { isObject } from '../document.js'
import { CONTEXT_FIELDS } from '../interaction-facts.js'
import { deref, destinationAt, localSchema, operationPayload, sameSchema, schemaAtPointer } from '../schemas.js'
import { checkOverlap, composedConstruction, resolveRefs, satisfies, unboundRequired } from './bindings.js'
import { tokenTypeContains } from '../containment.js'
import { natsRule } from './rule.js'
import { setOwn } from '../../../runtime/shared/own-property.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over pipeline steps and their bindings: O(steps + bindings), schema equality by memoized digests. */

type Step = Record<string, any>
const at = (ctx: NatsContext, key: string, ...path: Array<string | number>) => ctx.pointer('x-nats-contract', 'pipelines', key, ...path)

function pipelines(ctx: NatsContext): Array<[string, Step[], Record<string, unknown>]> {
  return Object.entries(ctx.section('pipelines')).flatMap(([key, p]) =>
    isObject(p) && Array.isArray(p.steps) ? [[key, p.steps.filter(isObject) as Step[], p] as [string, Step[], Record<string, unknown>]] : [],
  )
}

/** The typed output of a step: an interaction's aggregation adapter outputSchema, else nothing. */
function stepOutput(ctx: NatsContext, step: Step): Record<string, unknown> | undefined {
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
function invocationInput(ctx: NatsContext, step: Step): Record<string, unknown> | undefined {
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
function stageInput(ctx: NatsContext, steps: Step[], i: number): Record<string, unknown> | undefined {
  if (i === 0) return invocationInput(ctx, steps[0]!)
  const adapter = typeof steps[i]!.inputAdapter === 'string' ? ctx.section('adapters')[steps[i]!.inputAdapter] : undefined
  return isObject(adapter) ? localSchema(ctx, adapter.outputSchema) : stepOutput(ctx, steps[i - 1]!)
}

/** Schema members that only annotate: a destination with nothing else is constrained by its type alone. */
const ANNOTATIONS = new Set(['type', 'title', 'description', 'examples', 'example', '$comment', 'default'])

/** The JSON types a context field's value has (deadlineMs is null only before admission). */
function contextTypes(field: unknown): string[] | undefined {
  const type = typeof field === 'string' && Object.hasOwn(CONTEXT_FIELDS, field) ? CONTEXT_FIELDS[field] : undefined
  return type === undefined ? undefined : type === 'integer-or-null' ? ['integer', 'null'] : [type]
}

/** Does a schema's `type` admit every one of these JSON types? (integer within number; no `type` admits all.) */
function typeAdmits(schema: Record<string, unknown>, types: readonly string[]): boolean {
  const declared = Array.isArray(schema.type) ? schema.type : typeof schema.type === 'string' ? [schema.type] : undefined
  return declared === undefined || types.every((t) => declared.includes(t) || (t === 'integer' && declared.includes('number')))
}

/** Is every value a schema admits a string? (`type: string`, or an enum or const of strings only.) */
function onlyStrings(schema: Record<string, unknown> | undefined): boolean {
  if (!schema) return false
  if (Array.isArray(schema.enum)) return schema.enum.every((v) => typeof v === 'string')
  if ('const' in schema) return typeof schema.const === 'string'
  return schema.type === 'string'
}

const actionOf = (ctx: NatsContext, id: unknown) =>
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
        for (const [path, source] of Object.entries(payload)) {
          const destination = isObject(source) && root ? destinationAt(ctx, root, path) : undefined
          if (destination && 'forbidden' in destination)
            report(`${pointer}/payload/${escapeToken(path)}`, `The payload schema forbids a value at ${path}: ${destination.forbidden}.`)
        }
        // A payload literal must satisfy the schema at its destination.
        for (const [path, source] of Object.entries(payload)) {
          if (!isObject(source) || !('literal' in source)) continue
          const target = schemaAtPointer(ctx, root, path)
          if (target && !satisfies(resolveRefs(ctx, target) as object, source.literal))
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

/** Open Workflow 1.0 task kinds, and the members every task may have beside its kind. */
const TASK_KINDS = new Set(['call', 'do', 'emit', 'for', 'fork', 'listen', 'raise', 'run', 'set', 'switch', 'try', 'wait'])
const TASK_COMMON = new Set(['if', 'input', 'output', 'export', 'timeout', 'then', 'metadata'])
/** Members that belong to a kind beside its key: a `call` its `with`, a `for` its `while` and `do`, a `try` its `catch`, a `listen` its `foreach`. */
const KIND_PARTS: Readonly<Record<string, readonly string[]>> = { call: ['with'], for: ['do', 'while'], try: ['catch'], listen: ['foreach'] }

/**
 * Why a workflow document is not an Open Workflow 1.0.4 document in substance, as [pointer, reason]
 * pairs: `document` with `dsl: 1.0.4`, `namespace`, `name` and `version`, and a non-empty `do` list
 * of named tasks, each of exactly one Open Workflow kind ("quorum is this profile's interaction
 * primitive, not an invented native workflow feature": a task of another kind is refused). Nested
 * task lists (`do`, a `for`'s `do`, `fork.branches`, `try.try`) are read the same way. Iterative:
 * O(document).
 */
function workflowProblems(doc: unknown): Array<[string, string]> {
  const problems: Array<[string, string]> = []
  const d = isObject(doc) && isObject(doc.document) ? doc.document : undefined
  if (!d) return [['', 'An Open Workflow document has a `document` object.']]
  if (d.dsl !== '1.0.4') problems.push(['/document/dsl', `document.dsl is exactly '1.0.4', not ${JSON.stringify(d.dsl ?? null)}.`])
  for (const member of ['namespace', 'name', 'version'])
    if (typeof d[member] !== 'string' || d[member] === '') problems.push([`/document/${member}`, `document.${member} is a non-empty string.`])
  const lists: Array<[unknown, string]> = [[(doc as Record<string, unknown>).do, '/do']]
  while (lists.length > 0) {
    const [list, at] = lists.pop()!
    if (!Array.isArray(list) || list.length === 0) {
      problems.push([at, 'A task list is a non-empty array of named tasks.'])
      continue
    }
    list.forEach((entry, i) => {
      const names = isObject(entry) ? Object.keys(entry) : []
      if (names.length !== 1 || !isObject((entry as Record<string, unknown>)[names[0]!]))
        return problems.push([`${at}/${i}`, 'A task list entry is one named task: { <name>: { <kind>: ... } }.'])
      const name = names[0]!
      const task = (entry as Record<string, Record<string, unknown>>)[name]!
      const where = `${at}/${i}/${escapeToken(name)}`
      const keys = Object.keys(task)
      const kinds = keys.filter((k) => TASK_KINDS.has(k))
      const parts = new Set(kinds.flatMap((k) => KIND_PARTS[k] ?? []))
      const own = kinds.filter((k) => !parts.has(k))
      const unknown = keys.filter((k) => !TASK_KINDS.has(k) && !TASK_COMMON.has(k) && !parts.has(k))
      for (const k of unknown)
        problems.push([
          `${where}/${escapeToken(k)}`,
          `${JSON.stringify(k)} is not an Open Workflow 1.0 task kind or member (quorum and other coordination are this profile's interaction primitives: call an interaction).`,
        ])
      if (own.length !== 1) problems.push([where, `A task has exactly one kind (${[...TASK_KINDS].join(', ')}); ${JSON.stringify(name)} has ${own.length}.`])
      if (own[0] === 'do') lists.push([task.do, `${where}/do`])
      if (own[0] === 'for') lists.push([task.do, `${where}/do`])
      if (own[0] === 'try') lists.push([task.try, `${where}/try`])
      if (own[0] === 'fork' && isObject(task.fork)) lists.push([task.fork.branches, `${where}/fork/branches`])
    })
  }
  return problems
}

export const workflowRule = natsRule({
  code: 'NATS_WORKFLOW',
  description:
    'A workflow artifact that is not a locked Open Workflow 1.0.4 document in substance: `document` (dsl 1.0.4, namespace, name, version) and `do` tasks, each of one Open Workflow kind (no invented primitive such as a native quorum).',
  check(ctx, report) {
    for (const [key, workflow] of Object.entries(ctx.section('workflows'))) {
      if (!isObject(workflow) || !isObject(workflow.artifact) || typeof workflow.artifact.path !== 'string' || !ctx.input.bundle) continue
      const file = ctx.input.files.get(join(ctx.input.bundle.root, ...workflow.artifact.path.split('/')))
      if (!file) continue
      for (const [pointer, reason] of workflowProblems(file.source.value)) report.in(file, pointer, `Workflow ${JSON.stringify(key)}: ${reason}`)
    }
  },
})
