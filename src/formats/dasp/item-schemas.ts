import { AJV_MISREAD, LATER_ANCHORS, createAjv, schemaDialect, withoutKeywords, type SchemaDialect } from '../../core/standalone-validators.js'

/** A compiled element schema, or why the schema does not compile. */
export type ItemValidator = import('ajv').ValidateFunction | string

/** Distinct item schemas kept compiled at once; past this the memo starts again (see below). */
const MAX_KEPT = 256

/**
 * Compiled item schemas by their JSON text. Module-level on purpose, and safe to share: the key is
 * the schema's whole content, and compiling is a function of it alone, so a document's verdicts
 * never depend on what another compiled. It is what makes a recompile (a watch loop, a dev server)
 * cost no second ajv compile for a setting it already checked; ajv and its compile cost every
 * process, so the shared instance is made on first use. Capped: a long session editing schemas
 * drops the lot (and the ajv holding them) rather than growing without bound.
 */
/** What ajv misreads in a draft-06 or draft-07 schema. */
const DRAFT_07_MISREAD: ReadonlySet<string> = new Set([...AJV_MISREAD, ...LATER_ANCHORS])

let kept: { ajv: Map<SchemaDialect, ReturnType<typeof createAjv>>; byText: Map<string, ItemValidator> } = { ajv: new Map(), byText: new Map() }

/** `items` (an object: a JSON Schema for one element) compiled with safe patterns and all errors, or ajv's reason it does not compile. */
export function compileItemSchema(items: object): ItemValidator {
  const text = JSON.stringify(items)
  const known = kept.byText.get(text)
  if (known !== undefined) return known
  if (kept.byText.size >= MAX_KEPT) kept = { ajv: new Map(), byText: new Map() }
  let compiled: ItemValidator
  // The dialect its `$schema` names (draft-07 without one): a schema generator writes the one it
  // targets (quicktype draft-06, schemars 2020-12), and each is checked as that dialect says.
  const dialect = schemaDialect(items)
  if (dialect === undefined) {
    const named = JSON.stringify((items as { $schema?: unknown }).$schema)
    compiled = `its $schema ${named} names a JSON Schema dialect the checker does not support (draft-06, draft-07, 2019-09 and 2020-12 are)`
    kept.byText.set(text, compiled)
    return compiled
  }
  try {
    // A schema with an $id gets an ajv of its own: two settings may reuse one $id with different contents.
    const options = { allErrors: true, safePatterns: true, dialect }
    let ajv = text.includes('"$id"') ? createAjv(options) : kept.ajv.get(dialect)
    if (ajv === undefined) kept.ajv.set(dialect, (ajv = createAjv(options)))
    // draft-06 and draft-07 do not define the later drafts' anchors: there they are annotations too.
    const misread = dialect === 'draft-06' || dialect === 'draft-07' ? DRAFT_07_MISREAD : AJV_MISREAD
    compiled = ajv.compile(withoutKeywords(items, misread))
  } catch (error) {
    // ajv compiles a schema recursively: one wide enough (an anyOf of thousands) exhausts the stack.
    // That is the checker's limit, not a fault of the schema, and it is said so.
    compiled =
      error instanceof RangeError
        ? `it is too wide or deep for the checker to compile (unsupported: ${error.message})`
        : error instanceof Error
          ? error.message
          : String(error)
  }
  kept.byText.set(text, compiled)
  return compiled
}
