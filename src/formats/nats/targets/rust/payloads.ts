/**
 * Payload types for the Rust target's `serde` feature: each message payload's schema (AsyncAPI
 * Schema Object, JSON Schema draft-07) as Rust types with `serde` derives that round-trip the JSON
 * the TypeScript side produces. An object with `properties` is a struct (required members as they
 * are, the others `Option` and left out when absent; an open object keeps its other members in
 * `extra`, a closed one denies them), a string enum an enum, arrays `Vec`, `type: [T, "null"]` an
 * `Option`, a `$ref` to a component its named type. What a Rust type cannot say exactly (`oneOf`,
 * `anyOf`, `allOf`, `const`, mixed enums, `not`, `if`) is `serde_json::Value`: kept as it is, never
 * guessed. Each component is written once (names break recursion; recursive members are boxed).
 */
import { splitPointer } from '../../../../runtime/shared/json-pointer.js'
import { isObject } from '../../document.js'
import type { NatsModel } from '../../model.js'
import { camelType, Names, rustString, snakeCase } from './names.js'
import type { RustWriter } from './writer.js'

const COMPONENT = '#/components/schemas/'
const MAX_DEPTH = 32
const VALUE = 'serde_json::Value'

export class RustPayloads {
  private readonly names = new Names(camelType, ['Value', 'Option', 'Vec', 'String', 'Box'])
  private readonly declared = new Map<string, string>()
  private readonly pending: Array<{ name: string; schema: Record<string, unknown> }> = []
  private readonly inline: string[][] = []

  constructor(private readonly components: Readonly<Record<string, unknown>>) {}

  /** The Rust type of a payload schema; structs and enums it needs are queued under `hint`. */
  typeOf(schema: unknown, hint: string, depth = 0): string {
    if (schema === undefined || schema === true || !isObject(schema) || depth > MAX_DEPTH) return VALUE
    if (typeof schema.$ref === 'string') return this.reference(schema.$ref)
    for (const k of ['oneOf', 'anyOf', 'allOf', 'not', 'if', 'const']) if (Object.hasOwn(schema, k)) return VALUE
    if (Array.isArray(schema.enum)) return schema.enum.length > 0 && schema.enum.every((v) => typeof v === 'string') ? this.queue(hint, schema) : VALUE
    const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? (schema.type as string[]) : undefined
    if (types && types.length === 2 && types.includes('null')) {
      const inner = this.typeOf({ ...schema, type: types.find((t) => t !== 'null') }, hint, depth + 1)
      return inner === VALUE ? VALUE : `Option<${inner}>`
    }
    const type = types?.length === 1 ? types[0] : isObject(schema.properties) ? 'object' : undefined
    switch (type) {
      case 'string':
        return 'String'
      case 'integer':
        return 'i64'
      case 'number':
        // serde_json's own number: 10 stays 10 and 10.5 stays 10.5 on the way back (an f64 would write 10.0).
        return 'serde_json::Number'
      case 'boolean':
        return 'bool'
      case 'array':
        return Array.isArray(schema.items) || schema.items === undefined ? VALUE : `Vec<${this.typeOf(schema.items, `${hint}Item`, depth + 1)}>`
      case 'object':
        return isObject(schema.properties) && Object.keys(schema.properties).length > 0 ? this.queue(hint, schema) : VALUE
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
    const id = this.names.get(name)
    this.declared.set(name, id)
    const schema = this.components[name]
    const type = this.typeOf(schema, name)
    if (type === id) return id
    // Not a struct or enum: an alias (a component that is a string, a list, ...).
    this.inline.push([`/// The schema ${rustString(name)}.`, `pub type ${id} = ${type === id ? VALUE : type};`])
    return id
  }

  /** A struct or enum for `schema`, named after `hint`, written when `write` runs. */
  private queue(hint: string, schema: Record<string, unknown>): string {
    const existing = this.declared.get(hint)
    const id = existing ?? this.names.get(hint)
    this.declared.set(hint, id)
    this.pending.push({ name: id, schema })
    return id
  }

  /** Every queued type, in the order first needed (deterministic for one model). */
  write(w: RustWriter): void {
    const written = new Set<string>()
    for (let next = 0; next < this.pending.length; next++) {
      const { name, schema } = this.pending[next]!
      if (written.has(name)) continue
      written.add(name)
      if (Array.isArray(schema.enum)) this.writeEnum(w, name, schema.enum as string[])
      else this.writeStruct(w, name, schema)
    }
    for (const alias of this.inline) for (const line of alias) w.line(line)
    if (this.inline.length > 0) w.line()
  }

  private writeEnum(w: RustWriter, name: string, values: string[]): void {
    const variants = new Names(camelType)
    w.line(`/// One of ${values.map(rustString).join(', ')}.`)
    w.line('#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]').open(`pub enum ${name}`)
    for (const v of values) w.line(`#[serde(rename = ${rustString(v)})]`).line(`${variants.get(v)},`)
    w.close().line()
  }

  private writeStruct(w: RustWriter, name: string, schema: Record<string, unknown>): void {
    const properties = schema.properties as Record<string, unknown>
    const required = new Set(Array.isArray(schema.required) ? schema.required : [])
    const fields = new Names(snakeCase, ['extra'])
    const closed = schema.additionalProperties === false
    w.line('#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]')
    if (closed) w.line('#[serde(deny_unknown_fields)]')
    w.open(`pub struct ${name}`)
    for (const key of Object.keys(properties).sort()) {
      const field = fields.get(key)
      let type = this.typeOf(properties[key], `${name}${camelType(key).replace(/^r#/, '')}`)
      // A member of its own type (or a list of them) is boxed: a struct cannot contain itself.
      if (type === name) type = `Box<${type}>`
      if (field.replace(/^r#/, '') !== key) w.line(`#[serde(rename = ${rustString(key)})]`)
      if (required.has(key)) w.line(`pub ${field}: ${type},`)
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
  const aliases: string[] = []
  for (const c of model.channels) {
    const module = channelModules.get(c.id)!.replace(/^r#/, '')
    const hint = `${camelType(module).replace(/^r#/, '')}Payload`
    const types = c.messages.map((m) => (m.external || m.payload === undefined ? VALUE : payloads.typeOf(m.payload, hint)))
    const type = types.length === 1 ? types[0]! : VALUE
    if (type !== hint) aliases.push(`/// The payload of channel ${rustString(c.id)}.`, `pub type ${hint} = ${type};`)
  }
  w.line().line("/// Message payloads with `serde` derives (the crate's `serde` feature).").line('#[cfg(feature = "serde")]').open('pub mod payloads')
  payloads.write(w)
  for (const line of aliases) w.line(line)
  w.close()
}
