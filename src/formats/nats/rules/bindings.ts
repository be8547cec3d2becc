import { createAjv } from '../../../core/standalone-validators.js'
import { append } from '../../../core/append.js'
import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import type { TokenType } from '../../../runtime/nats/tokens.js'
import { tokenTypeContains } from '../containment.js'
import type { NatsContext } from '../context.js'
import { isObject } from '../document.js'
import { BRANCH_FIELDS, CONTEXT_FIELDS, CORRELATION_SOURCES } from '../interaction-facts.js'
import { deref, destinationAt, localSchema, operationPayload, sameSchema, schemaAtPointer } from '../schemas.js'
import { localRequestPayload } from '../message-schemas.js'
import { interactions } from './interactions.js'
import { natsRule, type NatsReport } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): per interaction, O(b log b) for b bindings (overlap by one sort), required-field coverage O(fields x depth) through set lookups, schema equality by memoized digests (linear in the schemas). */

// Created on first use: most contracts have no literal to check, and ajv costs every process to load.
let literalAjv: ReturnType<typeof createAjv> | undefined

/**
 * Literal checks, compiled once per distinct schema text. ajv's own cache is keyed by schema
 * object, and each check builds a fresh (refs-inlined) object: through ajv's cache every compile
 * of every contract would add an entry for the life of the process (a dev server's).
 */
const literalValidators = new Map<string, import('ajv').ValidateFunction>()
export function satisfies(schema: object, value: unknown): boolean {
  const key = JSON.stringify(schema)
  let validate = literalValidators.get(key)
  if (!validate) {
    const ajv = (literalAjv ??= createAjv())
    validate = ajv.compile(schema)
    ajv.removeSchema(schema)
    if (literalValidators.size >= 256) literalValidators.delete(literalValidators.keys().next().value!)
    literalValidators.set(key, validate)
  }
  return validate(value) as boolean
}

type Source = Record<string, unknown>
const at = (ctx: NatsContext, key: string, ...path: Array<string | number>) => ctx.pointer('x-nats-contract', 'interactions', key, ...path)

function bindingMaps(it: Record<string, any>): { subject: Record<string, Source>; payload: Record<string, Source> } {
  const b = isObject(it.bindings) ? it.bindings : {}
  return {
    subject: (isObject(b.subject) ? b.subject : {}) as Record<string, Source>,
    payload: (isObject(b.payload) ? b.payload : {}) as Record<string, Source>,
  }
}

const SOURCE_KINDS = ['input', 'context', 'branch', 'literal']

export const bindingSources = natsRule({
  code: 'NATS_BINDING_SOURCE',
  description: 'A binding source that is not exactly one of {input}, {context}, {branch} or {literal}, or names an input or branch field that does not exist.',
  check(ctx, report) {
    for (const [key, it] of interactions(ctx)) {
      const inputs = isObject(it.inputs) ? it.inputs : {}
      for (const [part, map] of Object.entries(bindingMaps(it))) {
        for (const [target, source] of Object.entries(map)) {
          const pointer = at(ctx, key, 'bindings', part, target)
          const kinds = isObject(source) ? Object.keys(source) : []
          if (kinds.length !== 1 || !SOURCE_KINDS.includes(kinds[0]!))
            report(pointer, 'A source is exactly one of {input}, {context}, {branch} or {literal}; there is no implicit same-name copying.')
          else if ('input' in source && !Object.hasOwn(inputs, source.input as string))
            report(pointer, `${JSON.stringify(source.input)} is not an input of this interaction.`)
          else if ('branch' in source && !Object.hasOwn(BRANCH_FIELDS, source.branch as string))
            report(pointer, `${JSON.stringify(source.branch)} is not a branch field (id, peerId, attempt, fence, input).`)
        }
      }
    }
  },
})

/** Do two JSON Pointers overlap (one is the other or lies inside it)? */
export function pointersOverlap(a: string, b: string): boolean {
  return a === b || a.startsWith(b + '/') || b.startsWith(a + '/') || a === '' || b === ''
}

export const bindingOverlap = natsRule({
  code: 'NATS_BINDING_OVERLAP',
  description: 'Two payload destination pointers overlap (one equals or contains the other).',
  check(ctx, report) {
    for (const [key, it] of interactions(ctx)) checkOverlap(Object.keys(bindingMaps(it).payload), (p) => at(ctx, key, 'bindings', 'payload', p), report)
  },
})

/**
 * Reports each destination that lies inside another (or equals ""), at the later of the two in
 * document order, naming its nearest enclosing one. One sort and a stack of open ancestors:
 * O(k log k) for k pointers, where comparing every pair was O(k^2). (In code unit order a
 * pointer's descendants follow it before any pointer that is not one: "/" sorts below every
 * token character that could follow a shared prefix and precede it.)
 */
export function checkOverlap(pointers: string[], where: (p: string) => string, report: NatsReport): void {
  const order = new Map(pointers.map((p, i) => [p, i]))
  const overlap = (a: string, b: string) => {
    const [later, earlier] = order.get(a)! > order.get(b)! ? [a, b] : [b, a]
    report(where(later), `Destination ${JSON.stringify(later)} overlaps ${JSON.stringify(earlier)}; destinations cannot overlap.`)
  }
  const sorted = [...pointers].sort()
  const open: string[] = []
  for (const pointer of sorted) {
    while (open.length > 0 && !pointersOverlap(pointer, open[open.length - 1]!)) open.pop()
    if (open.length > 0) overlap(pointer, open[open.length - 1]!)
    open.push(pointer)
  }
}

const boundSetsOf = new WeakMap<string[], { exact: Set<string>; inside: Set<string> }>()

/**
 * The bound pointers as a set, and the set of pointers some bound pointer lies strictly inside:
 * made once per list, so each required field is decided in O(its depth), not by a scan of every
 * binding (which made required fields x bindings).
 */
function boundSets(bound: string[]): { exact: Set<string>; inside: Set<string> } {
  let sets = boundSetsOf.get(bound)
  if (!sets) {
    sets = { exact: new Set(bound), inside: new Set() }
    for (const p of bound) for (let i = p.lastIndexOf('/'); i > 0; i = p.lastIndexOf('/', i - 1)) sets.inside.add(p.slice(0, i))
    boundSetsOf.set(bound, sets)
  }
  return sets
}

/** Is `path` or one of its ancestors in `set`? */
function ancestorOrSelfIn(path: string, set: ReadonlySet<string>): boolean {
  for (let end = path.length; end > 0; end = path.lastIndexOf('/', end - 1)) if (set.has(path.slice(0, end))) return true
  return set.has('')
}

/** Required payload fields not covered by a binding, descending into objects the bindings construct. */
export function unboundRequired(ctx: NatsContext, schema: Record<string, unknown> | undefined, bound: string[], base = ''): string[] {
  const s = deref(ctx, schema)
  if (!s) return []
  const missing: string[] = []
  const required = Array.isArray(s.required) ? (s.required as string[]) : []
  const { exact, inside } = boundSets(bound)
  for (const name of required) {
    const path = joinPointer(base, name)
    if (ancestorOrSelfIn(path, exact)) continue
    if (inside.has(path)) {
      const child = isObject(s.properties) ? (s.properties[name] as Record<string, unknown>) : undefined
      append(missing, unboundRequired(ctx, child, bound, path))
    } else missing.push(path)
  }
  return missing
}

const COMPOSED = ['allOf', 'anyOf', 'oneOf', 'if', 'then', 'else', 'not', 'dependentRequired', 'dependentSchemas', 'dependencies']

/**
 * The objects a payload builds field by field (no binding supplies them whole) whose schema is
 * composed or conditional (allOf, anyOf, oneOf, if/then/else, not, dependencies): what they require
 * cannot be read off `required` and `properties`, so partial construction through them is not
 * proven ("The helper rejects partial construction through conditional/composed schemas it cannot
 * prove"). O(bound paths x depth).
 */
export function composedConstruction(ctx: NatsContext, schema: Record<string, unknown> | undefined, bound: string[], base = ''): string[] {
  const s = deref(ctx, schema)
  if (!s) return []
  const { exact, inside } = boundSets(bound)
  if (ancestorOrSelfIn(base, exact)) return []
  const out: string[] = COMPOSED.some((k) => k in s) ? [base] : []
  const properties = isObject(s.properties) ? s.properties : {}
  for (const name of Object.keys(properties)) {
    const path = joinPointer(base, name)
    if (inside.has(path)) append(out, composedConstruction(ctx, properties[name] as Record<string, unknown>, bound, path))
  }
  return out
}

export const bindingCoverage = natsRule({
  code: 'NATS_BINDING_MISSING',
  description:
    'A subject parameter of the request channel or a required payload field (required descendants of constructed objects included) is not bound, or a binding names a parameter the channel does not have.',
  check(ctx, report) {
    for (const [key, it] of interactions(ctx)) {
      if (it.requestOperation === undefined) continue
      const { subject, payload } = bindingMaps(it)
      const channel = ctx.operationChannel(it.requestOperation)
      if (!channel) continue
      for (const param of Object.keys(channel.parameters))
        if (!Object.hasOwn(subject, param))
          report(at(ctx, key, 'bindings', 'subject'), `Subject parameter {${param}} of channel ${JSON.stringify(channel.id)} is not bound.`)
      for (const param of Object.keys(subject))
        if (!Object.hasOwn(channel.parameters, param))
          report(at(ctx, key, 'bindings', 'subject', param), `{${param}} is not a parameter of channel ${JSON.stringify(channel.id)}.`)
      for (const path of unboundRequired(ctx, operationPayload(ctx, it.requestOperation), Object.keys(payload))) {
        report(at(ctx, key, 'bindings', 'payload'), `Required payload field ${path} is not bound.`)
      }
      for (const path of composedConstruction(ctx, operationPayload(ctx, it.requestOperation), Object.keys(payload)))
        report(
          at(ctx, key, 'bindings', 'payload'),
          `The payload ${path || '(root)'} is built field by field through a composed or conditional schema; what it requires cannot be proven: bind it whole.`,
        )
    }
  },
})

export const correlationNotOverwritten = natsRule({
  code: 'NATS_BINDING_CORRELATION',
  description: 'A payload location that correlation reads is bound from business data instead of the fact it names (work that sends a request only).',
  check(ctx, report) {
    for (const [key, it] of interactions(ctx)) {
      // Gather-only work (no requestOperation) sends no request payload: its bindings are empty and
      // there is no correlation metadata of a request to protect.
      if (it.requestOperation === undefined) continue
      const c = isObject(it.correlation) ? it.correlation : {}
      const { payload } = bindingMaps(it)
      for (const [fact, allowed] of Object.entries(CORRELATION_SOURCES)) {
        const expr = c[fact]
        if (typeof expr !== 'string' || !expr.startsWith('$message.payload#')) continue
        const location = expr.slice('$message.payload#'.length)
        const source = payload[location]
        const id = isObject(source) ? `${Object.keys(source)[0]}:${String(Object.values(source)[0])}` : undefined
        if (id === undefined)
          report(at(ctx, key, 'bindings', 'payload'), `${location} carries the ${fact} correlation and must be bound from ${allowed.join(' or ')}.`)
        else if (!allowed.includes(id))
          report(
            at(ctx, key, 'bindings', 'payload', location),
            `${location} carries the ${fact} correlation; binding it from ${id} would overwrite correlation metadata with business data.`,
          )
      }
    }
  },
})

/** The JSON type a source yields, and its token type when it has one. */
function sourceType(ctx: NatsContext, it: Record<string, any>, source: Source): { type?: string; tokenType?: TokenType; schema?: Record<string, unknown> } {
  if ('literal' in source)
    return {
      type:
        source.literal === null
          ? 'null'
          : Array.isArray(source.literal)
            ? 'array'
            : typeof source.literal === 'number'
              ? Number.isInteger(source.literal)
                ? 'integer'
                : 'number'
              : typeof source.literal,
    }
  if ('context' in source) return { type: CONTEXT_FIELDS[source.context as string]?.startsWith('integer') ? 'integer' : 'string' }
  if ('branch' in source)
    return {
      type: BRANCH_FIELDS[source.branch as string] === 'integer' ? 'integer' : BRANCH_FIELDS[source.branch as string] === 'string' ? 'string' : undefined,
    }
  const input = isObject(it.inputs) ? (it.inputs[source.input as string] as Record<string, unknown>) : undefined
  if (typeof input?.tokenType === 'string') return { type: 'string', tokenType: ctx.tokenTypes[input.tokenType] }
  const schema = localSchema(ctx, input?.schema)
  return schema ? { type: typeof schema.type === 'string' ? schema.type : undefined, schema } : {}
}

const compatible = (source: string | undefined, target: unknown) =>
  source === undefined || target === undefined || source === target || (source === 'integer' && target === 'number')

export const bindingTypes = natsRule({
  code: 'NATS_BINDING_TYPE',
  description:
    'A known type contradiction: a literal outside its destination schema, an input token type not contained in the subject parameter domain, a source type the destination cannot hold, or a destination the payload schema forbids (additionalProperties: false).',
  check(ctx, report) {
    for (const [key, it] of interactions(ctx)) {
      if (it.requestOperation === undefined) continue
      const { subject, payload } = bindingMaps(it)
      const channel = ctx.operationChannel(it.requestOperation)
      for (const [param, source] of Object.entries(subject)) {
        const domain = channel ? ctx.tokenTypes[channel.parameters[param] ?? ''] : undefined
        if (!domain || !isObject(source)) continue
        const { type, tokenType } = sourceType(ctx, it, source)
        const pointer = at(ctx, key, 'bindings', 'subject', param)
        if ('literal' in source && (typeof source.literal !== 'string' || !tokenTypeContains(domain, { kind: 'enum', values: [source.literal] })))
          report(pointer, `Literal ${JSON.stringify(source.literal)} is not a token of {${param}}'s domain.`)
        else if (tokenType && !tokenTypeContains(domain, tokenType))
          report(pointer, `Input ${JSON.stringify(source.input)}'s token type is not contained in {${param}}'s domain.`)
        else if (type !== undefined && type !== 'string') report(pointer, `A ${type} cannot be a subject token.`)
      }
      const root = operationPayload(ctx, it.requestOperation)
      for (const [path, source] of Object.entries(payload)) {
        const target = schemaAtPointer(ctx, root, path)
        const pointer = at(ctx, key, 'bindings', 'payload', path)
        // A destination the schema forbids (additionalProperties: false) holds no value: a known contradiction.
        const destination = !target && root && isObject(source) ? destinationAt(ctx, root, path) : undefined
        if (destination && 'forbidden' in destination) report(pointer, `The payload schema forbids a value at ${path}: ${destination.forbidden}.`)
        if (!target || !isObject(source)) continue
        if ('literal' in source) {
          if (!satisfies(resolveRefs(ctx, target) as object, source.literal))
            report(pointer, `Literal ${JSON.stringify(source.literal)} does not satisfy the schema at ${path}.`)
          continue
        }
        const { type } = sourceType(ctx, it, source)
        const targetType = Array.isArray(target.type) ? undefined : target.type
        if (!compatible(type, targetType) && !(target.nullable === true && type === 'null'))
          report(pointer, `${path} is ${String(targetType)}; its source gives a ${type}.`)
      }
    }
  },
})

/** A schema with same-document references inlined (bounded), for ajv. */
export function resolveRefs(ctx: NatsContext, schema: unknown, depth = 0): unknown {
  if (depth > 32) return {}
  if (Array.isArray(schema)) return schema.map((s) => resolveRefs(ctx, s, depth + 1))
  if (!isObject(schema)) return schema
  if (typeof schema.$ref === 'string') return resolveRefs(ctx, deref(ctx, schema) ?? {}, depth + 1)
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, resolveRefs(ctx, v, depth + 1)]))
}

/** Does the source provably satisfy the destination schema? Literals are checked outright; the rest must be exact. */
function proven(ctx: NatsContext, it: Record<string, any>, source: Source, target: Record<string, unknown>): boolean {
  if ('literal' in source) return true
  // A branch's input is the manifest's data slot, whose value only the runtime sees: never proven here.
  if ('branch' in source && source.branch === 'input') return false
  const constrained = Object.keys(target).some((k) => !['type', 'description', 'title', 'examples', 'nullable'].includes(k))
  const { type, schema } = sourceType(ctx, it, source)
  if (schema) return sameSchema(ctx, schema, target)
  return !constrained && compatible(type, target.type)
}

export const bindingProof = natsRule({
  code: 'NATS_BINDING_UNPROVEN',
  description: 'A payload binding whose schema implication cannot be proven statically, in an interaction without `capabilities: [runtime-schema-check]`.',
  check(ctx, report) {
    for (const [key, it] of interactions(ctx)) {
      if (it.requestOperation === undefined) continue
      const capabilities = Array.isArray(it.capabilities) ? it.capabilities : []
      const unknownCapability = capabilities.find((c: unknown) => c !== 'runtime-schema-check')
      if (unknownCapability !== undefined)
        report(at(ctx, key, 'capabilities'), `Capability ${JSON.stringify(unknownCapability)} is not defined by v0.2 (only runtime-schema-check).`)
      if (capabilities.includes('runtime-schema-check')) continue
      const root = operationPayload(ctx, it.requestOperation)
      for (const [path, source] of Object.entries(bindingMaps(it).payload)) {
        const target = schemaAtPointer(ctx, root, path)
        if (!isObject(source)) continue
        if (!target || !proven(ctx, it, source, target)) {
          report(
            at(ctx, key, 'bindings', 'payload', path),
            `Nothing proves statically that this source satisfies the schema at ${path}; declare capabilities: [runtime-schema-check] to validate the materialized payload before dispatch.`,
          )
        }
      }
    }
  },
})

/**
 * A `runtime-schema-check` payload validator is generated from the payload schema with every
 * reference made local, a schema of a locked file included ("standard schema $ref can use locked
 * files relative to its declaring file"); only a reference that cannot be followed (a fragment
 * that names nothing in its file, a file the bundle did not read) leaves nothing to generate from,
 * and is refused here instead of checking nothing. O(payload schema + the schemas it reaches),
 * each copied once (message-schemas.ts).
 */
export const schemaCheckExternal = natsRule({
  code: 'NATS_SCHEMA_CHECK_EXTERNAL',
  description:
    'An interaction with `runtime-schema-check` whose payload schema has a reference that cannot be followed (into a locked file or this document): no validator can be generated from it.',
  check(ctx, report) {
    for (const [key, it] of interactions(ctx)) {
      const capabilities = Array.isArray(it.capabilities) ? it.capabilities : []
      if (!capabilities.includes('runtime-schema-check') || typeof it.requestOperation !== 'string') continue
      if (localRequestPayload(ctx, it.requestOperation)?.external)
        report(
          at(ctx, key, 'capabilities'),
          `runtime-schema-check validates the payload of ${JSON.stringify(it.requestOperation)}, and a reference in its message or payload schema cannot be followed (it names nothing, or a file the bundle does not lock).`,
        )
    }
  },
})
