import { sortKeys, sortedCopy } from '../../core/emit.js'
import { reach } from '../../core/graph.js'
import type { CompileMemos } from '../../core/memo.js'
import {
  PATTERNS_CONSTANT,
  PATTERN_MATCHERS_HELPER,
  linkedLiteral,
  needsLinearEngine,
  patternsConstant,
  reachedDefinitions,
  validatorPatterns,
  type EmittedDefinition,
} from '../../core/schema-definitions.js'
import { runtimePatternsIn } from '../../core/pattern-safety.js'
import type { PatternSpec } from '../../runtime/shared/pattern-matchers.js'
import { enterableDefinitions, validatorDeclarations, type ValidatorRoot } from '../../core/schema-code.js'
import { assertValidSchema, standaloneValidator, withStandaloneAjv, withoutKeywords, AJV_MISREAD, LATER_ANCHORS } from '../../core/standalone-validators.js'
import { VALUE_KEYWORDS, type Schema, type SchemaObject } from '../../runtime/shared/schema-check.js'
import { isObject } from './document.js'
import { protoMembersAsPatterns } from './proto-member.js'
import type { PayloadPlan, ValidatorPlan } from './validator-plan.js'
import type { ValidatorForm } from './options.js'

/**
 * Request payload validators for interactions that declare `runtime-schema-check` (and the other
 * validators the module carries), assembled as `plan` says: which backend checks each payload, and
 * which patterns need a runtime engine, were decided in check (validator-plan.ts).
 *
 * A payload schema written with the keywords the validator code generator implements
 * (`src/core/schema-code.ts`, held to ajv by `test/schema-check.test.ts`) becomes a generated
 * function, and each `#/components/schemas/<Name>` it reaches one shared function. Any
 * other schema (tuple `items`, `dependencies`, `propertyNames`, `$ref` into a schema, ...) is
 * compiled by ajv into standalone code, as all of them once were. Design note: a fresh ajv and its
 * code generation cost a 500-channel compile with one such interaction about a tenth of its time
 * (bench/), for what is usually a handful of `type`/`properties`/`required` checks.
 */
export function payloadValidators(
  wanted: readonly ValidatorRequest[],
  plan: ValidatorPlan,
  memos?: CompileMemos,
  form: ValidatorForm = 'code',
): PayloadValidators {
  const components = plan.components
  const out: PayloadValidators = { definitions: new Map(), validators: new Map(), imports: new Set(), linearPatterns: false }
  if (wanted.length === 0) return out
  /** Each component's form for the generated code, as check decided it (validator-plan.ts). */
  const convertedOf = (ref: string) => plan.component(ref)
  const forAjv: Array<{ it: ValidatorRequest; index: number }> = []
  const roots: ValidatorRoot[] = []
  /** Each root's own component references (the data form names the components each reaches). */
  const rootRefs: Array<ReadonlySet<string>> = []
  const definitions = new Map<string, { name: string; schema: Schema }>()
  wanted.forEach((it, index) => {
    // The meta-schema check both paths share: an invalid schema fails the build the same way.
    assertValidSchema({ components: { schemas: components }, allOf: [it.schema] })
    // The backend the plan decided; the components it reaches, in the order their definitions are named.
    const reached = it.plan.backend === 'generated' ? reachable(it.plan.refs, convertedOf) : undefined
    if (it.plan.backend !== 'generated' || reached === undefined) return forAjv.push({ it, index })
    for (const ref of reached) if (!definitions.has(ref)) definitions.set(ref, { name: `$schema${definitions.size}`, schema: convertedOf(ref)!.schema })
    roots.push({ name: `$payload${index}`, schema: it.plan.schema })
    rootRefs.push(it.plan.refs)
    out.validators.set(it.id, `$payload${index}`)
  })
  if (roots.length > 0 && form === 'data') dataValidators(roots, rootRefs, definitions, convertedOf, out)
  else if (roots.length > 0) {
    const code = validatorDeclarations(roots, definitions, '$v$', memos)
    for (const [name, expression] of code.declarations) out.definitions.set(name, expression)
    for (const name of code.imports) out.imports.add(name)
    out.linearPatterns ||= code.linearPatterns
  }
  if (forAjv.length > 0) {
    // ajv skips a property named `__proto__`: such members become the equivalent pattern it checks.
    const schemas = Object.fromEntries(
      Object.entries(sortedCopy(components)).map(([name, schema]) => [name, withoutKeywords(protoMembersAsPatterns(schema), NOT_FOR_AJV)]),
    )
    // ajv's code would run every pattern on one backtracking RegExp: the patterns that must not
    // (src/core/pattern-safety.ts) go through the module's engine, `$ajvPattern`, instead.
    const patterns = new Map<string, PatternSpec>(plan.componentPatterns)
    for (const { it } of forAjv) for (const [pattern, spec] of it.plan.patterns) patterns.set(pattern, spec)
    const engine = patterns.size > 0 ? AJV_PATTERN_ENGINE : undefined
    if (engine !== undefined) {
      // The same builder as the generated code's `$patterns`, called through ajv's engine.
      out.definitions.set(engine, patternsConstant(patterns, '$ajvPatterns'))
      out.imports.add('ajvPatterns as $ajvPatterns')
      if (needsLinearEngine(patterns)) out.linearPatterns = true
    }
    withStandaloneAjv((ajv) => {
      for (const { it, index } of forAjv) {
        // References in the payload are `#/components/schemas/<Name>`: the root carries the document's schemas.
        ajv.addSchema({ $id: `p${index}`, components: { schemas }, allOf: [withoutKeywords(protoMembersAsPatterns(it.schema), NOT_FOR_AJV)] })
        out.validators.set(it.id, standaloneValidator(ajv, `p${index}`))
      }
    }, engine)
  }
  return out
}

/**
 * The validators of `roots` as data (option `validators: 'data'`, the default): each component a
 * root reaches is a `const` holding its schema, with each `$ref` written as a function returning the
 * constant it names (`linkedLiteral`), and each validator the runtime's `dataValidator`: the schema
 * interpreter (src/runtime/shared/schema-check.ts, held to the generated code by
 * test/schema-check.test.ts: the same verdicts and errors) over its own schema, made on its first
 * call, with the matchers of the patterns that do not run as one native `RegExp`. A validator names
 * only what its schema names and the interpreter follows the functions when it is made, so the
 * module is linear in the schemas and importing it builds no validator: a definitions object per validator, listing all it reached, was payloads x components
 * (4,000 channels on a 250-link chain: a 41.5 MB module from a 1 MB document).
 */
function dataValidators(
  roots: readonly ValidatorRoot[],
  rootRefs: ReadonlyArray<ReadonlySet<string>>,
  definitions: ReadonlyMap<string, { name: string; schema: Schema }>,
  convertedOf: (ref: string) => { refs: ReadonlySet<string> } | undefined,
  out: PayloadValidators,
): void {
  const emitted = new Map<string, EmittedDefinition>()
  // A component no validation can enter (`enterableDefinitions`) is not written: a reference to it
  // returns `true`, which the interpreter never reaches (the reference fails on depth first).
  const enterable = enterableDefinitions(
    rootRefs.flatMap((refs) => [...refs]),
    (ref) => convertedOf(ref)?.refs ?? [],
  )
  const link = (ref: string): string => {
    const target = emitted.get(ref)
    if (!target) throw new Error(`schema is invalid: reference ${ref} names no definition`)
    return `() => ${target.constant}`
  }
  for (const [ref, { name }] of definitions)
    emitted.set(ref, enterable.has(ref) ? { constant: name, refs: convertedOf(ref)!.refs } : { constant: 'true', refs: new Set() })
  for (const [ref, { name, schema }] of definitions) {
    if (!enterable.has(ref)) continue
    const patterns = new Map<string, PatternSpec>()
    runtimePatternsIn(schema, patterns)
    if (patterns.size > 0) emitted.set(ref, { ...emitted.get(ref)!, patterns })
    out.definitions.set(name, linkedLiteral(schema, link))
  }
  const all = new Map<string, PatternSpec>()
  const calls = roots.map((root, i) => {
    const patterns = validatorPatterns(root.schema, reachedDefinitions(rootRefs[i]!, emitted), emitted)
    for (const [pattern, spec] of patterns) all.set(pattern, spec)
    return [root.name, `/* @__PURE__ */ $dataValidator(${linkedLiteral(root.schema, link)}${patterns.size > 0 ? `, ${PATTERNS_CONSTANT}` : ''})`] as const
  })
  if (all.size > 0) {
    out.definitions.set(PATTERNS_CONSTANT, patternsConstant(all))
    out.imports.add(PATTERN_MATCHERS_HELPER)
    if (needsLinearEngine(all)) out.linearPatterns = true
  }
  out.imports.add('dataValidator as $dataValidator')
  for (const [name, call] of calls) out.definitions.set(name, call)
}

/** The module constant ajv's standalone code calls for its patterns, when some must not run on one `RegExp`. */
const AJV_PATTERN_ENGINE = '$ajvPattern'

/** One validator to generate: a key for it, the schema it checks (`#/components/schemas/...` references allowed) and its plan. */
export interface ValidatorRequest {
  id: string
  schema: unknown
  plan: PayloadPlan
}

export interface PayloadValidators {
  /** `const` name -> expression: generated validators and the functions and constants they share (emit first). */
  definitions: Map<string, string>
  /** Request id -> validator expression. */
  validators: Map<string, string>
  /** Runtime imports the generated code calls (`compiledValidator as $validator`, ...). */
  imports: Set<string>
  /** Whether the generated code needs the linear-time engine (`LINEAR_PATTERNS_IMPORT`). */
  linearPatterns: boolean
}

/** Every reference reachable from `refs`, or undefined when one of them is not convertible. */
function reachable(refs: ReadonlySet<string>, convertedOf: (ref: string) => { refs: ReadonlySet<string> } | undefined): Set<string> | undefined {
  return reach(refs, (ref) => convertedOf(ref)?.refs)
}

/**
 * Keywords ajv is not handed (`withoutKeywords`): those it misreads (AJV_MISREAD), the anchors
 * draft-07 does not define (LATER_ANCHORS), and `$id`. A payload's `$ref`s are read against the
 * document that declares them, as AsyncAPI's references are (the rules checked them so), never
 * against a schema's `$id` or an anchor: to ajv, an `$id` moved their base (`#/components/...`
 * under `$id: urn:x` named nothing, and threw), a component's `$id` or `$anchor`, copied into each
 * payload's root, named two schemas (it threw), and a malformed anchor threw.
 */
export const NOT_FOR_AJV: ReadonlySet<string> = new Set([...AJV_MISREAD, ...LATER_ANCHORS, '$id'])

/**
 * Keywords the standalone ajv (no formats, not strict) never checks: annotations, `format`, and
 * `x-` extensions, and those it is not handed (NOT_FOR_AJV). Dropping them changes no answer.
 */
const IGNORED = new Set([
  'title',
  'description',
  'default',
  'examples',
  '$comment',
  'format',
  'deprecated',
  'readOnly',
  'writeOnly',
  'externalDocs',
  ...NOT_FOR_AJV,
])

/** Keywords whose value is data, copied as is (the meta-schema check has already held their form). */
const ASSERTIONS = new Set(VALUE_KEYWORDS)

/** Keywords whose value is one subschema, or a list of them. */
const ONE_SCHEMA = new Set(['items', 'additionalProperties', 'not', 'if', 'then'])
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf'])

/**
 * `schema` in the generated validator code's keyword set, collecting the component references it makes, or
 * undefined when it uses anything else. Conservative on purpose: whatever is not certain to mean
 * the same to both is left to ajv.
 */
function generatedCodeSchema(schema: unknown, refs: Set<string>, depth = 0): Schema | undefined {
  if (typeof schema === 'boolean') return schema
  if (!isObject(schema) || depth > 64) return undefined
  const out: Record<string, unknown> = {}
  // Keys in code-unit order, values copied sorted: reordering a document's keys changes no byte.
  for (const key of sortKeys(Object.keys(schema))) {
    const value = schema[key]
    if (IGNORED.has(key) || key.startsWith('x-')) continue
    if (key === '$ref') {
      if (typeof value !== 'string' || componentName(value) === undefined) return undefined
      refs.add(value)
      out.$ref = value
    } else if (ASSERTIONS.has(key)) out[key] = value !== null && typeof value === 'object' ? sortedCopy(value) : value
    else if (ONE_SCHEMA.has(key)) {
      // `items` as a list is tuple validation, which the generated code does not do.
      const sub = generatedCodeSchema(value, refs, depth + 1)
      if (sub === undefined) return undefined
      out[key] = sub
    } else if (SCHEMA_LISTS.has(key)) {
      if (!Array.isArray(value)) return undefined
      const subs = value.map((v) => generatedCodeSchema(v, refs, depth + 1))
      if (subs.some((s) => s === undefined)) return undefined
      out[key] = subs
    } else if (key === 'properties' || key === 'patternProperties') {
      if (!isObject(value)) return undefined
      const members: Record<string, Schema> = {}
      for (const name of sortKeys(Object.keys(value))) {
        // ajv cannot take `__proto__` as a property name; such a schema stays ajv's, as it was.
        if (name === '__proto__') return undefined
        const sub = generatedCodeSchema(value[name], refs, depth + 1)
        if (sub === undefined) return undefined
        // Plain assignment (no `defineProperty`, which leaves the copy slower to read): `__proto__` was refused above.
        members[name] = sub
      }
      out[key] = members
    } else return undefined
  }
  // A `$ref` beside assertions reads differently across JSON Schema drafts: ajv keeps that case.
  if (out.$ref !== undefined && Object.keys(out).length > 1) return undefined
  return out as SchemaObject
}

/** `<Name>` of `#/components/schemas/<Name>` when the name needs no unescaping (no `~`, `%` or `/`). */
function componentName(ref: string): string | undefined {
  const prefix = '#/components/schemas/'
  if (!ref.startsWith(prefix)) return undefined
  const name = ref.slice(prefix.length)
  return name !== '' && !/[~%/]/.test(name) ? name : undefined
}

/** A schema's form for the generated validator code and the component references it makes; undefined when that code does not take its keywords (the plan's decision, validator-plan.ts). */
export function generatedForm(schema: unknown): { schema: Schema; refs: Set<string> } | undefined {
  const refs = new Set<string>()
  const form = generatedCodeSchema(schema, refs)
  return form === undefined ? undefined : { schema: form, refs }
}

/** The generated-code form of the component a `#/components/schemas/<Name>` reference names; undefined when it names none or the code does not take it. */
export function componentForm(ref: string, components: Readonly<Record<string, unknown>>): { schema: Schema; refs: Set<string> } | undefined {
  const name = componentName(ref)
  return name !== undefined && Object.hasOwn(components, name) ? generatedForm(components[name]) : undefined
}

/** Does the generated code take every component `refs` reaches? */
export function reachesConverted(refs: ReadonlySet<string>, convertedOf: (ref: string) => { refs: ReadonlySet<string> } | undefined): boolean {
  return reachable(refs, convertedOf) !== undefined
}
