import canonicalize from 'canonicalize'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { positions } from '../address.js'
import { NatsContext } from '../context.js'
import { isObject } from '../document.js'
import { ChannelIndex } from '../channel-index.js'
import type { Language } from '../languages.js'
import { natsRule } from './rule.js'
import { distinctDocuments } from './bundle.js'
import { sameTokenLanguage } from '../containment.js'
import { follow, type Where } from '../message-schemas.js'
import { schemaOfPayload } from '../multi-format.js'
import { ANNOTATION_KEYS } from '../schemas.js'

/** Complexity (each rule here, worst case on any input under the size limits): per link O(1) lookups; payload equality by hash-consed digests, each reference resolved once (linear in the schemas); cross-contract overlap through a ChannelIndex of each imported contract. */

interface ResolvedOperation {
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

function resolvedLinks(ctx: NatsContext) {
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
const sameType = sameTokenLanguage

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

const NAME_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas', 'messages', 'headers'])
// Keywords that annotate and never decide validation (ANNOTATION_KEYS, schemas.ts: JSON Schema
// draft-07 section 10 and AsyncAPI's own): two schemas that differ only in them are one schema.

/**
 * A digest of each message's payload schema with every reference resolved and annotations
 * dropped (equal digests: equal normalized schemas); undefined when equality cannot be proven
 * (recursion, missing targets, a nesting past the stack).
 *
 * Each node is digested from its children's digests (hash-consing), and each reference target
 * once: linear in the document. Expanding references as text instead was exponential in the
 * number of levels of a schema that refers twice to a schema that refers twice to ... .
 */
function normalizedPayloads(op: ResolvedOperation): string[] | undefined {
  const doc = op.ctx.doc
  const operation = op.ctx.standard('operations')[op.id] as Record<string, unknown>
  const channelId = op.ctx.channelOf(operation)
  const channel = channelId === undefined ? undefined : (op.ctx.standard('channels')[channelId] as Record<string, unknown> | undefined)
  const messages = Array.isArray(operation.messages) ? operation.messages : isObject(channel?.messages) ? Object.values(channel.messages) : []
  const resolved = new Map<string, string>()
  const open = new Set<string>()
  const digest = (text: string) => createHash('sha256').update(text).digest('base64')
  // `names`: the object is a map of names to schemas (properties, ...), whose keys are never
  // annotations. `where`: the file the value is in, which its references are relative to.
  const resolve = (value: unknown, where: Where, names = false): string => {
    if (Array.isArray(value)) return digest(`[${value.map((v) => resolve(v, where)).join(',')}]`)
    if (!isObject(value)) return digest(canonicalize(value) ?? 'null')
    if (!names && typeof value.$ref === 'string') {
      const target = follow(value.$ref, where, op.ctx)
      const key = `${target.where.file}#${target.fragment}`
      const known = resolved.get(key)
      if (known !== undefined) return known
      if (open.has(key)) throw new Error('recursive')
      open.add(key)
      const result = resolve(target.value, target.where)
      open.delete(key)
      resolved.set(key, result)
      return result
    }
    const members: string[] = []
    for (const key of Object.keys(value).sort()) {
      if (!names && (ANNOTATION_KEYS.has(key) || key.startsWith('x-'))) continue
      // `enum` and `const` hold data, not schemas: a `title` or a `$ref` member there is a value.
      const part = !names && DATA.has(key) ? digest(canonicalize(value[key]) ?? 'null') : resolve(value[key], where, !names && NAME_MAPS.has(key))
      members.push(`${JSON.stringify(key)}:${part}`)
    }
    return digest(`{${members.join(',')}}`)
  }
  try {
    const start: Where = { file: op.ctx.main.file, doc }
    return messages.map((m) => {
      // The message itself may be a reference (to a reference ...); its payload is what is compared.
      let message: unknown = m
      let where = start
      for (let hops = 0; isObject(message) && typeof message.$ref === 'string'; hops++) {
        if (hops > 64) throw new Error('recursive')
        const target = follow(message.$ref, where, op.ctx)
        message = target.value
        where = target.where
      }
      return resolve(isObject(message) ? schemaOfPayload(message.payload) : undefined, where)
    })
  } catch {
    return undefined
  }
}

/** Schema keywords whose value is data. */
const DATA = new Set(['enum', 'const'])

export const linkSchemas = natsRule({
  code: 'NATS_LINK_SCHEMA',
  description: "A link's message payload schemas are not equal after resolving locked references and dropping annotations (or cannot be proven equal).",
  check(ctx, report) {
    for (const { index, send, receive } of resolvedLinks(ctx)) {
      const a = normalizedPayloads(send)
      const b = normalizedPayloads(receive)
      const same = a && b && [...a].sort().join() === [...b].sort().join()
      if (!same) {
        report(
          ctx.pointer('x-nats-contract', 'links', index),
          a && b
            ? `The payload schemas of ${send.label} and ${receive.label} differ; linked messages need equal normalized schemas.`
            : `The payload schemas of ${send.label} and ${receive.label} cannot be proven equal (a recursive or unresolved reference).`,
        )
      }
    }
  },
})

/**
 * "Within one application/deployment binding, concrete channel languages must be disjoint ...
 * Across applications, intentional overlap requires a link; partial overlap is rejected." Overlap
 * is a property of the bundle (one deployment binding), so every pair of its contracts with one
 * binding is compared, whichever document is compiled: an overlap is reported at the compiled
 * document's channel, and between two other contracts at the second one's (by path). A pair is
 * allowed only with exactly equal languages and a link (declared by either contract) between
 * operations on the two channels. Each contract's channels are indexed once (ChannelIndex), so a
 * channel meets only the channels of its most selective position.
 */
export const contractOverlap = natsRule({
  code: 'NATS_CONTRACT_OVERLAP',
  description:
    'A channel shares subjects with a channel of another contract of the bundle (one deployment binding) without being an exactly equal language covered by a link; found whichever document is compiled.',
  check(ctx, report) {
    const documents = new Map([[ctx.main.file, ctx.main], ...ctx.input.documents])
    // One contract per distinct bytes: the same (contract, version) with the same bytes at two paths
    // of the bundle is one document (the identity rule allows it), not two that overlap each other;
    // a link to either path is a link to it.
    const { distinct, canonical } = distinctDocuments(ctx)
    const contexts = [ctx, ...distinct.map((main) => new NatsContext({ ...ctx.input, documents, main }))]
    const binding = (c: NatsContext) => (isObject(c.profile.deployment) ? c.profile.deployment.binding : undefined)
    const linked = new Set<string>()
    for (const c of contexts) {
      for (const { send, receive } of resolvedLinks(c)) {
        const a = send.ctx.channelOf(send.ctx.standard('operations')[send.id])
        const b = receive.ctx.channelOf(receive.ctx.standard('operations')[receive.id])
        const [sendFile, receiveFile] = [canonical(send.ctx.main.file), canonical(receive.ctx.main.file)]
        linked.add(`${sendFile}#${a}|${receiveFile}#${b}`)
        linked.add(`${receiveFile}#${b}|${sendFile}#${a}`)
      }
    }
    const languages = contexts.map((c) =>
      c.channelList.flatMap((channel) => {
        const types = channel.tokens && c.channelTypes(channel)
        return channel.tokens && types ? [{ id: channel.id, language: positions(channel.tokens, types) as Language }] : []
      }),
    )
    const indexes = new Map<number, ChannelIndex>()
    const indexOf = (j: number) => {
      let index = indexes.get(j)
      if (!index) {
        index = new ChannelIndex()
        for (const entry of languages[j]!) index.add(entry)
        indexes.set(j, index)
      }
      return index
    }
    for (let i = 0; i < contexts.length; i++) {
      for (let j = i + 1; j < contexts.length; j++) {
        const [mine, other] = [contexts[i]!, contexts[j]!]
        if (binding(mine) !== binding(other)) continue
        // Reported in the compiled document when it is one of the two, else in the second.
        const [at, away] = i === 0 ? [mine, other] : [other, mine]
        const own = i === 0 ? languages[i]! : languages[j]!
        const index = indexOf(i === 0 ? j : i)
        for (const channel of own) {
          for (const theirs of index.overlapping(channel.language)) {
            const a = channel.language
            const b = theirs.language
            const equal = a.length === b.length && a.every((t, k) => sameType(t, b[k]!))
            if (equal && linked.has(`${at.main.file}#${channel.id}|${away.main.file}#${theirs.id}`)) continue
            report.in(
              at.main,
              ctx.pointer('channels', channel.id, 'address'),
              `Channel ${JSON.stringify(channel.id)} shares subjects with ${JSON.stringify(theirs.id)} of contract ${JSON.stringify(away.profile.contract)} (same deployment binding); ${equal ? 'an intended overlap needs an import and a link between their operations' : 'a partial overlap between contracts is rejected'}.`,
              { contract: away.profile.contract, channel: theirs.id },
            )
          }
        }
      }
    }
  },
})
