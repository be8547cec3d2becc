import canonicalize from 'canonicalize'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { unescapeToken } from '../../../runtime/shared/json-pointer.js'
import { positions } from '../address.js'
import { NatsContext } from '../context.js'
import { isObject } from '../document.js'
import { ChannelIndex } from '../channel-index.js'
import type { Language } from '../languages.js'
import type { TokenType } from '../../../runtime/nats/tokens.js'
import { otherContexts } from './bundle.js'
import type { NatsRule } from './rule.js'

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

export const linkResolves: NatsRule = {
  code: 'NATS_LINK_UNRESOLVED',
  description: 'A link end does not resolve to an operation (local key, or import alias and operation).',
  check(ctx) {
    for (const { index, send, receive } of links(ctx)) {
      for (const [end, ref] of [
        ['send', send],
        ['receive', receive],
      ] as const) {
        const resolved = resolveOperation(ctx, ref)
        if (typeof resolved === 'string')
          ctx.report(this.code, ctx.pointer('x-nats-contract', 'links', index, end), `Link ${end} does not resolve: ${resolved}.`)
      }
    }
  },
}

export const linkDirection: NatsRule = {
  code: 'NATS_LINK_DIRECTION',
  description: 'A link whose send end is not a send operation or whose receive end is not a receive operation.',
  check(ctx) {
    for (const { index, send, receive } of resolvedLinks(ctx)) {
      if (send.action !== 'send')
        ctx.report(
          this.code,
          ctx.pointer('x-nats-contract', 'links', index, 'send'),
          `${send.label} is a ${String(send.action)} operation; a link goes from a send to a receive.`,
        )
      if (receive.action !== 'receive')
        ctx.report(
          this.code,
          ctx.pointer('x-nats-contract', 'links', index, 'receive'),
          `${receive.label} is a ${String(receive.action)} operation; a link goes from a send to a receive.`,
        )
    }
  },
}

/** An operation's subject language with placeholders numbered by position, so renamed parameters compare equal. */
function operationLanguage(op: ResolvedOperation): Language | undefined {
  const channelId = op.ctx.channelOf(op.ctx.standard('operations')[op.id])
  const channel = channelId === undefined ? undefined : op.ctx.channels.get(channelId)
  return channel ? op.ctx.language(channel) : undefined
}

function sameType(a: TokenType, b: TokenType): boolean {
  if (a.kind === 'enum' && b.kind === 'enum') return [...a.values].sort().join('\0') === [...b.values].sort().join('\0')
  return canonicalize(a) === canonicalize(b)
}

export const linkSubjects: NatsRule = {
  code: 'NATS_LINK_SUBJECTS',
  description: "A link's two channels do not have equal subject languages after renaming parameters.",
  check(ctx) {
    for (const { index, send, receive } of resolvedLinks(ctx)) {
      const a = operationLanguage(send)
      const b = operationLanguage(receive)
      if (!a || !b) continue
      if (a.length !== b.length || !a.every((t, i) => sameType(t, b[i]!))) {
        ctx.report(
          this.code,
          ctx.pointer('x-nats-contract', 'links', index),
          `${send.label} and ${receive.label} do not address the same subjects (equal languages, position by position, are required).`,
        )
      }
    }
  },
}

const NAME_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas', 'messages', 'headers'])
const ANNOTATIONS = new Set(['description', 'title', 'summary', 'examples', 'example', '$comment', 'externalDocs', 'deprecated'])

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
  // `names`: the object is a map of names to schemas (properties, ...), whose keys are never annotations.
  const resolve = (value: unknown, names = false): string => {
    if (Array.isArray(value)) return digest(`[${value.map((v) => resolve(v)).join(',')}]`)
    if (!isObject(value)) return digest(canonicalize(value) ?? 'null')
    if (!names && typeof value.$ref === 'string') {
      const ref = value.$ref
      const known = resolved.get(ref)
      if (known !== undefined) return known
      if (open.has(ref)) throw new Error('recursive')
      open.add(ref)
      const result = resolve(lookup(doc, ref, op.ctx))
      open.delete(ref)
      resolved.set(ref, result)
      return result
    }
    const members: string[] = []
    for (const key of Object.keys(value).sort()) {
      if (!names && (ANNOTATIONS.has(key) || key.startsWith('x-'))) continue
      members.push(`${JSON.stringify(key)}:${resolve(value[key], !names && NAME_MAPS.has(key))}`)
    }
    return digest(`{${members.join(',')}}`)
  }
  try {
    return messages.map((m) => {
      // The message itself may be a reference (to a reference ...); its payload is what is compared.
      let message: unknown = m
      for (let hops = 0; isObject(message) && typeof message.$ref === 'string'; hops++) {
        if (hops > 64) throw new Error('recursive')
        message = lookup(doc, message.$ref, op.ctx)
      }
      return resolve(isObject(message) ? message.payload : undefined)
    })
  } catch {
    return undefined
  }
}

function lookup(doc: unknown, ref: string, ctx: NatsContext): unknown {
  const [path, fragment = ''] = ref.split('#')
  let value: unknown = doc
  if (path) {
    const base = ctx.main.file.slice(0, ctx.main.file.lastIndexOf('/') + 1)
    const file = [...ctx.input.files.values(), ...ctx.input.documents.values()].find((f) => f.file === join(base, path))
    if (!file) throw new Error('unresolved')
    value = file.source.value
  }
  for (const token of fragment.split('/').slice(1).map(unescapeToken)) {
    if (!isObject(value) && !Array.isArray(value)) throw new Error('unresolved')
    value = (value as Record<string, unknown>)[token]
    if (value === undefined) throw new Error('unresolved')
  }
  return value
}

export const linkSchemas: NatsRule = {
  code: 'NATS_LINK_SCHEMA',
  description: "A link's message payload schemas are not equal after resolving locked references and dropping annotations (or cannot be proven equal).",
  check(ctx) {
    for (const { index, send, receive } of resolvedLinks(ctx)) {
      const a = normalizedPayloads(send)
      const b = normalizedPayloads(receive)
      const same = a && b && [...a].sort().join() === [...b].sort().join()
      if (!same) {
        ctx.report(
          this.code,
          ctx.pointer('x-nats-contract', 'links', index),
          a && b
            ? `The payload schemas of ${send.label} and ${receive.label} differ; linked messages need equal normalized schemas.`
            : `The payload schemas of ${send.label} and ${receive.label} cannot be proven equal (a recursive or unresolved reference).`,
        )
      }
    }
  },
}

export const contractOverlap: NatsRule = {
  code: 'NATS_CONTRACT_OVERLAP',
  description: 'A channel shares subjects with a channel of another contract in the bundle without being an exactly equal language covered by a link.',
  check(ctx) {
    const linked = new Set<string>()
    for (const { send, receive } of resolvedLinks(ctx)) {
      const a = send.ctx.channelOf(send.ctx.standard('operations')[send.id])
      const b = receive.ctx.channelOf(receive.ctx.standard('operations')[receive.id])
      linked.add(`${send.ctx.main.file}#${a}|${receive.ctx.main.file}#${b}`)
      linked.add(`${receive.ctx.main.file}#${b}|${send.ctx.main.file}#${a}`)
    }
    const imported = new Set(
      Object.values(ctx.section('imports')).flatMap((e) =>
        isObject(e) && typeof e.path === 'string' && ctx.input.bundle ? [join(ctx.input.bundle.root, ...e.path.split('/'))] : [],
      ),
    )
    // Their channels indexed once per contract (ChannelIndex): each of mine meets only the channels
    // of its most selective position, instead of every channel of every imported contract.
    for (const other of otherContexts(ctx)) {
      // Only contracts this one imports: overlaps with them are this document's to explain.
      if (!imported.has(other.main.file)) continue
      const index = new ChannelIndex()
      for (const theirs of other.channels.values()) {
        const theirTypes = theirs.tokens && other.channelTypes(theirs)
        if (theirs.tokens && theirTypes) index.add({ id: theirs.id, language: positions(theirs.tokens, theirTypes) as Language })
      }
      for (const mine of ctx.channelList) {
        const types = mine.tokens && ctx.channelTypes(mine)
        if (!mine.tokens || !types) continue
        const a = positions(mine.tokens, types) as Language
        for (const theirs of index.overlapping(a)) {
          const b = theirs.language
          const equal = a.length === b.length && a.every((t, i) => sameType(t, b[i]!))
          if (!equal || !linked.has(`${ctx.main.file}#${mine.id}|${other.main.file}#${theirs.id}`)) {
            ctx.report(
              this.code,
              ctx.pointer('channels', mine.id, 'address'),
              `Channel ${JSON.stringify(mine.id)} shares subjects with ${JSON.stringify(theirs.id)} of contract ${JSON.stringify(other.profile.contract)}; ${equal ? 'an intended overlap needs a link between their operations' : 'a partial overlap between contracts is rejected'}.`,
            )
          }
        }
      }
    }
  },
}
