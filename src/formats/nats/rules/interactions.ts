import canonicalize from 'canonicalize'
import type { NatsContext } from '../context.js'
import { isObject } from '../document.js'
import { OPERATION_ID_DOMAIN } from '../interaction-facts.js'
import { natsRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over interactions, each reference to an operation or link a map or set lookup: O(interactions + links). */

type Interaction = Record<string, any>

export const at = (ctx: NatsContext, key: string, ...path: Array<string | number>) => ctx.pointer('x-nats-contract', 'interactions', key, ...path)

export function interactions(ctx: NatsContext): Array<[string, Interaction]> {
  return Object.entries(ctx.section('interactions')).filter((e): e is [string, Interaction] => isObject(e[1]))
}

export const actionOf = (ctx: NatsContext, id: unknown) =>
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
