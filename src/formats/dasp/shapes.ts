import { createAjv } from '../../core/standalone-validators.js'
import { escapeToken } from '../../runtime/shared/json-pointer.js'

/**
 * The closed shapes of the three DASP documents this compiler reads: a selection (`*.dasp.json`),
 * an extension definition (`*.dasp-ext.json`) and a content manifest. Every member's JSON type is
 * fixed, no member is unknown, and text the DASP Extension Contracts say a definition must state is
 * non-empty. They are checked before any rule runs (a rule reads only well-typed members, so none
 * skips a malformed one in silence). Which parts a definition must have is DASP-EXT-002's list,
 * reported by the completeness rule with its own code; the shapes require only what names a
 * document (a definition's identity) or what a part is made of.
 *
 * Complexity: one ajv pass over each document, linear in its size.
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
    items: { type: 'object' },
    uniqueBy: text,
    description: text,
  },
}

export const DEFINITION_SHAPE = {
  type: 'object',
  additionalProperties: false,
  required: ['identity'],
  properties: {
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
        profiles: { type: 'array', minItems: 1, items: contract },
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
    // Positive and negative examples: both kinds, at least one of each.
    examples: {
      type: 'object',
      additionalProperties: false,
      required: ['valid', 'invalid'],
      properties: { valid: { type: 'array', minItems: 1, items: text }, invalid: { type: 'array', minItems: 1, items: text } },
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
}

// Created on first use: a process that never checks a DASP document never loads ajv for it.
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
    // `type` on the array/object beside its `additionalProperties`: the member's own errors say it better.
    const member = (error.params as { missingProperty?: string; additionalProperty?: string }).additionalProperty
    const missing = (error.params as { missingProperty?: string }).missingProperty
    const pointer = member !== undefined ? `${error.instancePath}/${escapeToken(member)}` : error.instancePath
    const message =
      member !== undefined
        ? `${JSON.stringify(member)} is not a member of this object; the shape is closed.`
        : missing !== undefined
          ? `${JSON.stringify(missing)} is required here.`
          : error.keyword === 'minLength'
            ? 'This must be stated: an empty string states nothing.'
            : `This ${error.message ?? 'breaks the shape'}.`
    const key = `${pointer}\u0000${message}`
    if (!seen.has(key)) {
      seen.add(key)
      out.push({ pointer, message })
    }
  }
  return out
}
