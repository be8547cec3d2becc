/**
 * The schema diff's rule catalogue. Each rule has a nominal effect: the effect it has where it is
 * found at the top of a schema (inside `not` a rule reports the reverse; inside an overlapping
 * `oneOf` or an `if`, `unknown`). Directional rules name their mirror: the rule for the same change
 * made the other way, whose nominal effect is the opposite.
 */
import type { DiffLevel } from '../types.js'
import type { SchemaDiffRule, SchemaEffect } from '../schema-diff-types.js'

interface Entry {
  id: string
  effect: SchemaEffect
  summary: string
  old: string
  new: string
  mirror: string | { none: string }
}

const AUDIENCES = ['receiver', 'sender'] as const

function levelsOf(effect: SchemaEffect): DiffLevel[] {
  switch (effect) {
    case 'widens':
    case 'narrows':
      // Breaking for the party its direction hits, info for the other; a warning where its position hides the direction.
      return ['breaking', 'warning', 'info']
    case 'both':
      return ['breaking', 'warning']
    case 'none':
      return ['info']
    case 'unknown':
      return ['warning', 'info']
  }
}

const ENTRIES: Entry[] = [
  {
    id: 'schema-type-narrowed',
    effect: 'narrows',
    summary: 'The type admits fewer kinds of value (`number` to `integer` included): breaks senders of the removed kinds.',
    old: '{"type": ["string", "null"]}',
    new: '{"type": "string"}',
    mirror: 'schema-type-widened',
  },
  {
    id: 'schema-type-widened',
    effect: 'widens',
    summary: 'The type admits more kinds of value (`integer` to `number` included): breaks receivers that validate or type it.',
    old: '{"type": "integer"}',
    new: '{"type": "number"}',
    mirror: 'schema-type-narrowed',
  },
  {
    id: 'schema-type-changed',
    effect: 'both',
    summary: 'The type admits other kinds of value, some removed and some added: breaks both sides.',
    old: '{"type": "string"}',
    new: '{"type": "integer"}',
    mirror: { none: 'It moves both ways at once; its parts are schema-type-narrowed and schema-type-widened.' },
  },
  {
    id: 'schema-required-added',
    effect: 'narrows',
    summary: 'A member is now required: breaks senders that omit it.',
    old: '{"required": ["id"]}',
    new: '{"required": ["id", "total"]}',
    mirror: 'schema-required-removed',
  },
  {
    id: 'schema-required-removed',
    effect: 'widens',
    summary: 'A member is no longer required: breaks receivers that rely on it.',
    old: '{"required": ["id", "total"]}',
    new: '{"required": ["id"]}',
    mirror: 'schema-required-added',
  },
  {
    id: 'schema-property-added',
    effect: 'narrows',
    summary: 'A property is declared: narrows an open object (the member now has a schema), widens a closed one (the member is now allowed).',
    old: '{"properties": {}}',
    new: '{"properties": {"note": {"type": "string"}}}',
    mirror: 'schema-property-removed',
  },
  {
    id: 'schema-property-removed',
    effect: 'widens',
    summary: 'A property is no longer declared: widens an open object (the member may be anything), narrows a closed one (the member is refused).',
    old: '{"properties": {"note": {"type": "string"}}}',
    new: '{"properties": {}}',
    mirror: 'schema-property-added',
  },
  {
    id: 'schema-additional-properties-closed',
    effect: 'narrows',
    summary: 'Undeclared members are refused or constrained where they were free: breaks senders that add them.',
    old: '{"additionalProperties": true}',
    new: '{"additionalProperties": false}',
    mirror: 'schema-additional-properties-opened',
  },
  {
    id: 'schema-additional-properties-opened',
    effect: 'widens',
    summary: 'Undeclared members are allowed where they were refused or constrained: breaks receivers of closed objects.',
    old: '{"additionalProperties": false}',
    new: '{}',
    mirror: 'schema-additional-properties-closed',
  },
  {
    id: 'schema-enum-value-added',
    effect: 'widens',
    summary: 'An enum admits a new value: breaks receivers that switch over the values.',
    old: '{"enum": ["a", "b"]}',
    new: '{"enum": ["a", "b", "c"]}',
    mirror: 'schema-enum-value-removed',
  },
  {
    id: 'schema-enum-value-removed',
    effect: 'narrows',
    summary: 'An enum no longer admits a value: breaks senders of it.',
    old: '{"enum": ["a", "b", "c"]}',
    new: '{"enum": ["a", "b"]}',
    mirror: 'schema-enum-value-added',
  },
  {
    id: 'schema-enum-added',
    effect: 'narrows',
    summary: 'The values are now limited to a list: breaks senders of other values.',
    old: '{"type": "string"}',
    new: '{"type": "string", "enum": ["a"]}',
    mirror: 'schema-enum-removed',
  },
  {
    id: 'schema-enum-removed',
    effect: 'widens',
    summary: 'The values are no longer limited to a list: breaks receivers that relied on it.',
    old: '{"type": "string", "enum": ["a"]}',
    new: '{"type": "string"}',
    mirror: 'schema-enum-added',
  },
  {
    id: 'schema-const-added',
    effect: 'narrows',
    summary: 'The value is now fixed by `const`: breaks senders of other values.',
    old: '{"type": "string"}',
    new: '{"const": "v1"}',
    mirror: 'schema-const-removed',
  },
  {
    id: 'schema-const-removed',
    effect: 'widens',
    summary: 'The value is no longer fixed by `const`: breaks receivers that relied on it.',
    old: '{"const": "v1"}',
    new: '{"type": "string"}',
    mirror: 'schema-const-added',
  },
  {
    id: 'schema-const-changed',
    effect: 'both',
    summary: 'The `const` value changed: breaks both sides.',
    old: '{"const": "v1"}',
    new: '{"const": "v2"}',
    mirror: { none: 'It moves both ways at once.' },
  },
  {
    id: 'schema-minimum-increased',
    effect: 'narrows',
    summary: 'The lower bound (minimum or exclusiveMinimum) rose or appeared: breaks senders of the values below it.',
    old: '{"minimum": 0}',
    new: '{"exclusiveMinimum": 0}',
    mirror: 'schema-minimum-decreased',
  },
  {
    id: 'schema-minimum-decreased',
    effect: 'widens',
    summary: 'The lower bound fell or went: breaks receivers that relied on it.',
    old: '{"minimum": 1}',
    new: '{"minimum": 0}',
    mirror: 'schema-minimum-increased',
  },
  {
    id: 'schema-maximum-decreased',
    effect: 'narrows',
    summary: 'The upper bound (maximum or exclusiveMaximum) fell or appeared: breaks senders of the values above it.',
    old: '{"maximum": 100}',
    new: '{"maximum": 10}',
    mirror: 'schema-maximum-increased',
  },
  {
    id: 'schema-maximum-increased',
    effect: 'widens',
    summary: 'The upper bound rose or went: breaks receivers that relied on it.',
    old: '{"maximum": 10}',
    new: '{"maximum": 100}',
    mirror: 'schema-maximum-decreased',
  },
  {
    id: 'schema-multiple-of-narrowed',
    effect: 'narrows',
    summary: '`multipleOf` became a multiple of the old step (or appeared): breaks senders of the values in between.',
    old: '{"multipleOf": 2}',
    new: '{"multipleOf": 4}',
    mirror: 'schema-multiple-of-widened',
  },
  {
    id: 'schema-multiple-of-widened',
    effect: 'widens',
    summary: '`multipleOf` became a divisor of the old step (or went): breaks receivers that relied on it.',
    old: '{"multipleOf": 4}',
    new: '{"multipleOf": 2}',
    mirror: 'schema-multiple-of-narrowed',
  },
  {
    id: 'schema-multiple-of-changed',
    effect: 'both',
    summary: '`multipleOf` changed to a step neither dividing nor multiplying the old one (`unknown` for non-integer steps).',
    old: '{"multipleOf": 2}',
    new: '{"multipleOf": 3}',
    mirror: { none: 'It moves both ways at once.' },
  },
  {
    id: 'schema-min-length-increased',
    effect: 'narrows',
    summary: 'Strings must be longer: breaks senders of shorter ones.',
    old: '{"minLength": 1}',
    new: '{"minLength": 3}',
    mirror: 'schema-min-length-decreased',
  },
  {
    id: 'schema-min-length-decreased',
    effect: 'widens',
    summary: 'Shorter strings are allowed: breaks receivers that relied on the length.',
    old: '{"minLength": 3}',
    new: '{"minLength": 1}',
    mirror: 'schema-min-length-increased',
  },
  {
    id: 'schema-max-length-decreased',
    effect: 'narrows',
    summary: 'Strings must be shorter: breaks senders of longer ones.',
    old: '{"maxLength": 64}',
    new: '{"maxLength": 32}',
    mirror: 'schema-max-length-increased',
  },
  {
    id: 'schema-max-length-increased',
    effect: 'widens',
    summary: 'Longer strings are allowed: breaks receivers with fixed buffers or columns.',
    old: '{"maxLength": 32}',
    new: '{"maxLength": 64}',
    mirror: 'schema-max-length-decreased',
  },
  {
    id: 'schema-pattern-added',
    effect: 'narrows',
    summary: 'Strings must now match a pattern: breaks senders of others (none when every string matches it).',
    old: '{"type": "string"}',
    new: '{"type": "string", "pattern": "^[a-z]+$"}',
    mirror: 'schema-pattern-removed',
  },
  {
    id: 'schema-pattern-removed',
    effect: 'widens',
    summary: 'Strings no longer need to match a pattern: breaks receivers that parse them (none when every string matched it).',
    old: '{"type": "string", "pattern": "^[a-z]+$"}',
    new: '{"type": "string"}',
    mirror: 'schema-pattern-added',
  },
  {
    id: 'schema-pattern-widened',
    effect: 'widens',
    summary: "The pattern changed and its language includes the old one's: breaks receivers that parse the strings.",
    old: '{"pattern": "^[a-z]+$"}',
    new: '{"pattern": "^[a-z0-9]+$"}',
    mirror: 'schema-pattern-narrowed',
  },
  {
    id: 'schema-pattern-narrowed',
    effect: 'narrows',
    summary: "The pattern changed and its language is inside the old one's: breaks senders of the strings it no longer matches.",
    old: '{"pattern": "^[a-z0-9]+$"}',
    new: '{"pattern": "^[a-z]+$"}',
    mirror: 'schema-pattern-widened',
  },
  {
    id: 'schema-pattern-changed',
    effect: 'both',
    summary:
      'The pattern changed and each matches strings the other does not: breaks both sides; unknown when a pattern has a lookaround, a backreference or a word boundary, or exceeds the size bound.',
    old: '{"pattern": "^[a-z]+$"}',
    new: '{"pattern": "^[0-9]+$"}',
    mirror: { none: 'It moves both ways at once (or its direction is unknown); its directed parts are schema-pattern-widened and schema-pattern-narrowed.' },
  },
  {
    id: 'schema-format-added',
    effect: 'narrows',
    summary:
      'A format was added: narrows where the generated validators check it (OpenAPI 3.0: date, date-time, uuid, byte on strings; int32, int64 on numbers), none where it documents (every JSON Schema format).',
    old: '{"type": "string"}',
    new: '{"type": "string", "format": "date"}',
    mirror: 'schema-format-removed',
  },
  {
    id: 'schema-format-removed',
    effect: 'widens',
    summary: 'A format was removed: widens where the generated validators checked it, none where it documented.',
    old: '{"type": "string", "format": "date"}',
    new: '{"type": "string"}',
    mirror: 'schema-format-added',
  },
  {
    id: 'schema-format-widened',
    effect: 'widens',
    summary: 'A checked format became one that admits more (OpenAPI 3.0 int32 to int64 read as numbers): breaks receivers.',
    old: '{"type": "integer", "format": "int32"}',
    new: '{"type": "integer", "format": "int64"}',
    mirror: 'schema-format-narrowed',
  },
  {
    id: 'schema-format-narrowed',
    effect: 'narrows',
    summary: 'A checked format became one that admits less (OpenAPI 3.0 int64 read as numbers to int32): breaks senders.',
    old: '{"type": "integer", "format": "int64"}',
    new: '{"type": "integer", "format": "int32"}',
    mirror: 'schema-format-widened',
  },
  {
    id: 'schema-format-changed',
    effect: 'both',
    summary:
      'A checked format became another that accepts other values (date to date-time: disjoint): breaks both sides; none when neither is checked, unknown when int64 is checked and its reading is not known.',
    old: '{"type": "string", "format": "date"}',
    new: '{"type": "string", "format": "date-time"}',
    mirror: { none: 'It moves both ways at once (or not at all); its directed parts are schema-format-widened and schema-format-narrowed.' },
  },
  {
    id: 'schema-min-items-increased',
    effect: 'narrows',
    summary: 'Arrays must have more items: breaks senders of shorter ones.',
    old: '{"minItems": 0}',
    new: '{"minItems": 1}',
    mirror: 'schema-min-items-decreased',
  },
  {
    id: 'schema-min-items-decreased',
    effect: 'widens',
    summary: 'Shorter arrays are allowed: breaks receivers that relied on the count.',
    old: '{"minItems": 1}',
    new: '{"minItems": 0}',
    mirror: 'schema-min-items-increased',
  },
  {
    id: 'schema-max-items-decreased',
    effect: 'narrows',
    summary: 'Arrays must have fewer items: breaks senders of longer ones.',
    old: '{"maxItems": 10}',
    new: '{"maxItems": 5}',
    mirror: 'schema-max-items-increased',
  },
  {
    id: 'schema-max-items-increased',
    effect: 'widens',
    summary: 'Longer arrays are allowed: breaks receivers that relied on the count.',
    old: '{"maxItems": 5}',
    new: '{"maxItems": 10}',
    mirror: 'schema-max-items-decreased',
  },
  {
    id: 'schema-unique-items-added',
    effect: 'narrows',
    summary: 'Items must now be unique: breaks senders of repeated items.',
    old: '{"type": "array"}',
    new: '{"type": "array", "uniqueItems": true}',
    mirror: 'schema-unique-items-removed',
  },
  {
    id: 'schema-unique-items-removed',
    effect: 'widens',
    summary: 'Items may now repeat: breaks receivers that relied on uniqueness.',
    old: '{"uniqueItems": true}',
    new: '{}',
    mirror: 'schema-unique-items-added',
  },
  {
    id: 'schema-items-added',
    effect: 'narrows',
    summary: 'The items (after any tuple) are constrained, or refused, where they were free.',
    old: '{"type": "array"}',
    new: '{"type": "array", "items": {"type": "string"}}',
    mirror: 'schema-items-removed',
  },
  {
    id: 'schema-items-removed',
    effect: 'widens',
    summary: 'The items (after any tuple) are free, or allowed, where they were constrained or refused.',
    old: '{"type": "array", "items": {"type": "string"}}',
    new: '{"type": "array"}',
    mirror: 'schema-items-added',
  },
  {
    id: 'schema-prefix-item-added',
    effect: 'narrows',
    summary: 'A tuple entry (prefixItems, or an items array) was added: its schema replaces the rest-items schema at that index.',
    old: '{"prefixItems": [{"type": "string"}]}',
    new: '{"prefixItems": [{"type": "string"}, {"type": "integer"}]}',
    mirror: 'schema-prefix-item-removed',
  },
  {
    id: 'schema-prefix-item-removed',
    effect: 'widens',
    summary: 'A tuple entry was removed: the rest-items schema now applies at that index.',
    old: '{"prefixItems": [{"type": "string"}, {"type": "integer"}]}',
    new: '{"prefixItems": [{"type": "string"}]}',
    mirror: 'schema-prefix-item-added',
  },
  {
    id: 'schema-min-properties-increased',
    effect: 'narrows',
    summary: 'Objects must have more members: breaks senders of smaller ones.',
    old: '{}',
    new: '{"minProperties": 1}',
    mirror: 'schema-min-properties-decreased',
  },
  {
    id: 'schema-min-properties-decreased',
    effect: 'widens',
    summary: 'Smaller objects are allowed: breaks receivers that relied on the count.',
    old: '{"minProperties": 1}',
    new: '{}',
    mirror: 'schema-min-properties-increased',
  },
  {
    id: 'schema-max-properties-decreased',
    effect: 'narrows',
    summary: 'Objects must have fewer members: breaks senders of larger ones.',
    old: '{"maxProperties": 5}',
    new: '{"maxProperties": 2}',
    mirror: 'schema-max-properties-increased',
  },
  {
    id: 'schema-max-properties-increased',
    effect: 'widens',
    summary: 'Larger objects are allowed: breaks receivers that relied on the count.',
    old: '{"maxProperties": 2}',
    new: '{"maxProperties": 5}',
    mirror: 'schema-max-properties-decreased',
  },
  {
    id: 'schema-nullable-added',
    effect: 'widens',
    summary: 'OpenAPI 3.0 `nullable: true` was added: `null` is now accepted (none when the rest already accepted it).',
    old: '{"type": "string"}',
    new: '{"type": "string", "nullable": true}',
    mirror: 'schema-nullable-removed',
  },
  {
    id: 'schema-nullable-removed',
    effect: 'narrows',
    summary: 'OpenAPI 3.0 `nullable: true` was removed: `null` is now refused: breaks senders of null.',
    old: '{"type": "string", "nullable": true}',
    new: '{"type": "string"}',
    mirror: 'schema-nullable-added',
  },
  {
    id: 'schema-discriminator-property-changed',
    effect: 'unknown',
    summary: 'The discriminator property was added, removed or renamed: which schema a payload selects changes (unknown).',
    old: '{"discriminator": {"propertyName": "kind"}}',
    new: '{"discriminator": {"propertyName": "type"}}',
    mirror: { none: 'Its effect is unknown, so it has no direction to mirror.' },
  },
  {
    id: 'schema-discriminator-mapping-added',
    effect: 'widens',
    summary:
      'A discriminator value now selects a schema, by a mapping entry or (OpenAPI 3.0) a new schema extending the parent through allOf (a value that selected none failed): breaks receivers; unknown in JSON Schema.',
    old: '{"mapping": {"cat": "#/components/schemas/Cat"}}',
    new: '{"mapping": {"cat": "#/components/schemas/Cat", "dog": "#/components/schemas/Dog"}}',
    mirror: 'schema-discriminator-mapping-removed',
  },
  {
    id: 'schema-discriminator-mapping-removed',
    effect: 'narrows',
    summary:
      'A discriminator value no longer selects a schema (a mapping entry, or a schema extending the parent through allOf, went): breaks senders of it; unknown in JSON Schema.',
    old: '{"mapping": {"cat": "#/components/schemas/Cat", "dog": "#/components/schemas/Dog"}}',
    new: '{"mapping": {"cat": "#/components/schemas/Cat"}}',
    mirror: 'schema-discriminator-mapping-added',
  },
  {
    id: 'schema-discriminator-mapping-changed',
    effect: 'unknown',
    summary: 'A discriminator value selects another schema: the effect of the two targets compared (none when equal).',
    old: '{"mapping": {"cat": "#/components/schemas/Cat"}}',
    new: '{"mapping": {"cat": "#/components/schemas/Feline"}}',
    mirror: { none: 'It takes the direction of the targets compared, reported by their own rules.' },
  },
  {
    id: 'schema-ref-changed',
    effect: 'unknown',
    summary: 'A `$ref` names another schema (or became inline): the effect of the two targets compared; none when they are equal.',
    old: '{"$ref": "#/components/schemas/Money"}',
    new: '{"$ref": "#/components/schemas/Amount"}',
    mirror: { none: 'It takes the direction of the targets compared, reported by their own rules.' },
  },
  {
    id: 'schema-any-of-branch-added',
    effect: 'widens',
    summary: 'An anyOf branch was added: breaks receivers.',
    old: '{"anyOf": [{"type": "string"}]}',
    new: '{"anyOf": [{"type": "string"}, {"type": "integer"}]}',
    mirror: 'schema-any-of-branch-removed',
  },
  {
    id: 'schema-any-of-branch-removed',
    effect: 'narrows',
    summary: 'An anyOf branch was removed: breaks senders of its values.',
    old: '{"anyOf": [{"type": "string"}, {"type": "integer"}]}',
    new: '{"anyOf": [{"type": "string"}]}',
    mirror: 'schema-any-of-branch-added',
  },
  {
    id: 'schema-one-of-branch-added',
    effect: 'widens',
    summary: 'A oneOf branch was added: widens when the branches provably exclude each other, unknown otherwise.',
    old: '{"oneOf": [{"type": "string"}]}',
    new: '{"oneOf": [{"type": "string"}, {"type": "integer"}]}',
    mirror: 'schema-one-of-branch-removed',
  },
  {
    id: 'schema-one-of-branch-removed',
    effect: 'narrows',
    summary: 'A oneOf branch was removed: narrows when the branches provably exclude each other, unknown otherwise.',
    old: '{"oneOf": [{"type": "string"}, {"type": "integer"}]}',
    new: '{"oneOf": [{"type": "string"}]}',
    mirror: 'schema-one-of-branch-added',
  },
  {
    id: 'schema-all-of-member-added',
    effect: 'narrows',
    summary: 'An allOf member was added: one more constraint, breaks senders.',
    old: '{"allOf": [{"$ref": "#/$defs/Base"}]}',
    new: '{"allOf": [{"$ref": "#/$defs/Base"}, {"required": ["id"]}]}',
    mirror: 'schema-all-of-member-removed',
  },
  {
    id: 'schema-all-of-member-removed',
    effect: 'widens',
    summary: 'An allOf member was removed: one constraint fewer, breaks receivers.',
    old: '{"allOf": [{"$ref": "#/$defs/Base"}, {"required": ["id"]}]}',
    new: '{"allOf": [{"$ref": "#/$defs/Base"}]}',
    mirror: 'schema-all-of-member-added',
  },
  {
    id: 'schema-not-added',
    effect: 'narrows',
    summary: 'A `not` was added: values it matches are now refused.',
    old: '{"type": "string"}',
    new: '{"type": "string", "not": {"const": ""}}',
    mirror: 'schema-not-removed',
  },
  {
    id: 'schema-not-removed',
    effect: 'widens',
    summary: 'A `not` was removed: values it refused are now accepted.',
    old: '{"type": "string", "not": {"const": ""}}',
    new: '{"type": "string"}',
    mirror: 'schema-not-added',
  },
  {
    id: 'schema-constraint-added',
    effect: 'narrows',
    summary: 'A schema (or `false`, or an anyOf/allOf/oneOf keyword) now constrains where anything was accepted.',
    old: '{"properties": {"a": {}}}',
    new: '{"properties": {"a": {"type": "string"}}}',
    mirror: 'schema-constraint-removed',
  },
  {
    id: 'schema-constraint-removed',
    effect: 'widens',
    summary: 'A schema was removed (or became `true`, or `false` became a schema): more values are accepted.',
    old: '{"properties": {"a": {"type": "string"}}}',
    new: '{"properties": {"a": {}}}',
    mirror: 'schema-constraint-added',
  },
  {
    id: 'schema-annotation-changed',
    effect: 'none',
    summary: 'An annotation (title, description, examples, default, deprecated, an x- extension) changed: no value is accepted differently.',
    old: '{"description": "Total"}',
    new: '{"description": "Total, in cents"}',
    mirror: { none: 'It accepts the same values either way.' },
  },
  {
    id: 'schema-keyword-rewritten',
    effect: 'none',
    summary: 'A keyword is written differently but admits the same values (an enum reordered, `integer` as `["integer"]`).',
    old: '{"type": "integer"}',
    new: '{"type": ["integer"]}',
    mirror: { none: 'It accepts the same values either way.' },
  },
  {
    id: 'schema-keyword-changed',
    effect: 'unknown',
    summary: 'A keyword this diff does not interpret (or a malformed one) changed: unknown, since a validator may enforce it.',
    old: '{"x-kind": 1, "dependentRequired": {}}',
    new: '{"dependentRequired": {"a": ["b"]}}',
    mirror: { none: 'Its effect is unknown, so it has no direction to mirror.' },
  },
  {
    id: 'schema-not-compared',
    effect: 'unknown',
    summary: 'Part of the schemas was not compared (a `$ref` naming nothing, a depth, size or work cap): unknown.',
    old: '{"$ref": "#/$defs/Order"}',
    new: '{"$ref": "#/$defs/Gone"}',
    mirror: { none: 'Its effect is unknown, so it has no direction to mirror.' },
  },
]

/** Each rule's nominal effect (at the top of a schema), for the mirror test and the catalogue. */
export const SCHEMA_RULE_EFFECTS: Readonly<Record<string, SchemaEffect>> = Object.fromEntries(ENTRIES.map((entry) => [entry.id, entry.effect]))

/** Rules whose effect is the comparison of two targets (or of two formats' checks): any level. */
const BY_COMPARISON = new Set(['schema-ref-changed', 'schema-discriminator-mapping-changed', 'schema-format-changed'])

export const SCHEMA_RULES: readonly SchemaDiffRule[] = ENTRIES.map((entry) => {
  const levels: readonly DiffLevel[] = BY_COMPARISON.has(entry.id) ? ['breaking', 'warning', 'info'] : levelsOf(entry.effect)
  return {
    id: entry.id,
    levels,
    // A rule that only reports at info breaks nobody, so it names no audience.
    audiences: levels.some((level) => level !== 'info') ? AUDIENCES : [],
    summary: entry.summary,
    example: { old: entry.old, new: entry.new },
    mirror: typeof entry.mirror === 'string' ? { rule: entry.mirror } : entry.mirror,
  }
})
