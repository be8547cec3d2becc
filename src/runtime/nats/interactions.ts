/**
 * Interaction helpers of the NATS contract profile v0.2: the generated operation id, the quorum
 * threshold, and `materialize`, which turns an interaction's bindings into the concrete subject
 * and payload of one request.
 */
import type { Subject } from './subjects.js'
import { inDomain, type TokenType } from './tokens.js'
import { check, type Validator } from '../shared/validation.js'
import type { ResultError } from '../shared/result.js'
import { wireJson } from '../shared/wire-json.js'
import { setOwn } from '../shared/own-property.js'
import { BRANCH_FIELDS, CONTEXT_FIELDS, fieldValueProblem } from './binding-fields.js'

const encoder = /* @__PURE__ */ new TextEncoder()

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

function valueOf(interaction: Interaction, source: BindingSource, values: MaterializeValues, where: string, problems: FieldProblem[]): unknown {
  const read = (bag: Readonly<Record<string, unknown>> | undefined, name: string, what: string) => {
    if (!bag || !Object.hasOwn(bag, name) || bag[name] === undefined)
      throw new MaterializeError('MATERIALIZE_MISSING_VALUE', `${interaction.id}: ${where} needs ${what} ${JSON.stringify(name)}.`)
    return bag[name]
  }
  if ('literal' in source) return source.literal
  if ('input' in source) {
    const value = read(values.inputs, source.input, 'input')
    checkInput(interaction, source.input, value)
    return value
  }
  if ('context' in source) {
    const value = read(values.context, source.context, 'context field')
    const type = Object.hasOwn(CONTEXT_FIELDS, source.context) ? CONTEXT_FIELDS[source.context] : undefined
    const problem = type === undefined ? 'is not a context field of profile v0.2' : fieldValueProblem(type, value)
    if (problem) problems.push({ field: `context ${source.context}`, message: `${where}: context field ${JSON.stringify(source.context)} ${problem}` })
    return value
  }
  const value = read(values.branch, source.branch, 'branch field')
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
    if (i === tokens.length - 1) Object.defineProperty(current, token, { value, enumerable: true, writable: true, configurable: true })
    else {
      if (!Object.hasOwn(current, token) || typeof current[token] !== 'object' || current[token] === null)
        Object.defineProperty(current, token, { value: {}, enumerable: true, writable: true, configurable: true })
      current = current[token] as Record<string, unknown>
    }
  })
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
    setOwn(params, param, valueOf(interaction, source, values, `subject parameter {${param}}`, problems) as string)
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
  return Object.freeze({ subject, payload })
}

/** Descriptor members that are functions (or hold them): validators keep their `errors`, subjects their state. */
const UNFROZEN = new Set(['subject', 'validatePayload', 'validateInputs', 'validateBranchInput', 'validateChannelPayload'])

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
): Interaction {
  // The channel's own validator (its messages): no materialized payload may break it.
  const validateChannelPayload = (requestChannel as { readonly validatePayload?: Validator } | undefined)?.validatePayload
  const descriptor = {
    ...data,
    ...(requestChannel?.subject ? { subject: requestChannel.subject } : {}),
    ...(validatePayload ? { validatePayload } : {}),
    ...(validateInputs ? { validateInputs: Object.freeze({ ...validateInputs }) } : {}),
    ...(validateBranchInput ? { validateBranchInput } : {}),
    ...(validateChannelPayload ? { validateChannelPayload } : {}),
  } as Interaction
  const freeze = (value: unknown): unknown => {
    if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
      Object.freeze(value)
      for (const key of Object.keys(value)) if (!UNFROZEN.has(key)) freeze((value as Record<string, unknown>)[key])
    }
    return value
  }
  return freeze(descriptor) as Interaction
}
