/**
 * Interaction helpers of the NATS contract profile v0.2: the generated operation id, the quorum
 * threshold, and `materialize`, which turns an interaction's bindings into the concrete subject
 * and payload of one request.
 */
import { deepFreeze } from '../shared/deep-freeze.js'
import { sealedValidator } from '../shared/sealed-validator.js'
import type { Subject } from './subjects.js'
import { inDomain, type TokenType } from './tokens.js'
import { check, type Validator } from '../shared/validation.js'
import type { ResultError } from '../shared/result.js'
import { wireJson } from '../shared/wire-json.js'
import { setOwn } from '../shared/own-property.js'
import { BRANCH_FIELDS, CONTEXT_FIELDS, fieldValueProblem } from './binding-fields.js'

const encoder = /* @__PURE__ */ new TextEncoder()

/**
 * Sets a member of a plain object this module made (a subject's parameters, a payload being
 * built): assigned, which is an own enumerable data member on such an object, except `__proto__`,
 * the one key whose assignment reaches a setter (the prototype's), which is defined. A definition
 * for every member (a descriptor object and a runtime call each) was the largest part of
 * materializing a request (measured: about a fifth of `materializeBranches`' time).
 */
function putMember(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') setOwn(target, key, value)
  else target[key] = value
}

/** Each part as UTF-8 bytes preceded by its byte length as a 4-byte unsigned big-endian integer. */
function lengthPrefixed(parts: readonly string[]): Uint8Array {
  const encoded = parts.map((p) => encoder.encode(p))
  const out = new Uint8Array(encoded.reduce((n, e) => n + 4 + e.length, 0))
  const view = new DataView(out.buffer)
  let offset = 0
  for (const bytes of encoded) {
    view.setUint32(offset, bytes.length, false)
    out.set(bytes, offset + 4)
    offset += 4 + bytes.length
  }
  return out
}

/**
 * The generated operation id: `op` + lowercase hex SHA-256 over the length-prefixed principal id,
 * contract digest and invocation key, in that order (Web Crypto, so it runs in browsers too).
 */
export async function operationId(principalId: string, contractDigest: string, invocationKey: string): Promise<string> {
  for (const [name, value] of [
    ['principalId', principalId],
    ['contractDigest', contractDigest],
    ['invocationKey', invocationKey],
  ] as const) {
    if (typeof value !== 'string') throw new TypeError(`operationId: ${name} must be a string`)
  }
  const digest = await globalThis.crypto.subtle.digest('SHA-256', lengthPrefixed([principalId, contractDigest, invocationKey]))
  return 'op' + [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('')
}

/** `ceil(numerator * admittedUnits / denominator)`, in exact integer arithmetic. */
export function quorumThreshold(numerator: number, denominator: number, admittedUnits: number): number {
  if (!Number.isSafeInteger(numerator) || !Number.isSafeInteger(denominator) || numerator <= 0 || denominator <= 0 || numerator > denominator) {
    throw new RangeError('quorumThreshold: the numerator is a positive integer no greater than the positive integer denominator')
  }
  if (!Number.isSafeInteger(admittedUnits) || admittedUnits < 0) throw new RangeError('quorumThreshold: admittedUnits is a non-negative integer')
  const n = BigInt(numerator) * BigInt(admittedUnits)
  const d = BigInt(denominator)
  return Number((n + d - 1n) / d)
}

export type BindingSource = { readonly input: string } | { readonly context: string } | { readonly branch: string } | { readonly literal: unknown }

export interface InteractionInput {
  readonly source: 'argument' | 'generated'
  readonly tokenType?: TokenType
  readonly schema?: string
}

/** A generated interaction descriptor (data, plus the request subject and an optional payload validator). */
export interface Interaction {
  readonly id: string
  readonly requestOperation?: string
  readonly resultOperation?: string
  readonly capabilities: readonly string[]
  readonly inputs: Readonly<Record<string, InteractionInput>>
  readonly bindings: { readonly subject: Readonly<Record<string, BindingSource>>; readonly payload: Readonly<Record<string, BindingSource>> }
  readonly subject?: Subject<Record<string, string>>
  readonly validatePayload?: Validator
  /** The request channel's own payload validator: every materialized payload is checked against it. */
  readonly validateChannelPayload?: Validator
  /** A validator per input declared with a schema: concrete inputs are validated before dispatch. */
  readonly validateInputs?: Readonly<Record<string, Validator>>
  /** A validator of the branch manifest's `input` slot: a `{branch: input}` value is validated before dispatch. */
  readonly validateBranchInput?: Validator
  /** A validator of the aggregation adapter's `outputSchema`: the executor checks the aggregation's answer before it is `outcome.output`. */
  readonly validateOutput?: Validator
  readonly [member: string]: unknown
}

export class MaterializeError extends Error {
  override readonly name = 'MaterializeError'
  constructor(
    readonly code:
      'MATERIALIZE_MISSING_VALUE' | 'MATERIALIZE_INVALID_INPUT' | 'MATERIALIZE_INVALID_VALUE' | 'MATERIALIZE_INVALID_PAYLOAD' | 'MATERIALIZE_NO_REQUEST',
    message: string,
    readonly errors: readonly ResultError[] = [],
  ) {
    super(message)
  }
}

export interface MaterializeValues {
  readonly inputs?: Readonly<Record<string, unknown>>
  readonly context?: Readonly<Record<string, unknown>>
  readonly branch?: Readonly<Record<string, unknown>>
}

/** Checks one input value: its token domain and its schema, when declared with them. */
function checkInput(interaction: Interaction, name: string, value: unknown): void {
  const declared = Object.hasOwn(interaction.inputs, name) ? interaction.inputs[name] : undefined
  if (!declared) throw new MaterializeError('MATERIALIZE_INVALID_INPUT', `${interaction.id}: ${JSON.stringify(name)} is not an input of this interaction.`)
  const type = declared.tokenType
  if (type && (typeof value !== 'string' || !inDomain(type, value)))
    throw new MaterializeError('MATERIALIZE_INVALID_INPUT', `${interaction.id}: input ${JSON.stringify(name)} is not in its token domain.`)
  // An input declared with a schema is validated against it, with or without runtime-schema-check.
  const validator = interaction.validateInputs && Object.hasOwn(interaction.validateInputs, name) ? interaction.validateInputs[name] : undefined
  const errors = validator ? check(validator, value) : undefined
  if (errors) throw new MaterializeError('MATERIALIZE_INVALID_INPUT', `${interaction.id}: input ${JSON.stringify(name)} breaks its schema.`, errors)
}

/** A mistyped context or branch value (`nowMs: "1000"`, `fence: 2.5`), found while reading bindings and refused after the payload check. */
interface FieldProblem {
  readonly field: string
  readonly message: string
}

/** A bound value from its bag (inputs, context or branch); a missing one throws. A module function: no closure per binding read. */
function readBound(interaction: Interaction, bag: Readonly<Record<string, unknown>> | undefined, name: string, what: string, where: string): unknown {
  if (!bag || !Object.hasOwn(bag, name) || bag[name] === undefined)
    throw new MaterializeError('MATERIALIZE_MISSING_VALUE', `${interaction.id}: ${where} needs ${what} ${JSON.stringify(name)}.`)
  return bag[name]
}

function valueOf(interaction: Interaction, source: BindingSource, values: MaterializeValues, where: string, problems: FieldProblem[]): unknown {
  if ('literal' in source) return source.literal
  if ('input' in source) {
    const value = readBound(interaction, values.inputs, source.input, 'input', where)
    checkInput(interaction, source.input, value)
    return value
  }
  if ('context' in source) {
    const value = readBound(interaction, values.context, source.context, 'context field', where)
    const type = Object.hasOwn(CONTEXT_FIELDS, source.context) ? CONTEXT_FIELDS[source.context] : undefined
    const problem = type === undefined ? 'is not a context field of profile v0.2' : fieldValueProblem(type, value)
    if (problem) problems.push({ field: `context ${source.context}`, message: `${where}: context field ${JSON.stringify(source.context)} ${problem}` })
    return value
  }
  const value = readBound(interaction, values.branch, source.branch, 'branch field', where)
  const type = Object.hasOwn(BRANCH_FIELDS, source.branch) ? BRANCH_FIELDS[source.branch] : undefined
  if (type === 'input') {
    const errors = interaction.validateBranchInput ? check(interaction.validateBranchInput, value) : undefined
    if (errors) throw new MaterializeError('MATERIALIZE_INVALID_INPUT', `${interaction.id}: the branch input breaks its manifest slot's schema.`, errors)
    return value
  }
  const problem = type === undefined ? 'is not a branch field' : fieldValueProblem(type, value)
  if (problem) problems.push({ field: `branch ${source.branch}`, message: `${where}: branch field ${JSON.stringify(source.branch)} ${problem}` })
  return value
}

/** Binding pointers split and unescaped once each (a descriptor holds a handful; at most 1,024 kept). */
const splitPointers = new Map<string, readonly string[]>()
function pointerTokens(pointer: string): readonly string[] {
  let tokens = splitPointers.get(pointer)
  if (tokens === undefined) {
    tokens = pointer
      .slice(1)
      .split('/')
      .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
    if (splitPointers.size >= 1024) splitPointers.clear()
    splitPointers.set(pointer, tokens)
  }
  return tokens
}

/** Sets `value` at a JSON Pointer, creating the objects on the way (own properties only). */
function setAt(target: Record<string, unknown>, pointer: string, value: unknown): void {
  const tokens = pointerTokens(pointer)
  let current = target
  tokens.forEach((token, i) => {
    if (i === tokens.length - 1) putMember(current, token, value)
    else {
      if (!Object.hasOwn(current, token) || typeof current[token] !== 'object' || current[token] === null) putMember(current, token, {})
      current = current[token] as Record<string, unknown>
    }
  })
}

/**
 * A materialized request. Made with `new`, not as a literal: V8 allocates a literal whose objects
 * outlived young collections straight into the old generation, where a request kept only until it
 * is published would keep its payload alive past every young collection until a full one.
 */
class Materialized {
  constructor(
    readonly subject: string,
    readonly payload: Record<string, unknown>,
  ) {}
}

/**
 * Applies an interaction's bindings for one request: every subject value (context values included)
 * is checked against its token domain by rendering the subject; every input given is checked
 * against its token domain and its schema, bound or not; context and branch values against their
 * profile types (nonempty strings, safe nonnegative integers); the payload must be JSON data, and
 * what is returned is that JSON, validated against the request channel's own validator and, with
 * `runtime-schema-check`, the interaction's. Throws a `MaterializeError` (or the subject's
 * `SubjectError`) rather than return a payload the channel would refuse. O(bindings + inputs +
 * payload size), plus the validators.
 */
export function materialize(interaction: Interaction, values: MaterializeValues = {}): { subject: string; payload: Record<string, unknown> } {
  if (!interaction.subject)
    throw new MaterializeError('MATERIALIZE_NO_REQUEST', `${interaction.id} has no request subject (gather-only work materializes nothing).`)
  // Inputs no binding reads are checked too: a token input given out of its domain is an error wherever it goes.
  if (values.inputs) for (const name of Object.keys(values.inputs)) if (values.inputs[name] !== undefined) checkInput(interaction, name, values.inputs[name])
  const problems: FieldProblem[] = []
  const params: Record<string, string> = {}
  for (const [param, source] of Object.entries(interaction.bindings.subject))
    putMember(params, param, valueOf(interaction, source, values, `subject parameter {${param}}`, problems) as string)
  const subject = interaction.subject.render(params)
  const built: Record<string, unknown> = {}
  for (const [pointer, source] of Object.entries(interaction.bindings.payload))
    setAt(built, pointer, valueOf(interaction, source, values, `payload ${pointer}`, problems))
  // The payload as the JSON it will be sent as: that value is validated and returned.
  const wire = wireJson(built)
  if (!wire.ok)
    throw new MaterializeError('MATERIALIZE_INVALID_PAYLOAD', `${interaction.id}: the materialized payload is not JSON data.`, [
      { path: wire.path, message: wire.message, code: 'json' },
    ])
  const payload = wire.value as Record<string, unknown>
  const validators = [interaction.capabilities.includes('runtime-schema-check') ? interaction.validatePayload : undefined, interaction.validateChannelPayload]
  for (const validator of validators) {
    const errors = check(validator, payload)
    if (errors) throw new MaterializeError('MATERIALIZE_INVALID_PAYLOAD', `${interaction.id}: the materialized payload breaks its schema.`, errors)
  }
  // What the payload schema admits is not proof of the field's type: a mistyped value is refused anyway.
  if (problems.length > 0)
    throw new MaterializeError(
      'MATERIALIZE_INVALID_VALUE',
      `${interaction.id}: ${problems.map((p) => p.message).join('; ')}.`,
      problems.map((p) => ({ message: p.message, code: p.field })),
    )
  return Object.freeze(new Materialized(subject, payload))
}

/** Descriptor members that are functions (or hold them): validators keep their `errors`, subjects their state. */
/** The descriptor's own members left as they are given (the channel's subject, the validators): at its top level only. */
const UNFROZEN = new Set(['subject', 'validatePayload', 'validateInputs', 'validateBranchInput', 'validateChannelPayload', 'validateOutput'])

/**
 * Freezes a generated interaction descriptor (its data deeply; the subject and validator as they
 * are). Generated modules pass the request channel and the payload validator as arguments rather
 * than as `channel.subject` in the literal: a member read is a possible side effect to a bundler,
 * which would then keep every interaction of a contract whose `interactions` no import uses.
 */
export function createInteraction(
  data: Omit<Interaction, 'subject' | 'validatePayload'> & Partial<Pick<Interaction, 'subject' | 'validatePayload'>>,
  requestChannel?: { readonly subject?: Subject<Record<string, string>> },
  validatePayload?: Validator,
  validateInputs?: Readonly<Record<string, Validator>>,
  validateBranchInput?: Validator,
  validateOutput?: Validator,
): Interaction {
  // The channel's own validator (its messages): no materialized payload may break it.
  const validateChannelPayload = (requestChannel as { readonly validatePayload?: Validator } | undefined)?.validatePayload
  const descriptor = {
    ...data,
    ...(requestChannel?.subject ? { subject: requestChannel.subject } : {}),
    // Sealed: no importer can reach a validator's `errors` (ajv's standalone code gets a sealed caller).
    ...(validatePayload ? { validatePayload: sealedValidator(validatePayload) } : {}),
    ...(validateInputs
      ? { validateInputs: Object.freeze(Object.fromEntries(Object.entries(validateInputs).map(([name, v]) => [name, sealedValidator(v)]))) }
      : {}),
    ...(validateBranchInput ? { validateBranchInput: sealedValidator(validateBranchInput) } : {}),
    ...(validateOutput ? { validateOutput: sealedValidator(validateOutput) } : {}),
    ...(validateChannelPayload ? { validateChannelPayload: sealedValidator(validateChannelPayload) } : {}),
  } as Interaction
  // Deeply, but the members above at the top: a `subject` deeper down is data (the subject's
  // bindings, `bindings.subject`), and left unfrozen it let an importer reroute every importer's
  // materialized requests.
  Object.freeze(descriptor)
  for (const key of Object.keys(descriptor)) if (!UNFROZEN.has(key)) deepFreeze((descriptor as unknown as Record<string, unknown>)[key])
  return descriptor
}

/** The branch members a request may differ by, peer to peer: plain values the template's copy is given. */
const PER_BRANCH = new Set(['id', 'peerId', 'attempt', 'fence'])

/** What of a descriptor's bindings the per-branch path needs, worked out once per descriptor. */
interface BranchShape {
  /** Payload pointers bound to a branch member, with their tokens and the member. */
  readonly payload: readonly { readonly tokens: readonly string[]; readonly field: string }[]
  /** The validators every payload meets (one when the interaction's and the channel's are the same function). */
  readonly validators: readonly Validator[]
  /** The subject bindings, listed once. */
  readonly subject: readonly (readonly [string, BindingSource])[]
}

/**
 * Writes `value` under `key` of an object copied by spread (its members own, writable data): an
 * own member is assigned, anything else (`__proto__` included) defined, so no prototype setter runs.
 */
function putOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key !== '__proto__' && Object.hasOwn(target, key)) target[key] = value
  else setOwn(target, key, value)
}

const shapes = new WeakMap<Interaction, BranchShape | null>()

const isPrefix = (a: readonly string[], b: readonly string[]) => a.length <= b.length && a.every((t, i) => b[i] === t)

/**
 * The shape of a descriptor whose requests differ only in their branch members, or null when a
 * binding makes a template unsafe (a branch input, an unknown branch field, a branch pointer on
 * the path of another pointer: then each request is materialized whole).
 */
function branchShape(interaction: Interaction): BranchShape | null {
  let shape = shapes.get(interaction)
  if (shape !== undefined) return shape
  shape = null
  const entries = Object.entries(interaction.bindings.payload).map(([pointer, source]) => ({ pointer, source, tokens: pointerTokens(pointer) }))
  const subjectSources = Object.values(interaction.bindings.subject)
  const usable =
    entries.every((e) => e.pointer.startsWith('/') && (!('branch' in e.source) || PER_BRANCH.has(e.source.branch))) &&
    subjectSources.every((s) => !('branch' in s) || PER_BRANCH.has(s.branch))
  if (usable) {
    const branchEntries = entries.filter((e) => 'branch' in e.source)
    const overlaps = branchEntries.some((b) => entries.some((e) => e !== b && (isPrefix(b.tokens, e.tokens) || isPrefix(e.tokens, b.tokens))))
    if (!overlaps) {
      const validators: Validator[] = []
      const all = [interaction.capabilities.includes('runtime-schema-check') ? interaction.validatePayload : undefined, interaction.validateChannelPayload]
      for (const v of all) if (v && !validators.includes(v)) validators.push(v)
      shape = {
        payload: branchEntries.map((e) => ({ tokens: e.tokens, field: (e.source as { branch: string }).branch })),
        validators,
        subject: Object.entries(interaction.bindings.subject),
      }
    }
  }
  shapes.set(interaction, shape)
  return shape
}

/** A branch member as its JSON round trip gives it back (`-0` is written `0`). */
const wireValue = (value: unknown): unknown => (value === 0 ? 0 : value)

/**
 * `materialize` for many branches of one admission: the inputs and the context are read, checked
 * and written once (by the first branch's full `materialize`); each later branch's request is that
 * payload with only its branch members (id, peer, attempt, fence) written in, its subject rendered
 * (which checks the branch's subject values) and the payload validators run on it. Whatever fails on
 * that path (a mistyped branch member, a validator) is materialized whole, so the error thrown is
 * exactly `materialize`'s; what succeeds is equal to `materialize`'s payload. Requests share the
 * members no branch binding writes: they are read, never changed.
 */
export function materializeBranches(
  interaction: Interaction,
  values: Omit<MaterializeValues, 'branch'>,
): (branch: Readonly<Record<string, unknown>>) => { subject: string; payload: Record<string, unknown> } {
  const shape = branchShape(interaction)
  let template: Record<string, unknown> | undefined
  const whole = (branch: Readonly<Record<string, unknown>>) => materialize(interaction, { ...values, branch })
  return (branch) => {
    if (shape === null || !interaction.subject) return whole(branch)
    if (template === undefined) {
      const first = whole(branch)
      template = first.payload
      return first
    }
    for (const { field } of shape.payload)
      if (fieldValueProblem(BRANCH_FIELDS[field] as 'string' | 'integer', branch[field]) !== undefined) return whole(branch)
    const params: Record<string, string> = {}
    for (const [param, source] of shape.subject) {
      let value: unknown
      if ('literal' in source) value = source.literal
      else if ('input' in source) value = values.inputs?.[source.input]
      else if ('context' in source) value = values.context?.[source.context]
      else {
        value = Object.hasOwn(branch, source.branch) ? branch[source.branch] : undefined
        if (fieldValueProblem(BRANCH_FIELDS[source.branch] as 'string' | 'integer', value) !== undefined) return whole(branch)
      }
      putMember(params, param, value as string)
    }
    const subject = interaction.subject.render(params)
    const payload = { ...template }
    // Objects on a branch member's path are copied (once each); everything else is the template's.
    let copied: Set<object> | undefined
    for (const { tokens, field } of shape.payload) {
      let current = payload
      for (let i = 0; i < tokens.length - 1; i++) {
        const token = tokens[i]!
        let next = current[token] as Record<string, unknown>
        copied ??= new Set<object>([payload])
        if (!copied.has(next)) {
          next = { ...next }
          copied.add(next)
          putOwn(current, token, next)
        }
        current = next
      }
      putOwn(current, tokens[tokens.length - 1]!, wireValue(branch[field]))
    }
    for (const validator of shape.validators) if (!validator(payload)) return whole(branch)
    return Object.freeze(new Materialized(subject, payload))
  }
}
