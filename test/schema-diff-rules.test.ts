/**
 * One pair per schema diff rule that fires it (rule, effect and both locations asserted) and a
 * near pair that does not; every rule of the catalogue has its case. The schemas sit where a
 * Benzene document puts them (`/components/schemas/Order`), with siblings to `$ref`.
 */
import { describe, expect, it } from 'vitest'
import { diffSchemas, SCHEMA_DIFF_RULES } from '../src/core/diff/schema-diff.js'
import type { SchemaChange, SchemaEffect } from '../src/core/diff/schema-diff-types.js'
import { sideOf } from './helpers/schema-diff.js'

type S = Record<string, unknown> | boolean
const P = '/components/schemas/Order'

interface Case {
  rule: string
  old: S
  new: S
  effect: SchemaEffect
  /** Pointers relative to the Order schema ('' is the schema itself). */
  at: [string, string]
  near: [S, S]
  dialect?: 'json-schema' | 'openapi-3.0'
  /** OpenAPI 3.0: how int64 is read. */
  int64?: 'number' | 'string'
  /** Other components both versions hold. */
  others?: [Record<string, unknown>, Record<string, unknown>]
  /** The witness's side, when one is expected. */
  witness?: 'old' | 'new'
}

function doc(order: S, others: Record<string, unknown> = {}): unknown {
  return { openapi: '3.0.1', components: { schemas: { ...others, Order: order } } }
}

function run(old: S, next: S, dialect: Case['dialect'] = 'json-schema', others: Case['others'] = [{}, {}], int64?: Case['int64']): SchemaChange[] {
  return diffSchemas(sideOf(doc(old, others[0]), P, { file: '/virtual/old.json' }), sideOf(doc(next, others[1]), P, { file: '/virtual/new.json' }), {
    dialect,
    ...(int64 ? { int64 } : {}),
  })
}

const obj = (extra: Record<string, unknown>) => ({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' } }, ...extra })
const animals = {
  Cat: { type: 'object', properties: { kind: { type: 'string' }, lives: { type: 'integer' } } },
  Dog: { type: 'object', properties: { kind: { type: 'string' }, bark: { type: 'string' } } },
  Feline: { type: 'object', properties: { kind: { type: 'string' }, lives: { type: 'integer', maximum: 9 } } },
}
const disc = (mapping: Record<string, string>, propertyName = 'kind') => ({
  oneOf: Object.values(mapping).map(($ref) => ({ $ref })),
  discriminator: { propertyName, mapping },
})

const CASES: Case[] = [
  {
    rule: 'schema-type-narrowed',
    old: { type: ['string', 'null'] },
    new: { type: 'string' },
    effect: 'narrows',
    at: ['/type', '/type'],
    near: [{ type: ['string', 'null'] }, { type: ['null', 'string'] }],
    witness: 'old',
  },
  {
    rule: 'schema-type-widened',
    old: { type: 'integer' },
    new: { type: 'number' },
    effect: 'widens',
    at: ['/type', '/type'],
    near: [{ type: 'number' }, { type: 'number', description: 'x' }],
    witness: 'new',
  },
  {
    rule: 'schema-type-changed',
    old: { type: 'string' },
    new: { type: 'integer' },
    effect: 'both',
    at: ['/type', '/type'],
    near: [{ type: 'string' }, { type: ['string'] }],
  },
  {
    rule: 'schema-required-added',
    old: obj({ required: ['a'] }),
    new: obj({ required: ['a', 'b'] }),
    effect: 'narrows',
    at: ['/required', '/required'],
    near: [obj({ required: ['b', 'a'] }), obj({ required: ['a', 'b'] })],
    witness: 'old',
  },
  {
    rule: 'schema-required-removed',
    old: obj({ required: ['a', 'b'] }),
    new: obj({ required: ['a'] }),
    effect: 'widens',
    at: ['/required', '/required'],
    near: [obj({ required: ['a'] }), obj({ required: ['a'], title: 't' })],
    witness: 'new',
  },
  {
    rule: 'schema-property-added',
    old: { type: 'object', properties: { a: { type: 'string' } } },
    new: { type: 'object', properties: { a: { type: 'string' }, c: { type: 'integer' } } },
    effect: 'narrows',
    at: ['', '/properties/c'],
    near: [
      { type: 'object', properties: { a: { type: 'string' } } },
      { type: 'object', properties: { a: { type: 'string', description: 'A' } } },
    ],
    witness: 'old',
  },
  {
    rule: 'schema-property-added',
    old: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
    new: { type: 'object', properties: { a: { type: 'string' }, c: { type: 'integer' } }, additionalProperties: false },
    effect: 'widens',
    at: ['/additionalProperties', '/properties/c'],
    near: [
      { type: 'object', additionalProperties: false },
      { type: 'object', additionalProperties: false, properties: {} },
    ],
    witness: 'new',
  },
  {
    rule: 'schema-property-removed',
    old: { type: 'object', properties: { a: { type: 'string' }, c: { type: 'integer' } }, additionalProperties: false },
    new: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
    effect: 'narrows',
    at: ['/properties/c', '/additionalProperties'],
    near: [
      { type: 'object', properties: { c: { type: 'integer' } } },
      { type: 'object', properties: { c: { type: 'integer' } }, required: [] },
    ],
    witness: 'old',
  },
  {
    rule: 'schema-property-removed',
    old: { type: 'object', properties: { a: { type: 'string' }, c: { type: 'integer' } } },
    new: { type: 'object', properties: { a: { type: 'string' } } },
    effect: 'widens',
    at: ['/properties/c', ''],
    near: [
      { type: 'object', properties: { c: { type: 'integer' } } },
      { type: 'object', properties: { c: { type: 'number' } } },
    ],
    witness: 'new',
  },
  {
    rule: 'schema-additional-properties-closed',
    old: { type: 'object' },
    new: { type: 'object', additionalProperties: false },
    effect: 'narrows',
    at: ['', '/additionalProperties'],
    near: [{ type: 'object' }, { type: 'object', additionalProperties: true }],
    witness: 'old',
  },
  {
    rule: 'schema-additional-properties-opened',
    old: { type: 'object', additionalProperties: false },
    new: { type: 'object' },
    effect: 'widens',
    at: ['/additionalProperties', ''],
    near: [{ type: 'object', additionalProperties: true }, { type: 'object' }],
    witness: 'new',
  },
  {
    rule: 'schema-enum-value-added',
    old: { enum: ['a', 'b'] },
    new: { enum: ['a', 'b', 'c'] },
    effect: 'widens',
    at: ['/enum', '/enum'],
    near: [{ enum: ['a', 'b'] }, { enum: ['b', 'a'] }],
    witness: 'new',
  },
  {
    rule: 'schema-enum-value-removed',
    old: { enum: ['a', 'b', 'c'] },
    new: { enum: ['a', 'b'] },
    effect: 'narrows',
    at: ['/enum', '/enum'],
    near: [{ enum: ['a', 'b'] }, { enum: ['a', 'b'], title: 'x' }],
    witness: 'old',
  },
  {
    rule: 'schema-enum-added',
    old: { type: 'string' },
    new: { type: 'string', enum: ['a'] },
    effect: 'narrows',
    at: ['', '/enum'],
    near: [
      { type: 'string', enum: ['a'] },
      { type: 'string', const: 'a' },
    ],
  },
  {
    rule: 'schema-enum-removed',
    old: { type: 'string', enum: ['a'] },
    new: { type: 'string' },
    effect: 'widens',
    at: ['/enum', ''],
    near: [
      { type: 'string', enum: ['a', 'b'] },
      { type: 'string', enum: ['a', 'b', 'c'] },
    ],
  },
  {
    rule: 'schema-const-added',
    old: { type: 'string' },
    new: { type: 'string', const: 'v1' },
    effect: 'narrows',
    at: ['', '/const'],
    near: [{ type: 'string' }, { type: 'string', default: 'v1' }],
  },
  {
    rule: 'schema-const-removed',
    old: { type: 'string', const: 'v1' },
    new: { type: 'string' },
    effect: 'widens',
    at: ['/const', ''],
    near: [{ const: 'v1' }, { enum: ['v1'] }],
  },
  {
    rule: 'schema-const-changed',
    old: { const: 'v1' },
    new: { const: 'v2' },
    effect: 'both',
    at: ['/const', '/const'],
    near: [{ const: 'v1' }, { const: 'v1', title: 'v' }],
  },
  {
    rule: 'schema-minimum-increased',
    old: { minimum: 0 },
    new: { exclusiveMinimum: 0 },
    effect: 'narrows',
    at: ['/minimum', '/exclusiveMinimum'],
    near: [{ minimum: 0 }, { minimum: 0, exclusiveMinimum: -1 }],
    witness: 'old',
  },
  {
    rule: 'schema-minimum-increased',
    old: { type: 'number', minimum: 0 },
    new: { type: 'number', minimum: 0, exclusiveMinimum: true },
    effect: 'narrows',
    at: ['/minimum', '/exclusiveMinimum'],
    near: [
      { type: 'number', minimum: 0 },
      { type: 'number', minimum: 0, exclusiveMinimum: false },
    ],
    dialect: 'openapi-3.0',
    witness: 'old',
  },
  {
    rule: 'schema-minimum-decreased',
    old: { minimum: 1 },
    new: { minimum: 0 },
    effect: 'widens',
    at: ['/minimum', '/minimum'],
    near: [{ minimum: 1 }, { maximum: 0, minimum: 1 }],
    witness: 'new',
  },
  {
    rule: 'schema-maximum-decreased',
    old: { maximum: 100 },
    new: { maximum: 10 },
    effect: 'narrows',
    at: ['/maximum', '/maximum'],
    near: [{ maximum: 10 }, { maximum: 10, minimum: -5, exclusiveMinimum: -6 }],
    witness: 'old',
  },
  {
    rule: 'schema-maximum-increased',
    old: { exclusiveMaximum: 10 },
    new: { maximum: 10 },
    effect: 'widens',
    at: ['/exclusiveMaximum', '/maximum'],
    near: [{ maximum: 10 }, { maximum: 10, exclusiveMaximum: 11 }],
    witness: 'new',
  },
  {
    rule: 'schema-multiple-of-narrowed',
    old: { multipleOf: 2 },
    new: { multipleOf: 4 },
    effect: 'narrows',
    at: ['/multipleOf', '/multipleOf'],
    near: [{ multipleOf: 2 }, { multipleOf: 2, minimum: 0, description: 'd' }],
    witness: 'old',
  },
  {
    rule: 'schema-multiple-of-widened',
    old: { multipleOf: 4 },
    new: { multipleOf: 2 },
    effect: 'widens',
    at: ['/multipleOf', '/multipleOf'],
    near: [{ multipleOf: 4 }, { multipleOf: 4.0 }],
    witness: 'new',
  },
  {
    rule: 'schema-multiple-of-changed',
    old: { multipleOf: 2 },
    new: { multipleOf: 3 },
    effect: 'both',
    at: ['/multipleOf', '/multipleOf'],
    near: [{ multipleOf: 2 }, { multipleOf: 6 }],
  },
  {
    rule: 'schema-min-length-increased',
    old: { type: 'string', minLength: 1 },
    new: { type: 'string', minLength: 3 },
    effect: 'narrows',
    at: ['/minLength', '/minLength'],
    near: [{ minLength: 1 }, { minLength: 0 }],
    witness: 'old',
  },
  {
    rule: 'schema-min-length-decreased',
    old: { type: 'string', minLength: 3 },
    new: { type: 'string', minLength: 1 },
    effect: 'widens',
    at: ['/minLength', '/minLength'],
    near: [{ minLength: 1 }, { minLength: 2 }],
    witness: 'new',
  },
  {
    rule: 'schema-max-length-decreased',
    old: { type: 'string', maxLength: 64 },
    new: { type: 'string', maxLength: 32 },
    effect: 'narrows',
    at: ['/maxLength', '/maxLength'],
    near: [{ maxLength: 32 }, { maxLength: 64 }],
    witness: 'old',
  },
  {
    rule: 'schema-max-length-increased',
    old: { type: 'string', maxLength: 2 },
    new: { type: 'string' },
    effect: 'widens',
    at: ['/maxLength', ''],
    near: [{ maxLength: 2 }, { maxLength: 1 }],
    witness: 'new',
  },
  {
    rule: 'schema-pattern-added',
    old: { type: 'string' },
    new: { type: 'string', pattern: '^[a-z]+$' },
    effect: 'narrows',
    at: ['', '/pattern'],
    near: [
      { type: 'string', pattern: '^[a-z]+$' },
      { type: 'string', pattern: '^[a-z]+$', title: 't' },
    ],
    witness: 'old',
  },
  {
    rule: 'schema-pattern-removed',
    old: { type: 'string', pattern: '^[a-z]+$' },
    new: { type: 'string' },
    effect: 'widens',
    at: ['/pattern', ''],
    near: [
      { type: 'string', pattern: '^a' },
      { type: 'string', pattern: '^b' },
    ],
    witness: 'new',
  },
  {
    rule: 'schema-pattern-added',
    old: { type: 'string' },
    new: { type: 'string', pattern: 'x?' },
    effect: 'none',
    at: ['', '/pattern'],
    near: [
      { type: 'string', pattern: 'x?' },
      { type: 'string', pattern: '(?:x?)' },
    ],
  },
  {
    rule: 'schema-pattern-widened',
    old: { type: 'string', pattern: '^[a-z]+$' },
    new: { type: 'string', pattern: '^[a-z0-9]+$' },
    effect: 'widens',
    at: ['/pattern', '/pattern'],
    near: [
      { type: 'string', pattern: '^[a-z]+$' },
      { type: 'string', pattern: '^[a-z][a-z]*$' },
    ],
    witness: 'new',
  },
  {
    rule: 'schema-pattern-narrowed',
    old: { type: 'string', pattern: 'a' },
    new: { type: 'string', pattern: '^a' },
    effect: 'narrows',
    at: ['/pattern', '/pattern'],
    near: [
      { type: 'string', pattern: '^a' },
      { type: 'string', pattern: '^a|^aa' },
    ],
    witness: 'old',
  },
  {
    rule: 'schema-keyword-rewritten',
    old: { type: 'string', pattern: '^(?:a|b)$' },
    new: { type: 'string', pattern: '^[ab]$' },
    effect: 'none',
    at: ['/pattern', '/pattern'],
    near: [
      { type: 'string', pattern: '^[ab]$' },
      { type: 'string', pattern: '^[abc]$' },
    ],
  },
  {
    rule: 'schema-pattern-changed',
    old: { type: 'string', pattern: '^a' },
    new: { type: 'string', pattern: '^b' },
    effect: 'both',
    at: ['/pattern', '/pattern'],
    near: [
      { type: 'string', pattern: '^a' },
      { type: 'string', pattern: '^a+' },
    ],
  },
  {
    rule: 'schema-pattern-changed',
    old: { type: 'string', pattern: '^a(?=b)' },
    new: { type: 'string', pattern: '^ab' },
    effect: 'unknown',
    at: ['/pattern', '/pattern'],
    near: [{ type: 'string', pattern: '^a(?=b)' }, { type: 'string' }],
  },
  {
    rule: 'schema-pattern-changed',
    old: { type: 'string', pattern: '^a' },
    new: { type: 'string', pattern: '^b' },
    effect: 'both',
    at: ['/pattern', '/pattern'],
    near: [
      { type: 'string', pattern: '^\\d-' },
      { type: 'string', pattern: '^[0-9]\\-' },
    ],
    dialect: 'openapi-3.0',
  },
  {
    rule: 'schema-format-added',
    old: { type: 'string' },
    new: { type: 'string', format: 'date' },
    effect: 'narrows',
    at: ['', '/format'],
    near: [
      { type: 'string', format: 'date' },
      { type: 'string', format: 'date-time' },
    ],
    dialect: 'openapi-3.0',
  },
  {
    rule: 'schema-format-added',
    old: { type: 'string' },
    new: { type: 'string', format: 'uuid' },
    effect: 'narrows',
    at: ['', '/format'],
    near: [{ type: 'string' }, { type: 'string', pattern: 'a' }],
    dialect: 'openapi-3.0',
  },
  {
    rule: 'schema-format-added',
    old: { type: 'integer' },
    new: { type: 'integer', format: 'date' },
    effect: 'none',
    at: ['', '/format'],
    near: [{ type: 'integer' }, { type: 'integer', minimum: 0 }],
    dialect: 'openapi-3.0',
  },
  {
    rule: 'schema-format-added',
    old: { type: 'string' },
    new: { type: 'string', format: 'email' },
    effect: 'none',
    at: ['', '/format'],
    near: [
      { type: 'string', format: 'email' },
      { type: 'string', format: 'email', title: 'e' },
    ],
  },
  {
    rule: 'schema-format-added',
    old: { type: 'integer' },
    new: { type: 'integer', format: 'int64' },
    effect: 'unknown',
    at: ['', '/format'],
    near: [{ type: 'integer' }, { type: 'integer', minimum: 0 }],
    dialect: 'openapi-3.0',
  },
  {
    rule: 'schema-format-removed',
    old: { type: 'integer', format: 'int32' },
    new: { type: 'integer' },
    effect: 'widens',
    at: ['/format', ''],
    near: [
      { type: 'integer', format: 'int32' },
      { type: 'integer', format: 'int64' },
    ],
    dialect: 'openapi-3.0',
  },
  {
    rule: 'schema-format-widened',
    old: { type: 'integer', format: 'int32' },
    new: { type: 'integer', format: 'int64' },
    effect: 'widens',
    at: ['/format', '/format'],
    near: [
      { type: 'integer', format: 'int32' },
      { type: 'number', format: 'int32' },
    ],
    dialect: 'openapi-3.0',
    int64: 'number',
  },
  {
    rule: 'schema-format-narrowed',
    old: { type: 'integer', format: 'int64' },
    new: { type: 'integer', format: 'int32' },
    effect: 'narrows',
    at: ['/format', '/format'],
    near: [
      { type: 'integer', format: 'int32' },
      { type: 'integer', format: 'int64' },
    ],
    dialect: 'openapi-3.0',
    int64: 'number',
  },
  {
    rule: 'schema-format-changed',
    old: { type: 'integer', format: 'int64' },
    new: { type: 'integer', format: 'int32' },
    effect: 'both',
    at: ['/format', '/format'],
    near: [
      { type: 'integer', format: 'int64' },
      { type: 'integer', format: 'int64', title: 't' },
    ],
    dialect: 'openapi-3.0',
    int64: 'string',
  },
  {
    rule: 'schema-format-changed',
    old: { type: 'string', format: 'date' },
    new: { type: 'string', format: 'date-time' },
    effect: 'both',
    at: ['/format', '/format'],
    near: [{ type: 'string' }, { type: 'string', format: 'date' }],
    dialect: 'openapi-3.0',
  },
  {
    rule: 'schema-format-changed',
    old: { type: 'string', format: 'date' },
    new: { type: 'string', format: 'date-time' },
    effect: 'none',
    at: ['/format', '/format'],
    near: [{ type: 'string' }, { type: 'string', format: 'date' }],
  },
  {
    rule: 'schema-format-changed',
    old: { type: 'string', format: 'email' },
    new: { type: 'string', format: 'hostname' },
    effect: 'none',
    at: ['/format', '/format'],
    near: [
      { type: 'string', format: 'email' },
      { type: 'string', format: 'email', title: 'x' },
    ],
    dialect: 'openapi-3.0',
  },
  {
    rule: 'schema-min-items-increased',
    old: { type: 'array' },
    new: { type: 'array', minItems: 1 },
    effect: 'narrows',
    at: ['', '/minItems'],
    near: [{ type: 'array' }, { type: 'array', minItems: 0 }],
    witness: 'old',
  },
  {
    rule: 'schema-min-items-decreased',
    old: { type: 'array', minItems: 2 },
    new: { type: 'array', minItems: 1 },
    effect: 'widens',
    at: ['/minItems', '/minItems'],
    near: [{ minItems: 1 }, { minItems: 2 }],
    witness: 'new',
  },
  {
    rule: 'schema-max-items-decreased',
    old: { type: 'array', maxItems: 10 },
    new: { type: 'array', maxItems: 5 },
    effect: 'narrows',
    at: ['/maxItems', '/maxItems'],
    near: [{ maxItems: 5 }, { maxItems: 10 }],
    witness: 'old',
  },
  {
    rule: 'schema-max-items-increased',
    old: { type: 'array', maxItems: 5 },
    new: { type: 'array', maxItems: 10 },
    effect: 'widens',
    at: ['/maxItems', '/maxItems'],
    near: [{ maxItems: 10 }, { maxItems: 5 }],
    witness: 'new',
  },
  {
    rule: 'schema-unique-items-added',
    old: { type: 'array' },
    new: { type: 'array', uniqueItems: true },
    effect: 'narrows',
    at: ['', '/uniqueItems'],
    near: [{ type: 'array' }, { type: 'array', uniqueItems: false }],
    witness: 'old',
  },
  {
    rule: 'schema-unique-items-removed',
    old: { type: 'array', uniqueItems: true },
    new: { type: 'array' },
    effect: 'widens',
    at: ['/uniqueItems', ''],
    near: [{ uniqueItems: false }, {}],
    witness: 'new',
  },
  {
    rule: 'schema-items-added',
    old: { type: 'array' },
    new: { type: 'array', items: { type: 'string' } },
    effect: 'narrows',
    at: ['', '/items'],
    near: [{ type: 'array' }, { type: 'array', items: {} }],
    witness: 'old',
  },
  {
    rule: 'schema-items-removed',
    old: { type: 'array', items: false, prefixItems: [{}] },
    new: { type: 'array', prefixItems: [{}] },
    effect: 'widens',
    at: ['/items', ''],
    near: [{ type: 'array', items: true }, { type: 'array' }],
    witness: 'new',
  },
  {
    rule: 'schema-prefix-item-added',
    old: { type: 'array', prefixItems: [{ type: 'string' }] },
    new: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] },
    effect: 'narrows',
    at: ['', '/prefixItems/1'],
    near: [
      { type: 'array', prefixItems: [{ type: 'string' }] },
      { type: 'array', prefixItems: [{ type: 'string', title: 's' }] },
    ],
    witness: 'old',
  },
  {
    rule: 'schema-prefix-item-removed',
    old: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false },
    new: { type: 'array', prefixItems: [{ type: 'string' }], items: false },
    effect: 'narrows',
    at: ['/prefixItems/1', '/items'],
    near: [
      { type: 'array', prefixItems: [{ type: 'string' }] },
      { type: 'array', prefixItems: [{ type: 'string' }], items: true },
    ],
    witness: 'old',
  },
  {
    rule: 'schema-min-properties-increased',
    old: { type: 'object' },
    new: { type: 'object', minProperties: 1 },
    effect: 'narrows',
    at: ['', '/minProperties'],
    near: [{ type: 'object' }, { type: 'object', minProperties: 0 }],
    witness: 'old',
  },
  {
    rule: 'schema-min-properties-decreased',
    old: { type: 'object', minProperties: 2 },
    new: { type: 'object', minProperties: 1 },
    effect: 'widens',
    at: ['/minProperties', '/minProperties'],
    near: [{ minProperties: 1 }, { minProperties: 3 }],
    witness: 'new',
  },
  {
    rule: 'schema-max-properties-decreased',
    old: { type: 'object', maxProperties: 5 },
    new: { type: 'object', maxProperties: 2 },
    effect: 'narrows',
    at: ['/maxProperties', '/maxProperties'],
    near: [{ maxProperties: 2 }, { maxProperties: 5 }],
    witness: 'old',
  },
  {
    rule: 'schema-max-properties-increased',
    old: { type: 'object', maxProperties: 2 },
    new: { type: 'object', maxProperties: 5 },
    effect: 'widens',
    at: ['/maxProperties', '/maxProperties'],
    near: [{ maxProperties: 5 }, { maxProperties: 2 }],
    witness: 'new',
  },
  {
    rule: 'schema-nullable-added',
    old: { type: 'string' },
    new: { type: 'string', nullable: true },
    effect: 'widens',
    at: ['', '/nullable'],
    near: [{ type: 'string' }, { type: 'string', nullable: false }],
    dialect: 'openapi-3.0',
    witness: 'new',
  },
  {
    rule: 'schema-nullable-removed',
    old: { type: 'string', nullable: true },
    new: { type: 'string' },
    effect: 'narrows',
    at: ['/nullable', ''],
    near: [
      { type: 'string', nullable: true },
      { type: 'string', nullable: true, title: 'n' },
    ],
    dialect: 'openapi-3.0',
    witness: 'old',
  },
  {
    rule: 'schema-discriminator-property-changed',
    old: disc({ cat: '#/components/schemas/Cat' }),
    new: disc({ cat: '#/components/schemas/Cat' }, 'type'),
    effect: 'unknown',
    at: ['/discriminator/propertyName', '/discriminator/propertyName'],
    near: [disc({ cat: '#/components/schemas/Cat' }), disc({ cat: '#/components/schemas/Cat' })],
    dialect: 'openapi-3.0',
    others: [animals, animals],
  },
  {
    rule: 'schema-discriminator-mapping-added',
    old: disc({ cat: '#/components/schemas/Cat' }),
    new: disc({ cat: '#/components/schemas/Cat', dog: '#/components/schemas/Dog' }),
    effect: 'widens',
    at: ['/discriminator/mapping', '/discriminator/mapping/dog'],
    near: [disc({ cat: '#/components/schemas/Cat' }), disc({ cat: '#/components/schemas/Cat' }, 'kind')],
    dialect: 'openapi-3.0',
    others: [animals, animals],
  },
  {
    rule: 'schema-discriminator-mapping-removed',
    old: disc({ cat: '#/components/schemas/Cat', dog: '#/components/schemas/Dog' }),
    new: disc({ cat: '#/components/schemas/Cat' }),
    effect: 'narrows',
    at: ['/discriminator/mapping/dog', '/discriminator/mapping'],
    near: [
      disc({ cat: '#/components/schemas/Cat', dog: '#/components/schemas/Dog' }),
      disc({ dog: '#/components/schemas/Dog', cat: '#/components/schemas/Cat' }),
    ],
    dialect: 'openapi-3.0',
    others: [animals, animals],
  },
  {
    rule: 'schema-discriminator-mapping-changed',
    old: { discriminator: { propertyName: 'kind', mapping: { cat: '#/components/schemas/Cat' } } },
    new: { discriminator: { propertyName: 'kind', mapping: { cat: '#/components/schemas/Feline' } } },
    effect: 'narrows',
    at: ['/discriminator/mapping/cat', '/discriminator/mapping/cat'],
    near: [
      { discriminator: { propertyName: 'kind', mapping: { cat: '#/components/schemas/Cat' } } },
      { discriminator: { propertyName: 'kind', mapping: { cat: '#/components/schemas/Cat' } }, title: 'c' },
    ],
    dialect: 'openapi-3.0',
    others: [animals, animals],
  },
  {
    rule: 'schema-ref-changed',
    old: { type: 'object', properties: { pet: { $ref: '#/components/schemas/Cat' } } },
    new: { type: 'object', properties: { pet: { $ref: '#/components/schemas/Feline' } } },
    effect: 'narrows',
    at: ['/properties/pet/$ref', '/properties/pet/$ref'],
    near: [
      { type: 'object', properties: { pet: { $ref: '#/components/schemas/Cat' } } },
      { type: 'object', properties: { pet: { $ref: '#/components/schemas/Cat' } }, description: 'd' },
    ],
    dialect: 'openapi-3.0',
    others: [animals, animals],
  },
  {
    rule: 'schema-ref-changed',
    old: { $ref: '#/components/schemas/Cat' },
    new: { $ref: '#/components/schemas/Kitten' },
    effect: 'none',
    at: ['/$ref', '/$ref'],
    near: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Cat' }],
    dialect: 'openapi-3.0',
    others: [animals, { ...animals, Kitten: animals.Cat }],
  },
  {
    rule: 'schema-any-of-branch-added',
    old: { anyOf: [{ type: 'string' }] },
    new: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
    effect: 'widens',
    at: ['/anyOf', '/anyOf/1'],
    near: [{ anyOf: [{ type: 'string' }, { type: 'integer' }] }, { anyOf: [{ type: 'integer' }, { type: 'string' }] }],
    witness: 'new',
  },
  {
    rule: 'schema-any-of-branch-removed',
    old: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
    new: { anyOf: [{ type: 'string' }] },
    effect: 'narrows',
    at: ['/anyOf/1', '/anyOf'],
    near: [{ anyOf: [{ type: 'string' }] }, { anyOf: [{ type: 'string' }], title: 't' }],
    witness: 'old',
  },
  {
    rule: 'schema-one-of-branch-added',
    old: { oneOf: [{ type: 'string' }] },
    new: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
    effect: 'widens',
    at: ['/oneOf', '/oneOf/1'],
    near: [{ oneOf: [{ type: 'string' }, { type: 'integer' }] }, { oneOf: [{ type: 'integer' }, { type: 'string' }] }],
    witness: 'new',
  },
  {
    rule: 'schema-one-of-branch-added',
    old: { oneOf: [{ minimum: 1 }] },
    new: { oneOf: [{ minimum: 1 }, { maximum: 5 }] },
    effect: 'unknown',
    at: ['/oneOf', '/oneOf/1'],
    near: [{ oneOf: [{ minimum: 1 }] }, { oneOf: [{ minimum: 1 }] }],
  },
  {
    rule: 'schema-one-of-branch-removed',
    old: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
    new: { oneOf: [{ type: 'string' }] },
    effect: 'narrows',
    at: ['/oneOf/1', '/oneOf'],
    near: [{ oneOf: [{ type: 'string' }] }, { oneOf: [{ type: 'string', title: 's' }] }],
    witness: 'old',
  },
  {
    rule: 'schema-all-of-member-added',
    old: { allOf: [{ type: 'object' }] },
    new: { allOf: [{ type: 'object' }, { required: ['id'] }] },
    effect: 'narrows',
    at: ['/allOf', '/allOf/1'],
    near: [{ allOf: [{ type: 'object' }] }, { allOf: [{ type: 'object' }, {}] }],
    witness: 'old',
  },
  {
    rule: 'schema-all-of-member-removed',
    old: { allOf: [{ type: 'object' }, { required: ['id'] }] },
    new: { allOf: [{ type: 'object' }] },
    effect: 'widens',
    at: ['/allOf/1', '/allOf'],
    near: [{ allOf: [{ type: 'object' }, {}] }, { allOf: [{ type: 'object' }] }],
    witness: 'new',
  },
  {
    rule: 'schema-not-added',
    old: { type: 'string' },
    new: { type: 'string', not: { const: '' } },
    effect: 'narrows',
    at: ['', '/not'],
    near: [
      { type: 'string', not: { const: '' } },
      { type: 'string', not: { const: 'a' } },
    ],
    witness: 'old',
  },
  {
    rule: 'schema-not-removed',
    old: { type: 'string', not: { const: '' } },
    new: { type: 'string' },
    effect: 'widens',
    at: ['/not', ''],
    near: [
      { type: 'string', not: { const: '' } },
      { type: 'string', not: { const: '' }, title: 'x' },
    ],
    witness: 'new',
  },
  {
    rule: 'schema-constraint-added',
    old: { type: 'object', properties: { a: {} } },
    new: { type: 'object', properties: { a: { type: 'string' } } },
    effect: 'narrows',
    at: ['/properties/a', '/properties/a'],
    near: [{ properties: { a: {} } }, { properties: { a: { title: 'A' } } }],
    witness: 'old',
  },
  {
    rule: 'schema-constraint-removed',
    old: { type: 'object', properties: { a: { type: 'string' } } },
    new: { type: 'object', properties: { a: true } },
    effect: 'widens',
    at: ['/properties/a', '/properties/a'],
    near: [{ properties: { a: true } }, { properties: { a: {} } }],
    witness: 'new',
  },
  {
    rule: 'schema-annotation-changed',
    old: { type: 'string', description: 'Total' },
    new: { type: 'string', description: 'Total, in cents' },
    effect: 'none',
    at: ['/description', '/description'],
    near: [
      { type: 'string', description: 'Total' },
      { type: 'string', description: 'Total' },
    ],
  },
  {
    rule: 'schema-keyword-rewritten',
    old: { type: 'integer' },
    new: { type: ['integer'] },
    effect: 'none',
    at: ['/type', '/type'],
    near: [{ type: 'integer' }, { type: 'integer' }],
  },
  {
    rule: 'schema-keyword-changed',
    // A dependencies entry changed from a list of names to a schema (the lists themselves are compared as conditional `required`s).
    old: { dependencies: { a: ['b'] } },
    new: { dependencies: { a: { required: ['b'] } } },
    effect: 'unknown',
    at: ['/dependencies', '/dependencies'],
    near: [{ dependencies: { a: ['b'] } }, { dependencies: { a: ['b'] } }],
  },
  {
    rule: 'schema-not-compared',
    old: { $ref: '#/components/schemas/Cat' },
    new: { $ref: '#/components/schemas/Gone' },
    effect: 'unknown',
    at: ['/$ref', '/$ref'],
    near: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }],
    others: [animals, animals],
  },
]

describe('schema diff rules: a pair that fires each, a near pair that does not', () => {
  for (const c of CASES) {
    it(`${c.rule} (${c.effect}${c.dialect ? `, ${c.dialect}` : ''})`, () => {
      const changes = run(c.old, c.new, c.dialect, c.others, c.int64)
      const found = changes.filter((change) => change.rule === c.rule)
      expect(found, JSON.stringify(changes, null, 1)).toHaveLength(1)
      const change = found[0]!
      expect(change.effect).toBe(c.effect)
      expect(change.old).toEqual({ file: '/virtual/old.json', pointer: P + c.at[0] })
      expect(change.new).toEqual({ file: '/virtual/new.json', pointer: P + c.at[1] })
      expect(change.message).toMatch(/^[A-Z`"].*\.$/)
      if (c.witness) expect(change.witness?.acceptedBy, JSON.stringify(change)).toBe(c.witness)
      const near = run(c.near[0], c.near[1], c.dialect, c.others, c.int64)
      expect(
        near.filter((n) => n.rule === c.rule),
        JSON.stringify(near),
      ).toEqual([])
    })
  }

  it('every rule of the catalogue has a case', () => {
    const covered = new Set(CASES.map((c) => c.rule))
    expect(SCHEMA_DIFF_RULES.map((rule) => rule.id).filter((id) => !covered.has(id))).toEqual([])
  })
})

describe('schema diff: how a position changes a direction', () => {
  const only = (old: S, next: S, rule: string, dialect: Case['dialect'] = 'json-schema') => {
    const found = run(old, next, dialect).filter((c) => c.rule === rule)
    expect(found).toHaveLength(1)
    return found[0]!
  }

  it('inside `not` a narrowing reads as a widening', () => {
    expect(only({ not: { minimum: 0 } }, { not: { minimum: 1 } }, 'schema-minimum-increased').effect).toBe('widens')
    expect(only({ not: { not: { minimum: 0 } } }, { not: { not: { minimum: 1 } } }, 'schema-minimum-increased').effect).toBe('narrows')
  })

  it.each([16, 17, 256])('a oneOf of %i discriminated branches keeps its direction: a removed branch narrows', (n) => {
    // An outside pass: past 16 branches the exclusivity was not looked at, and the change read as unknown.
    const branch = (i: number) => ({ type: 'object', required: ['k'], properties: { k: { const: `v${i}` } } })
    const all = Array.from({ length: n }, (_, i) => branch(i))
    const c = only({ oneOf: all }, { oneOf: all.slice(1) }, 'schema-one-of-branch-removed')
    expect(c.effect).toBe('narrows')
  })

  it('a oneOf whose exclusivity would take more than the proof may: unknown, saying it is not proven', () => {
    // 256 object branches sharing 1,000 required names, none with constants: about 33 million name checks, stopped at the bound.
    const names = Array.from({ length: 1000 }, (_, i) => `p${i}`)
    const branch = (i: number) => ({ type: 'object', required: names, properties: { [`q${i}`]: { type: 'string' } } })
    const all = Array.from({ length: 256 }, (_, i) => branch(i))
    const c = only({ oneOf: all }, { oneOf: all.slice(1) }, 'schema-one-of-branch-removed')
    expect([c.effect, c.message]).toEqual(['unknown', expect.stringContaining('not proven to exclude each other')])
  })

  it('a oneOf not proven exclusive, a changed if, unevaluatedProperties and maxContains make a change unknown', () => {
    const c = only({ oneOf: [{ minimum: 0 }, { maximum: 9 }] }, { oneOf: [{ minimum: 1 }, { maximum: 9 }] }, 'schema-minimum-increased')
    expect([c.effect, c.message]).toEqual(['unknown', expect.stringContaining('oneOf branches are not proven to exclude each other')])
    expect(only({ if: { minimum: 0 }, then: { type: 'integer' } }, { if: { minimum: 1 }, then: { type: 'integer' } }, 'schema-minimum-increased').effect).toBe(
      'unknown',
    )
    expect(only({ if: { minimum: 0 }, then: { maxLength: 3 } }, { if: { minimum: 0 }, then: { maxLength: 2 } }, 'schema-max-length-decreased').effect).toBe(
      'narrows',
    )
    expect(
      only({ required: ['a'], unevaluatedProperties: false }, { required: ['a', 'b'], unevaluatedProperties: false }, 'schema-required-added').effect,
    ).toBe('unknown')
    expect(only({ contains: { minimum: 0 }, maxContains: 2 }, { contains: { minimum: 1 }, maxContains: 2 }, 'schema-minimum-increased').effect).toBe('unknown')
    expect(only({ contains: { minimum: 0 } }, { contains: { minimum: 1 } }, 'schema-minimum-increased').effect).toBe('narrows')
    expect(
      only({ dependentSchemas: { a: { maxProperties: 3 } } }, { dependentSchemas: { a: { maxProperties: 2 } } }, 'schema-max-properties-decreased').effect,
    ).toBe('narrows')
  })

  it('keywords beside a $ref: applied in 2020-12, unknown when no draft is declared, ignored in OpenAPI 3.0', () => {
    const others = { Name: { type: 'string' } }
    const ref = (max: number) => ({ $ref: '#/components/schemas/Name', maxLength: max })
    const declared = (max: number) => ({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...ref(max) })
    expect(run(declared(3), declared(2), 'json-schema', [others, others]).map((c) => [c.rule, c.effect])).toEqual([['schema-max-length-decreased', 'narrows']])
    expect(run(ref(3), ref(2), 'json-schema', [others, others]).map((c) => [c.rule, c.effect])).toEqual([['schema-max-length-decreased', 'unknown']])
    expect(run(ref(3), ref(2), 'openapi-3.0', [others, others]).map((c) => [c.rule, c.effect])).toEqual([['schema-annotation-changed', 'none']])
  })

  it('a witness is a whole payload: containers on the way are built with their required members', () => {
    const line = (minimum: number) => ({
      type: 'object',
      required: ['sku', 'quantity'],
      properties: { sku: { type: 'string' }, quantity: { type: 'integer', minimum } },
    })
    const order = {
      type: 'object',
      required: ['id'],
      properties: { id: { type: 'string' }, lines: { type: 'array', items: { $ref: '#/components/schemas/Line' } } },
    }
    const changes = run(order, order, 'openapi-3.0', [{ Line: line(1) }, { Line: line(2) }])
    expect(changes).toEqual([
      expect.objectContaining({
        rule: 'schema-minimum-increased',
        effect: 'narrows',
        new: { file: '/virtual/new.json', pointer: '/components/schemas/Line/properties/quantity/minimum' },
        witness: { value: { id: '', lines: [{ sku: '', quantity: 1 }] }, acceptedBy: 'old' },
      }),
    ])
  })

  it('an OpenAPI 3.0 allOf merges its members property lists: a property added there is unknown', () => {
    const member = (extra: Record<string, unknown>) => ({
      allOf: [
        { type: 'object', properties: { a: {} }, additionalProperties: false },
        { type: 'object', properties: extra },
      ],
    })
    expect(only(member({}), member({ b: { type: 'string' } }), 'schema-property-added', 'openapi-3.0').effect).toBe('unknown')
    expect(only(member({}), member({ b: { type: 'string' } }), 'schema-property-added', 'json-schema').effect).toBe('narrows')
  })
})
