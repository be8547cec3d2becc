import canonicalize from 'canonicalize'
import { AJV_MISREAD, LATER_ANCHORS } from '../../core/standalone-validators.js'
import { createHash } from 'node:crypto'
import { splitPointer, unescapeToken } from '../../runtime/shared/json-pointer.js'
import { localComponent, localOperationMessages } from './message-schemas.js'
import type { NatsContext } from './context.js'
import { isObject } from './document.js'
import { schemaOfPayload } from './multi-format.js'

/** `#/components/schemas/<Name>` of the same document, resolved; undefined when it is not such a pointer or names nothing. */
export function localSchema(ctx: NatsContext, pointer: unknown): Record<string, unknown> | undefined {
  if (typeof pointer !== 'string' || !pointer.startsWith('#/components/schemas/')) return undefined
  return componentOrPointer(ctx, pointer)
}

/**
 * What a same-document pointer names, a component schema read with its references into locked
 * files made local (message-schemas.ts), so the rules follow `order.json#/definitions/Money` from a
 * component as the generators do ("standard schema $ref can use locked files").
 */
function componentOrPointer(ctx: NatsContext, ref: string): Record<string, unknown> | undefined {
  const component = /^#\/components\/schemas\/([^/]+)$/.exec(ref)
  if (component) {
    const local = localComponent(ctx, unescapeToken(component[1]!))
    if (isObject(local)) return local
  }
  return resolvePointer(ctx.doc, ref.slice(1))
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
export function resolveFragment(doc: unknown, ref: string, hops = { count: 0 }): unknown {
  let pointer: string
  try {
    pointer = decodeURIComponent(ref.slice(1))
  } catch {
    return undefined
  }
  if (pointer !== '' && !pointer.startsWith('/')) return undefined
  let value: unknown = doc
  for (const token of splitPointer(pointer)) {
    // A step through an object that is itself a same-document reference goes on in what it names
    // (`#/channels/c/messages/m` where `channels.c` is `{$ref: '#/components/channels/c'}`), as
    // the official parser reads it once references are resolved. Bounded: MAX_REF_HOPS references
    // in all, counted across the nested resolutions, so the work is O(MAX_REF_HOPS x pointer length).
    while (isObject(value) && typeof value.$ref === 'string' && value.$ref.startsWith('#') && !Object.hasOwn(value, token)) {
      if (++hops.count > MAX_REF_HOPS) return undefined
      value = resolveFragment(doc, value.$ref, hops)
    }
    if (Array.isArray(value) && /^(0|[1-9]\d*)$/.test(token) && Number(token) < value.length) value = value[Number(token)]
    else if (isObject(value) && Object.hasOwn(value, token)) value = value[token]
    else return undefined
  }
  return value
}

/** How many references one resolution may pass through (a cycle of references ends there). */
const MAX_REF_HOPS = 32

/** Follows same-document `$ref`s (a bounded number of times, so cycles end). */
export function deref(ctx: NatsContext, schema: unknown): Record<string, unknown> | undefined {
  let current = schema
  for (let hops = 0; hops < 32 && isObject(current) && typeof current.$ref === 'string'; hops++) {
    if (!current.$ref.startsWith('#/')) return undefined
    current = componentOrPointer(ctx, current.$ref)
  }
  return isObject(current) ? current : undefined
}

/** The payload schema of the single message an operation carries (its own list, or its channel's). */
export function operationPayload(ctx: NatsContext, operationId: string): Record<string, unknown> | undefined {
  const messages = localOperationMessages(ctx, operationId)
  return messages.length === 1 ? deref(ctx, messages[0]!.payload) : undefined
}

/**
 * Every message payload an operation may carry (its `messages`, else all of its channel's), with
 * references into locked files made local and dereferenced; undefined for a message without one.
 */
export function operationPayloads(ctx: NatsContext, operationId: string): Array<Record<string, unknown> | undefined> {
  return localOperationMessages(ctx, operationId).map((m) => deref(ctx, m.payload))
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

/**
 * Annotations (draft-07 section 10, and AsyncAPI's): they never decide validation, so they never
 * make two schemas differ. So are the keywords draft-07 does not define that the validators are
 * built without (payload-validators.ts NOT_FOR_AJV: `nullable`, `id`, `$async`, the later drafts'
 * anchors) and `$id`, which moves no reference here.
 */
export const ANNOTATION_KEYS: ReadonlySet<string> = new Set([
  'description',
  'title',
  'summary',
  'examples',
  'example',
  '$comment',
  'externalDocs',
  'deprecated',
  'default',
  'readOnly',
  'writeOnly',
  ...AJV_MISREAD,
  ...LATER_ANCHORS,
  '$id',
])

/** Keywords whose value maps names (a property's, a pattern, a definition's) to schemas: a name there is never a keyword, whatever it spells. */
export const SCHEMA_NAME_MAPS: ReadonlySet<string> = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas', 'dependencies'])
/** Keywords whose value is data, not a schema: a `title` or a `$ref` member there is a value. */
export const DATA_KEYWORDS: ReadonlySet<string> = new Set(['enum', 'const'])

/**
 * A digest of a schema after resolving references and dropping annotations (the checker's exact
 * rule for "the same schema"): equal digests, equal resolved shapes. Each node is digested from
 * its children's digests and each reference target once (hash-consing, memoized per target
 * object), so the cost is linear in the document: expanding references into a copy was
 * exponential in the levels of a schema that refers twice to one that refers twice to ... .
 * A reference cycle, or a reference that resolves to nothing, throws.
 */
function shapeDigest(ctx: NatsContext, schema: unknown, memo: Map<object, string>, open: Set<object>): string {
  if (Array.isArray(schema)) return digest(`[${schema.map((s) => shapeDigest(ctx, s, memo, open)).join(',')}]`)
  if (!isObject(schema)) return digest(JSON.stringify(schema) ?? 'undefined')
  const target = typeof schema.$ref === 'string' ? deref(ctx, schema) : schema
  if (!target) throw new Error('unresolved')
  const known = memo.get(target)
  if (known !== undefined) return known
  if (open.has(target)) throw new Error('recursive')
  open.add(target)
  const members: string[] = []
  for (const key of Object.keys(target).sort()) {
    if (ANNOTATION_KEYS.has(key) || key.startsWith('x-')) continue
    const value = target[key]
    const inner = DATA_KEYWORDS.has(key)
      ? digest(canonicalize(value) ?? 'null')
      : SCHEMA_NAME_MAPS.has(key) && isObject(value)
        ? digest(
            `{${Object.keys(value)
              .sort()
              .map((k) => `${JSON.stringify(k)}:${shapeDigest(ctx, value[k], memo, open)}`)
              .join(',')}}`,
          )
        : shapeDigest(ctx, value, memo, open)
    members.push(`${JSON.stringify(key)}:${inner}`)
  }
  open.delete(target)
  const result = digest(`{${members.join(',')}}`)
  memo.set(target, result)
  return result
}

const digest = (text: string) => createHash('sha256').update(text).digest('base64')

export function sameSchema(ctx: NatsContext, a: unknown, b: unknown): boolean {
  try {
    const memo = new Map<object, string>()
    return shapeDigest(ctx, a, memo, new Set()) === shapeDigest(ctx, b, memo, new Set())
  } catch {
    return false
  }
}

/** The payload schema (as written, references to `#/components/...` kept) of a request operation's single message. */
export function requestPayload(ctx: NatsContext, operationId: string): unknown {
  const op = ctx.standard('operations')[operationId]
  const channelId = ctx.channelOf(op)
  const channel = channelId === undefined ? undefined : ctx.standard('channels')[channelId]
  const messages =
    isObject(op) && Array.isArray(op.messages) ? op.messages : isObject(channel) && isObject(channel.messages) ? Object.values(channel.messages) : []
  let message = messages[0]
  for (let hops = 0; hops < 8 && isObject(message) && typeof message.$ref === 'string'; hops++) {
    const ref = message.$ref as string
    message = ref.startsWith('#/')
      ? ref
          .slice(2)
          .split('/')
          .reduce<unknown>((v, t) => (isObject(v) ? v[t.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), ctx.doc)
      : undefined
  }
  return isObject(message) ? schemaOfPayload(message.payload) : undefined
}

/** Why a destination holds no value (a boolean `false` schema stepped into), apart from any schema object. */
class Forbidden {
  constructor(readonly forbidden: string) {}
}

/**
 * What a payload schema says of a binding's destination pointer: the schema a value written there
 * must satisfy (`{}` where an object allows members it does not describe), or why the schema forbids
 * any value there (`additionalProperties: false`, an index past a tuple that allows no more items, a
 * destination inside a value that is not an object or array). `undefined` when the walk meets what it
 * cannot read (composition, `patternProperties`): unknown, never proven. O(pointer tokens).
 */
export function destinationAt(
  ctx: NatsContext,
  root: Record<string, unknown> | undefined,
  pointer: string,
): { schema: Record<string, unknown> } | { forbidden: string } | undefined {
  let current = deref(ctx, root)
  let at = ''
  /** A subschema stepped into: the boolean schemas as draft-07 reads them (`true` is `{}`; `false` holds no value). */
  const into = (schema: unknown, here: string, what: string): Record<string, unknown> | Forbidden | undefined =>
    schema === true ? {} : schema === false ? new Forbidden(`${here} allows no ${what} (its schema is false)`) : deref(ctx, schema)
  for (const token of splitPointer(pointer)) {
    if (!current) return undefined
    const here = at === '' ? '(root)' : at
    at += `/${token.replace(/~/g, '~0').replace(/\//g, '~1')}`
    const types = Array.isArray(current.type) ? current.type : typeof current.type === 'string' ? [current.type] : undefined
    if (types && !types.includes('object') && !types.includes('array')) return { forbidden: `${here} is a ${types.join(' or ')}, which has no members` }
    let next: Record<string, unknown> | Forbidden | undefined
    if (isObject(current.properties) && Object.hasOwn(current.properties, token))
      next = into(current.properties[token], here, `member ${JSON.stringify(token)}`)
    else if (/^(0|[1-9]\d*)$/.test(token) && (current.items !== undefined || types?.includes('array'))) {
      if (Array.isArray(current.items)) {
        const index = Number(token)
        if (index < current.items.length) next = into(current.items[index], here, `item ${index}`)
        else if (current.additionalItems === false) return { forbidden: `${here} allows ${current.items.length} items (additionalItems: false)` }
        else next = current.additionalItems === undefined ? {} : into(current.additionalItems, here, 'further items')
      } else next = current.items === undefined ? {} : into(current.items, here, 'items')
    } else {
      if (current.patternProperties !== undefined || ['allOf', 'anyOf', 'oneOf', 'not', 'if'].some((k) => k in current!)) return undefined
      if (current.additionalProperties === false) return { forbidden: `${here} allows no member ${JSON.stringify(token)} (additionalProperties: false)` }
      next = current.additionalProperties === undefined ? {} : into(current.additionalProperties, here, `member ${JSON.stringify(token)}`)
    }
    if (next instanceof Forbidden) return { forbidden: next.forbidden }
    current = next
  }
  return current ? { schema: current } : undefined
}
