/**
 * Payload types for the Rust target's `serde` feature: each message payload's schema (AsyncAPI
 * Schema Object, JSON Schema draft-07) as Rust types with `serde` derives that round-trip the JSON
 * the TypeScript side produces, and accept every value the payload's validator accepts (a type never
 * narrower than the schema). A `type: object` with `properties` is a struct (required members as they
 * are, the others `Option` and left out when absent; an open object keeps its other members in
 * `extra`, a closed one refuses them through a flattened `Closed`, which also keeps serde from reading
 * the struct from a JSON array), a string enum an enum, arrays `Vec`, integers common.rs's
 * `Integer` (`1.0` and `1e2` are draft-07 integers), `type: [T, "null"]` an `Option`, a `$ref` to a
 * component its named type. A schema with no `type` admits every JSON type whatever its
 * `properties`, `required` or `items` say, so it is `serde_json::Value`. What a Rust type cannot say exactly (`oneOf`,
 * `anyOf`, `allOf`, `const`, mixed enums, `not`, `if`) is `serde_json::Value`: kept as it is, never
 * guessed. Each component is written once (names break recursion); a member whose type can contain
 * the struct it belongs to, directly or through other structs, is boxed. Every type name comes from
 * one injective map of the module's namespace: a component `AB` and the member `b` of `A` are two types.
 */
import { findCycles, longestPaths } from '../../../../core/graph.js'
import { escapeToken, splitPointer } from '../../../../runtime/shared/json-pointer.js'
import { isObject } from '../../document.js'
import type { NatsModel } from '../../model.js'
import { codeSpan } from './doc.js'
import { DROP_CHECK_BUDGET, GENERIC_NESTING, typeDepths } from './drop-check.js'
import { bare, camelType, Names, PRELUDE_NAMES, rustString } from './names.js'
import type { RustWriter } from './writer.js'

const COMPONENT = '#/components/schemas/'
const MAX_DEPTH = 32
const VALUE = 'serde_json::Value'
const INTEGER = 'crate::common::Integer'
const NOTHING = 'crate::common::Nothing'

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

/** An object with any members, kept as they are. */
const ANY_MAP = 'serde_json::Map<String, serde_json::Value>'

/**
 * The most component types the Rust target nests inside one another while it works out a type
 * (each an alias, a list, a map or an `Option` of the next: a struct's members are typed later).
 * Each level is a few frames of the generator's own recursion: an outside pass ran it out of stack
 * on an `items` chain of 1,500 links. A value nested past 255 references is one no validator
 * accepts (MAX_VALIDATION_DEPTH), so no payload a service may receive needs more.
 */
export const MAX_NESTED_COMPONENTS = 256

/** How deep the types a struct holds by value may nest before a member is boxed (rustc built 60). */
const MAX_BY_VALUE_DEPTH = 32

/**
 * For each type of the by-value graph (`edges`: a type to the types it holds by value), the longest
 * chain of types it holds, an edge within a cycle left out (`cycle`: such a member is boxed
 * anyway).
 */
function byValueHeights(edges: ReadonlyMap<string, readonly string[]>, cycle: (from: string, to: string) => boolean): Map<string, number> {
  return longestPaths(edges.keys(), (from) => (edges.get(from) ?? []).filter((to) => !cycle(from, to)))
}

/**
 * A document the Rust target cannot write (unsupported): `contracts generate` reports it
 * (NATS_RUST_UNSUPPORTED, at `pointer`: the schema, or the channel, whose type it is) and writes
 * nothing. `file` is the application document's, set where the crate is made of several.
 */
export class RustUnsupported extends Error {
  file?: string
  constructor(
    message: string,
    readonly pointer: string,
  ) {
    super(message)
  }
}

export class RustPayloads {
  /** The `payloads` module's type namespace: components, inline structs and enums, channel payloads. */
  private readonly names = new Names('camel', PRELUDE_NAMES)
  /** Component name -> its type. */
  private readonly declared = new Map<string, string>()
  private readonly pending: Array<{ name: string; schema: Record<string, unknown> }> = []
  /** Aliases: a component or channel payload that is not a struct or enum of its own. */
  private readonly aliases: Array<{ id: string; type: string; doc: string }> = []
  /**
   * Components that reach themselves through a list and nothing else (`A: {type: array, items: {$ref: A}}`):
   * a type alias cannot name itself (E0391), so each is a transparent newtype struct (the list is the
   * indirection, no `Box` needed).
   */
  private readonly newtypes: Array<{ id: string; type: string; doc: string }> = []
  /** Components whose type is being worked out -> how many lists deep their schema was entered. */
  private readonly resolving = new Map<string, number>()
  /** Components re-entered from inside a list of their own schema (written as newtypes). */
  private readonly recursive = new Set<string>()
  /**
   * Components that reach themselves through `$ref`s alone (`A: {$ref: A}`; `A: {$ref: B}`, `B:
   * {$ref: A}`): no JSON value is one of them (the validator accepts nothing), so each is an enum
   * with no variants, which refuses every value, rather than an alias naming itself (E0391).
   */
  private readonly empty: Array<{ id: string; doc: string }> = []
  private readonly emptyNames = new Set<string>()
  /** How many `items` the current `typeOf` walk is inside. */
  private lists = 0
  private inlineCount = 0

  /** Each type's place in the document (a component's schema, a channel's), for a refusal. */
  private readonly origins = new Map<string, string>()
  /** The place of what is being typed now (inline types made there take it). */
  private at = ''

  constructor(private readonly components: Readonly<Record<string, unknown>>) {}

  /** The types made from now on are the document's at `pointer` (a channel's payload or headers). */
  typing(pointer: string): void {
    this.at = pointer
  }

  /** A name of its own for `key` (a channel's payload), made from `name`. */
  reserve(key: string, name: string): string {
    const id = this.names.get(key, name)
    if (!this.origins.has(id)) this.origins.set(id, this.at)
    return id
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
      case 'null':
        // `()` reads and writes exactly `null`.
        return '()'
      case 'array': {
        if (Array.isArray(schema.items) || schema.items === undefined) return VALUE
        this.lists++
        const item = this.typeOf(schema.items, `${hint}Item`, depth + 1)
        this.lists--
        return `Vec<${item}>`
      }
      case 'object':
        return isObject(schema.properties) && Object.keys(schema.properties).length > 0 ? this.queue(hint, schema, named) : this.mapOf(schema, hint, depth)
      default:
        return VALUE
    }
  }

  /**
   * An object without `properties`: a map, an object as the validator requires (`Value` would take
   * an array, a string, anything). Its members any (`additionalProperties` absent, `true` or `{}`):
   * `serde_json::Map`; all of one schema: a `BTreeMap` of that schema's type (through which a
   * component may contain itself, as through a list); none (`false`): `common::Closed`, which reads
   * `{}` only. Members named by `required` or `patternProperties` are left to `Value`.
   */
  private mapOf(schema: Record<string, unknown>, hint: string, depth: number): string {
    if ((Array.isArray(schema.required) && schema.required.length > 0) || hasPatterns(schema)) return VALUE
    const members = schema.additionalProperties
    if (members === undefined || members === true || (isObject(members) && Object.keys(members).length === 0)) return ANY_MAP
    if (members === false) return 'crate::common::Closed'
    if (!isObject(members)) return VALUE
    this.lists++
    const member = this.typeOf(members, `${hint}Member`, depth + 1)
    this.lists--
    return member === VALUE ? ANY_MAP : `std::collections::BTreeMap<String, ${member}>`
  }

  private reference(ref: string): string {
    const tokens = ref.startsWith(COMPONENT) ? splitPointer(ref.slice(COMPONENT.length - 1)) : []
    if (tokens.length !== 1 || !Object.hasOwn(this.components, tokens[0]!)) return VALUE
    const name = tokens[0]!
    const known = this.declared.get(name)
    if (known) {
      const entered = this.resolving.get(name)
      if (entered === undefined) return known
      // Re-entered while its own type is worked out: not through a struct (their members are typed
      // when written) nor a nullable type (its schema is not a `$ref`), so through a list (a
      // newtype) or through `$ref`s alone (an empty enum).
      if (this.lists > entered) this.recursive.add(name)
      else this.emptyNames.add(name)
      return known
    }
    const pointer = `/components/schemas/${escapeToken(name)}`
    if (this.resolving.size >= MAX_NESTED_COMPONENTS)
      throw new RustUnsupported(
        `The schema ${JSON.stringify(name)} is nested ${this.resolving.size} component types deep (lists, maps and aliases of the next): the Rust target writes at most ${MAX_NESTED_COMPONENTS} (unsupported).`,
        pointer,
      )
    // Declared before it is written, so a schema that refers to itself names itself.
    const id = this.names.get(`component:${name}`, name)
    this.origins.set(id, pointer)
    this.declared.set(name, id)
    this.resolving.set(name, this.lists)
    const outer = this.at
    this.at = pointer
    const type = this.typeOf(this.components[name], id, 0, id)
    this.at = outer
    this.resolving.delete(name)
    const doc = `/// The schema ${codeSpan(rustString(name))}.`
    // Not a struct or enum: an alias (a component that is a string, a list, ...), or a newtype
    // when the alias would name itself.
    if (this.emptyNames.has(name)) this.empty.push({ id, doc: `${doc.slice(0, -1)}: it refers to itself through \`$ref\`s alone, so no value is one.` })
    else if (type !== id) (this.recursive.has(name) ? this.newtypes : this.aliases).push({ id, type, doc })
    return id
  }

  /** A struct or enum for `schema`, named `named` or a new name after `hint`, written when `write` runs. */
  private queue(hint: string, schema: Record<string, unknown>, named?: string): string {
    const id = named ?? this.names.get(`inline:${this.inlineCount++}`, hint)
    if (!this.origins.has(id)) this.origins.set(id, this.at)
    this.pending.push({ name: id, schema })
    return id
  }

  /** A struct's members, in name order; the types they need are queued. */
  private fieldsOf(name: string, schema: Record<string, unknown>): Field[] {
    const properties = schema.properties as Record<string, unknown>
    const required = new Set((Array.isArray(schema.required) ? schema.required : []).filter((k): k is string => typeof k === 'string'))
    // The struct's field namespace: `extra` holds the members the schema does not name.
    const fields = new Names('snake', ['extra'])
    // A required member the properties do not describe is still required: a member of its own, or
    // `extra` would read an object without it. Any value, where the object is open; where it is
    // closed the member may not appear either, no object is valid, and its type has no value.
    const undescribed = schema.additionalProperties === false && !hasPatterns(schema) ? NOTHING : VALUE
    const keys = new Set([...Object.keys(properties), ...required])
    return [...keys].sort().map((key) => ({
      key,
      field: fields.get(key),
      type: Object.hasOwn(properties, key) ? this.typeOf(properties[key], `${name}${bare(camelType(key))}`) : undescribed,
      required: required.has(key),
    }))
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
      // The types its members make are the document's where it is.
      this.at = this.origins.get(name) ?? this.at
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
    for (const a of [...this.aliases, ...this.newtypes]) edges.set(a.id, [unwrapOptions(a.type).inner])
    // `inner` reaches `name` through a member of `name` exactly when both are one node or share a
    // strongly connected component: one walk of the by-value graph for every member.
    const components = findCycles(edges.keys(), { edges: (node: string) => edges.get(node) ?? [], target: (to: string) => to })
    const cycle = (from: string, to: string): boolean => from === to || (components.componentOf(from)?.has(to) ?? false)
    // A member is boxed where its type would contain its own struct, and where the types it holds
    // by value nest MAX_BY_VALUE_DEPTH deep: rustc computes a layout and drop-check rules through
    // every type held by value, and refused a chain of 70 structs each holding the next
    // ("queries overflow the depth limit", E0320; an outside pass).
    const heights = byValueHeights(edges, cycle)
    // rustc's drop check follows every member, boxed or not, and the Option, Vec and map around it,
    // up to its recursion limit: a deeper chain is a crate rustc refuses (E0320), so it is refused
    // here (drop-check.ts; an outside pass built 80 structs each optionally holding the next).
    const depths = typeDepths([
      // An optional member is written `Option<type>` (writeStruct).
      ...definitions.map((d) => ({
        id: d.name,
        struct: d.kind === 'struct',
        types: d.kind === 'struct' ? d.fields.map((f) => (f.required ? f.type : `Option<${f.type}>`)) : [],
      })),
      ...this.aliases.map((a) => ({ id: a.id, struct: false, types: [a.type] })),
      ...this.newtypes.map((n) => ({ id: n.id, struct: true, types: [n.type] })),
    ])
    let deepest: [string, number] = ['', 0]
    let nested: [string, number] = ['', 0]
    for (const [type, depth] of depths) {
      if (depth.dropCheck > deepest[1]) deepest = [type, depth.dropCheck]
      if (depth.nesting > nested[1]) nested = [type, depth.nesting]
    }
    if (deepest[1] > DROP_CHECK_BUDGET)
      throw new RustUnsupported(
        `The type ${JSON.stringify(deepest[0])} holds a chain of types, each a member of the one before, deeper than rustc's drop check takes (E0320: about 158 structs through required members, 79 through optional ones, fewer through lists and maps): the Rust target writes chains up to ${DROP_CHECK_BUDGET} of its measure (a struct or an Option 4, a list 2, a map 10), and this one is ${deepest[1]} (unsupported).`,
        this.origins.get(deepest[0]) ?? '',
      )
    if (nested[1] > GENERIC_NESTING)
      throw new RustUnsupported(
        `The type ${JSON.stringify(nested[0])} nests ${nested[1]} lists, maps or options one inside another: rustc's trait solver refuses about 128 (E0275), and the Rust target writes at most ${GENERIC_NESTING} (unsupported).`,
        this.origins.get(nested[0]) ?? '',
      )
    const reaches = (from: string, to: string): boolean => cycle(from, to) || (heights.get(from) ?? 0) >= MAX_BY_VALUE_DEPTH
    for (const d of definitions) {
      if (d.kind === 'enum') this.writeEnum(w, d.name, d.values)
      else this.writeStruct(w, d.name, d.closed, d.fields, reaches)
    }
    for (const n of this.newtypes)
      w.line(n.doc)
        .line('#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]')
        .line('#[serde(transparent)]')
        .line(`pub struct ${n.id}(pub ${n.type});`)
        .line()
    for (const e of this.empty)
      w.line(e.doc).line('#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]').line(`pub enum ${e.id} {}`).line()
    for (const a of this.aliases) w.line(a.doc).alias(a.id, a.type)
    if (this.aliases.length > 0) w.line()
  }

  private writeEnum(w: RustWriter, name: string, values: string[]): void {
    const variants = new Names('camel', ['Self'])
    w.line(`/// One of ${values.map((v) => codeSpan(rustString(v))).join(', ')}.`)
    w.line('#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]').open(`pub enum ${name}`)
    for (const v of values) w.rename(rustString(v)).line(`${variants.get(v)},`)
    w.close().line()
  }

  /** Whether a member's type is an `Option`, written out or through aliases and transparent newtypes (serde reads each as what it wraps). */
  private isOption(type: string): boolean {
    const seen = new Set<string>()
    let t = type
    for (;;) {
      if (t.startsWith('Option<')) return true
      const alias = this.aliases.find((a) => a.id === t) ?? this.newtypes.find((n) => n.id === t)
      if (!alias || seen.has(t)) return false
      seen.add(t)
      t = alias.type
    }
  }

  private writeStruct(w: RustWriter, name: string, closed: boolean, fields: Field[], reaches: (from: string, to: string) => boolean): void {
    w.line('#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]')
    w.open(`pub struct ${name}`)
    for (const { key, field, required, ...f } of fields) {
      const { inner, options } = unwrapOptions(f.type)
      const type = reaches(inner, name) ? 'Option<'.repeat(options) + `Box<${inner}>` + '>'.repeat(options) : f.type
      if (bare(field) !== key) w.rename(rustString(key))
      if (required) {
        // serde reads an absent `Option` member as `None`; with `deserialize_with` an absent member
        // is an error, as the validator's `required` says (a present `null` is still `None`).
        if (this.isOption(f.type)) w.line('#[serde(deserialize_with = "serde::Deserialize::deserialize")]')
        w.member(field, type)
      } else
        // Optional: absent is `None`; present is `Some`, read by the member's own type. serde alone
        // reads a present `null` as `None`, which would accept `null` for a member whose schema
        // refuses it and drop the `null` of one that allows it (`Value`, `type: [T, "null"]`).
        w.line('#[serde(')
          .indented(() => w.line('default,').line('skip_serializing_if = "Option::is_none",').line('deserialize_with = "crate::common::present"'))
          .line(')]')
          .member(field, `Option<${type}>`)
    }
    // Closed: `Closed` flattened refuses every other member. Not `deny_unknown_fields`: a struct
    // without a flattened member also reads a JSON array (by position), which no object schema accepts.
    if (closed) w.line('/// No members beyond these (the schema is closed).').line('#[serde(flatten)]').line('pub extra: crate::common::Closed,')
    else
      w.line('/// Members the schema does not name (it allows them).').line('#[serde(flatten)]').line('pub extra: serde_json::Map<String, serde_json::Value>,')
    w.close().line()
  }
}

/** The `payloads` module of an application (behind the `serde` feature): each channel's payload type, and the types they need. */
export function writePayloads(w: RustWriter, model: NatsModel, channelModules: Map<string, string>): void {
  const payloads = new RustPayloads(model.schemas)
  for (const c of model.channels) {
    // The channel's payload type: a name of its own in the module, whatever the components are called.
    payloads.typing(`/channels/${escapeToken(c.id)}`)
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
const HEADER_MAP = ANY_MAP

/**
 * A channel's headers type, `<Channel>Headers`, when one of its messages has an AsyncAPI `headers`
 * schema (none otherwise: a channel without one has nothing to type). One message's schema is typed
 * as a payload's is (a struct of its named headers, closed when the schema is); several messages,
 * or one without a headers schema beside one with, are any map. It reads the headers as the
 * TypeScript client's validator does: a JSON object, one string per name, of the `Nats-` names only
 * those the schema names.
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
