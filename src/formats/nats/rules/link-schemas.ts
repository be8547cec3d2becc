import canonicalize from 'canonicalize'
import { createHash } from 'node:crypto'
import { isObject } from '../document.js'
import { natsRule } from './rule.js'
import { follow, type Where } from '../message-schemas.js'
import { schemaOfPayload } from '../multi-format.js'
import { ANNOTATION_KEYS, DATA_KEYWORDS as DATA, SCHEMA_NAME_MAPS } from '../schemas.js'
import { type ResolvedOperation, resolvedLinks } from './links.js'

/** Complexity (each rule here, worst case on any input under the size limits): per link, payload equality by hash-consed digests, each reference resolved once (linear in the schemas). */

/** Maps of names to schemas (schemas.ts SCHEMA_NAME_MAPS) and a message's maps of them. */
const NAME_MAPS = new Set([...SCHEMA_NAME_MAPS, 'messages', 'headers'])

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
