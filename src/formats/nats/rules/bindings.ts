import type { NatsContext } from '../context.js'
import { isObject } from '../document.js'
import { BRANCH_FIELDS, CORRELATION_SOURCES } from '../interaction-facts.js'
import { operationPayload } from '../schemas.js'
import { interactions } from './interactions.js'
import { natsRule } from './rule.js'
import { checkOverlap, composedConstruction, unboundRequired } from './binding-paths.js'

/** Complexity (each rule here, worst case on any input under the size limits): per interaction, O(b log b) for b bindings (overlap by one sort, binding-paths.ts), required-field coverage O(fields x depth) through set lookups. */

export type Source = Record<string, unknown>

export const at = (ctx: NatsContext, key: string, ...path: Array<string | number>) => ctx.pointer('x-nats-contract', 'interactions', key, ...path)

export function bindingMaps(it: Record<string, any>): { subject: Record<string, Source>; payload: Record<string, Source> } {
  const b = isObject(it.bindings) ? it.bindings : {}
  return {
    subject: (isObject(b.subject) ? b.subject : {}) as Record<string, Source>,
    payload: (isObject(b.payload) ? b.payload : {}) as Record<string, Source>,
  }
}

const SOURCE_KINDS = ['input', 'context', 'branch', 'literal']

export const bindingSources = natsRule({
  code: 'NATS_BINDING_SOURCE',
  description: 'A binding source that is not exactly one of {input}, {context}, {branch} or {literal}, or names an input or branch field that does not exist.',
  check(ctx, report) {
    for (const [key, it] of interactions(ctx)) {
      const inputs = isObject(it.inputs) ? it.inputs : {}
      for (const [part, map] of Object.entries(bindingMaps(it))) {
        for (const [target, source] of Object.entries(map)) {
          const pointer = at(ctx, key, 'bindings', part, target)
          const kinds = isObject(source) ? Object.keys(source) : []
          if (kinds.length !== 1 || !SOURCE_KINDS.includes(kinds[0]!))
            report(pointer, 'A source is exactly one of {input}, {context}, {branch} or {literal}; there is no implicit same-name copying.')
          else if ('input' in source && !Object.hasOwn(inputs, source.input as string))
            report(pointer, `${JSON.stringify(source.input)} is not an input of this interaction.`)
          else if ('branch' in source && !Object.hasOwn(BRANCH_FIELDS, source.branch as string))
            report(pointer, `${JSON.stringify(source.branch)} is not a branch field (id, peerId, attempt, fence, input).`)
        }
      }
    }
  },
})

export const bindingOverlap = natsRule({
  code: 'NATS_BINDING_OVERLAP',
  description: 'Two payload destination pointers overlap (one equals or contains the other).',
  check(ctx, report) {
    for (const [key, it] of interactions(ctx)) checkOverlap(Object.keys(bindingMaps(it).payload), (p) => at(ctx, key, 'bindings', 'payload', p), report)
  },
})

export const bindingCoverage = natsRule({
  code: 'NATS_BINDING_MISSING',
  description:
    'A subject parameter of the request channel or a required payload field (required descendants of constructed objects included) is not bound, or a binding names a parameter the channel does not have.',
  check(ctx, report) {
    for (const [key, it] of interactions(ctx)) {
      if (it.requestOperation === undefined) continue
      const { subject, payload } = bindingMaps(it)
      const channel = ctx.operationChannel(it.requestOperation)
      if (!channel) continue
      for (const param of Object.keys(channel.parameters))
        if (!Object.hasOwn(subject, param))
          report(at(ctx, key, 'bindings', 'subject'), `Subject parameter {${param}} of channel ${JSON.stringify(channel.id)} is not bound.`)
      for (const param of Object.keys(subject))
        if (!Object.hasOwn(channel.parameters, param))
          report(at(ctx, key, 'bindings', 'subject', param), `{${param}} is not a parameter of channel ${JSON.stringify(channel.id)}.`)
      for (const path of unboundRequired(ctx, operationPayload(ctx, it.requestOperation), Object.keys(payload))) {
        report(at(ctx, key, 'bindings', 'payload'), `Required payload field ${path} is not bound.`)
      }
      for (const path of composedConstruction(ctx, operationPayload(ctx, it.requestOperation), Object.keys(payload)))
        report(
          at(ctx, key, 'bindings', 'payload'),
          `The payload ${path || '(root)'} is built field by field through a composed or conditional schema; what it requires cannot be proven: bind it whole.`,
        )
    }
  },
})

export const correlationNotOverwritten = natsRule({
  code: 'NATS_BINDING_CORRELATION',
  description:
    "A payload location that correlation reads is bound from business data instead of the fact it names, or the operation, branch, attempt or fence location is left unbound (a result echoes them from its request; the peer's id it writes itself). Work that sends a request only.",
  check(ctx, report) {
    for (const [key, it] of interactions(ctx)) {
      // Gather-only work (no requestOperation) sends no request payload: its bindings are empty and
      // there is no correlation metadata of a request to protect.
      if (it.requestOperation === undefined) continue
      const c = isObject(it.correlation) ? it.correlation : {}
      const { payload } = bindingMaps(it)
      for (const [fact, allowed] of Object.entries(CORRELATION_SOURCES)) {
        const expr = c[fact]
        if (typeof expr !== 'string' || !expr.startsWith('$message.payload#')) continue
        const location = expr.slice('$message.payload#'.length)
        const source = payload[location]
        const id = isObject(source) ? `${Object.keys(source)[0]}:${String(Object.values(source)[0])}` : undefined
        // The peer's own id need not travel in the request: the peer writes it into its result
        // (the layout's own interaction binds no /peerId). The other facts must: a result echoes
        // them from the request it answers, and a request without them cannot be answered.
        if (id === undefined && fact !== 'peer')
          report(at(ctx, key, 'bindings', 'payload'), `${location} carries the ${fact} correlation and must be bound from ${allowed.join(' or ')}.`)
        else if (id !== undefined && !allowed.includes(id))
          report(
            at(ctx, key, 'bindings', 'payload', location),
            `${location} carries the ${fact} correlation; binding it from ${id} would overwrite correlation metadata with business data.`,
          )
      }
    }
  },
})
