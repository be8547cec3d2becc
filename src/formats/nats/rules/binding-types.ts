import { createAjv, withoutKeywords } from '../../../core/standalone-validators.js'
import { NOT_FOR_AJV } from '../payload-validators.js'
import type { TokenType } from '../../../runtime/nats/tokens.js'
import { tokenTypeContains } from '../containment.js'
import type { NatsContext } from '../context.js'
import { isObject } from '../document.js'
import { BRANCH_FIELDS, CONTEXT_FIELDS } from '../interaction-facts.js'
import { deref, destinationAt, localSchema, operationPayload, sameSchema } from '../schemas.js'
import { localRequestPayload } from '../message-schemas.js'
import { interactions } from './interactions.js'
import { natsRule } from './rule.js'
import { type Source, at, bindingMaps } from './bindings.js'

/** Complexity (each rule here, worst case on any input under the size limits): per interaction, each binding typed once; schema equality by memoized digests (linear in the schemas); each literal schema compiled once per distinct text. */

// Created on first use: most contracts have no literal to check, and ajv costs every process to load.
// Module-level by design: one ajv instance for every document; it holds no document's facts (validators are removed from it).
let literalAjv: ReturnType<typeof createAjv> | undefined

/**
 * Literal checks, compiled once per distinct schema text. ajv's own cache is keyed by schema
 * object, and each check builds a fresh (refs-inlined) object: through ajv's cache every compile
 * of every contract would add an entry for the life of the process (a dev server's).
 */
// Module-level by design: content-keyed memo (the schema's JSON text), bounded; the same answer for any document.
const literalValidators = new Map<string, import('ajv').ValidateFunction>()

export function satisfies(schema: object, value: unknown): boolean {
  const key = JSON.stringify(schema)
  let validate = literalValidators.get(key)
  if (!validate) {
    const ajv = (literalAjv ??= createAjv())
    const read = withoutKeywords(schema, NOT_FOR_AJV)
    validate = ajv.compile(read)
    ajv.removeSchema(read)
    if (literalValidators.size >= 256) literalValidators.delete(literalValidators.keys().next().value!)
    literalValidators.set(key, validate)
  }
  return validate(value) as boolean
}

/**
 * The JSON type a source yields, and its token type when it has one; `orNull` when it may also be
 * null (`deadlineMs`, null before admission: a destination that refuses null is not proven for it).
 */
function sourceType(
  ctx: NatsContext,
  it: Record<string, any>,
  source: Source,
): { type?: string; orNull?: boolean; tokenType?: TokenType; schema?: Record<string, unknown> } {
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
  if ('context' in source) {
    const field = Object.hasOwn(CONTEXT_FIELDS, source.context as string) ? CONTEXT_FIELDS[source.context as string] : undefined
    return { type: field?.startsWith('integer') ? 'integer' : 'string', ...(field === 'integer-or-null' ? { orNull: true } : {}) }
  }
  if ('branch' in source)
    return {
      type: !Object.hasOwn(BRANCH_FIELDS, source.branch as string)
        ? undefined
        : BRANCH_FIELDS[source.branch as string] === 'integer'
          ? 'integer'
          : BRANCH_FIELDS[source.branch as string] === 'string'
            ? 'string'
            : undefined,
    }
  const input = isObject(it.inputs) ? (it.inputs[source.input as string] as Record<string, unknown>) : undefined
  if (typeof input?.tokenType === 'string') return { type: 'string', tokenType: ctx.tokenTypes[input.tokenType] }
  const schema = localSchema(ctx, input?.schema)
  return schema ? { type: typeof schema.type === 'string' ? schema.type : undefined, schema } : {}
}

const compatible = (source: string | undefined, target: unknown) =>
  source === undefined || target === undefined || source === target || (source === 'integer' && target === 'number')

/** Does a destination's `type` (one name, a list, or none) hold every value of this source type? */
const admits = (target: unknown, source: string | undefined): boolean =>
  Array.isArray(target) ? target.some((t) => compatible(source, t)) : compatible(source, target)

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
        if (!root || !isObject(source)) continue
        const pointer = at(ctx, key, 'bindings', 'payload', path)
        // A destination the schema forbids (additionalProperties: false, a false schema) holds no value: a known
        // contradiction. Elsewhere the value is judged by the schema it lands in: a declared member's, or what an
        // object says of the members it does not declare (`{}` when it allows any).
        const destination = destinationAt(ctx, root, path)
        if (destination && 'forbidden' in destination) report(pointer, `The payload schema forbids a value at ${path}: ${destination.forbidden}.`)
        const target = destination && 'schema' in destination ? destination.schema : undefined
        if (!target) continue
        if ('literal' in source) {
          if (!satisfies(resolveRefs(ctx, target) as object, source.literal))
            report(pointer, `Literal ${JSON.stringify(source.literal)} does not satisfy the schema at ${path}.`)
          continue
        }
        const { type } = sourceType(ctx, it, source)
        const targetType = Array.isArray(target.type) ? undefined : target.type
        if (!compatible(type, targetType)) report(pointer, `${path} is ${String(targetType)}; its source gives a ${type}.`)
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

/**
 * Does the source provably satisfy the destination schema? A literal is decided outright (validated
 * against it: NATS_BINDING_TYPE reports one that fails, so it is never also unproven); the rest must be exact.
 */
function proven(ctx: NatsContext, it: Record<string, any>, source: Source, target: Record<string, unknown>): boolean {
  if ('literal' in source) return true
  // A branch's input is the manifest's data slot, whose value only the runtime sees: never proven here.
  if ('branch' in source && source.branch === 'input') return false
  const constrained = Object.keys(target).some((k) => !['type', 'description', 'title', 'examples', 'nullable'].includes(k))
  const { type, orNull, schema } = sourceType(ctx, it, source)
  if (schema) return sameSchema(ctx, schema, target)
  // `nullable` is no JSON Schema keyword (the validators leave it out): `null` is admitted by a `null` type only.
  return !constrained && admits(target.type, type) && (!orNull || target.type === undefined || admits(target.type, 'null'))
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
        if (!isObject(source)) continue
        // The schema the value lands in (as NATS_BINDING_TYPE reads it); one the schema forbids is that rule's
        // contradiction, and one the walk cannot read (composition, patternProperties on the way) is not proven.
        const destination = root ? destinationAt(ctx, root, path) : undefined
        if (destination && 'forbidden' in destination) continue
        const target = destination?.schema
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
