import { createAjv } from '../../core/standalone-validators.js'
import { escapeToken, splitPointer } from '../../runtime/shared/json-pointer.js'

/**
 * The closed shapes of the three DASP documents this compiler reads: a selection (`*.dasp.json`),
 * an extension definition (`*.dasp-ext.json`) and a content manifest. Every member's JSON type is
 * fixed, no member is unknown, and text the DASP extension contracts say a definition must state is
 * non-empty. Each shape accepts every form the DASP layout (docs/dasp.md) shows, and what an author
 * naturally writes there (`profiles: "any"`; an example as prose or as an example selection entry);
 * it is tighter only where the specification or the layout says MUST.
 *
 * A shape problem does not stop the rules: each problem names the part that is malformed
 * (`prune`), the rules read the document without those parts (`readableView`), and a rule skips
 * only what depends on one of them. Which parts a definition must have is DASP-EXT-002's list,
 * reported by the completeness rule with its own code; the shapes require only what names a
 * document (a definition's identity) or what a part is made of.
 *
 * Complexity: one ajv pass over each document, linear in its size; the readable view copies only
 * the objects on the path to a pruned part.
 */

const text = { type: 'string', minLength: 1 }
const pin = {
  type: ['object', 'string'],
  additionalProperties: false,
  properties: {
    kind: { type: 'string' },
    manifest: { type: 'string' },
    sha256: { type: 'string' },
    repository: { type: 'string' },
    commit: { type: 'string' },
  },
}
/**
 * `"$schema"`: the JSON Schema an editor associates with the file (what JSON editors write to name
 * the published schema). The project's own file format: no DASP specification closes the root to
 * it, and it carries no meaning, so the rules, the request and the diff never read it; the bytes a
 * pin covers are the file as written, this member included.
 */
const editorSchema = { type: 'string' }

const contract = {
  type: 'object',
  additionalProperties: false,
  required: ['uri', 'version', 'content'],
  properties: { uri: { type: 'string' }, version: { type: 'string' }, content: pin },
}

export const SELECTION_SHAPE = {
  type: 'object',
  additionalProperties: false,
  required: ['dasp', 'core', 'profile', 'binding', 'definitions', 'extensions'],
  properties: {
    $schema: editorSchema,
    dasp: { type: 'string' },
    core: contract,
    profile: contract,
    binding: contract,
    definitions: { type: 'array', items: { type: 'string' } },
    extensions: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['uri', 'version', 'scope', 'settings'],
        properties: { uri: { type: 'string' }, version: { type: 'string' }, scope: { type: 'string' }, settings: { type: 'object' } },
      },
    },
    policy: {
      type: 'object',
      additionalProperties: false,
      required: ['requires'],
      properties: {
        requires: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['uri', 'version'],
            properties: { uri: { type: 'string' }, version: { type: 'string' }, scope: { type: 'string' } },
          },
        },
      },
    },
  },
}

const example = { type: ['string', 'object'], minLength: 1, minProperties: 1 }

const setting = {
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  properties: {
    type: { type: 'string' },
    persistence: { type: 'string' },
    unit: text,
    minimum: { type: 'number' },
    maximum: { type: 'number' },
    values: { type: 'array', minItems: 1 },
    minItems: { type: 'integer', minimum: 0 },
    maxItems: { type: 'integer', minimum: 0 },
    // A JSON Schema for one element: an object, or `true`/`false`.
    items: { type: ['object', 'boolean'] },
    uniqueBy: text,
    description: text,
  },
}

export const DEFINITION_SHAPE = {
  type: 'object',
  additionalProperties: false,
  required: ['identity'],
  properties: {
    $schema: editorSchema,
    identity: {
      type: 'object',
      additionalProperties: false,
      required: ['uri', 'version'],
      properties: { uri: { type: 'string' }, version: { type: 'string' } },
    },
    status: text,
    content: pin,
    supports: {
      type: 'object',
      additionalProperties: false,
      properties: {
        core: { type: 'array', minItems: 1, items: contract },
        // The exact profiles, or "any" when the extension states rules for every profile.
        profiles: { type: ['array', 'string'], if: { type: 'string' }, then: { const: 'any' }, else: { minItems: 1, items: contract } },
        bindings: { type: 'array', minItems: 1, items: contract },
      },
    },
    // `[]` states that there are none (DASP-EXT-002); each is an exact identity with its scope.
    dependencies: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['uri', 'version', 'scope'],
        properties: { uri: { type: 'string' }, version: { type: 'string' }, scope: { type: 'string' } },
      },
    },
    scopes: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string' } },
    scopeRelations: text,
    operations: { type: 'array', minItems: 1, items: text },
    settings: { type: 'object', additionalProperties: setting },
    attributes: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'type'],
        properties: {
          name: { type: 'string' },
          type: { type: 'string' },
          on: { type: 'array', items: { type: 'string' } },
          required: { type: 'boolean' },
          class: { type: 'string' },
          description: text,
        },
      },
    },
    processing: text,
    records: {
      type: 'object',
      additionalProperties: false,
      properties: { saved: text, retry: text, replay: text, reconnect: text, upgrade: text },
    },
    // Positive and negative examples, at least one of each: prose, or an example selection entry
    // ({ scope, settings, ... }; open, so an author can say why an invalid one is invalid).
    examples: {
      type: 'object',
      additionalProperties: false,
      required: ['valid', 'invalid'],
      properties: { valid: { type: 'array', minItems: 1, items: example }, invalid: { type: 'array', minItems: 1, items: example } },
    },
    evidenceLimits: text,
  },
}

export const MANIFEST_SHAPE = {
  type: 'object',
  additionalProperties: false,
  required: ['algorithm', 'files'],
  properties: {
    algorithm: { const: 'sha256' },
    files: { type: 'object', minProperties: 1, additionalProperties: { type: 'string', pattern: '^[0-9a-fA-F]{64}$' } },
  },
}

export interface ShapeProblem {
  pointer: string
  message: string
  /** The part the rules cannot read (left out of the readable view), or undefined when nothing is (a required member is missing: its absence is what the rules see). */
  prune?: string
}

// Created on first use: a process that never checks a DASP document never loads ajv for it. Keyed
// by the format's own shapes (constants of this module), never by a document: shared by every compile.
let shapeAjv: ReturnType<typeof createAjv> | undefined
const validators = new Map<object, import('ajv').ValidateFunction>()

/** Where `value` breaks `shape` and how, one problem per member (pointers at the member itself). */
export function shapeProblems(shape: object, value: unknown): ShapeProblem[] {
  let validate = validators.get(shape)
  if (!validate) validators.set(shape, (validate = (shapeAjv ??= createAjv({ allErrors: true })).compile(shape)))
  if (validate(value)) return []
  const seen = new Set<string>()
  const out: ShapeProblem[] = []
  for (const error of validate.errors ?? []) {
    // `if` only says that its `then` or `else` failed; their own errors say how.
    if (error.keyword === 'if') continue
    const member = (error.params as { additionalProperty?: string }).additionalProperty
    const missing = (error.params as { missingProperty?: string }).missingProperty
    const pointer = member !== undefined ? `${error.instancePath}/${escapeToken(member)}` : error.instancePath
    const message =
      member !== undefined
        ? `${JSON.stringify(member)} is not a member of this object; the shape is closed.`
        : missing !== undefined
          ? `${JSON.stringify(missing)} is required here.`
          : error.keyword === 'minLength'
            ? 'This must be stated: an empty string states nothing.'
            : error.keyword === 'const'
              ? `As a string, this can only be ${JSON.stringify((error.params as { allowedValue?: unknown }).allowedValue)}.`
              : `This ${error.message ?? 'breaks the shape'}.`
    const key = `${pointer}\u0000${message}`
    if (!seen.has(key)) {
      seen.add(key)
      out.push({ pointer, message, ...(missing === undefined ? { prune: pointer } : {}) })
    }
  }
  return out
}

/**
 * The document without the parts `prunes` points at, for the rules to read: an object member is
 * left out, an array element becomes `undefined` (so the other elements keep their indices and
 * pointers). The document itself is not changed; only the containers on a pruned path are copied.
 * The root (`''`) is never pruned: a document that is not an object is already unreadable to every rule.
 */
export function readableView(value: unknown, prunes: readonly string[]): unknown {
  if (prunes.length === 0 || typeof value !== 'object' || value === null) return value
  const made = new Set<object>()
  const copyOf = (container: object): any => {
    if (made.has(container)) return container
    const copy = Array.isArray(container) ? container.slice() : Object.defineProperties({}, Object.getOwnPropertyDescriptors(container))
    made.add(copy)
    return copy
  }
  const root = copyOf(value)
  for (const pointer of prunes) {
    const tokens = splitPointer(pointer)
    if (tokens.length === 0) continue
    let at: any = root
    for (let i = 0; i < tokens.length - 1 && at !== undefined; i++) {
      const next: unknown = Object.hasOwn(at, tokens[i]!) ? at[tokens[i]!] : undefined
      if (typeof next !== 'object' || next === null) at = undefined
      else {
        const copy = copyOf(next)
        Object.defineProperty(at, tokens[i]!, { value: copy, enumerable: true, writable: true, configurable: true })
        at = copy
      }
    }
    if (at === undefined) continue
    const last = tokens[tokens.length - 1]!
    if (Array.isArray(at)) at[Number(last)] = undefined
    else delete at[last]
  }
  return root
}
