import { createAjv } from '../../../core/standalone-validators.js'
import { escapeToken, splitPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../document.js'
import { dirname, resolve } from 'node:path'
import { lazyBuilt, lazyRequire } from '../../../core/lazy-require.js'
import { refSites } from '../../../core/json-refs.js'
import type { NatsContext } from '../context.js'
import { natsRule, type NatsReport, type NatsRule } from './rule.js'
import { profileSchema } from '../profile-schema.js'
import { resolveFragment } from '../schemas.js'

/** Complexity (each rule here, worst case on any input under the size limits): one validation of the document by the AsyncAPI JSON Schema (ajv: linear in the document for these schemas) and a filter over its errors. */

const officialSchema = lazyRequire<object>('@asyncapi/specs/schemas/3.1.0-without-$id.json')
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
type Validate = import('ajv').ValidateFunction
/** ajv-formats (which loads ajv's code generator), required when a full compile first needs it. */
const formats = lazyRequire<{ default?: (ajv: object) => void } & ((ajv: object) => void)>('ajv-formats')
const addFormats = (ajv: object): void => (formats().default ?? formats())(ajv)

/**
 * Compiled once per process: the official AsyncAPI 3.1.0 schema and the profile's shape, each as a
 * first-error check (cheap on the valid documents most builds see: no error objects for every
 * failing oneOf branch) and, compiled when first needed, an all-errors one for the diagnostics.
 */
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
    // The official parser checks the schema's formats (email, uri, uri-template, uuid, regex) with
    // ajv-formats; so does this, so a contact email or a license URL that is not one is refused
    // here too. `uri-reference` is the format of `$ref` values, which the parser checks only after
    // reading the references (they are gone by then): the references' own rules speak for them.
    const official = name !== 'profile'
    const ajv = createAjv({ allErrors, validateFormats: official })
    if (official) {
      addFormats(ajv)
      ajv.addFormat('uri-reference', true)
    }
    compiledSchemas.set(key, (validate = ajv.compile(schema)))
  }
  return validate
}

/** A definition of the AsyncAPI 3.1.0 schema, compiled alone (what a locked file contributes in a position). */
const definitionValidators = new Map<string, Validate>()
function definitionErrors(definition: string, value: unknown): NonNullable<Validate['errors']> {
  let validate = definitionValidators.get(definition)
  if (!validate) {
    const ajv = createAjv({ allErrors: true, validateFormats: true })
    addFormats(ajv)
    ajv.addFormat('uri-reference', true)
    ajv.addSchema(officialSchema(), 'asyncapi')
    definitionValidators.set(definition, (validate = ajv.compile({ $ref: `asyncapi#/definitions/${definition}` })))
  }
  return validate(value) ? [] : (validate.errors ?? [])
}

/** The definition a `$ref` position of the document holds, for the part a locked file supplies there. */
const EXTERNAL_POSITIONS: ReadonlyArray<[RegExp, string]> = [
  [/^\/(?:components\/)?channels\/[^/]+\/messages\/[^/]+\/\$ref$/, 'messageObject'],
  [/^\/components\/messages\/[^/]+\/\$ref$/, 'messageObject'],
  [/^\/(?:components\/)?channels\/[^/]+\/parameters\/[^/]+\/\$ref$/, 'parameter'],
  [/\/(?:payload|headers)(?:\/.*)?\/\$ref$|^\/components\/schemas\/.*\/\$ref$/, 'schema'],
]

/** The all-errors report for a value, or none when the first-error check passes it. */
function schemaErrors(name: 'asyncapi' | 'asyncapi-3.0.0' | 'profile', value: unknown): NonNullable<Validate['errors']> {
  if (compiled(name, false)(value)) return []
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
  const sites = refSites(doc).filter((site) => site.ref.startsWith('#') && INSIDE_BINDING.test(site.pointer))
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

/**
 * What a locked file contributes through a standard `$ref` (a message, a parameter, a schema) is
 * validated as the definition of the position that references it, and reported in that file at
 * the referenced value. O(size of the referenced parts).
 */
function externalParts(ctx: NatsContext, report: NatsReport): void {
  for (const { ref, pointer } of refSites(ctx.doc)) {
    if (ref.startsWith('#') || /^[a-z][a-z0-9+.-]*:/i.test(ref)) continue
    const definition = EXTERNAL_POSITIONS.find(([at]) => at.test(pointer))?.[1]
    const [path, fragment = ''] = ref.split('#')
    const file = definition && ctx.input.files.get(resolve(dirname(ctx.main.file), path!))
    if (!definition || !file) continue
    let value: unknown = file.source.value
    for (const token of splitPointer(fragment)) value = Array.isArray(value) ? value[Number(token)] : isObject(value) ? value[token] : undefined
    if (value === undefined) continue
    const seen = new Set<string>()
    for (const e of definitionErrors(definition, value)) {
      if (e.keyword === 'oneOf' || e.keyword === 'anyOf' || e.keyword === 'if' || (e.keyword === 'required' && e.params.missingProperty === '$ref')) continue
      const extra = e.keyword === 'additionalProperties' ? (e.params as { additionalProperty?: string }).additionalProperty : undefined
      const at = `${fragment}${e.instancePath}${extra === undefined ? '' : `/${escapeToken(extra)}`}`
      if (seen.has(at)) continue
      seen.add(at)
      report.in(
        file,
        at,
        `AsyncAPI 3.1.0 (${definition}, referenced from ${pointer}): ${extra === undefined ? `${at || 'the value'} ${e.message}` : `${JSON.stringify(extra)} is not a member it may have`}.`,
        { keyword: e.keyword, ref },
      )
    }
  }
}

export const profilePresent = natsRule({
  code: 'NATS_PROFILE_MISSING',
  description: 'The document has no `x-nats-contract` object.',
  check(ctx, report) {
    if (!isObject(ctx.doc['x-nats-contract']))
      report(
        '',
        'A NATS contract is an AsyncAPI document with an `x-nats-contract` object at its root; this one has none (its standard part is checked all the same). Add one, at least `x-nats-contract: { version: 0.2.0-draft, contract: <id>, deployment: { binding: <name>, minimumServerVersion: 2.11.0 } }`, with `tokenTypes` and `channels` for the channels it profiles (docs/nats.md).',
      )
  },
})

export const profileVersion = natsRule({
  code: 'NATS_PROFILE_VERSION',
  description: '`x-nats-contract.version` is not exactly `0.2.0-draft` (an unsupported profile).',
  check(ctx, report) {
    if (isObject(ctx.doc['x-nats-contract']) && ctx.profile.version !== '0.2.0-draft') {
      report(
        '/x-nats-contract/version',
        `Profile version ${JSON.stringify(ctx.profile.version ?? null)} is not supported; this compiler implements exactly 0.2.0-draft.`,
      )
    }
  },
})

const profileReports = new WeakMap<object, NonNullable<Validate['errors']>>()

/** The profile's shape errors, checked once per document (two rules read them). */
function profileErrors(ctx: Parameters<NatsRule['check']>[0]) {
  if (!isObject(ctx.doc['x-nats-contract'])) return []
  let errors = profileReports.get(ctx.profile)
  if (!errors) profileReports.set(ctx.profile, (errors = schemaErrors('profile', ctx.profile)))
  return errors
}

export const profileUnsupported = natsRule({
  code: 'NATS_PROFILE_UNSUPPORTED',
  description: 'A member the profile does not define (x-nats-contract is closed): an unsupported capability.',
  check(ctx, report) {
    for (const e of profileErrors(ctx)) {
      if (e.keyword !== 'additionalProperties') continue
      const name = e.params.additionalProperty as string
      report(
        `/x-nats-contract${e.instancePath}/${escapeToken(name)}`,
        `${JSON.stringify(name)} is not part of profile v0.2 here; unsupported capabilities fail the build.`,
        { member: name },
      )
    }
  },
})

export const profileShape = natsRule({
  code: 'NATS_PROFILE_SHAPE',
  description: 'A profile member is missing or has the wrong type or value.',
  check(ctx, report) {
    const seen = new Set<string>()
    for (const e of profileErrors(ctx)) {
      if (e.keyword === 'additionalProperties' || e.keyword === 'anyOf') continue
      const pointer = `/x-nats-contract${e.instancePath}${e.keyword === 'required' ? '/' + String(e.params.missingProperty) : ''}`
      if (seen.has(pointer)) continue
      seen.add(pointer)
      report(
        pointer,
        `x-nats-contract${e.instancePath.replace(/\//g, '.')} ${e.message}${e.params.allowedValues ? ` (${e.params.allowedValues.join(', ')})` : ''}.`,
        { keyword: e.keyword },
      )
    }
  },
})
