import { lazyBuilt, lazyRequire } from './lazy-require.js'
import { buildTimeMatcher } from './pattern-safety.js'

type AjvClass = typeof import('ajv').default
type Ajv = InstanceType<AjvClass>
/**
 * ajv is loaded when a compile first needs it, not with the package: a valid NATS document meets
 * only the precompiled first-error validator, and ajv's modules cost every process tens of ms.
 */
const Ajv = lazyRequire<AjvClass>('ajv')
/** The JSON Schema dialects a document's own schema may name in `$schema` (`schemaDialect`), each ajv's class for it. */
const Ajv2019 = lazyRequire<AjvClass>('ajv/dist/2019')
const Ajv2020 = lazyRequire<AjvClass>('ajv/dist/2020')
const draft06 = lazyRequire<object>('ajv/dist/refs/json-schema-draft-06.json')

/** A dialect ajv checks: draft-07 (ajv's default), draft-06, 2019-09, 2020-12. */
export type SchemaDialect = 'draft-06' | 'draft-07' | '2019-09' | '2020-12'

const DIALECTS: Readonly<Record<string, SchemaDialect>> = {
  'http://json-schema.org/draft-06/schema': 'draft-06',
  'http://json-schema.org/draft-07/schema': 'draft-07',
  'https://json-schema.org/draft/2019-09/schema': '2019-09',
  'https://json-schema.org/draft/2020-12/schema': '2020-12',
}

/**
 * The dialect a schema's `$schema` names (draft-07 without one, the default of the contracts that
 * embed schemas), or undefined for one ajv cannot check (draft-04 and earlier, anything else): the
 * caller says it is unsupported. The empty fragment `#` is the same URI.
 */
export function schemaDialect(schema: unknown): SchemaDialect | undefined {
  if (typeof schema !== 'object' || schema === null || !Object.hasOwn(schema, '$schema')) return 'draft-07'
  const named = (schema as { $schema?: unknown }).$schema
  if (typeof named !== 'string') return undefined
  return Object.hasOwn(DIALECTS, named.replace(/#$/, '')) ? DIALECTS[named.replace(/#$/, '')] : undefined
}
const standalone = lazyRequire<typeof import('ajv/dist/standalone/index.js').default>('ajv/dist/standalone')
const standaloneCode = (ajv: Ajv, validate: Parameters<ReturnType<typeof standalone>>[1]) => standalone()(ajv, validate)

/** ajv's pattern engine for document schemas checked at build time (`code` names it only in standalone code, never made with it). */
const SAFE_PATTERNS = Object.assign((pattern: string) => buildTimeMatcher(pattern), { code: 'buildTimeMatcher' })

/** ajv runtime helpers generated code may ask for; `unplugin-contracts/runtime` provides each. */
const AJV_RUNTIME_MODULES = new Set(['ajv/dist/runtime/ucs2length', 'ajv/dist/runtime/equal'])

/**
 * An ajv for checking contract data against a JSON Schema (the AsyncAPI schema, profile shapes,
 * DASP definition schemas): not strict (documents use keywords ajv does not know), formats not
 * validated, `allErrors` when asked, patterns on the safe engines when the schema is a document's. The one place ajv is configured; `standaloneAjv` below adds
 * what code generation needs.
 */
export function createAjv(options: { allErrors?: boolean; validateFormats?: boolean; safePatterns?: boolean; dialect?: SchemaDialect } = {}): Ajv {
  const { safePatterns, dialect = 'draft-07', ...rest } = options
  const Class = dialect === '2019-09' ? Ajv2019() : dialect === '2020-12' ? Ajv2020() : Ajv()
  // `safePatterns`: a schema from a document, run on document data at build time: its patterns get
  // the engines of src/core/pattern-safety.ts, so no pattern can freeze a build.
  const ajv = new Class({ strict: false, validateFormats: false, ...rest, ...(safePatterns ? { code: { regExp: SAFE_PATTERNS } } : {}) })
  if (dialect === 'draft-06') ajv.addMetaSchema(draft06())
  return ajv
}

/**
 * An ajv instance configured for standalone validators: all errors, own properties only, no
 * formats. `patternEngine`: the name of a module constant (`ajvPatterns`, runtime) the code calls
 * for each pattern instead of `new RegExp`, for modules with patterns that must not run on one
 * `RegExp` (src/core/pattern-safety.ts).
 */
export function standaloneAjv(patternEngine?: string): Ajv {
  return new (Ajv())({
    allErrors: true,
    // Presence checks with hasOwnProperty: a payload without `constructor` or `__proto__` members
    // must not be judged by the ones every object inherits.
    ownProperties: true,
    strict: false,
    // `type: number`/`integer` refuse NaN and ±Infinity, as the generated validators do (`strict: false`
    // would otherwise turn this off too). Untyped positions are left to the senders, which refuse
    // any non-finite number before validating (runtime/shared/wire-json.ts).
    strictNumbers: true,
    validateFormats: false,
    unicodeRegExp: true,
    // `multipleOf: 0.01` must accept 19.99, whose float quotient is 1998.9999999999998: a quotient
    // within 1e-9 of an integer counts (the generated validators decide it exactly, in decimal).
    multipleOfPrecision: 9,
    // Schemas are checked against the meta-schema by `assertValidSchema`, with a validator compiled
    // once per process: a new ajv compiles the meta-schema on its first `addSchema` (25-60 ms, bench/).
    validateSchema: false,
    code: { source: true, lines: false, optimize: true, ...(patternEngine === undefined ? {} : { regExp: compileTimePatterns(patternEngine) }) },
  })
}

/**
 * What ajv calls for a pattern while it compiles (standalone code calls the module's engine
 * instead, by `code`): a stand-in that is never run, named by its pattern (ajv keeps one constant
 * per name).
 */
function compileTimePatterns(code: string) {
  return Object.assign((pattern: string, flags: string) => ({ test: () => false, toString: () => `/${pattern}/${flags}` }), { code })
}

let meta: Ajv | undefined
const precompiledMeta = lazyBuilt<(schema: unknown) => boolean>(import.meta.url, 'src/core/meta-schema-validator.cjs')

/**
 * Throws `schema is invalid: ...` (ajv's words) when a schema breaks the JSON Schema draft-07
 * meta-schema. A schema without its own `$schema` meets the meta-schema validator precompiled when
 * the package is built (scripts/precompile-asyncapi.mjs), so a valid contract loads no ajv; ajv
 * is asked only for the message of a failing one (or for a schema naming another meta-schema).
 */
export function assertValidSchema(schema: unknown): void {
  const own = typeof schema === 'object' && schema !== null && Object.hasOwn(schema, '$schema')
  const precompiled = own ? undefined : precompiledMeta()
  if (precompiled?.(schema)) return
  const ajv = (meta ??= createAjv())
  if (!ajv.validateSchema(schema as object)) throw new Error(`schema is invalid: ${ajv.errorsText(ajv.errors)}`)
}

/**
 * Runs `use` with a fresh standalone ajv (its generated names count from zero, so the same
 * contract gives the same bytes in any process) that checks each added schema with
 * `assertValidSchema` first.
 */
export function withStandaloneAjv<T>(use: (ajv: Ajv) => T, patternEngine?: string): T {
  const ajv = standaloneAjv(patternEngine)
  const add = ajv.addSchema.bind(ajv)
  ajv.addSchema = ((schema: object, key?: string) => {
    assertValidSchema(schema)
    return add(schema, key)
  }) as typeof ajv.addSchema
  return use(ajv)
}

/**
 * The standalone code of one compiled schema as a function expression with no free variables but
 * its own `module`, the runtime's `$ajvRuntime` (imported by the generated module), which
 * answers ajv's calls for its two helpers, and the module's pattern engine when the ajv was made
 * with one (`standaloneAjv`). No `require`, `import()`, `eval` or `new Function`.
 * (In ajv's output `"` only appears escaped inside string literals, so the replaced text is
 * always a call, never data.)
 */
export function standaloneValidator(ajv: Ajv, id: string): string {
  const code = standaloneCode(ajv, ajv.getSchema(id)!)
  for (const [, helper] of code.matchAll(/\brequire\("([^"]*)"\)/g)) {
    if (!AJV_RUNTIME_MODULES.has(helper!)) throw new Error(`ajv standalone code needs ${helper}, which the runtime does not provide`)
  }
  // `</` only occurs inside string literals here; `<\/` is the same string and cannot close a <script>.
  const body = code.replace(/\brequire\("/g, '$ajvRuntime("').replace(/<\//g, '<\\/')
  return `/* @__PURE__ */ (function (module) {${body}\nreturn module.exports;})({ exports: {} })`
}

/** Keywords whose value is a schema, in every dialect ajv checks. */
const SCHEMA_VALUED = [
  'additionalItems',
  'additionalProperties',
  'contains',
  'else',
  'if',
  'items',
  'not',
  'propertyNames',
  'then',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
]
/** Keywords whose value is a list of schemas. */
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'items', 'prefixItems']
/** Keywords whose value maps names to schemas (`dependencies` maps some to lists of names, left as they are). */
const SCHEMA_MAPS = ['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas', 'dependencies']

/**
 * Keywords no JSON Schema dialect from draft-06 on defines, which ajv reads anyway: OpenAPI 3.0's
 * `nullable` (ajv admits `null` beside a `type` for it, and throws on one without a `type`, on
 * `nullable: false` beside `type: 'null'` and on one that is no boolean), draft-04's `id` (ajv
 * throws "NOT SUPPORTED"; jackson-module-jsonSchema writes it) and ajv's own `$async` (ajv then
 * makes a validator that answers with a promise: every value passed, and a refused one ended the
 * process on an unhandled rejection). To JSON Schema all three are annotations.
 */
export const AJV_MISREAD: ReadonlySet<string> = new Set(['nullable', 'id', '$async'])

/**
 * Draft 2019-09's and 2020-12's anchors, which draft-07 and draft-06 do not define: ajv reads them
 * in every dialect and throws on a duplicate or a malformed one.
 */
export const LATER_ANCHORS: ReadonlySet<string> = new Set(['$anchor', '$dynamicAnchor', '$recursiveAnchor'])

/**
 * `schema` without `keywords` at any schema position, for ajv (see AJV_MISREAD): members of that name
 * (under `properties`) and values (`const`, `enum`, `default`, `examples`) are kept. Copy on write:
 * a schema without them is returned as it is (ajv's cache is keyed by the object). Cost: one visit of
 * each subschema; a subschema shared by several places is copied once.
 */
export function withoutKeywords<T>(schema: T, keywords: ReadonlySet<string>): T {
  const copies = new Map<object, unknown>()
  const visit = (node: unknown): unknown => {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return node
    const known = copies.get(node)
    if (known !== undefined) return known
    copies.set(node, node)
    const source = node as Record<string, unknown>
    let out: Record<string, unknown> | undefined
    const set = (key: string, value: unknown) => {
      if (value === source[key]) return
      out ??= { ...source }
      out[key] = value
    }
    for (const key of SCHEMA_VALUED) if (Object.hasOwn(source, key) && !Array.isArray(source[key])) set(key, visit(source[key]))
    for (const key of SCHEMA_LISTS) {
      const list = source[key]
      if (!Object.hasOwn(source, key) || !Array.isArray(list)) continue
      const mapped = list.map(visit)
      if (mapped.some((s, i) => s !== list[i])) set(key, mapped)
    }
    for (const key of SCHEMA_MAPS) {
      const map = source[key]
      if (!Object.hasOwn(source, key) || typeof map !== 'object' || map === null || Array.isArray(map)) continue
      const entries = Object.entries(map as Record<string, unknown>)
      const mapped = entries.map(([name, s]) => [name, Array.isArray(s) ? s : visit(s)] as const)
      if (mapped.some(([, s], i) => s !== entries[i]![1])) set(key, Object.fromEntries(mapped))
    }
    for (const key of keywords)
      if (Object.hasOwn(source, key)) {
        out ??= { ...source }
        delete out[key]
      }
    const result = out ?? node
    copies.set(node, result)
    return result
  }
  return visit(schema) as T
}
