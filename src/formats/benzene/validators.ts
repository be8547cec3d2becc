import { validatorDeclarations } from '../../core/schema-code.js'
import type { SchemaFacts } from './schema-facts.js'
import type { CompileMemos } from '../../core/memo.js'
import type { Schema as JsonSchema } from '../../runtime/shared/schema-check.js'
import type { ValidatorForm } from './options.js'
import { markedCut, shareCutShapes, unmarked, type Cut } from './code-shapes.js'
import { definitionClasses, rewriteRefs } from './definition-classes.js'
import { dataValidators } from './validators-data.js'
import { DIRECTIONS, convertKept, definitionsOf, type ConvertContext, type Direction } from './json-schema.js'
import { ConvertedMemo } from './converted-memo.js'
import { directionFree } from './direction-free.js'

export interface ValidatorRequest {
  /** A JavaScript identifier naming the validator (its key in `validators`). */
  name: string
  schema: unknown
  direction: Direction
}

/** A module's validators, ready to emit. */
export interface BenzeneValidators {
  /** Module constants the validators use (`const` name -> expression), in emission order. */
  declarations: Map<string, string>
  /** Each request's validator expression, by request name: written where its client or event is made. */
  validators: Map<string, string>
  /** The runtime imports the expressions call (`compiledValidator as $validator`, ...). */
  imports: string[]
  /** Whether they need the linear-time engine (`LINEAR_PATTERNS_IMPORT`, its own import). */
  linearPatterns: boolean
}

/** The payload schemas converted for their directions, and every definition they reach, each check written once (`definitionClasses`). */
export interface ConvertedValidators {
  roots: Array<ValidatorRequest & { json: unknown }>
  /** `req#/definitions/d3` -> its JSON Schema, only the definitions kept (one per class), requests' first. */
  definitions: Map<string, unknown>
  /** The definitions each kept definition names directly, by reference. */
  refs: Map<string, ReadonlySet<string>>
}

/**
 * Payload validators as code (option `validators`, default `'code'`): each payload schema, converted to JSON Schema for its direction,
 * becomes a validator function, and each definition it reaches one shared function
 * (`src/core/schema-code.ts`). A bundler drops every validator and definition no import reaches.
 * Design note: validators were first ajv standalone code (ajv's compile of 2,000 payload schemas
 * took ~4 s and 16 MB of code), then schemas as data for a runtime interpreter (3.5-4.2x ajv's
 * validation time, bench/validators.ts); this code is written in one walk of each schema.
 *
 * Size: a payload that is one `$ref` is `$refValidator(<the definition's function>)`, and a
 * definition only that validator calls is written inside it; definitions that check the same thing
 * are one (`definition-classes.ts`); functions of one shape are one factory (`code-shapes.ts`).
 */
export function generateValidators(
  requests: readonly ValidatorRequest[],
  facts: SchemaFacts,
  int64: 'number' | 'string',
  form: ValidatorForm = 'code',
  memos?: CompileMemos,
): BenzeneValidators {
  if (requests.length === 0) return { declarations: new Map(), validators: new Map(), imports: [], linearPatterns: false }
  const converted = convertValidators(requests, facts, int64, memos)
  // The interpreter's form (option `validators: 'data'`): the same verdicts, a smaller module.
  if (form === 'data') return dataValidators(converted)
  const roots = converted.roots.map((r) => ({ name: r.name, schema: r.json as JsonSchema }))
  // `req#/definitions/d3` -> its function `$req$d3`.
  const definitions = new Map<string, { name: string; schema: JsonSchema }>()
  for (const [ref, schema] of converted.definitions) definitions.set(ref, { name: functionName(ref), schema: schema as JsonSchema })
  // Literals are marked as the code is written, so the functions of one shape are found from the marks.
  const made = validatorDeclarations(roots, definitions, '$v$', memos, { refRoots: true, markLiterals: true, unchanging: true })
  const validators = new Map<string, string>()
  const declarations = new Map<string, string>()
  const cuts = keptCuts(memos)
  for (const root of roots) {
    validators.set(root.name, cuts.plain(made.declarations.get(root.name)!))
    made.declarations.delete(root.name)
  }
  // A definition only one `$refValidator` calls is written inside it (no constant to name it by).
  const namedBy = new Map<string, string[]>()
  for (const [root, fn] of made.refRoots!) {
    const roots = namedBy.get(fn)
    if (roots) roots.push(root)
    else namedBy.set(fn, [root])
  }
  const inline = new Map<string, string>()
  for (const [fn, named] of namedBy) if (named.length === 1 && !made.calls!.has(fn) && made.declarations.has(fn)) inline.set(fn, named[0]!)
  const functions = new Map<string, Cut>()
  for (const [name, expression] of made.declarations) if (expression.startsWith('function ')) functions.set(name, cuts.cut(expression))
  const shapes = shareCutShapes(functions, undefined, memos !== undefined)
  for (const [name, factory] of shapes.factories) declarations.set(name, factory)
  for (const [name, expression] of made.declarations) {
    const written = shapes.members.get(name) ?? cuts.plain(expression)
    const root = inline.get(name)
    if (root === undefined) declarations.set(name, written)
    else validators.set(root, `/* @__PURE__ */ $refValidator(${written})`)
  }
  return { declarations, validators, imports: made.imports, linearPatterns: made.linearPatterns }
}

/**
 * A function's code cut at its marked literals, and without the marks: kept by the code across
 * one compiler's compiles (`benzene:cuts`), where a recompile's unchanged functions come back as
 * the same strings (`Piece.last`), their hashes known.
 */
function keptCuts(memos: CompileMemos | undefined): { cut(code: string): Cut; plain(code: string): string } {
  if (memos === undefined) return { cut: markedCut, plain: unmarked }
  const memo = memos.of<{ cut?: Cut; plain?: string }>('benzene:cuts')
  const kept = (code: string) => {
    let known = memo.get(code)
    if (known === undefined) memo.set(code, (known = {}), 2 * code.length)
    return known
  }
  return { cut: (code) => (kept(code).cut ??= markedCut(code)), plain: (code) => (kept(code).plain ??= unmarked(code)) }
}

const functionName = (ref: string) => `$${ref.replace('#/definitions/', '$')}`

/**
 * Converts each payload schema for its direction, and every definition they reach, then keeps one
 * definition per class (`definitionClasses`) with every reference to the others pointed at it.
 */
export function convertValidators(
  requests: readonly ValidatorRequest[],
  facts: SchemaFacts,
  int64: 'number' | 'string',
  memos?: CompileMemos,
): ConvertedValidators {
  const contexts: Record<Direction, ConvertContext> = {
    request: { facts, direction: 'request', int64, documentId: 'req', keys: new Map(), pending: [], asked: new Set() },
    response: { facts, direction: 'response', int64, documentId: 'res', keys: new Map(), pending: [], asked: new Set() },
  }
  // A schema without readOnly/writeOnly members anywhere it reaches is converted once, as a
  // request's definition, for both directions (the response side names it there).
  contexts.response.shared = { ctx: contexts.request, free: directionFree(facts) }
  // A recompile converts again only what an edit can change (`ConvertedMemo`).
  const kept = memos === undefined ? undefined : new ConvertedMemo(memos, facts, int64)
  const converted = requests.map((r) => ({ ...r, json: convertKept(kept, r.schema, contexts[r.direction]) as unknown }))
  const all = definitionsOf(
    DIRECTIONS.map((direction) => contexts[direction]),
    kept,
  )
  const canonical = definitionClasses(all, kept !== undefined)
  // Kept by the schema object only when the conversions are kept (a one-shot compile's are new objects).
  const references = kept === undefined ? referencesMade : referencesIn
  // Only a schema naming a definition that another stands for is copied with its references
  // rewritten (`rewriteRefs` gives any other schema back as it is, after walking it all).
  const merged = new Set<string>()
  for (const [ref, kept] of canonical) if (kept !== ref) merged.add(ref)
  const definitions = new Map<string, unknown>()
  const refs = new Map<string, ReadonlySet<string>>()
  for (const [ref, schema] of all) {
    if (canonical.get(ref) !== ref) continue
    const named = references(schema)
    const rewritten = namesAny(named, merged) ? rewriteRefs(schema, canonical) : schema
    definitions.set(ref, rewritten)
    refs.set(ref, rewritten === schema ? named : references(rewritten))
  }
  const roots = converted.map((r) => (merged.size > 0 && namesAny(references(r.json), merged) ? { ...r, json: rewriteRefs(r.json, canonical) } : r))
  return { roots, definitions, refs }
}

function namesAny(named: ReadonlySet<string>, merged: ReadonlySet<string>): boolean {
  if (merged.size === 0) return false
  for (const ref of named) if (merged.has(ref)) return true
  return false
}

/** The references a converted schema makes itself (not following them); kept per schema object (converted schemas never change). */
export function referencesIn(schema: unknown): ReadonlySet<string> {
  if (schema === null || typeof schema !== 'object') return EMPTY
  let out = REFERENCES.get(schema)
  if (out === undefined) REFERENCES.set(schema, (out = referencesMade(schema)))
  return out
}

const EMPTY: ReadonlySet<string> = new Set()
const REFERENCES = new WeakMap<object, ReadonlySet<string>>()

export function referencesMade(schema: unknown): Set<string> {
  const out = new Set<string>()
  const stack: unknown[] = [schema]
  while (stack.length > 0) {
    const node = stack.pop()
    if (node === null || typeof node !== 'object') continue
    const s = node as Record<string, unknown>
    if (typeof s.$ref === 'string') out.add(s.$ref)
    for (const key of ['items', 'additionalProperties', 'not', 'if', 'then']) if (key in s) stack.push(s[key])
    for (const key of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(s[key])) for (const member of s[key] as unknown[]) stack.push(member)
    for (const key of ['properties', 'patternProperties'])
      if (s[key] !== null && typeof s[key] === 'object') for (const member of Object.values(s[key] as object)) stack.push(member)
  }
  return out
}
