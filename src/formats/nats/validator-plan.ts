import { runtimePatternsIn } from '../../core/pattern-safety.js'
import type { PatternSpec } from '../../runtime/shared/pattern-matchers.js'
import type { Schema } from '../../runtime/shared/schema-check.js'
import { branchInputSchema } from './branch-slot.js'
import type { NatsContext } from './context.js'
import { isObject } from './document.js'
import { localRequestPayload } from './message-schemas.js'
import { componentForm, generatedForm, reachesConverted } from './payload-validators.js'

/**
 * How the module checks one payload at run time, decided once, in check:
 *
 * - `generated`: the generated validator code takes it (its keywords, and those of every component
 *   it reaches): `schema` is its form for that code, `refs` the component references it makes;
 * - `ajv`: anything else, compiled by ajv into standalone code.
 *
 * `patterns`: its schema patterns that do not run as one native `RegExp` (the linear-time engine,
 * lookaround-free parts, or the budgeted matcher), with what the runtime needs to run each; ajv's
 * code reads them through the module's pattern engine. References are not followed: the
 * components' own are `ValidatorPlan.componentPatterns`.
 */
export type PayloadPlan =
  | { readonly backend: 'generated'; readonly schema: Schema; readonly refs: ReadonlySet<string>; readonly patterns: ReadonlyMap<string, PatternSpec> }
  | { readonly backend: 'ajv'; readonly patterns: ReadonlyMap<string, PatternSpec> }

/** A component's form for the generated validator code and the references it makes; undefined when that code does not take it. */
export type ConvertedComponent = { readonly schema: Schema; readonly refs: ReadonlySet<string> } | undefined

/** A schema the module validates, and its plan. */
export interface Planned {
  readonly schema: unknown
  readonly plan: PayloadPlan
}

/** The validators of one interaction. */
export interface InteractionPlan {
  /** The request payload (`runtime-schema-check`), with its references made local. */
  readonly payload?: Planned
  /** Each input declared with a `#/components/schemas/...` schema, by name: the schema `{ $ref }`. */
  readonly inputs: ReadonlyMap<string, PayloadPlan>
  /** The branch manifest's `input` slot (branch-slot.ts). */
  readonly branch?: Planned
  /** The aggregation adapter's `outputSchema` (a `#/components/schemas/...` reference): what `outcome.output` must be. */
  readonly output?: Planned
}

/**
 * The validator plan of one document (`NatsContext.validatorPlan`): every payload the module
 * validates, decided once while the document is checked (the payload rules read it then), then
 * carried by the model to generation, which assembles validators from it and decides nothing.
 * It holds no reference to the document's context: the model (kept by the compile cache) keeps
 * only these decisions and the components they were made against.
 */
export class ValidatorPlan {
  constructor(
    /** What `#/components/schemas/...` references name: the document's components and those brought in from locked files (the model's `schemas`). */
    readonly components: Readonly<Record<string, unknown>>,
    /** Component reference -> its form for the generated code, for every component a planned payload reaches. */
    private readonly converted: ReadonlyMap<string, ConvertedComponent>,
    /** The components' patterns that do not run as one native `RegExp` (ajv's code carries every component). */
    readonly componentPatterns: ReadonlyMap<string, PatternSpec>,
    /** Channel id -> message name -> the plan of its payload (messages with a payload of their own only). */
    private readonly messages: ReadonlyMap<string, ReadonlyMap<string, PayloadPlan>>,
    private readonly interactions: ReadonlyMap<string, InteractionPlan>,
    /** Channel id -> message name -> the plan of its `headers` schema (messages with one only). */
    private readonly headerPlans: ReadonlyMap<string, ReadonlyMap<string, PayloadPlan>> = new Map(),
  ) {}

  /** A component's form for the generated code, as decided when a planned payload reached it. */
  component(ref: string): ConvertedComponent {
    return this.converted.get(ref)
  }

  message(channelId: string, name: string): PayloadPlan | undefined {
    return this.messages.get(channelId)?.get(name)
  }

  /** The plan of a channel message's `headers` schema (undefined: it has none). */
  headers(channelId: string, name: string): PayloadPlan | undefined {
    return this.headerPlans.get(channelId)?.get(name)
  }

  interaction(id: string): InteractionPlan | undefined {
    return this.interactions.get(id)
  }
}

/**
 * The plan of `{ anyOf: members }` (a channel's or an operation's several messages), from its
 * members' plans: the generated code takes the whole when it takes every member, as the `anyOf`
 * form of their forms with their references in order. (A member nested within the converter's
 * depth bound stays within it one level down: documents are bounded at the same depth, and a
 * payload sits at least one level down in its file.)
 */
export function anyOfPlan(members: readonly PayloadPlan[]): PayloadPlan {
  const patterns = new Map<string, PatternSpec>()
  for (const member of members) for (const [pattern, spec] of member.patterns) patterns.set(pattern, spec)
  const schemas: Schema[] = []
  const refs = new Set<string>()
  for (const member of members) {
    if (member.backend !== 'generated') return { backend: 'ajv', patterns }
    schemas.push(member.schema)
    for (const ref of member.refs) refs.add(ref)
  }
  return { backend: 'generated', schema: { anyOf: schemas }, refs, patterns }
}

/** The plan of `{ not: {} }`: what an operation that lists none of its channel's messages checks. */
export const NOTHING_PLAN: PayloadPlan = { backend: 'generated', schema: { not: {} }, refs: new Set(), patterns: new Map() }

/**
 * Decides the plan of every payload the module of `ctx` validates: each channel message's, and
 * each interaction's request payload, schema-typed inputs and branch slot; each component they
 * reach is converted once. What the model's validators are assembled from (a channel's messages
 * together, an operation's listed ones) is read off these.
 */
export function planValidators(ctx: NatsContext): ValidatorPlan {
  const messages = ctx.messages
  // Request payloads are copied first: a copy may bring in one more component from a locked file,
  // and the components below must hold every one a planned payload reaches.
  const requests = new Map<string, unknown>()
  const interactions: Array<[string, Record<string, unknown>]> = []
  for (const [id, it] of Object.entries(ctx.section('interactions'))) {
    if (!isObject(it)) continue
    interactions.push([id, it])
    const capabilities = Array.isArray(it.capabilities) ? it.capabilities : []
    if (capabilities.includes('runtime-schema-check') && typeof it.requestOperation === 'string')
      requests.set(id, localRequestPayload(ctx, it.requestOperation)?.payload)
  }
  const components = { ...messages.own, ...messages.extra }
  const converted = new Map<string, ConvertedComponent>()
  const convertedOf = (ref: string): ConvertedComponent => {
    if (!converted.has(ref)) converted.set(ref, componentForm(ref, components))
    return converted.get(ref)
  }
  const plan = (schema: unknown): PayloadPlan => {
    const patterns = runtimePatterns(ctx, schema)
    const form = generatedForm(schema)
    return form !== undefined && reachesConverted(form.refs, convertedOf)
      ? { backend: 'generated', schema: form.schema, refs: form.refs, patterns }
      : { backend: 'ajv', patterns }
  }

  const byChannel = new Map<string, Map<string, PayloadPlan>>()
  const headersByChannel = new Map<string, Map<string, PayloadPlan>>()
  // Channels that share a message share its payload (message-schemas.ts): planned once.
  const planned = new Map<unknown, PayloadPlan>()
  const once = (schema: unknown) => {
    let known = planned.get(schema)
    if (known === undefined) planned.set(schema, (known = plan(schema)))
    return known
  }
  for (const channel of ctx.channelList) {
    const plans = new Map<string, PayloadPlan>()
    let headerPlans: Map<string, PayloadPlan> | undefined
    for (const message of messages.byChannel.get(channel.id) ?? []) {
      if (message.external) continue
      if (message.headers !== undefined) (headerPlans ??= new Map()).set(message.name, once(message.headers))
      if (message.payload !== undefined) plans.set(message.name, once(message.payload))
    }
    byChannel.set(channel.id, plans)
    if (headerPlans) headersByChannel.set(channel.id, headerPlans)
  }
  const byInteraction = new Map<string, InteractionPlan>()
  for (const [id, it] of interactions) {
    const payload = requests.get(id)
    const inputs = new Map<string, PayloadPlan>()
    for (const [name, input] of Object.entries(isObject(it.inputs) ? it.inputs : {}))
      if (isObject(input) && typeof input.schema === 'string' && input.schema.startsWith('#/components/schemas/'))
        inputs.set(name, plan({ $ref: input.schema }))
    const slot = branchInputSchema(it, components)
    const output = aggregationOutput(it, ctx.section('adapters'))
    byInteraction.set(id, {
      ...(payload !== undefined ? { payload: { schema: payload, plan: plan(payload) } } : {}),
      inputs,
      ...(slot !== undefined ? { branch: { schema: slot, plan: plan(slot) } } : {}),
      ...(output !== undefined ? { output: { schema: output, plan: plan(output) } } : {}),
    })
  }
  return new ValidatorPlan(components, converted, runtimePatterns(ctx, components), byChannel, byInteraction, headersByChannel)
}

/** `{ $ref }` of the interaction's aggregation adapter's `outputSchema`, when it names a local component (the rules refuse anything else). */
function aggregationOutput(it: Record<string, unknown>, adapters: Record<string, unknown>): { $ref: string } | undefined {
  const key = isObject(it.aggregation) ? it.aggregation.adapter : undefined
  const adapter = typeof key === 'string' && Object.hasOwn(adapters, key) ? adapters[key] : undefined
  const schema = isObject(adapter) ? adapter.outputSchema : undefined
  return typeof schema === 'string' && schema.startsWith('#/components/schemas/') ? { $ref: schema } : undefined
}

/**
 * The patterns in a JSON Schema value (`pattern` members and `patternProperties` keys) that do not
 * run as one native `RegExp`, each with its runtime form, from the engine the context decided for
 * it (the same decision the pattern rule warns from). Iterative; linear in the value's size.
 */
function runtimePatterns(ctx: NatsContext, schema: unknown): Map<string, PatternSpec> {
  const out = new Map<string, PatternSpec>()
  runtimePatternsIn(schema, out, (pattern) => ctx.patternEngine(pattern))
  return out
}
