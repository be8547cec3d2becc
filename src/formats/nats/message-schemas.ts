import { basename, dirname, join } from 'node:path'
import { escapeToken, unescapeToken } from '../../runtime/shared/json-pointer.js'
import type { NatsContext } from './context.js'
import { isObject } from './document.js'

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
  const [path, fragment = ''] = ref.split('#')
  let target = where
  if (path) {
    const absolute = join(dirname(where.file), path)
    const file = absolute === ctx.main.file ? ctx.main : (ctx.input.files.get(absolute) ?? ctx.input.documents.get(absolute))
    if (!file) throw new Error('unresolved')
    target = { file: file.file, doc: file.source.value }
  }
  let value: unknown = target.doc
  for (const token of fragment.split('/').slice(1).map(unescapeToken)) {
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
  /** The other files payloads reach (for rules that read those files themselves). */
  readonly files = new Set<string>()
  private readonly names = new Map<string, string>()
  private readonly taken: Set<string>

  constructor(private readonly ctx: NatsContext) {
    const own = isObject(ctx.doc.components) && isObject(ctx.doc.components.schemas) ? ctx.doc.components.schemas : {}
    this.taken = new Set(Object.keys(own))
  }

  /** The messages of a standard channel, in name order. */
  channel(channelId: string): MessageModel[] {
    const channel = this.ctx.standard('channels')[channelId]
    const messages = isObject(channel) && isObject(channel.messages) ? channel.messages : {}
    const start: Where = { file: this.ctx.main.file, doc: this.ctx.doc }
    return Object.keys(messages)
      .sort()
      .map((name) => {
        try {
          let message: unknown = messages[name]
          let where = start
          for (let hops = 0; isObject(message) && typeof message.$ref === 'string'; hops++) {
            if (hops > 32) throw new Error('recursive')
            const target = follow(message.$ref, where, this.ctx)
            if (target.where.file !== this.ctx.main.file) this.files.add(target.where.file)
            message = target.value
            where = target.where
          }
          if (!isObject(message)) throw new Error('unresolved')
          return message.payload === undefined ? { name } : { name, payload: this.copy(message.payload, where, 0) }
        } catch {
          return { name, external: true as const }
        }
      })
  }

  private copy(value: unknown, where: Where, depth: number, names = false): unknown {
    if (depth > MAX_DEPTH) throw new Error('too deep')
    if (Array.isArray(value)) return value.map((v) => this.copy(v, where, depth + 1))
    if (!isObject(value)) return value
    if (!names && typeof value.$ref === 'string') return { $ref: this.reference(value.$ref, where, depth) }
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value)) {
      const member = value[key]
      out[key] = !names && DATA.has(key) ? member : this.copy(member, where, depth + 1, !names && NAME_MAPS.has(key))
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
      this.extra[name] = this.copy(target.value, target.where, depth + 1)
    }
    return `#${COMPONENTS}${escapeToken(name)}`
  }
}

const cache = new WeakMap<NatsContext, { schemas: MessageSchemas; byChannel: Map<string, MessageModel[]> }>()

/** Each channel's messages and the extra components they need, made once per context (the rules and the model share them). */
export function messageSchemas(ctx: NatsContext): { byChannel: Map<string, MessageModel[]>; extra: Record<string, unknown>; files: ReadonlySet<string> } {
  let entry = cache.get(ctx)
  if (!entry) {
    const schemas = new MessageSchemas(ctx)
    const byChannel = new Map(ctx.channelList.map((c) => [c.id, schemas.channel(c.id)]))
    cache.set(ctx, (entry = { schemas, byChannel }))
  }
  return { byChannel: entry.byChannel, extra: entry.schemas.extra, files: entry.schemas.files }
}
