import { basename, dirname, join } from 'node:path'
import { escapeToken, unescapeToken } from '../../runtime/shared/json-pointer.js'
import { refFilePath } from '../../core/json-refs.js'
import type { NatsContext } from './context.js'
import { isObject } from './document.js'
import { schemaOfPayload } from './multi-format.js'
import { setOwn } from '../../runtime/shared/own-property.js'

/** A file's path and parsed value: where a reference is read, and what its own references are relative to. */
export interface Where {
  file: string
  doc: unknown
}

/**
 * The value a `$ref` names, from the file it is written in: a fragment alone stays in that file, a
 * path is relative to it ("standard schema $ref can use locked files relative to its declaring
 * file"); the file must be one the bundle's loading read (locked). Throws when it names nothing.
 */
export function follow(ref: string, where: Where, ctx: NatsContext): { value: unknown; where: Where; fragment: string } {
  // The text before the first `#` and between it and the next one (a second `#` ends the fragment).
  const hash = ref.indexOf('#')
  const path = refFilePath(ref)
  const next = hash === -1 ? -1 : ref.indexOf('#', hash + 1)
  const fragment = hash === -1 ? '' : ref.slice(hash + 1, next === -1 ? ref.length : next)
  let target = where
  if (path) {
    const absolute = join(dirname(where.file), path)
    const file = absolute === ctx.main.file ? ctx.main : (ctx.input.files.get(absolute) ?? ctx.input.documents.get(absolute))
    if (!file) throw new Error('unresolved')
    target = { file: file.file, doc: file.source.value }
  }
  // A fragment that is not a JSON Pointer (`#foo`, a plain name: an anchor, which `$id` does not
  // make here) names nothing: read as a pointer it named the whole document, or a member of it.
  if (fragment !== '' && !fragment.startsWith('/')) throw new Error('unresolved')
  let value: unknown = target.doc
  // Token by token without splitting the fragment (bench/: every channel message is followed).
  for (let at = fragment.indexOf('/'); at !== -1;) {
    const end = fragment.indexOf('/', at + 1)
    const token = unescapeToken(fragment.slice(at + 1, end === -1 ? fragment.length : end))
    at = end
    if (!isObject(value) && !Array.isArray(value)) throw new Error('unresolved')
    value = (value as Record<string, unknown>)[token]
    if (value === undefined) throw new Error('unresolved')
  }
  return { value, where: target, fragment }
}

/** A message of a channel for generation: its payload schema with every reference local. */
export interface MessageModel {
  name: string
  /** Undefined: the message carries any payload. */
  payload?: unknown
  /** Its AsyncAPI `headers` schema, references made local as the payload's; undefined: any headers. */
  headers?: unknown
  /** A reference in the message or its payload could not be followed: no validator or type is generated for it. */
  external?: true
}

/** Schema members whose keys are names (a property called `$ref` is a name there, not a reference). */
const NAME_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas'])
/** Schema members whose values are data. */
const DATA = new Set(['enum', 'const', 'default', 'examples', 'example'])
/** Nesting followed while copying (documents are depth-limited when read; this bounds the copy too). */
const MAX_DEPTH = 256
const COMPONENTS = '/components/schemas/'

/**
 * Message payloads with the schemas they reach in locked files brought in: each schema of another
 * file (or of this document outside `components.schemas`) that a payload refers to becomes one more
 * component, named after the last token of its pointer (made unique), and the reference points at
 * it. Types and validators are then written from one set of components, the document's and these.
 * Each referenced schema is copied once (a map from file and fragment), so recursion ends.
 */
export class MessageSchemas {
  /** The components payloads refer to that are not the document's own. */
  readonly extra: Record<string, unknown> = {}
  /** The document's own components whose references could not be followed (left out of `ownComponents`). */
  readonly unresolved = new Set<string>()
  /** The other files payloads reach (for rules that read those files themselves). */
  readonly files = new Set<string>()
  private readonly names = new Map<string, string>()
  private readonly taken: Set<string>

  /** Each channel's messages (`channel`), by channel id. */
  readonly byChannel: ReadonlyMap<string, MessageModel[]>
  /** The document's own components with their references to locked files made local (`ownComponents`). */
  readonly own: Record<string, unknown>

  /**
   * Made once per document, as `NatsContext.messages`: the rules and the model share it. The
   * channels' messages are copied first, then the document's own components (the names of the
   * components brought in depend on that order).
   */
  constructor(private readonly ctx: NatsContext) {
    const own = isObject(ctx.doc.components) && isObject(ctx.doc.components.schemas) ? ctx.doc.components.schemas : {}
    this.taken = new Set(Object.keys(own))
    this.byChannel = new Map(ctx.channelList.map((c) => [c.id, this.channel(c.id)]))
    this.own = this.ownComponents()
  }

  /** The messages of a standard channel, in name order. */
  channel(channelId: string): MessageModel[] {
    const channel = this.ctx.standard('channels')[channelId]
    const messages = isObject(channel) && isObject(channel.messages) ? channel.messages : {}
    const start: Where = { file: this.ctx.main.file, doc: this.ctx.doc }
    return Object.keys(messages)
      .sort()
      .map((name) => this.message(name, messages[name], start))
  }

  /**
   * What a message reference of the document resolves to, by its `$ref`: channels that share a
   * message (`{ $ref: '#/components/messages/Event' }` on each of 500 channels) follow and copy it
   * once, and share its payload (read-only from here on).
   */
  private readonly referenced = new Map<string, Omit<MessageModel, 'name'>>()

  /** One message (a reference to one, to one, ...: bounded hops) with its payload's references made local. */
  message(name: string, value: unknown, start: Where): MessageModel {
    if (start.file === this.ctx.main.file && isObject(value) && typeof value.$ref === 'string') {
      const ref = value.$ref
      let known = this.referenced.get(ref)
      if (known === undefined) {
        const { name: _name, ...resolved } = this.resolve(name, value, start)
        this.referenced.set(ref, (known = resolved))
      }
      return { name, ...known }
    }
    return this.resolve(name, value, start)
  }

  private resolve(name: string, value: unknown, start: Where): MessageModel {
    try {
      let message: unknown = value
      let where = start
      for (let hops = 0; isObject(message) && typeof message.$ref === 'string'; hops++) {
        if (hops > 32) throw new Error('recursive')
        const target = follow(message.$ref, where, this.ctx)
        if (target.where.file !== this.ctx.main.file) this.files.add(target.where.file)
        message = target.value
        where = target.where
      }
      if (!isObject(message)) throw new Error('unresolved')
      // A multi-format payload (`{schemaFormat, schema}`) is its schema: typed and validated as one.
      const model: MessageModel = message.payload === undefined ? { name } : { name, payload: this.copy(schemaOfPayload(message.payload), where, 0) }
      // A `headers` schema is copied like the payload (a multi-format one read as its schema).
      if (message.headers !== undefined) model.headers = this.copy(schemaOfPayload(message.headers), where, 0)
      return model
    } catch {
      return { name, external: true as const }
    }
  }

  /**
   * The payload of a request operation's first message (its own `messages`, else its channel's, in
   * document order), references made local: what a `runtime-schema-check` validator checks. A
   * payload that reaches a locked file brings that schema in as a component, as message payloads
   * do ("standard schema $ref can use locked files relative to its declaring file").
   */
  requestPayload(operationId: string): MessageModel | undefined {
    return this.operationMessages(operationId)[0]
  }

  /** The messages an operation may carry (its own `messages`, else its channel's, in document order), references made local. */
  operationMessages(operationId: string): MessageModel[] {
    const op = this.ctx.standard('operations')[operationId]
    if (!isObject(op)) return []
    const channelId = this.ctx.channelOf(op)
    const channel = channelId === undefined ? undefined : this.ctx.standard('channels')[channelId]
    const messages = Array.isArray(op.messages) ? op.messages : isObject(channel) && isObject(channel.messages) ? Object.values(channel.messages) : []
    const start: Where = { file: this.ctx.main.file, doc: this.ctx.doc }
    return messages.map((m, i) => this.message(String(i), m, start))
  }

  /**
   * The document's own `components.schemas`, each copied so that a `$ref` into a locked file
   * (`order.json#/definitions/Money`) points at a component brought in from that file, read
   * relative to the file that declares it: the generators see one set of local components. A
   * component whose reference cannot be followed is left out (the reference rules report it).
   */
  private ownComponents(): Record<string, unknown> {
    const own = isObject(this.ctx.doc.components) && isObject(this.ctx.doc.components.schemas) ? this.ctx.doc.components.schemas : {}
    // No other file was read (a document alone): nothing to bring in, the components are as written
    // (a multi-format one read as its schema).
    if (this.ctx.input.files.size === 0 && this.ctx.input.documents.size === 0) {
      if (!Object.values(own).some((schema) => schemaOfPayload(schema) !== schema)) return own
      const out: Record<string, unknown> = {}
      for (const name of Object.keys(own))
        Object.defineProperty(out, name, { value: schemaOfPayload(own[name]), enumerable: true, writable: true, configurable: true })
      return out
    }
    const start: Where = { file: this.ctx.main.file, doc: this.ctx.doc }
    const out: Record<string, unknown> = {}
    for (const name of Object.keys(own)) {
      try {
        Object.defineProperty(out, name, { value: this.copy(schemaOfPayload(own[name]), start, 0), enumerable: true, writable: true, configurable: true })
      } catch {
        // Unresolvable: NATS_REF_UNRESOLVED, NATS_SCHEMA_CHECK_EXTERNAL or the bundle's reading says why.
        this.unresolved.add(name)
      }
    }
    return out
  }

  private copy(value: unknown, where: Where, depth: number, names = false): unknown {
    if (depth > MAX_DEPTH) throw new Error('too deep')
    if (Array.isArray(value)) return value.map((v) => this.copy(v, where, depth + 1))
    if (!isObject(value)) return value
    if (!names && typeof value.$ref === 'string') return { $ref: this.reference(value.$ref, where, depth) }
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value)) {
      const member = value[key]
      // Defined, not assigned: a property named `__proto__` is data here, as in the document.
      setOwn(out, key, !names && DATA.has(key) ? member : this.copy(member, where, depth + 1, !names && NAME_MAPS.has(key)))
    }
    return out
  }

  /** The local reference for `ref` read in `where`: the document's own components stay as they are. */
  private reference(ref: string, where: Where, depth: number): string {
    const target = follow(ref, where, this.ctx)
    if (target.where.file !== this.ctx.main.file) this.files.add(target.where.file)
    if (target.where.file === this.ctx.main.file && target.fragment.startsWith(COMPONENTS) && !target.fragment.slice(COMPONENTS.length).includes('/'))
      return `#${target.fragment}`
    const key = `${target.where.file}#${target.fragment}`
    let name = this.names.get(key)
    if (name === undefined) {
      const tokens = target.fragment.split('/').filter(Boolean).map(unescapeToken)
      const base = tokens.at(-1) ?? basename(target.where.file).replace(/\.(ya?ml|json)$/, '')
      name = base
      for (let n = 2; this.taken.has(name); n++) name = `${base}_${n}`
      this.taken.add(name)
      this.names.set(key, name)
      // A component of another document may be a multi-format schema object: its schema is meant.
      const value = target.fragment.startsWith(COMPONENTS) ? schemaOfPayload(target.value) : target.value
      setOwn(this.extra, name, this.copy(value, target.where, depth + 1))
    }
    return `#${COMPONENTS}${escapeToken(name)}`
  }
}

/** A request operation's payload with references made local (undefined: no message; `external`: a reference that cannot be followed). */
export function localRequestPayload(ctx: NatsContext, operationId: string): MessageModel | undefined {
  const schemas = ctx.messages
  const own = schemas.own
  const payload = schemas.requestPayload(operationId)
  if (payload?.payload === undefined || schemas.unresolved.size === 0) return payload
  // A component it reaches that could not be copied: its references cannot all be followed.
  // Each component is walked once: O(payload + components).
  const seen = new Set<string>()
  const stack: unknown[] = [payload.payload]
  while (stack.length > 0) {
    const node = stack.pop()
    if (Array.isArray(node)) stack.push(...node)
    else if (isObject(node)) {
      if (typeof node.$ref === 'string' && node.$ref.startsWith(`#${COMPONENTS}`)) {
        const name = unescapeToken(node.$ref.slice(COMPONENTS.length + 1))
        if (schemas.unresolved.has(name)) return { name: payload.name, external: true }
        if (!seen.has(name)) {
          seen.add(name)
          stack.push(Object.hasOwn(own, name) ? own[name] : schemas.extra[name])
        }
      }
      for (const key of Object.keys(node)) if (key !== '$ref') stack.push(node[key])
    }
  }
  return payload
}

/** An operation's messages with references made local (see `MessageSchemas.operationMessages`). */
export function localOperationMessages(ctx: NatsContext, operationId: string): MessageModel[] {
  return ctx.messages.operationMessages(operationId)
}

/**
 * A component schema by name as the rules read it: the document's own with its references into
 * locked files made local, else one brought in from a locked file; undefined when neither has it.
 */
export function localComponent(ctx: NatsContext, name: string): unknown {
  const { own, extra } = ctx.messages
  return Object.hasOwn(own, name) ? own[name] : Object.hasOwn(extra, name) ? extra[name] : undefined
}
