import { splitPointer } from '../../core/json-pointer.js'
import type { NatsContext } from './context.js'
import { isObject } from './document.js'

/** `#/components/schemas/<Name>` of the same document, resolved; undefined when it is not such a pointer or names nothing. */
export function localSchema(ctx: NatsContext, pointer: unknown): Record<string, unknown> | undefined {
  if (typeof pointer !== 'string' || !pointer.startsWith('#/components/schemas/')) return undefined
  return resolvePointer(ctx.doc, pointer.slice(1))
}

export function resolvePointer(doc: unknown, pointer: string): Record<string, unknown> | undefined {
  let value: unknown = doc
  for (const token of splitPointer(pointer)) {
    if (!isObject(value) || !Object.hasOwn(value, token)) return undefined
    value = value[token]
  }
  return isObject(value) ? value : undefined
}

/**
 * The value a same-document `$ref` (`#` plus a JSON Pointer in URI-fragment form, RFC 6901 section 6)
 * names, or undefined when it names nothing or is not well formed.
 */
export function resolveFragment(doc: unknown, ref: string): unknown {
  let pointer: string
  try {
    pointer = decodeURIComponent(ref.slice(1))
  } catch {
    return undefined
  }
  if (pointer !== '' && !pointer.startsWith('/')) return undefined
  let value: unknown = doc
  for (const token of splitPointer(pointer)) {
    if (Array.isArray(value) && /^(0|[1-9]\d*)$/.test(token) && Number(token) < value.length) value = value[Number(token)]
    else if (isObject(value) && Object.hasOwn(value, token)) value = value[token]
    else return undefined
  }
  return value
}

/** Follows same-document `$ref`s (a bounded number of times, so cycles end). */
export function deref(ctx: NatsContext, schema: unknown): Record<string, unknown> | undefined {
  let current = schema
  for (let hops = 0; hops < 32 && isObject(current) && typeof current.$ref === 'string'; hops++) {
    if (!current.$ref.startsWith('#/')) return undefined
    current = resolvePointer(ctx.doc, current.$ref.slice(1))
  }
  return isObject(current) ? current : undefined
}

/** The payload schema of the single message an operation carries (its own list, or its channel's). */
export function operationPayload(ctx: NatsContext, operationId: string): Record<string, unknown> | undefined {
  const op = ctx.standard('operations')[operationId]
  if (!isObject(op)) return undefined
  const channelId = ctx.channelOf(op)
  const channel = channelId === undefined ? undefined : ctx.standard('channels')[channelId]
  const messages = Array.isArray(op.messages) ? op.messages : isObject(channel) && isObject(channel.messages) ? Object.values(channel.messages) : []
  if (messages.length !== 1) return undefined
  const message = deref(ctx, messages[0])
  return message ? deref(ctx, message.payload) : undefined
}

/** The schema at a JSON Pointer inside a payload schema (through `properties` and `items`), dereferenced. */
export function schemaAtPointer(ctx: NatsContext, root: Record<string, unknown> | undefined, pointer: string): Record<string, unknown> | undefined {
  let current = deref(ctx, root)
  for (const token of splitPointer(pointer)) {
    if (!current) return undefined
    if (isObject(current.properties) && Object.hasOwn(current.properties, token)) current = deref(ctx, current.properties[token])
    else if (/^\d+$/.test(token) && isObject(current.items)) current = deref(ctx, current.items)
    else return undefined
  }
  return current
}

/** Two schemas equal after resolving references and dropping annotations (the checker's exact rule). */
export function resolvedShape(ctx: NatsContext, schema: unknown, depth = 0): unknown {
  if (depth > 64) throw new Error('too deep')
  if (Array.isArray(schema)) return schema.map((s) => resolvedShape(ctx, s, depth + 1))
  if (!isObject(schema)) return schema
  const target = typeof schema.$ref === 'string' ? deref(ctx, schema) : schema
  if (!target) throw new Error('unresolved')
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(target).sort()) {
    if (['description', 'title', 'examples', 'example', '$comment'].includes(key) || key.startsWith('x-')) continue
    const value = target[key]
    out[key] = key === 'properties' && isObject(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolvedShape(ctx, v, depth + 1)])) : resolvedShape(ctx, value, depth + 1)
  }
  return out
}

export function sameSchema(ctx: NatsContext, a: unknown, b: unknown): boolean {
  try {
    return JSON.stringify(resolvedShape(ctx, a)) === JSON.stringify(resolvedShape(ctx, b))
  } catch {
    return false
  }
}
