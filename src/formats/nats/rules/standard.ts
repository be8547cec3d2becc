import { createAjv } from '../../../core/standalone-validators.js'
import { escapeToken, splitPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../document.js'
import { lazyBuilt, lazyRequire } from '../../../core/lazy-require.js'
import { refSites } from '../../../core/json-refs.js'
import { natsRule } from './rule.js'
import { profileSchema } from '../profile-schema.js'
import { resolveFragment } from '../schemas.js'
import { externalParts } from './external-parts.js'
import { needsFullSchema, type StandardCut } from './standard-split.js'
import { standardParts } from './standard-reads.js'

/** Complexity (each rule here, worst case on any input under the size limits): one validation of the document by the AsyncAPI JSON Schema (ajv: linear in the document for these schemas) and a filter over its errors. */

export const officialSchema = lazyRequire<object>('@asyncapi/specs/schemas/3.1.0-without-$id.json')

const officialSchema30 = lazyRequire<object>('@asyncapi/specs/schemas/3.0.0-without-$id.json')

/**
 * The AsyncAPI version whose official schema checks the document's standard part: 3.1.0, or 3.0.0
 * for any 3.0.x (AsyncAPI's patch releases share their schema); undefined for any other version,
 * which is not read (NATS_ASYNCAPI_VERSION). Profile v0.2 itself needs 3.1.0.
 */
export function standardVersion(doc: Record<string, unknown>): '3.1.0' | '3.0.0' | undefined {
  if (doc.asyncapi === '3.1.0') return '3.1.0'
  return typeof doc.asyncapi === 'string' && /^3\.0\.(0|[1-9]\d*)$/.test(doc.asyncapi) ? '3.0.0' : undefined
}

export type Validate = import('ajv').ValidateFunction

/** ajv-formats (which loads ajv's code generator), required when a full compile first needs it. */
const formats = lazyRequire<{ default?: (ajv: object) => void } & ((ajv: object) => void)>('ajv-formats')

export const addFormats = (ajv: object): void => (formats().default ?? formats())(ajv)

/**
 * Compiled once per process: the official AsyncAPI 3.1.0 schema and the profile's shape, each as a
 * first-error check (cheap on the valid documents most builds see: no error objects for every
 * failing oneOf branch) and, compiled when first needed, an all-errors one for the diagnostics.
 */
// Module-level by design: keyed by which fixed schema (not by a document), so no document's facts live here.
const compiledSchemas = new Map<string, Validate>()

/**
 * The first-error AsyncAPI and profile validators precompiled when the package is built
 * (scripts/precompile-asyncapi.mjs), so a fresh process skips a quarter-second compile before its
 * first check; absent when the sources run directly (tests), and then compiled here as before.
 * CommonJS, loaded synchronously when first needed: no top-level await in the package (a module
 * with one cannot be `require`d).
 */
const precompiled = {
  asyncapi: lazyBuilt<Validate>(import.meta.url, 'src/formats/nats/asyncapi-validators.cjs'),
  // The 3.1.0 schema cut to what a NATS contract reaches (./standard-split.ts): a quarter of the
  // code to load, and the same verdict and first error on any document `needsFullSchema` passes.
  asyncapiNats: lazyBuilt<Validate & { cut: StandardCut }>(import.meta.url, 'src/formats/nats/asyncapi-nats-validator.cjs'),
  profile: lazyBuilt<Validate>(import.meta.url, 'src/formats/nats/profile-validator.cjs'),
}

function compiled(name: 'asyncapi' | 'asyncapi-3.0.0' | 'profile', allErrors: boolean): Validate {
  const key = `${name}:${allErrors}`
  // Only the 3.1.0 schema and the profile are precompiled; a 3.0 document compiles its schema once.
  const ready = allErrors || name === 'asyncapi-3.0.0' ? undefined : precompiled[name]()
  if (ready) return ready
  let validate = compiledSchemas.get(key)
  if (!validate) {
    const schema = name === 'asyncapi' ? officialSchema() : name === 'asyncapi-3.0.0' ? officialSchema30() : profileSchema
    // The official parser checks the schema's formats (email, uri, uri-template, uuid) with
    // ajv-formats; so does this, so a contact email or a license URL that is not one is refused
    // here too. `uri-reference` is the format of `$ref` values, which the parser checks only after
    // reading the references (they are gone by then): the references' own rules speak for them.
    // `regex`, a schema's `pattern`, the parser leaves unchecked (the Schema Object says a pattern
    // SHOULD be ECMA-262): the pattern rules read it as the validators will (rules/patterns.ts).
    const official = name !== 'profile'
    const ajv = createAjv({ allErrors, validateFormats: official })
    if (official) {
      addFormats(ajv)
      ajv.addFormat('uri-reference', true)
      ajv.addFormat('regex', true)
    }
    compiledSchemas.set(key, (validate = ajv.compile(schema)))
  }
  return validate
}

/** The first-error check of `value`: the cut 3.1.0 validator when it is built and `value` holds nothing it cut. */
function firstErrorCheck(name: 'asyncapi' | 'asyncapi-3.0.0' | 'profile', value: unknown): Validate {
  const cut = name === 'asyncapi' ? precompiled.asyncapiNats() : undefined
  return cut && !needsFullSchema(value, cut.cut) ? cut : compiled(name, false)
}

/** The all-errors report for a value, or none when the first-error check passes it. */
export function schemaErrors(name: 'asyncapi' | 'asyncapi-3.0.0' | 'profile', value: unknown): NonNullable<Validate['errors']> {
  if (firstErrorCheck(name, value)(value)) return []
  const validate = compiled(name, true)
  return validate(value) ? [] : (validate.errors ?? [])
}

/**
 * "One application authors asyncapi/asyncapi.yaml, using AsyncAPI 3.1.0 and this extension": a
 * profiled document must be 3.1.0. A 3.0.x document without the profile is plain AsyncAPI and is
 * checked as such (by the 3.0.0 schema and the reference rules), not refused for its version; a
 * profiled one is refused, naming its version, and its standard part is checked all the same.
 */
export const asyncapiVersion = natsRule({
  code: 'NATS_ASYNCAPI_VERSION',
  description: 'The document is not AsyncAPI 3.1.0 and carries the profile (which needs 3.1.0), or is no AsyncAPI 3 version at all (unsupported).',
  check(ctx, report) {
    const version = standardVersion(ctx.doc)
    if (version === '3.1.0') return
    const profiled = isObject(ctx.doc['x-nats-contract'])
    if (version === '3.0.0' && !profiled) return
    const given = JSON.stringify(ctx.doc.asyncapi ?? null)
    report(
      '/asyncapi',
      version === '3.0.0'
        ? `asyncapi: ${given} is AsyncAPI 3.0, and the x-nats-contract profile v0.2 needs AsyncAPI 3.1.0: change it to 3.1.0 (its standard part is checked as 3.0 meanwhile).`
        : `asyncapi: ${given} is not supported; profile v0.2 documents are AsyncAPI 3.1.0 (3.0.x documents without the profile are checked as standard AsyncAPI).`,
      { version: ctx.doc.asyncapi },
    )
  },
})

export const asyncapiSchema = natsRule({
  code: 'NATS_ASYNCAPI_SCHEMA',
  description:
    'The standard part breaks the official AsyncAPI JSON Schema of its version (3.1.0, or 3.0.0 for a 3.0.x document; @asyncapi/specs), in the document or in what a locked file it references contributes in its position.',
  // The official schemas take any value for an `x-` member (specificationExtension): the profile's content is not read.
  reads: (ctx) => standardParts(ctx),
  check(ctx, report) {
    const version = standardVersion(ctx.doc)
    if (version === undefined) return
    externalParts(ctx, report)
    const all = schemaErrors(version === '3.1.0' ? 'asyncapi' : 'asyncapi-3.0.0', bindingRefsResolved(ctx.doc))
    if (all.length === 0) return
    // oneOf between an object and a Reference reports both sides; keep what speaks about the object.
    const errors = all.filter(
      (e) =>
        e.keyword !== 'oneOf' &&
        e.keyword !== 'anyOf' &&
        !(e.keyword === 'required' && e.params.missingProperty === '$ref') &&
        !e.instancePath.startsWith('/x-nats-contract'),
    )
    const seen = new Set<string>()
    for (const e of errors.length > 0 ? errors : all.slice(0, 1)) {
      // A member the schema does not allow is pointed at itself, not at the object holding it.
      const extra = e.keyword === 'additionalProperties' ? (e.params as { additionalProperty?: string }).additionalProperty : undefined
      const pointer = extra === undefined ? e.instancePath : `${e.instancePath}/${escapeToken(extra)}`
      if (seen.has(pointer)) continue
      seen.add(pointer)
      const message =
        extra === undefined
          ? `${e.instancePath || 'the document'} ${e.message}${e.params.allowedValues ? ` (${e.params.allowedValues.join(', ')})` : ''}`
          : `${JSON.stringify(extra)} is not a member ${e.instancePath || 'the document'} may have`
      report(pointer, `AsyncAPI ${version}: ${message}.`, { keyword: e.keyword })
    }
  },
})

/** A `$ref` inside a protocol binding, below the binding object itself (Kafka `key`, MQTT `correlationData`, ...). */
const INSIDE_BINDING = /\/(?:bindings\/[^/]+|components\/(?:server|channel|operation|message)Bindings\/[^/]+\/[^/]+)\/.+\/\$ref$/

/**
 * The document as the official parser validates it in one respect: it resolves references before
 * checking, and a binding's members take schemas whose `{$ref}` form the raw document cannot be
 * told apart from (Kafka `key` is one of a schema or a Reference, and `{$ref}` is both). Each
 * same-document `$ref` inside a binding is replaced by what it names (a copy along its path only;
 * the document is unchanged); one that names nothing is left for NATS_REF_UNRESOLVED. A reference
 * that is the whole binding (`bindings: {nats: {$ref}}`) stays: the schema refuses that position,
 * as the parser does. O(document) for the walk, plus the length of each replaced path.
 */
function bindingRefsResolved(doc: Record<string, unknown>): unknown {
  // `indings/` first: every pointer INSIDE_BINDING matches has it, and most of a document's have not.
  const sites = refSites(doc).filter((site) => site.ref.startsWith('#') && site.pointer.includes('indings/') && INSIDE_BINDING.test(site.pointer))
  if (sites.length === 0) return doc
  const root: Record<string, unknown> = { ...doc }
  for (const { ref, pointer } of sites) {
    const target = resolveFragment(doc, ref)
    if (target === undefined) continue
    const tokens = splitPointer(pointer).slice(0, -1)
    let parent: Record<string, unknown> | unknown[] = root
    for (let i = 0; i < tokens.length - 1; i++) {
      const token = tokens[i]!
      const child: unknown = Array.isArray(parent) ? parent[Number(token)] : parent[token]
      const copy = Array.isArray(child) ? [...child] : isObject(child) ? { ...child } : child
      if (Array.isArray(parent)) parent[Number(token)] = copy
      else Object.defineProperty(parent, token, { value: copy, enumerable: true, writable: true, configurable: true })
      parent = copy as Record<string, unknown> | unknown[]
    }
    const last = tokens.at(-1)!
    if (Array.isArray(parent)) parent[Number(last)] = target
    else Object.defineProperty(parent, last, { value: target, enumerable: true, writable: true, configurable: true })
  }
  return root
}
