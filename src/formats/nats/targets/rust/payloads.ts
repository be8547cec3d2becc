/**
 * Payload types for the Rust target's `serde` feature: each message payload's schema (AsyncAPI
 * Schema Object, JSON Schema draft-07) as Rust types with `serde` derives that round-trip the JSON
 * the TypeScript side produces, and accept every value the payload's validator accepts (a type never
 * narrower than the schema). A `type: object` with `properties` is a struct (required members as they
 * are, the others `Option` and left out when absent; an open object keeps its other members in
 * `extra`, a closed one denies them), a string enum an enum, arrays `Vec`, integers common.rs's
 * `Integer` (`1.0` and `1e2` are draft-07 integers), `type: [T, "null"]` an `Option`, a `$ref` to a
 * component its named type. A schema with no `type` admits every JSON type whatever its
 * `properties`, `required` or `items` say, so it is `serde_json::Value`. What a Rust type cannot say exactly (`oneOf`,
 * `anyOf`, `allOf`, `const`, mixed enums, `not`, `if`) is `serde_json::Value`: kept as it is, never
 * guessed. Each component is written once (names break recursion); a member whose type can contain
 * the struct it belongs to, directly or through other structs, is boxed. Every type name comes from
 * one injective map of the module's namespace: a component `AB` and the member `b` of `A` are two types.
 */
import { findCycles } from '../../../../core/graph.js'
import { splitPointer } from '../../../../runtime/shared/json-pointer.js'
import { isObject } from '../../document.js'
import type { NatsModel } from '../../model.js'
import { codeSpan } from './doc.js'
import { bare, camelType, Names, PRELUDE_NAMES, rustString } from './names.js'
import type { RustWriter } from './writer.js'

const COMPONENT = '#/components/schemas/'
const MAX_DEPTH = 32
const VALUE = 'serde_json::Value'
const INTEGER = 'crate::common::Integer'

interface Field {
  readonly key: string
  readonly field: string
  readonly type: string
  readonly required: boolean
}

type Definition =
  | { readonly kind: 'enum'; readonly name: string; readonly values: string[] }
  | { readonly kind: 'struct'; readonly name: string; readonly closed: boolean; readonly fields: Field[] }

/** Whether a schema's `patternProperties` admits members by pattern (then `additionalProperties: false` does not close it). */
function hasPatterns(schema: Record<string, unknown>): boolean {
  return isObject(schema.patternProperties) && Object.keys(schema.patternProperties).length > 0
}

/** `Option<Option<T>>` -> `T` and the number of `Option`s around it. */
function unwrapOptions(type: string): { inner: string; options: number } {
  let inner = type
  let options = 0
  while (inner.startsWith('Option<') && inner.endsWith('>')) {
    inner = inner.slice('Option<'.length, -1)
    options++
  }
  return { inner, options }
}

export class RustPayloads {
  /** The `payloads` module's type namespace: components, inline structs and enums, channel payloads. */
  private readonly names = new Names('camel', PRELUDE_NAMES)
  /** Component name -> its type. */
  private readonly declared = new Map<string, string>()
  private readonly pending: Array<{ name: string; schema: Record<string, unknown> }> = []
  /** Aliases: a component or channel payload that is not a struct or enum of its own. */
  private readonly aliases: Array<{ id: string; type: string; doc: string }> = []
  private inlineCount = 0

  constructor(private readonly components: Readonly<Record<string, unknown>>) {}

  /** A name of its own for `key` (a channel's payload), made from `name`. */
  reserve(key: string, name: string): string {
    return this.names.get(key, name)
  }

  /** `type Id = type;`, written after the structs. */
  alias(id: string, type: string, doc: string): void {
    this.aliases.push({ id, type, doc })
  }

  /**
   * The Rust type of a payload schema; structs and enums it needs are queued, named after `hint`
   * (each a name of its own), the schema itself named `named` when it is a struct or enum.
   */
  typeOf(schema: unknown, hint: string, depth = 0, named?: string): string {
    if (schema === undefined || schema === true || !isObject(schema) || depth > MAX_DEPTH) return VALUE
    if (typeof schema.$ref === 'string') return this.reference(schema.$ref)
    for (const k of ['oneOf', 'anyOf', 'allOf', 'not', 'if', 'const']) if (Object.hasOwn(schema, k)) return VALUE
    if (Array.isArray(schema.enum)) return schema.enum.length > 0 && schema.enum.every((v) => typeof v === 'string') ? this.queue(hint, schema, named) : VALUE
    const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? (schema.type as string[]) : undefined
    if (types && types.length === 2 && types.includes('null')) {
      const inner = this.typeOf({ ...schema, type: types.find((t) => t !== 'null') }, hint, depth + 1)
      return inner === VALUE ? VALUE : `Option<${inner}>`
    }
    // No `type`: draft-07 accepts every JSON type (`properties`, `required` and `items` constrain
    // only objects and arrays), so the only type as wide as the validator is `Value`.
    const type = types?.length === 1 ? types[0] : undefined
    switch (type) {
      case 'string':
        return 'String'
      case 'integer':
        // Not `i64`: draft-07 integers include `1.0` and `1e2` (common.rs's `Integer`).
        return INTEGER
      case 'number':
        // serde_json's own number: 10 stays 10 and 10.5 stays 10.5 on the way back (an f64 would write 10.0).
        return 'serde_json::Number'
      case 'boolean':
        return 'bool'
      case 'array':
        return Array.isArray(schema.items) || schema.items === undefined ? VALUE : `Vec<${this.typeOf(schema.items, `${hint}Item`, depth + 1)}>`
      case 'object':
        return isObject(schema.properties) && Object.keys(schema.properties).length > 0 ? this.queue(hint, schema, named) : VALUE
      default:
        return VALUE
    }
  }

  private reference(ref: string): string {
    const tokens = ref.startsWith(COMPONENT) ? splitPointer(ref.slice(COMPONENT.length - 1)) : []
    if (tokens.length !== 1 || !Object.hasOwn(this.components, tokens[0]!)) return VALUE
    const name = tokens[0]!
    const known = this.declared.get(name)
    if (known) return known
    // Declared before it is written, so a schema that refers to itself names itself.
    const id = this.names.get(`component:${name}`, name)
    this.declared.set(name, id)
    const type = this.typeOf(this.components[name], id, 0, id)
    // Not a struct or enum: an alias (a component that is a string, a list, ...).
    if (type !== id) this.alias(id, type, `/// The schema ${codeSpan(rustString(name))}.`)
    return id
  }

  /** A struct or enum for `schema`, named `named` or a new name after `hint`, written when `write` runs. */
  private queue(hint: string, schema: Record<string, unknown>, named?: string): string {
    const id = named ?? this.names.get(`inline:${this.inlineCount++}`, hint)
    this.pending.push({ name: id, schema })
    return id
  }

  /** A struct's members, in name order; the types they need are queued. */
  private fieldsOf(name: string, schema: Record<string, unknown>): Field[] {
    const properties = schema.properties as Record<string, unknown>
    const required = new Set(Array.isArray(schema.required) ? schema.required : [])
    // The struct's field namespace: `extra` holds the members the schema does not name.
    const fields = new Names('snake', ['extra'])
    return Object.keys(properties)
      .sort()
      .map((key) => ({ key, field: fields.get(key), type: this.typeOf(properties[key], `${name}${bare(camelType(key))}`), required: required.has(key) }))
  }

  /**
   * Every queued type, in the order first needed (deterministic for one model). A member is boxed
   * when its type (through `Option`s and aliases, not through `Vec`) reaches its own struct: the
   * struct would otherwise contain itself (E0072). Cost: one walk of the by-value graph (its
   * strongly connected components), O(types + members).
   */
  write(w: RustWriter): void {
    const definitions: Definition[] = []
    const seen = new Set<string>()
    for (let next = 0; next < this.pending.length; next++) {
      const { name, schema } = this.pending[next]!
      if (seen.has(name)) continue
      seen.add(name)
      if (Array.isArray(schema.enum)) definitions.push({ kind: 'enum', name, values: schema.enum as string[] })
      // Closed only when nothing else admits a member: `patternProperties` names members the struct does not.
      else
        definitions.push({ kind: 'struct', name, closed: schema.additionalProperties === false && !hasPatterns(schema), fields: this.fieldsOf(name, schema) })
    }
    const edges = new Map<string, string[]>()
    for (const d of definitions)
      if (d.kind === 'struct')
        edges.set(
          d.name,
          d.fields.map((f) => unwrapOptions(f.type).inner),
        )
    for (const a of this.aliases) edges.set(a.id, [unwrapOptions(a.type).inner])
    // `inner` reaches `name` through a member of `name` exactly when both are one node or share a
    // strongly connected component: one walk of the by-value graph for every member.
    const components = findCycles(edges.keys(), { edges: (node: string) => edges.get(node) ?? [], target: (to: string) => to })
    const reaches = (from: string, to: string): boolean => from === to || (components.componentOf(from)?.has(to) ?? false)
    for (const d of definitions) {
      if (d.kind === 'enum') this.writeEnum(w, d.name, d.values)
      else this.writeStruct(w, d.name, d.closed, d.fields, reaches)
    }
    for (const a of this.aliases) w.line(a.doc).line(`pub type ${a.id} = ${a.type};`)
    if (this.aliases.length > 0) w.line()
  }

  private writeEnum(w: RustWriter, name: string, values: string[]): void {
    const variants = new Names('camel', ['Self'])
    w.line(`/// One of ${values.map((v) => codeSpan(rustString(v))).join(', ')}.`)
    w.line('#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]').open(`pub enum ${name}`)
    for (const v of values) w.line(`#[serde(rename = ${rustString(v)})]`).line(`${variants.get(v)},`)
    w.close().line()
  }

  private writeStruct(w: RustWriter, name: string, closed: boolean, fields: Field[], reaches: (from: string, to: string) => boolean): void {
    w.line('#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]')
    if (closed) w.line('#[serde(deny_unknown_fields)]')
    w.open(`pub struct ${name}`)
    for (const { key, field, required, ...f } of fields) {
      const { inner, options } = unwrapOptions(f.type)
      const type = reaches(inner, name) ? 'Option<'.repeat(options) + `Box<${inner}>` + '>'.repeat(options) : f.type
      if (bare(field) !== key) w.line(`#[serde(rename = ${rustString(key)})]`)
      if (required) w.line(`pub ${field}: ${type},`)
      else if (options > 0)
        // Optional and nullable: a present `null` stays `Some(None)` (serde alone would drop it).
        w.line('#[serde(')
          .indented(() => w.line('default,').line('skip_serializing_if = "Option::is_none",').line('deserialize_with = "crate::common::present"'))
          .line(')]')
          .line(`pub ${field}: Option<${type}>,`)
      else w.line('#[serde(default, skip_serializing_if = "Option::is_none")]').line(`pub ${field}: Option<${type}>,`)
    }
    if (!closed)
      w.line('/// Members the schema does not name (it allows them).').line('#[serde(flatten)]').line('pub extra: serde_json::Map<String, serde_json::Value>,')
    w.close().line()
  }
}

/** The `payloads` module of an application (behind the `serde` feature): each channel's payload type, and the types they need. */
export function writePayloads(w: RustWriter, model: NatsModel, channelModules: Map<string, string>): void {
  const payloads = new RustPayloads(model.schemas)
  for (const c of model.channels) {
    // The channel's payload type: a name of its own in the module, whatever the components are called.
    const id = payloads.reserve(`channel:${c.id}`, `${bare(channelModules.get(c.id)!)}_payload`)
    const types = c.messages.map((m) =>
      m.external || m.payload === undefined ? VALUE : payloads.typeOf(m.payload, id, 0, c.messages.length === 1 ? id : undefined),
    )
    const type = types.length === 1 ? types[0]! : VALUE
    if (type !== id) payloads.alias(id, type, `/// The payload of channel ${codeSpan(rustString(c.id))}.`)
    writeHeaders(payloads, c, channelModules)
  }
  w.line().line("/// Message payloads with `serde` derives (the crate's `serde` feature).").line('#[cfg(feature = "serde")]').open('pub mod payloads')
  payloads.write(w)
  w.close()
}

/** A map of header names to values: what any headers are (a message without a headers schema, or several messages). */
const HEADER_MAP = 'serde_json::Map<String, serde_json::Value>'

/**
 * A channel's headers type, `<Channel>Headers`, when one of its messages has an AsyncAPI `headers`
 * schema (none otherwise: a channel without one has nothing to type). One message's schema is typed
 * as a payload's is (a struct of its named headers, closed when the schema is); several messages,
 * or one without a headers schema beside one with, are any map. It reads the headers as the
 * TypeScript client's validator does: a JSON object, one string per name, `Nats-` names left out.
 */
function writeHeaders(payloads: RustPayloads, c: NatsModel['channels'][number], channelModules: Map<string, string>): void {
  if (!c.messages.some((m) => m.headers !== undefined)) return
  const id = payloads.reserve(`channel-headers:${c.id}`, `${bare(channelModules.get(c.id)!)}_headers`)
  const only = c.messages.length === 1 ? c.messages[0]! : undefined
  const type = only && !only.external && only.headers !== undefined ? payloads.typeOf(only.headers, id, 0, id) : HEADER_MAP
  // `Value` says nothing a map of headers does not: the map, so the type still reads as headers.
  const headers = type === VALUE ? HEADER_MAP : type
  if (headers !== id) payloads.alias(id, headers, `/// The headers of channel ${codeSpan(rustString(c.id))}.`)
}
