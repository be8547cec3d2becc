import { createAjv } from '../../core/standalone-validators.js'
import { DASP_LOAD_CODES } from './codes.js'
import type { Rule } from '../../core/rule.js'
import { escapeToken } from '../../runtime/shared/json-pointer.js'
import canonicalize from 'canonicalize'
import { isDigest, isObject } from './load.js'
import { MAX_DIAGNOSTICS_PER_CODE } from '../../core/diagnostics.js'
import { ANY_SCOPE, DaspContext, identityKey, type Definition } from './context.js'
import { decodedCredential } from '../../core/credential-scan.js'
import { CLOUDEVENTS_TYPES } from '../../runtime/dasp/cloudevents-types.js'
import { isAbsoluteUri } from '../../runtime/dasp/uri.js'
import { AUTHORITY_ATTRIBUTE, ENCRYPTED_CARRIER, isCommandType } from '../../runtime/dasp/index.js'

/** An own member (never `constructor` or `__proto__` from the prototype). */
const own = (object: Record<string, unknown>, key: string): any => (Object.hasOwn(object, key) ? object[key] : undefined)

/** Complexity (each rule here, worst case on any input under the size limits): each rule one pass over the requested extensions, their definitions and settings, with identities, requests and near misses looked up in maps; the dependency cycle check is one strongly-connected-components pass, O(definitions + dependencies). Whether a part was malformed (context.ts: `unreadable`, `unreadableWithin`) is a set lookup per level of its pointer; each array setting's element schema is compiled once. */

// Created on first use (a setting with an items schema): ajv costs every process to load.
let itemsAjv: ReturnType<typeof createAjv> | undefined

/** A DASP rule: one check, one stable code. */
export type DaspRule = Rule<DaspContext>

const REF_KEYS = ['core', 'profile', 'binding'] as const
const SCOPES = ['connection', 'session', 'command']
/** What a setting's `persistence` may state: it stays a session requirement, or is fresh per connection. */
const PERSISTENCE: readonly unknown[] = ['session', 'connection']
export { CLOUDEVENTS_TYPES }
/** Standard CloudEvents context attributes (required, optional and the JSON format's data members) and requestid. */
export const RESERVED_ATTRIBUTES = new Set([
  'specversion',
  'id',
  'source',
  'type',
  'datacontenttype',
  'dataschema',
  'subject',
  'time',
  'data',
  'data_base64',
  'requestid',
])

/**
 * An identity is an RFC 3986 `absolute-URI` (section 4.3), parsed by its grammar
 * (runtime/dasp/uri.ts, the one CloudEvents URI values are checked with): a scheme, an authority
 * or path of URI characters, `%` with two hex digits, no fragment. Raw non-ASCII, spaces, `%zz`,
 * `#` and a malformed IP literal are refused: peers compare identities exactly, so only one
 * spelling may exist. Linear.
 */
const isIdentityUri = (value: unknown) => isAbsoluteUri(value) && value.length > value.indexOf(':') + 1
/** A full commit id; hex in either case, as git reads it. */
const HEX40 = /^[0-9a-fA-F]{40}$/

/** Why a content pin is not sufficient, or undefined. */
export function pinProblem(pin: unknown): string | undefined {
  if (typeof pin === 'string') return `${JSON.stringify(pin)} is a name, not a pin: a URI, draft name, branch or package version alone does not pin content`
  if (!isObject(pin)) return 'a pin is a sha256-manifest or git-commit object'
  if (pin.kind === 'sha256-manifest') {
    if (typeof pin.manifest !== 'string' || !isDigest(pin.sha256)) return 'a sha256-manifest pin has a manifest path and a 64-hex sha256'
    return undefined
  }
  if (pin.kind === 'git-commit') {
    if (!isIdentityUri(pin.repository) || !HEX40.test(String(pin.commit)))
      return 'a git-commit pin names its repository and a full 40-hex commit (not a branch or tag)'
    return undefined
  }
  return `pin kind ${JSON.stringify(pin.kind)} is not sha256-manifest or git-commit`
}

/**
 * The selection's closed shape (shapes.ts, checked when the context is made). A problem is reported
 * at its member and stops no other rule: the rules read the selection without the malformed parts.
 */
export const shapeRule: DaspRule = {
  code: 'DASP_SHAPE',
  description:
    "The selection is not { dasp, core, profile, binding, definitions, extensions, policy? } with those members' types, closed (no other member); the other rules still judge the readable parts.",
  check(ctx) {
    for (const problem of ctx.shapeProblems.get(ctx.input.selection) ?? []) ctx.report(this.code, problem.pointer, problem.message)
  },
}

/** Each definition's closed shape (shapes.ts): reported at the member; the other rules read the definition without it. */
export const definitionShape: DaspRule = {
  code: 'DASP_DEFINITION_SHAPE',
  description:
    'A definition member of the wrong type, an unknown member, or an empty statement (a definition is closed: identity, status, content, supports, dependencies, scopes, operations, settings, attributes, processing, records, examples, evidenceLimits, scopeRelations); the other rules still judge the readable parts.',
  check(ctx) {
    for (const { loaded } of ctx.input.definitions) {
      for (const problem of ctx.shapeProblems.get(loaded) ?? []) ctx.reportIn(loaded, this.code, problem.pointer, problem.message)
    }
  },
}

const versionRule: DaspRule = {
  code: 'DASP_UNSUPPORTED_VERSION',
  description: 'The selection is for a DASP version other than draft-01.',
  check(ctx) {
    if (typeof ctx.selection.dasp === 'string' && ctx.selection.dasp !== 'draft-01')
      ctx.report(this.code, '/dasp', `DASP ${JSON.stringify(ctx.selection.dasp)} is not supported; these contracts are draft-01.`)
  },
}

const identityRule: DaspRule = {
  code: 'DASP_IDENTITY',
  description: 'An identity that is not an absolute URI with a non-empty version.',
  check(ctx) {
    const checkId = (uri: unknown, version: unknown, pointer: string, file = ctx.input.selection) => {
      if (!isIdentityUri(uri) || typeof version !== 'string' || version === '')
        ctx.reportIn(
          file,
          this.code,
          pointer,
          `An identity is an absolute URI (RFC 3986: a scheme, only URI characters, valid %-escapes, no fragment) and a non-empty version string${typeof uri === 'string' ? `; ${JSON.stringify(uri)} is not` : ''}.`,
        )
    }
    for (const key of REF_KEYS) if (isObject(ctx.selection[key])) checkId(ctx.selection[key].uri, ctx.selection[key].version, `/${key}`)
    for (const e of ctx.requested) checkId(e.uri, e.version, `/extensions/${e.index}`)
    for (const d of ctx.definitions) checkId(d.uri, d.version, '/identity', d.file)
  },
}

/**
 * DASP-EXT-008: "Published version content MUST be immutable": two definitions of one identity and
 * version must be the same definition. Compared as canonical JSON (RFC 8785), so key order and
 * number spelling do not count; the first listed is the one used, and the later one is reported.
 * Complexity: O(total size of the definitions): one canonical text each, one map lookup.
 */
const immutableVersion: DaspRule = {
  code: 'DASP_VERSION_CONFLICT',
  description: 'Two definitions of one identity and version whose content differs (DASP-EXT-008: published version content is immutable).',
  check(ctx) {
    const first = new Map<string, { definition: Definition; text: string | undefined }>()
    for (const d of ctx.definitions) {
      const key = identityKey(d.uri, d.version)
      const text = canonicalize(d.raw)
      const seen = first.get(key)
      if (seen === undefined) first.set(key, { definition: d, text })
      else if (seen.text !== text)
        ctx.reportIn(
          d.file,
          this.code,
          '/identity',
          `${d.uri} ${d.version} is also defined, differently, in ${seen.definition.file.file}; a published version's content never changes (a change is a new version).`,
          { uri: d.uri, version: d.version, first: seen.definition.file.file },
        )
    }
  },
}

const REQUIRED_PARTS = [
  'identity',
  'status',
  'content',
  'supports',
  'dependencies',
  'scopes',
  'operations',
  'settings',
  'attributes',
  'processing',
  'records',
  'examples',
  'evidenceLimits',
]
const RECORD_PARTS = ['saved', 'retry', 'replay', 'reconnect', 'upgrade']

const definitionComplete: DaspRule = {
  code: 'DASP_DEFINITION_INCOMPLETE',
  description:
    "A definition lacks a part DASP-EXT-002 requires (dependencies: [] states none; scopeRelations when there are several scopes; the five record rules; each setting's persistence, session or connection).",
  check(ctx) {
    for (const d of ctx.definitions) {
      // A part that is there but malformed is the shape's problem, not a missing part.
      const stated = (pointer: string, present: boolean) => present || ctx.unreadable(d.file, pointer)
      for (const part of REQUIRED_PARTS)
        if (!stated(`/${part}`, part in d.value))
          ctx.reportIn(
            d.file,
            this.code,
            '',
            `The definition of ${d.uri} ${d.version} lacks ${part}${part === 'dependencies' ? ' (write [] to state that there are none)' : ''}.`,
            { part },
          )
      if (Array.isArray(d.value.scopes) && d.value.scopes.length > 1 && !stated('/scopeRelations', typeof d.value.scopeRelations === 'string'))
        ctx.reportIn(d.file, this.code, '/scopes', 'A definition with several scopes defines their relationship (scopeRelations).', { part: 'scopeRelations' })
      if (isObject(d.value.records))
        for (const part of RECORD_PARTS)
          if (!stated(`/records/${part}`, part in d.value.records))
            ctx.reportIn(d.file, this.code, '/records', `The definition's records lack the ${part} rule.`, { part: `records.${part}` })
      // "It MUST state which settings remain session requirements and which are fresh connection
      // settings": a setting without it would silently drop out of the session floor.
      if (isObject(d.value.settings))
        for (const [name, spec] of Object.entries(d.value.settings))
          if (isObject(spec) && !stated(`/settings/${escapeToken(name)}/persistence`, PERSISTENCE.includes(spec.persistence as string)))
            ctx.reportIn(
              d.file,
              this.code,
              `/settings/${escapeToken(name)}${'persistence' in spec ? '/persistence' : ''}`,
              `Setting ${name} states whether it is a session requirement or a fresh connection setting: persistence "session" or "connection".`,
              { part: `settings.${name}.persistence` },
            )
      if (isObject(d.value.supports))
        for (const key of ['core', 'profiles', 'bindings'])
          if (!stated(`/supports/${key}`, key in d.value.supports))
            ctx.reportIn(d.file, this.code, '/supports', `supports lacks ${key}.`, { part: `supports.${key}` })
    }
  },
}

const pinRule: DaspRule = {
  code: 'DASP_PIN_INSUFFICIENT',
  description: 'A content reference that is not a pin: a URI, draft name, branch or package version alone, or a malformed sha256-manifest or git-commit pin.',
  check(ctx) {
    for (const key of REF_KEYS) {
      const ref = ctx.selection[key]
      if (isObject(ref) && 'content' in ref) {
        const problem = pinProblem(ref.content)
        if (problem) ctx.report(this.code, `/${key}/content`, `${problem}.`)
      }
    }
    for (const d of ctx.definitions) {
      if ('content' in d.value) {
        const problem = pinProblem(d.value.content)
        if (problem) ctx.reportIn(d.file, this.code, '/content', `${problem}.`)
      }
      const supports = isObject(d.value.supports) ? d.value.supports : {}
      for (const key of ['core', 'profiles', 'bindings']) {
        const list = supports[key]
        if (Array.isArray(list))
          list.forEach((ref: unknown, i: number) => {
            // A malformed entry is the shape's problem; only a readable one's pin is judged here.
            const problem = isObject(ref) && 'content' in ref ? pinProblem(ref.content) : undefined
            if (problem) ctx.reportIn(d.file, this.code, `/supports/${key}/${i}/content`, `${problem}.`)
          })
      }
    }
  },
}

/** Near misses people make: a trailing slash, another case, `draft-1` for `draft-01`. */
function loose(uri: string, version: string): string {
  return `${uri.toLowerCase().replace(/\/+$/, '')}\u0000${version.toLowerCase().replace(/(\D)0+(\d)/g, '$1$2')}`
}

const nearIndex = new WeakMap<DaspContext, { exact: Map<string, Definition>; uri: Map<string, Definition> }>()

/** The first definition whose identity is a near miss of this one (same loosened URI and version, else URI): two map lookups. */
function closest(ctx: DaspContext, uri: string, version: string): Definition | undefined {
  let index = nearIndex.get(ctx)
  if (!index) {
    index = { exact: new Map(), uri: new Map() }
    for (const d of ctx.definitions) {
      const both = loose(d.uri, d.version)
      const onlyUri = loose(d.uri, '')
      if (!index.exact.has(both)) index.exact.set(both, d)
      if (!index.uri.has(onlyUri)) index.uri.set(onlyUri, d)
    }
    nearIndex.set(ctx, index)
  }
  return index.exact.get(loose(uri, version)) ?? index.uri.get(loose(uri, ''))
}

const unknownExtension: DaspRule = {
  code: 'DASP_UNKNOWN_EXTENSION',
  description: 'A requested extension has no definition with exactly that URI and version (a near miss names the closest definition).',
  check(ctx) {
    // A definitions entry that gave nothing to read might be the one asked for: no verdict.
    if (ctx.someDefinitionUnreadable) return
    for (const e of ctx.requested) {
      if (ctx.definitionOf(e.uri, e.version)) continue
      const near = closest(ctx, e.uri, e.version)
      ctx.report(
        this.code,
        `/extensions/${e.index}`,
        `No definition is exactly ${e.uri} ${e.version}${near ? `; did you mean ${near.uri} ${near.version}? Identities are compared exactly` : ''}.`,
        near ? { closest: { uri: near.uri, version: near.version } } : undefined,
      )
    }
  },
}

const sameRef = (a: unknown, b: unknown) =>
  isObject(a) && isObject(b) && a.uri === b.uri && a.version === b.version && canonicalize(a.content) === canonicalize(b.content)

const supportRule: DaspRule = {
  code: 'DASP_UNSUPPORTED_CONTRACT',
  description: "A requested extension's definition does not support the selected core, profile or binding exactly (URI, version and content pin).",
  check(ctx) {
    for (const e of ctx.requested) {
      const d = ctx.definitionOf(e.uri, e.version)
      const supports = d && isObject(d.value.supports) ? d.value.supports : undefined
      if (!supports) continue
      for (const [key, list] of [
        ['core', 'core'],
        ['profile', 'profiles'],
        ['binding', 'bindings'],
      ] as const) {
        const candidates = supports[list]
        if (key === 'profile' && candidates === 'any') continue
        // A list that is missing (DASP_DEFINITION_INCOMPLETE) or malformed, or a selected contract
        // that is (DASP_SHAPE), cannot be compared; that rule says so.
        if (!Array.isArray(candidates) || !isObject(ctx.selection[key])) continue
        if (ctx.unreadableWithin(d!.file, `/supports/${list}`) || ctx.unreadableWithin(ctx.input.selection, `/${key}`)) continue
        if (!candidates.some((ref: unknown) => sameRef(ref, ctx.selection[key]))) {
          ctx.report(
            this.code,
            `/extensions/${e.index}`,
            `${e.uri} ${e.version} does not support the selected ${key} ${ctx.selection[key]?.uri} ${ctx.selection[key]?.version} with that content pin.`,
            { contract: key },
          )
        }
      }
    }
  },
}

const dependencyRules = (): DaspRule[] => {
  // Only complete dependencies: one the shape found malformed (DASP_DEFINITION_SHAPE) decides nothing here.
  const depsOf = (d: Definition): Array<{ uri: string; version: string; scope: string }> =>
    Array.isArray(d.value.dependencies)
      ? d.value.dependencies.filter(
          (dep: unknown) => isObject(dep) && typeof dep.uri === 'string' && typeof dep.version === 'string' && typeof dep.scope === 'string',
        )
      : []
  /** Each dependency a requested extension's definition declares, with the extension and definition. */
  function* requestedDependencies(ctx: Parameters<DaspRule['check']>[0]) {
    for (const e of ctx.requested) {
      const d = ctx.definitionOf(e.uri, e.version)
      if (d) for (const dep of depsOf(d)) yield { e, d, dep }
    }
  }
  return [
    {
      code: 'DASP_DEPENDENCY_MISSING',
      description: 'The request lacks a required dependency at its exact version and scope.',
      check(ctx) {
        for (const { e, dep } of requestedDependencies(ctx)) {
          if (!ctx.mayBeRequested(dep.uri, dep.version, dep.scope)) {
            const other = ctx.requestedWithUri(dep.uri)
            ctx.report(
              this.code,
              `/extensions/${e.index}`,
              `${e.uri} ${e.version} requires ${String(dep.uri)} ${String(dep.version)} in ${String(dep.scope)} scope${other ? `; the request has ${other.version} in ${String(other.scope)} scope` : ''}. The full dependency set is requested, never added silently.`,
              { dependency: dep },
            )
          }
        }
      },
    },
    {
      code: 'DASP_DEPENDENCY_UNSUPPORTED',
      description: "A required dependency has no definition among the selection's definitions.",
      check(ctx) {
        // A definitions entry that gave nothing to read might be the dependency's definition.
        if (ctx.someDefinitionUnreadable) return
        for (const { d, dep } of requestedDependencies(ctx)) {
          if (!ctx.definitionOf(dep.uri, dep.version))
            ctx.reportIn(
              d.file,
              this.code,
              '/dependencies',
              `Dependency ${dep.uri} ${dep.version} has no definition here: an unsupported dependency fails selection.`,
              { dependency: dep },
            )
        }
      },
    },
    {
      code: 'DASP_DEPENDENCY_CYCLE',
      description: 'The required dependencies of the selected extensions form a cycle.',
      check(ctx) {
        // Strongly connected components of the dependency graph (Tarjan's algorithm, iterative):
        // a requested extension is on a cycle when its component has more than one member or a
        // dependency on itself. O(V + E) once, where a search from every requested extension,
        // copying its path at every step, was quadratic and worse. The cycle a diagnostic names
        // is found by one breadth-first search inside the component, for the first
        // MAX_DIAGNOSTICS_PER_CODE extensions reported (the rest are counted, not shown).
        const edges = (key: string): string[] => {
          const d = ctx.byIdentity.get(key)
          return d ? depsOf(d).map((dep) => identityKey(dep.uri, dep.version)) : []
        }
        const component = stronglyConnected(
          ctx.requested.map((e) => identityKey(e.uri, e.version)),
          edges,
        )
        const reported = new Set<string>()
        for (const start of ctx.requested) {
          const root = identityKey(start.uri, start.version)
          const members = component.get(root)
          if (!members || reported.has(root) || !(members.size > 1 || edges(root).includes(root))) continue
          reported.add(root)
          const path = reported.size <= MAX_DIAGNOSTICS_PER_CODE ? cyclePath(root, members, edges, ctx) : undefined
          ctx.report(
            this.code,
            `/extensions/${start.index}`,
            path ? `Required dependencies cycle: ${path.join(' -> ')}.` : `${start.uri} ${start.version} is on a cycle of required dependencies.`,
          )
        }
      },
    },
  ]
}

const duplicateUri: DaspRule = {
  code: 'DASP_DUPLICATE_URI',
  description: 'Two versions of one extension URI in one request.',
  check(ctx) {
    const first = new Map<string, { version: string; index: number }>()
    for (const e of ctx.requested) {
      const seen = first.get(e.uri)
      if (seen && seen.version !== e.version)
        ctx.report(
          this.code,
          `/extensions/${e.index}/version`,
          `${e.uri} is requested at ${seen.version} (extensions/${seen.index}) and at ${e.version}; peers select one exact version.`,
        )
      else if (!seen) first.set(e.uri, { version: e.version, index: e.index })
    }
  },
}

/**
 * DASP-EXT-003 has three scopes: connection, session and command. A requested scope must be one of
 * them and one its definition supports; a definition's scopes, its dependencies' scopes and a
 * policy's scopes are among the three too (a fourth would never match a selection).
 */
const scopeRule: DaspRule = {
  code: 'DASP_SCOPE',
  description:
    "A requested scope the definition does not support, or a scope (requested, a definition's, a dependency's, a policy's) that is not connection, session or command.",
  check(ctx) {
    const notAScope = (scope: unknown) => `Scope ${JSON.stringify(scope)} is not connection, session or command (DASP-EXT-003).`
    for (const e of ctx.requested) {
      // A scope that is missing or not a string is the selection's shape problem.
      if (typeof e.scope !== 'string') continue
      const d = ctx.definitionOf(e.uri, e.version)
      if (!SCOPES.includes(e.scope)) ctx.report(this.code, `/extensions/${e.index}/scope`, notAScope(e.scope))
      else if (d && Array.isArray(d.value.scopes) && !ctx.unreadableWithin(d.file, '/scopes') && !d.value.scopes.includes(e.scope))
        ctx.report(this.code, `/extensions/${e.index}/scope`, `${e.uri} ${e.version} supports scopes ${d.value.scopes.join(', ')}, not ${e.scope}.`)
    }
    for (const d of ctx.definitions) {
      ;(Array.isArray(d.value.scopes) ? d.value.scopes : []).forEach((scope: unknown, i: number) => {
        if (typeof scope === 'string' && !SCOPES.includes(scope)) ctx.reportIn(d.file, this.code, `/scopes/${i}`, notAScope(scope))
      })
      ;(Array.isArray(d.value.dependencies) ? d.value.dependencies : []).forEach((dep: unknown, i: number) => {
        if (isObject(dep) && typeof dep.scope === 'string' && !SCOPES.includes(dep.scope))
          ctx.reportIn(d.file, this.code, `/dependencies/${i}/scope`, notAScope(dep.scope))
      })
    }
    const requires = isObject(ctx.selection.policy) && Array.isArray(ctx.selection.policy.requires) ? ctx.selection.policy.requires : []
    requires.forEach((r: unknown, i: number) => {
      if (isObject(r) && typeof r.scope === 'string' && !SCOPES.includes(r.scope)) ctx.report(this.code, `/policy/requires/${i}/scope`, notAScope(r.scope))
    })
  },
}

/** The setting types of the DASP layout, and the members each gives a meaning to (besides type, persistence, unit, description). */
const SETTING_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  integer: ['minimum', 'maximum'],
  string: [],
  boolean: [],
  enum: ['values'],
  array: ['items', 'minItems', 'maxItems', 'uniqueBy'],
}
const TYPE_MEMBERS = ['minimum', 'maximum', 'values', 'items', 'minItems', 'maxItems', 'uniqueBy']

// The boolean schemas `true` and `false` as the objects they mean (a WeakMap keys objects only).
const ANY_ITEM = {}
const NO_ITEM = { not: {} }
/** The compiled element schema of an array setting, once per schema object; a string when it does not compile. */
const itemValidators = new WeakMap<object, import('ajv').ValidateFunction | string>()

function itemValidator(items: unknown): import('ajv').ValidateFunction | string {
  if (typeof items === 'boolean') return itemValidator(items ? ANY_ITEM : NO_ITEM)
  if (!isObject(items)) return 'items is not a JSON Schema'
  let known = itemValidators.get(items)
  if (known === undefined) {
    try {
      // A schema with its own $id gets an ajv of its own: two settings may reuse one $id.
      const ajv = JSON.stringify(items).includes('"$id"')
        ? createAjv({ allErrors: true, safePatterns: true })
        : (itemsAjv ??= createAjv({ allErrors: true, safePatterns: true }))
      known = ajv.compile(items)
    } catch (error) {
      known = error instanceof Error ? error.message : String(error)
    }
    itemValidators.set(items, known)
  }
  return known
}

/**
 * Why a setting's definition cannot check a value (DASP-EXT-002: closed settings "with value, unit,
 * limit, and validation rules"), each with the member it is about: a type the layout does not
 * have, a member that means nothing for the type (it would be ignored in silence), an enum without
 * values, an array without items or with items that are not a JSON Schema, bounds that exclude
 * every value.
 */
export function settingDefinitionProblems(spec: Record<string, any>): Array<{ member?: string; message: string }> {
  if (typeof spec.type !== 'string') return []
  const members = SETTING_MEMBERS[spec.type]
  if (!Object.hasOwn(SETTING_MEMBERS, spec.type) || !members)
    return [{ member: 'type', message: `Setting type ${JSON.stringify(spec.type)} is not integer, string, boolean, enum or array.` }]
  const out: Array<{ member?: string; message: string }> = []
  for (const m of TYPE_MEMBERS)
    if (m in spec && !members.includes(m))
      out.push({
        member: m,
        message: `${m} means nothing for a${spec.type === 'integer' || spec.type === 'enum' || spec.type === 'array' ? 'n' : ''} ${spec.type} setting; it would be ignored.`,
      })
  if (spec.type === 'enum' && !('values' in spec)) out.push({ message: 'An enum setting lists its values.' })
  if (spec.type === 'array') {
    if (!('items' in spec)) out.push({ message: 'An array setting has items, a JSON Schema for one element.' })
    else {
      const validate = itemValidator(spec.items)
      if (typeof validate === 'string') out.push({ member: 'items', message: `items is not a JSON Schema that can be checked: ${validate}.` })
    }
    if (typeof spec.minItems === 'number' && typeof spec.maxItems === 'number' && spec.minItems > spec.maxItems)
      out.push({ member: 'minItems', message: `minItems ${spec.minItems} is above maxItems ${spec.maxItems}: no value fits.` })
  }
  if (spec.type === 'integer' && typeof spec.minimum === 'number' && typeof spec.maximum === 'number' && spec.minimum > spec.maximum)
    out.push({ member: 'minimum', message: `minimum ${spec.minimum} is above maximum ${spec.maximum}: no value fits.` })
  return out
}

const settingDefinition: DaspRule = {
  code: 'DASP_SETTING_DEFINITION',
  description:
    'A setting definition that cannot check a value: a type other than integer, string, boolean, enum or array, a member meaningless for its type, an enum without values, an array without items or with items that are not a JSON Schema, or bounds no value fits.',
  check(ctx) {
    for (const d of ctx.definitions) {
      if (!isObject(d.value.settings)) continue
      for (const [name, spec] of Object.entries(d.value.settings)) {
        if (!isObject(spec)) continue
        for (const problem of settingDefinitionProblems(spec))
          ctx.reportIn(d.file, this.code, `/settings/${escapeToken(name)}${problem.member ? `/${escapeToken(problem.member)}` : ''}`, problem.message, {
            setting: name,
          })
      }
    }
  },
}

/** Why a setting value breaks its closed definition, or undefined (a definition with problems of its own checks nothing: see settingDefinitionProblems). */
export function settingProblem(spec: Record<string, any>, value: unknown): string | undefined {
  switch (spec.type) {
    case 'integer':
      if (!Number.isSafeInteger(value)) return 'must be an integer'
      if (typeof spec.minimum === 'number' && (value as number) < spec.minimum) return `must be at least ${spec.minimum}${spec.unit ? ` ${spec.unit}` : ''}`
      if (typeof spec.maximum === 'number' && (value as number) > spec.maximum) return `must be at most ${spec.maximum}${spec.unit ? ` ${spec.unit}` : ''}`
      return undefined
    case 'string':
      return typeof value === 'string' ? undefined : 'must be a string'
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be a boolean'
    case 'enum':
      return Array.isArray(spec.values) && spec.values.some((v: unknown) => canonicalize(v) === canonicalize(value))
        ? undefined
        : `must be one of ${JSON.stringify(spec.values)}`
    case 'array': {
      if (!Array.isArray(value)) return 'must be an array'
      if (typeof spec.minItems === 'number' && value.length < spec.minItems) return `needs at least ${spec.minItems} items`
      if (typeof spec.maxItems === 'number' && value.length > spec.maxItems) return `takes at most ${spec.maxItems} items`
      if ('items' in spec) {
        const validate = itemValidator(spec.items)
        const bad = typeof validate === 'string' ? -1 : value.findIndex((item) => !validate(item))
        if (bad !== -1 && typeof validate !== 'string') return `item ${bad} ${validate.errors?.[0]?.message ?? 'breaks the item schema'}`
      }
      if (typeof spec.uniqueBy === 'string') {
        const keys = value.map((item) => canonicalize(isObject(item) ? own(item, spec.uniqueBy) : undefined))
        if (new Set(keys).size !== keys.length) return `items must have distinct ${spec.uniqueBy}`
      }
      return undefined
    }
    default:
      return `has an unknown setting type ${JSON.stringify(spec.type)}`
  }
}

const settingsRule: DaspRule = {
  code: 'DASP_SETTINGS',
  description:
    'A setting the definition does not define, a defined setting missing (settings are complete), or a value out of its type, range, items or uniqueness rules.',
  check(ctx) {
    for (const e of ctx.requested) {
      const d = ctx.definitionOf(e.uri, e.version)
      if (!d || !isObject(d.value.settings) || !isObject(e.settings)) continue
      const defined = d.value.settings as Record<string, Record<string, any>>
      for (const [name, value] of Object.entries(e.settings)) {
        const spec = own(defined, name)
        const at = `/extensions/${e.index}/settings/${escapeToken(name)}`
        // A setting whose definition is malformed or cannot check a value is the definition's problem.
        if (ctx.unreadableWithin(d.file, `/settings/${escapeToken(name)}`)) continue
        if (isObject(spec) && typeof spec.type !== 'string') continue
        if (!isObject(spec)) ctx.report(this.code, at, `${e.uri} ${e.version} defines no setting ${JSON.stringify(name)}; settings are closed.`)
        else if (settingDefinitionProblems(spec).length === 0) {
          const problem = settingProblem(spec, value)
          if (problem) ctx.report(this.code, at, `Setting ${name} ${problem}.`, { setting: name })
        }
      }
      for (const name of Object.keys(defined))
        if (!Object.hasOwn(e.settings, name))
          ctx.report(this.code, `/extensions/${e.index}/settings`, `Setting ${name} is missing: a selection carries the complete settings.`, { setting: name })
    }
  },
}

const settingsConflict: DaspRule = {
  code: 'DASP_SETTINGS_CONFLICT',
  description:
    'One extension selected twice in one scope with different settings, or in several scopes with different values for a setting that persists with the session.',
  check(ctx) {
    const seen = new Map<string, { index: number; scope: unknown; settings: Record<string, unknown> }>()
    for (const e of ctx.requested) {
      const key = identityKey(e.uri, e.version)
      const d = ctx.definitionOf(e.uri, e.version)
      const other = seen.get(key)
      if (!other || !d || !isObject(e.settings)) {
        if (isObject(e.settings)) seen.set(key, { index: e.index, scope: e.scope, settings: e.settings })
        continue
      }
      // In one scope the two selections are one selection: every setting must agree. Across scopes,
      // the settings that persist with the session must.
      const sameScope = other.scope === e.scope
      for (const [name, spec] of Object.entries(isObject(d.value.settings) ? d.value.settings : {})) {
        if (
          isObject(spec) &&
          (sameScope || spec.persistence === 'session') &&
          canonicalize(own(other.settings, name)) !== canonicalize(own(e.settings as Record<string, unknown>, name))
        ) {
          ctx.report(
            this.code,
            `/extensions/${e.index}/settings/${escapeToken(name)}`,
            sameScope
              ? `${e.uri} is selected twice in scope ${String(e.scope)} (extensions/${other.index}) with different ${name}; one selection has one value.`
              : `${e.uri} is selected in two scopes with different ${name}; session settings cannot conflict across scopes.`,
          )
        }
      }
    }
  },
}

const attributeRules = (): DaspRule[] => {
  const attributes = (ctx: DaspContext) =>
    ctx.definitions.flatMap((d) =>
      Array.isArray(d.value.attributes) ? d.value.attributes.map((a: unknown, i: number) => ({ d, a, i })).filter((x: { a: unknown }) => isObject(x.a)) : [],
    ) as Array<{ d: Definition; a: Record<string, any>; i: number }>
  return [
    {
      code: 'DASP_ATTRIBUTE_NAME',
      description: 'An attribute name that is not lowercase ASCII letters and digits, or that redefines a standard CloudEvents attribute or requestid.',
      check(ctx) {
        for (const { d, a, i } of attributes(ctx)) {
          // A name that is missing or not a string is the shape's problem.
          if (typeof a.name !== 'string') continue
          if (!/^[a-z0-9]+$/.test(a.name))
            ctx.reportIn(d.file, this.code, `/attributes/${i}/name`, `Attribute name ${JSON.stringify(a.name)} must be lowercase ASCII letters and digits.`)
          else if (RESERVED_ATTRIBUTES.has(a.name))
            ctx.reportIn(
              d.file,
              this.code,
              `/attributes/${i}/name`,
              `${a.name} is a standard CloudEvents attribute or requestid; an extension cannot redefine it.`,
            )
        }
      },
    },
    {
      code: 'DASP_ATTRIBUTE_TYPE',
      description: 'An attribute type outside the CloudEvents type system, or an attribute without its event types or class.',
      check(ctx) {
        for (const { d, a, i } of attributes(ctx)) {
          if (typeof a.type === 'string' && !CLOUDEVENTS_TYPES.includes(a.type as never))
            ctx.reportIn(
              d.file,
              this.code,
              `/attributes/${i}/type`,
              `Attribute type ${JSON.stringify(a.type)} is not a CloudEvents type (${CLOUDEVENTS_TYPES.join(', ')}).`,
            )
          if ((!Array.isArray(a.on) || a.on.length === 0) && !ctx.unreadable(d.file, `/attributes/${i}/on`))
            ctx.reportIn(d.file, this.code, `/attributes/${i}`, 'An attribute names the event types that may carry it (on).')
          if (a.class !== 'saved' && a.class !== 'delivery' && !ctx.unreadable(d.file, `/attributes/${i}/class`))
            ctx.reportIn(
              d.file,
              this.code,
              `/attributes/${i}${'class' in a ? '/class' : ''}`,
              'An attribute is saved event data or delivery metadata (class: saved | delivery).',
            )
        }
      },
    },
    {
      code: 'DASP_ATTRIBUTE_PLACEMENT',
      description: "An attribute allowed on an event type its definition's operations do not name.",
      check(ctx) {
        for (const { d, a, i } of attributes(ctx)) {
          // Operations missing (DASP_DEFINITION_INCOMPLETE) or malformed (the shape's) name nothing to compare with.
          if (!Array.isArray(d.value.operations) || ctx.unreadableWithin(d.file, '/operations')) continue
          const operations: unknown[] = d.value.operations
          for (const type of Array.isArray(a.on) ? a.on : []) {
            // The carrier is DASP_CARRIER_ATTRIBUTE's, whatever the operations say.
            if (typeof type === 'string' && type !== ENCRYPTED_CARRIER && !operations.includes(type))
              ctx.reportIn(
                d.file,
                this.code,
                `/attributes/${i}/on`,
                `${String(a.name)} is allowed on ${JSON.stringify(type)}, which is not an operation of this extension (${operations.join(', ')}).`,
              )
          }
        }
      },
    },
    {
      code: 'DASP_ATTRIBUTE_CONFLICT',
      description: 'Two selected definitions define one attribute name differently, or one definition defines a name twice.',
      check(ctx) {
        const selected = new Set(ctx.requested.map((e) => identityKey(e.uri, e.version)))
        const seen = new Map<string, { d: Definition; a: Record<string, any>; i: number }>()
        for (const { d, a, i } of attributes(ctx)) {
          if (!selected.has(identityKey(d.uri, d.version)) || typeof a.name !== 'string') continue
          const other = seen.get(a.name)
          // One definition defining a name twice conflicts with itself, even with equal text.
          if (other && other.d === d)
            ctx.reportIn(d.file, this.code, `/attributes/${i}`, `Attribute ${a.name} is defined twice in ${d.uri} ${d.version} (attributes/${other.i}).`)
          else if (other && canonicalize(other.a) !== canonicalize(a))
            ctx.reportIn(d.file, this.code, `/attributes/${i}`, `Attribute ${a.name} is also defined, differently, by ${other.d.uri} ${other.d.version}.`)
          else if (!other) seen.set(a.name, { d, a, i })
        }
      },
    },
  ]
}

export const ENCRYPTED_DELIVERY = 'https://dasp-protocol.github.io/dasp/contracts/encrypted-delivery'
export const PROOF_OF_AUTHORITY = 'https://dasp-protocol.github.io/dasp/contracts/proof-of-authority'

/**
 * DASP-EXT-007: `dasp.encrypted` is an outer binding carrier, not a CloudEvents extension
 * attribute, and "its closed outer shape and protected header remain unchanged": no extension
 * places an attribute on it (an attribute travels on the inner core event). Any definition, any
 * attribute. O(attributes x event types).
 */
const carrierAttribute: DaspRule = {
  code: 'DASP_CARRIER_ATTRIBUTE',
  description:
    'An attribute placed on the dasp.encrypted outer carrier, whose closed outer shape takes no attribute (DASP-EXT-007); it goes on the inner core event.',
  check(ctx) {
    for (const d of ctx.definitions) {
      ;(Array.isArray(d.value.attributes) ? d.value.attributes : []).forEach((a: unknown, i: number) => {
        if (!isObject(a) || !Array.isArray(a.on)) return
        a.on.forEach((type: unknown, j: number) => {
          if (type === ENCRYPTED_CARRIER)
            ctx.reportIn(
              d.file,
              this.code,
              `/attributes/${i}/on/${j}`,
              `${typeof a.name === 'string' ? a.name : 'This attribute'} is placed on the ${ENCRYPTED_CARRIER} outer carrier, whose closed outer shape takes no attribute (DASP-EXT-007); place it on the inner core event.`,
            )
        })
      })
    }
  },
}

/**
 * DASP-EXT-007's two draft identities, as its table and text fix them: encrypted delivery has no
 * authority extension dependency, proof of authority no encrypted-delivery dependency (host policy
 * can require both); `daspauthority` is proof of authority's String attribute, on commands only
 * (the carrier is DASP_CARRIER_ATTRIBUTE's), outside semantic retry equality (so delivery
 * metadata, never a saved attribute, which duplicate comparison includes: DASP-EXT-006); and the
 * authority selection's closed object "does not acquire a version field" (no `version` setting).
 * O(dependencies + attributes + settings).
 */
const draftIdentities: DaspRule = {
  code: 'DASP_DRAFT_IDENTITY',
  description:
    'A definition of a DASP-EXT-007 draft identity against its table: encrypted delivery depending on proof of authority or the reverse, daspauthority other than a delivery-class String attribute of proof of authority on commands only, or a version setting in the authority selection.',
  check(ctx) {
    const forbidden: Record<string, string> = { [ENCRYPTED_DELIVERY]: PROOF_OF_AUTHORITY, [PROOF_OF_AUTHORITY]: ENCRYPTED_DELIVERY }
    for (const d of ctx.definitions) {
      const other = d.version === 'draft-01' && Object.hasOwn(forbidden, d.uri) ? forbidden[d.uri] : undefined
      ;(Array.isArray(d.value.dependencies) ? d.value.dependencies : []).forEach((dep: unknown, i: number) => {
        if (other !== undefined && isObject(dep) && dep.uri === other)
          ctx.reportIn(
            d.file,
            this.code,
            `/dependencies/${i}`,
            `${d.uri} draft-01 has no ${other === PROOF_OF_AUTHORITY ? 'authority' : 'encrypted-delivery'} dependency (DASP-EXT-007); host policy can require both instead.`,
          )
      })
      if (d.uri === PROOF_OF_AUTHORITY && d.version === 'draft-01' && isObject(d.value.settings) && Object.hasOwn(d.value.settings, 'version'))
        ctx.reportIn(
          d.file,
          this.code,
          '/settings/version',
          'The authority selection contract keeps its existing closed object, which does not acquire a version field (DASP-EXT-007).',
        )
      ;(Array.isArray(d.value.attributes) ? d.value.attributes : []).forEach((a: unknown, i: number) => {
        if (!isObject(a) || a.name !== AUTHORITY_ATTRIBUTE) return
        if (d.uri !== PROOF_OF_AUTHORITY)
          ctx.reportIn(
            d.file,
            this.code,
            `/attributes/${i}/name`,
            'daspauthority is the attribute of proof of authority (DASP-EXT-007); another extension cannot define it.',
          )
        if (typeof a.type === 'string' && a.type !== 'String')
          ctx.reportIn(d.file, this.code, `/attributes/${i}/type`, `daspauthority is a String attribute (DASP-EXT-007), not ${JSON.stringify(a.type)}.`)
        if (a.class === 'saved')
          ctx.reportIn(
            d.file,
            this.code,
            `/attributes/${i}/class`,
            'daspauthority stays outside semantic retry equality (DASP-EXT-007), so it is delivery metadata: a saved attribute is part of duplicate comparison (DASP-EXT-006).',
          )
        const on: unknown[] = Array.isArray(a.on) ? a.on : []
        on.forEach((type, j) => {
          if (typeof type !== 'string' || type === ENCRYPTED_CARRIER || isCommandType(type)) return
          ctx.reportIn(d.file, this.code, `/attributes/${i}/on/${j}`, `daspauthority goes on commands only (DASP-EXT-007), not on ${JSON.stringify(type)}.`)
        })
      })
    }
  },
}

const policyRule: DaspRule = {
  code: 'DASP_POLICY',
  description: 'The selection omits or weakens what policy.requires demands (the exact extension, version and scope).',
  check(ctx) {
    const requires = isObject(ctx.selection.policy) && Array.isArray(ctx.selection.policy.requires) ? ctx.selection.policy.requires : []
    requires.forEach((r: unknown, i: number) => {
      // An entry without a readable identity or scope is the shape's problem; an unreadable request entry might be the one required.
      if (!isObject(r) || typeof r.uri !== 'string' || typeof r.version !== 'string' || ctx.unreadable(ctx.input.selection, `/policy/requires/${i}/scope`))
        return
      if (!ctx.mayBeRequested(r.uri, r.version, r.scope === undefined ? ANY_SCOPE : r.scope)) {
        ctx.report(
          this.code,
          `/policy/requires/${i}`,
          `Policy requires ${String(r.uri)} ${String(r.version)}${r.scope ? ` in ${String(r.scope)} scope` : ''}; the selection does not request it so, and a host refuses it.`,
          { required: r },
        )
      }
    })
  },
}

/** The rules, run after the shapes whatever the shapes found (each reads the readable view and skips what depends on a malformed part). */
export const daspRules: readonly DaspRule[] = [
  versionRule,
  identityRule,
  immutableVersion,
  definitionComplete,
  pinRule,
  unknownExtension,
  supportRule,
  ...dependencyRules(),
  duplicateUri,
  scopeRule,
  settingDefinition,
  settingsRule,
  settingsConflict,
  ...attributeRules(),
  carrierAttribute,
  draftIdentities,
  policyRule,
]

/**
 * A secret in the selection or a definition ships with every application built from it (their
 * strings reach the generated module). Both are strict JSON, with no comments: every character
 * outside the syntax is in a decoded key or string, so those are scanned. Checked with the shapes
 * (whatever else is wrong). O(documents): each distinct string scanned once, linearly
 * (core/credential-scan.ts).
 */
export const bundledCredential: DaspRule = {
  code: 'DASP_BUNDLED_CREDENTIAL',
  description:
    'A string or key of the selection or of a definition carries a credential (a NATS `.creds` armour, an nkey seed, a NATS JWT or a PEM private key), which would ship in the module.',
  check(ctx) {
    for (const file of [ctx.input.selection, ...ctx.input.definitions.map((d) => d.loaded)]) {
      const found = decodedCredential(file.source.value)
      if (found)
        ctx.reportIn(
          file,
          this.code,
          found.pointer,
          `This string carries ${found.kind}; secrets are deployment inputs, never part of a contract (the module would carry it).`,
        )
    }
  },
}

export const shapeRules: readonly DaspRule[] = [shapeRule, definitionShape, bundledCredential]

/** Codes found while reading (load.ts). */
export const daspLoadCodes = Object.keys(DASP_LOAD_CODES) as Array<keyof typeof DASP_LOAD_CODES>

/**
 * Tarjan's strongly connected components over the graph reachable from `roots`, iteratively
 * (no recursion: a chain of thousands of definitions is fine). Each node maps to its component.
 */
function stronglyConnected(roots: readonly string[], edges: (node: string) => string[]): Map<string, Set<string>> {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const onStack = new Set<string>()
  const stack: string[] = []
  const component = new Map<string, Set<string>>()
  for (const root of roots) {
    if (index.has(root)) continue
    const work: Array<{ node: string; next: string[]; at: number }> = []
    const open = (node: string) => {
      index.set(node, index.size)
      low.set(node, index.get(node)!)
      stack.push(node)
      onStack.add(node)
      work.push({ node, next: edges(node), at: 0 })
    }
    open(root)
    while (work.length > 0) {
      const frame = work[work.length - 1]!
      if (frame.at < frame.next.length) {
        const to = frame.next[frame.at++]!
        if (!index.has(to)) open(to)
        else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!))
        continue
      }
      work.pop()
      const parent = work[work.length - 1]
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!))
      if (low.get(frame.node) === index.get(frame.node)) {
        const members = new Set<string>()
        for (let member = stack.pop()!; ; member = stack.pop()!) {
          onStack.delete(member)
          members.add(member)
          component.set(member, members)
          if (member === frame.node) break
        }
      }
    }
  }
  return component
}

/** A shortest cycle from `root` back to itself inside its component, as the URIs along it. */
function cyclePath(root: string, members: ReadonlySet<string>, edges: (node: string) => string[], ctx: DaspContext): string[] {
  const uri = (key: string) => ctx.byIdentity.get(key)?.uri ?? key.split('\u0000')[0]!
  const parent = new Map<string, string>()
  const queue = [root]
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!
    for (const to of edges(node)) {
      if (to === root) {
        const path = [uri(root)]
        for (let at = node; at !== root; at = parent.get(at)!) path.splice(1, 0, uri(at))
        return [...path, uri(root)]
      }
      if (members.has(to) && !parent.has(to)) {
        parent.set(to, node)
        queue.push(to)
      }
    }
  }
  return [uri(root), uri(root)]
}
