import { join } from 'node:path'
import { NatsContext } from '../context.js'
import { isObject } from '../document.js'
import type { Language } from '../languages.js'
import { natsRule } from './rule.js'
import { sameTokenLanguage } from '../containment.js'

/** Complexity (each rule here, worst case on any input under the size limits): per link O(1) lookups, and subject languages compared position by position. */

export interface ResolvedOperation {
  ctx: NatsContext
  id: string
  action: unknown
  label: string
}

/** A link end: a local operation key, or `{contract: <import alias>, operation}`. */
function resolveOperation(ctx: NatsContext, ref: unknown): ResolvedOperation | string {
  if (typeof ref === 'string') {
    const op = ctx.standard('operations')[ref]
    return isObject(op) ? { ctx, id: ref, action: op.action, label: ref } : `local operation ${JSON.stringify(ref)} does not exist`
  }
  if (!isObject(ref) || typeof ref.contract !== 'string' || typeof ref.operation !== 'string') return 'it is not an operation reference'
  const entry = ctx.section('imports')[ref.contract]
  if (!isObject(entry) || typeof entry.path !== 'string') return `${JSON.stringify(ref.contract)} is not an import alias of this document`
  const file = ctx.input.bundle && ctx.input.documents.get(join(ctx.input.bundle.root, ...entry.path.split('/')))
  if (!file) return `imported contract ${JSON.stringify(ref.contract)} could not be read`
  const other = new NatsContext({ ...ctx.input, main: file })
  const op = other.standard('operations')[ref.operation]
  return isObject(op)
    ? { ctx: other, id: ref.operation, action: op.action, label: `${ref.contract}:${ref.operation}` }
    : `${ref.contract} has no operation ${JSON.stringify(ref.operation)}`
}

function links(ctx: NatsContext): Array<{ index: number; send: unknown; receive: unknown }> {
  const list = ctx.profile.links
  return Array.isArray(list) ? list.flatMap((l, index) => (isObject(l) ? [{ index, send: l.send, receive: l.receive }] : [])) : []
}

export function resolvedLinks(ctx: NatsContext) {
  return links(ctx).flatMap(({ index, send, receive }) => {
    const s = resolveOperation(ctx, send)
    const r = resolveOperation(ctx, receive)
    return typeof s === 'string' || typeof r === 'string' ? [] : [{ index, send: s, receive: r }]
  })
}

export const linkResolves = natsRule({
  code: 'NATS_LINK_UNRESOLVED',
  description: 'A link end does not resolve to an operation (local key, or import alias and operation).',
  check(ctx, report) {
    for (const { index, send, receive } of links(ctx)) {
      for (const [end, ref] of [
        ['send', send],
        ['receive', receive],
      ] as const) {
        const resolved = resolveOperation(ctx, ref)
        if (typeof resolved === 'string') report(ctx.pointer('x-nats-contract', 'links', index, end), `Link ${end} does not resolve: ${resolved}.`)
      }
    }
  },
})

export const linkDirection = natsRule({
  code: 'NATS_LINK_DIRECTION',
  description: 'A link whose send end is not a send operation or whose receive end is not a receive operation.',
  check(ctx, report) {
    for (const { index, send, receive } of resolvedLinks(ctx)) {
      if (send.action !== 'send')
        report(
          ctx.pointer('x-nats-contract', 'links', index, 'send'),
          `${send.label} is a ${String(send.action)} operation; a link goes from a send to a receive.`,
        )
      if (receive.action !== 'receive')
        report(
          ctx.pointer('x-nats-contract', 'links', index, 'receive'),
          `${receive.label} is a ${String(receive.action)} operation; a link goes from a send to a receive.`,
        )
    }
  },
})

/** An operation's subject language with placeholders numbered by position, so renamed parameters compare equal. */
function operationLanguage(op: ResolvedOperation): Language | undefined {
  const channelId = op.ctx.channelOf(op.ctx.standard('operations')[op.id])
  const channel = channelId === undefined ? undefined : op.ctx.channels.get(channelId)
  return channel ? op.ctx.language(channel) : undefined
}

/** Equal token languages, not equal definitions: `{kind: enum, values: [ab]}` and a token type whose only token is `ab` are one language. */
export const sameType = sameTokenLanguage

export const linkSubjects = natsRule({
  code: 'NATS_LINK_SUBJECTS',
  description: "A link's two channels do not have equal subject languages after renaming parameters.",
  check(ctx, report) {
    for (const { index, send, receive } of resolvedLinks(ctx)) {
      const a = operationLanguage(send)
      const b = operationLanguage(receive)
      if (!a || !b) continue
      if (a.length !== b.length || !a.every((t, i) => sameType(t, b[i]!))) {
        report(
          ctx.pointer('x-nats-contract', 'links', index),
          `${send.label} and ${receive.label} do not address the same subjects (equal languages, position by position, are required).`,
        )
      }
    }
  },
})
