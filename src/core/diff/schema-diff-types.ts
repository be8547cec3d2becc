/**
 * The interface of the directional JSON Schema diff (`schema-diff.ts`), shared by the formats whose
 * payloads are JSON Schemas (Benzene's components, NATS message payloads). Core names no format: a
 * format hands the two schemas and maps the effect to its audiences (who receives, who sends).
 */
import type { DiffLevel, DiffRule } from './types.js'

/** A schema in one version: the document it sits in, where, and how `$ref`s there resolve. */
export interface SchemaSide {
  /** Absolute path of the file holding the schema. */
  file: string
  /** The parsed document (JSON values only). */
  document: unknown
  /** JSON Pointer of the schema within `document`. */
  pointer: string
  /**
   * Resolves a `$ref` found at `at` (a pointer in `file`) to the schema it names, possibly in
   * another file; `undefined` when it names nothing (the checker has refused such a version before).
   */
  resolve(ref: string, at: { file: string; pointer: string }): { file: string; document: unknown; pointer: string } | undefined
}

/**
 * What a change does to the set of values the schema accepts: `widens` (the new schema accepts a
 * value the old refused: breaks whoever receives and validates or types it), `narrows` (the new one
 * refuses a value the old accepted: breaks whoever sends it), `both`, `none` (the accepted values are
 * the same: a description, a title, a `$ref` to an equal schema; `info` for everyone), or `unknown`
 * (neither proven: reported as a warning for both sides).
 */
export type SchemaEffect = 'widens' | 'narrows' | 'both' | 'none' | 'unknown'

/** How the schemas are read: JSON Schema (draft 2020-12 / 07 as the document declares) or OpenAPI 3.0's dialect (`nullable`). */
export interface SchemaDiffOptions {
  dialect?: 'json-schema' | 'openapi-3.0'
  /**
   * OpenAPI 3.0 only: how the validators read `format: int64` (Benzene's `int64` option: a range of
   * numbers, or decimal text in place of an integer). Unset, a change involving a checked int64 is `unknown`.
   */
  int64?: 'number' | 'string'
  /**
   * Whole comparisons kept across calls over the same two documents (`SettledComparisons`): a call
   * keeps its effect there, and a later call that reaches the same pair through a `$ref` takes it
   * instead of comparing it again, and does not report that pair's changes (the earlier call did).
   * For a format that compares each of a document's components on its own, dependencies first.
   */
  settled?: { readonly effects: Map<string, { effect: SchemaEffect; quiet: boolean }> }
  /**
   * Counts the pairs of schema nodes the calls given it compared, in all: a format bounds its
   * comparisons of one document together by it (`documentPairBound`); and the steps of their
   * validations, of the nodes its normal forms walked and of the changes they reported, which the
   * engine bounds for the document (MAX_DOCUMENT_VALIDATION_STEPS, MAX_DOCUMENT_NORMAL_FORM_NODES,
   * MAX_DOCUMENT_CHANGES).
   */
  tally?: { pairs: number; validationSteps?: number; normalFormNodes?: number; changes?: number }
}

/**
 * The engine (`schema-diff.ts` exports one as `diffSchemas`, with its rules as `SCHEMA_DIFF_RULES`).
 * Never throws on what a schema holds; bounded by the schemas' sizes (each `$ref` target compared
 * once per pair of pointers).
 */
export type DiffSchemas = (old: SchemaSide, next: SchemaSide, options?: SchemaDiffOptions) => SchemaChange[]

/** The engine's rule catalogue entries are ordinary diff rules (audiences `receiver`, `sender`). */
export type SchemaDiffRule = DiffRule

export interface SchemaChange {
  /** Stable rule id, one of `SCHEMA_DIFF_RULES` (e.g. `schema-required-added`). */
  rule: string
  effect: SchemaEffect
  /** Where, in each version (file and pointer of the keyword or schema that changed). */
  old?: { file: string; pointer: string }
  new?: { file: string; pointer: string }
  /** One sentence. */
  message: string
  /**
   * A value the change proves the effect with, when one is known: accepted by the new schema and
   * refused by the old (`widens`), or the reverse (`narrows`).
   */
  witness?: { value: unknown; acceptedBy: 'old' | 'new' }
  /**
   * For an effect of `both`, when one was found for each direction: `witness` and one accepted by the
   * other version (the first breaks senders, the second receivers, or the reverse).
   */
  witnesses?: ReadonlyArray<{ value: unknown; acceptedBy: 'old' | 'new' }>
}

/** The level a change has for a party: breaking when its effect hits the party's direction and is proven. */
export function levelFor(effect: SchemaEffect, party: 'receives' | 'sends'): DiffLevel {
  if (effect === 'unknown') return 'warning'
  if (effect === 'none') return 'info'
  const hits = effect === 'both' || (party === 'receives' ? effect === 'widens' : effect === 'narrows')
  return hits ? 'breaking' : 'info'
}
