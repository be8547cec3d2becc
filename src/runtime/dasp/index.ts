/**
 * `unplugin-contracts/runtime/dasp`: what generated DASP selection modules import. The checks a
 * client needs at run time: exact confirmation, the saved session floor, attribute placement and
 * values, and the DASP-EXT-008 report skeleton.
 *
 * Every helper answers any input with a result and never throws: what they are given comes from
 * storage, the network or a caller (`null`, the wrong types, cycles, huge arrays, getters that
 * throw, proxies, `__proto__` members). Input is first read as JSON data (json-data.ts); what
 * cannot be read is refused with a code, never treated as empty.
 *
 * Complexity: each helper is linear in what it reads (bounded by json-data.ts's limits); a
 * generated module's frozen attribute rules are read once and remembered.
 */
import canonicalize from 'canonicalize'
import { deepFreeze } from '../shared/deep-freeze.js'
import { cloudEventsValidator, type CloudEventsType } from './cloudevents-types.js'
import { isDataObject, member, readData, type JsonData } from './json-data.js'
import { pinText } from './pins.js'

export { deepFreeze }
export {
  CLOUDEVENTS_TYPES,
  cloudEventsValidator,
  isCloudEventsBinary,
  isCloudEventsBoolean,
  isCloudEventsInteger,
  isCloudEventsString,
  isCloudEventsTimestamp,
  isCloudEventsUri,
  isCloudEventsUriReference,
  type CloudEventsType,
} from './cloudevents-types.js'

/** The outer binding carrier of encrypted delivery: its closed outer shape takes no attribute (DASP extension contracts, DASP-EXT-007). */
export const ENCRYPTED_CARRIER = 'dasp.encrypted'
/** Proof of authority's attribute: on commands only, never on the carrier (DASP-EXT-007). */
export const AUTHORITY_ATTRIBUTE = 'daspauthority'
/** A command event type: its last dot-separated segment is `command` (`dasp.v1.command`). */
export const isCommandType = (type: unknown): boolean => typeof type === 'string' && /(?:^|\.)command$/.test(type)

/** Canonical JSON (RFC 8785) of data read by `readData`: no cycle, lone surrogate or non-finite number is left, so this cannot throw. */
const canonical = (value: JsonData): string => canonicalize(value) ?? ''

/** True only when the confirmed selection is exactly the request (same members and values, any key order); false for anything unreadable. */
export function isExactSelection(request: unknown, confirmed: unknown): boolean {
  const a = readData(request)
  const b = readData(confirmed)
  return a.ok && b.ok && canonical(a.value) === canonical(b.value)
}

/** A dependency an extension's definition requires: an exact identity in a scope (DASP-EXT-002). */
export interface FloorDependency {
  readonly uri: string
  readonly version: string
  readonly scope?: string
}

/** An extension as the selection request holds it (its dependencies copied from its definition). */
export interface RequestExtension {
  readonly uri: string
  readonly version: string
  readonly content: unknown
  readonly scope: string
  readonly settings: Readonly<Record<string, unknown>>
  readonly dependencies: readonly FloorDependency[]
}

/** What a session saves of one selected extension (DASP-EXT-005): the request's entry, its settings those that persist, and the operations it affects. */
export interface FloorExtension extends RequestExtension {
  /** The settings that persist with the session. */
  readonly settings: Readonly<Record<string, unknown>>
  /** The operations (event types) it affects: where the host enforces the floor. */
  readonly operations: readonly string[]
}

/** A selected core, profile or binding: its exact identity and content pin. */
export interface ContractRef {
  readonly uri: string
  readonly version: string
  readonly content: unknown
}

/** The contracts a selection is made of, as the request holds them. */
export interface SelectedContracts {
  readonly core: ContractRef
  readonly profile: ContractRef
  readonly binding: ContractRef
}

export interface SessionFloor extends SelectedContracts {
  readonly extensions: readonly FloorExtension[]
}

export type FloorCheck =
  | { readonly ok: true }
  | {
      readonly ok: false
      readonly code:
        | 'missing-record'
        | 'unreadable-offer'
        | 'other-contract'
        | 'missing-extension'
        | 'other-version'
        | 'changed-pin'
        | 'weaker-settings'
        | 'missing-dependency'
      readonly reason: string
      readonly extension?: string
      /** For `other-contract`: which selected contract differs. */
      readonly contract?: 'core' | 'profile' | 'binding'
    }

/** A saved extension as the check compares it: its pin and each saved setting's value as text, made once however many copies an offer holds. */
interface ReadFloorEntry {
  uri: string
  version: string
  /** The content pin's one reading (pinText). */
  pin: string
  scope: string
  /** Each saved persistent setting's name and canonical value. */
  settings: Array<[name: string, value: string]>
  /** Each dependency as its exact identity key (dependencyKey). */
  dependencies: string[]
}

/** One spelling of a dependency's identity and scope, compared exactly; undefined for what is not one (an identity is a non-empty URI and version). */
function dependencyKey(d: JsonData): string | undefined {
  if (!isDataObject(d)) return undefined
  const [uri, version, scope] = ['uri', 'version', 'scope'].map((k) => member(d, k))
  if (typeof uri !== 'string' || uri === '' || typeof version !== 'string' || version === '' || (scope !== undefined && typeof scope !== 'string'))
    return undefined
  return JSON.stringify([uri, version, scope ?? null])
}

const CONTRACTS = ['core', 'profile', 'binding'] as const

/** A selected contract's identity and pin as one text, or undefined when it is not one. */
function contractKey(ref: JsonData | undefined): string | undefined {
  if (ref === undefined || !isDataObject(ref)) return undefined
  const [uri, version, content] = ['uri', 'version', 'content'].map((k) => member(ref, k))
  if (typeof uri !== 'string' || uri === '' || typeof version !== 'string' || version === '' || content === undefined) return undefined
  return JSON.stringify([uri, version, pinText(content)])
}

/** An extension's place in a selection: its URI and scope (one version of a URI is selected, DASP-EXT-002). */
const placeKey = (uri: string, scope: string) => JSON.stringify([uri, scope])

/** At most this many of an offer's versions are named in a reason (an offer can hold thousands). */
const VERSIONS_NAMED = 5

/** The saved record as its selected contracts and a list of complete floor entries, or why it cannot be one. */
function readFloor(saved: unknown): { contracts: Record<(typeof CONTRACTS)[number], string>; entries: ReadFloorEntry[] } | string {
  const read = readData(saved)
  if (!read.ok) return `it is not JSON data: ${read.reason}`
  const extensions = isDataObject(read.value) ? member(read.value, 'extensions') : undefined
  if (!Array.isArray(extensions)) return 'it has no extensions list'
  const contracts = {} as Record<(typeof CONTRACTS)[number], string>
  for (const name of CONTRACTS) {
    const key = contractKey(member(read.value as { [key: string]: JsonData }, name))
    if (key === undefined) return `it lacks the ${name} contract's identity and pin`
    contracts[name] = key
  }
  const places = new Set<string>()
  const out: ReadFloorEntry[] = []
  for (let i = 0; i < extensions.length; i++) {
    const e = extensions[i]!
    if (!isDataObject(e)) return `extensions[${i}] is not an object`
    const [uri, version, scope, content, settings] = ['uri', 'version', 'scope', 'content', 'settings'].map((k) => member(e, k))
    if (typeof uri !== 'string' || typeof version !== 'string' || typeof scope !== 'string') return `extensions[${i}] lacks its uri, version or scope`
    if (content === undefined) return `extensions[${i}] lacks its content pin`
    if (!isDataObject(settings)) return `extensions[${i}] lacks its settings object`
    // A record without them is incomplete, not one that requires nothing (a floor saved before they were recorded included).
    const [dependencies, operations] = ['dependencies', 'operations'].map((k) => member(e, k))
    const keys = Array.isArray(dependencies) ? dependencies.map(dependencyKey) : undefined
    if (!keys || keys.some((k) => k === undefined)) return `extensions[${i}] lacks its dependency requirements`
    if (!Array.isArray(operations) || operations.some((o) => typeof o !== 'string')) return `extensions[${i}] lacks its affected operations`
    // One entry a place: a generated floor never holds two, and two could not both be met.
    const place = placeKey(uri, scope)
    if (places.has(place)) return `extensions[${i}] repeats ${uri} in ${scope} scope`
    places.add(place)
    const saved = Object.keys(settings).map((name): [string, string] => [name, canonical(member(settings, name)!)])
    out.push({ uri, version, scope, pin: pinText(content), settings: saved, dependencies: keys as string[] })
  }
  return { contracts, entries: out }
}

/**
 * Checks a fresh selection (`offered`) against a session's saved protection floor (`saved`,
 * DASP-EXT-005). A missing or unreadable record is never an empty floor (`missing-record`: not
 * JSON data, no core, profile or binding with its identity and pin, no extensions list, an entry
 * without its identity, scope, pin, settings, dependencies or operations, two entries for one
 * place); an offer that is not a selection is refused (`unreadable-offer`). The offer must hold the
 * saved core, profile and binding (`other-contract`), and every saved extension at the same
 * version, content pin and scope with each saved persistent setting at its saved value and each
 * saved dependency requirement among its dependencies (`missing-dependency`); every copy of a
 * repeated one is judged. The saved affected operations are the definition's, which its content
 * pin fixes (published content is immutable, DASP-EXT-008): they say where the host enforces the
 * floor. More is accepted: the floor is "the least protection permitted" and current policy "MAY
 * impose stronger requirements" (DASP-EXT-005), so an extra extension, dependency or setting the
 * floor did not record is a requirement beyond it. The differ (formats/dasp/diff) reads the floor
 * the same way, and test/diff-oracle-dasp-floor.test.ts holds the two together.
 */
export function checkSessionFloor(saved: unknown, offered: unknown): FloorCheck {
  const floor = readFloor(saved)
  if (typeof floor === 'string')
    return {
      ok: false,
      code: 'missing-record',
      reason: `The saved requirement record is missing or unreadable (${floor}); it is never treated as an empty set.`,
    }
  const read = readData(offered)
  const list = read.ok && isDataObject(read.value) ? member(read.value, 'extensions') : undefined
  if (!read.ok || !Array.isArray(list))
    return { ok: false, code: 'unreadable-offer', reason: `The offered selection is not { extensions: [...] } JSON data${read.ok ? '' : ` (${read.reason})`}.` }
  const offer = read.value as { [key: string]: JsonData }
  for (const name of CONTRACTS)
    if (contractKey(member(offer, name)) !== floor.contracts[name])
      return {
        ok: false,
        code: 'other-contract',
        reason: `The offered ${name} is not the saved one (its identity or content pin differs, or it is missing); a session is reopened on the contracts it was created with.`,
        contract: name,
      }
  // The offer indexed once by place (URI and scope): each offered entry is read for one saved entry
  // at most (a floor holds one entry a place), so the check is linear in the floor and the offer.
  const offeredAt = new Map<string, Array<{ [key: string]: JsonData }>>()
  for (let i = 0; i < list.length; i++) {
    const e = list[i]!
    // An entry that is not an extension cannot be read as a requirement beyond the floor either.
    const [uri, version, scope] = isDataObject(e) ? [member(e, 'uri'), member(e, 'version'), member(e, 'scope')] : []
    if (!isDataObject(e) || typeof uri !== 'string' || typeof version !== 'string' || typeof scope !== 'string')
      return { ok: false, code: 'unreadable-offer', reason: `The offered selection's extensions[${i}] is not an extension with its uri, version and scope.` }
    const key = placeKey(uri, scope)
    const at = offeredAt.get(key)
    if (at) at.push(e)
    else offeredAt.set(key, [e])
  }
  for (const entry of floor.entries) {
    const copies = offeredAt.get(placeKey(entry.uri, entry.scope)) ?? []
    if (copies.length === 0)
      return {
        ok: false,
        code: 'missing-extension',
        reason: `${entry.uri} (${entry.scope}) is required by the saved session floor and is not offered.`,
        extension: entry.uri,
      }
    // Every copy is judged, whatever its order: an offer repeating the saved extension meets the floor only if each copy does.
    const others = [...new Set(copies.map((e) => member(e, 'version')).filter((v) => v !== entry.version))]
    if (others.length > 0)
      return {
        ok: false,
        code: 'other-version',
        reason: `${entry.uri} is offered at ${others
          .slice(0, VERSIONS_NAMED)
          .map((v) => JSON.stringify(v))
          .join(
            ', ',
          )}${others.length > VERSIONS_NAMED ? ` and ${others.length - VERSIONS_NAMED} more versions` : ''}; the session saved ${entry.version}, which cannot be silently replaced.`,
        extension: entry.uri,
      }
    for (const match of copies) {
      const refused = entryRefusal(entry, match)
      if (refused) return { ok: false, ...refused, extension: entry.uri }
    }
  }
  return { ok: true }
}

/** Why one offered copy of a saved extension (same place and version) does not meet its floor entry, or undefined. */
function entryRefusal(
  entry: ReadFloorEntry,
  match: { [key: string]: JsonData },
): { code: 'changed-pin' | 'weaker-settings' | 'missing-dependency'; reason: string } | undefined {
  const content = member(match, 'content')
  if (content === undefined || pinText(content) !== entry.pin)
    return { code: 'changed-pin', reason: `${entry.uri} ${entry.version} is offered with another content pin than the saved one.` }
  const settings = member(match, 'settings')
  for (const [name, saved] of entry.settings) {
    const value = isDataObject(settings) ? member(settings, name) : undefined
    if (value === undefined || canonical(value) !== saved)
      return { code: 'weaker-settings', reason: `${entry.uri} setting ${name} differs from the saved floor.` }
  }
  if (entry.dependencies.length === 0) return undefined
  const offeredDependencies = member(match, 'dependencies')
  const offeredKeys = new Set(Array.isArray(offeredDependencies) ? offeredDependencies.map(dependencyKey) : [])
  const missing = entry.dependencies.find((k) => !offeredKeys.has(k))
  if (missing === undefined) return undefined
  const [uri, version] = JSON.parse(missing) as [string, string]
  return {
    code: 'missing-dependency',
    reason: `${entry.uri} is offered without its saved dependency requirement ${uri} ${version}, which cannot be removed from a saved session.`,
  }
}

export interface AttributeRule {
  readonly name: string
  readonly type: CloudEventsType
  readonly on: readonly string[]
  readonly required?: boolean
  readonly class: 'saved' | 'delivery'
  readonly extension: { readonly uri: string; readonly version: string }
}

/**
 * The session floor a generated module ships as the setting names to keep and the operations
 * affected per extension of its `selectionRequest`, which already holds each extension's identity,
 * pin, scope, settings and dependencies: the module says each of them once. Deep-frozen, members in
 * the request's order. Input that is not what a generated module passes gives a record
 * `checkSessionFloor` refuses (`missing-record`), never an empty floor and never a throw.
 */
export function floorOf(
  request: SelectedContracts & { readonly extensions: readonly RequestExtension[] },
  kept: ReadonlyArray<readonly string[]>,
  operations: ReadonlyArray<readonly string[]>,
): SessionFloor {
  try {
    const extensions = shortList(request.extensions) as readonly RequestExtension[]
    const names = shortList(kept) as ReadonlyArray<readonly string[]>
    const affected = shortList(operations) as ReadonlyArray<readonly string[]>
    // One list of each a requested extension: any other count is not what a generated module passes.
    if (names.length !== extensions.length || affected.length !== extensions.length) throw new TypeError('lists of another length')
    const ref = ({ uri, version, content }: ContractRef) => ({ uri, version, content })
    return deepFreeze({
      core: ref(request.core),
      profile: ref(request.profile),
      binding: ref(request.binding),
      extensions: extensions.map(({ uri, version, content, scope, settings, dependencies }, i) => ({
        uri,
        version,
        content,
        scope,
        // A name the request does not set would make a weaker floor: refused (thrown, and caught below).
        settings: Object.fromEntries(
          (shortList(names[i] ?? []) as readonly string[]).map((name) => {
            if (!Object.hasOwn(settings, name)) throw new TypeError('a kept setting the request does not set')
            return [name, settings[name]]
          }),
        ),
        dependencies: (shortList(dependencies) as readonly FloorDependency[]).map((d) => ({ ...d })),
        operations: [...(shortList(affected[i]) as readonly string[])],
      })),
    })
  } catch {
    return Object.freeze({}) as SessionFloor
  }
}

/** Lists a generated module passes to `floorOf` and `attributeRules` are short: anything else is refused (thrown, and caught there). */
export const MAX_MODULE_LIST = 1024
function shortList(value: unknown): readonly unknown[] {
  if (!Array.isArray(value) || value.length > MAX_MODULE_LIST) throw new TypeError('not a short list')
  return value
}

/** One attribute rule as a generated module writes it: name, type, event types, class, its extension's index in the request, required. */
export type AttributeRow = readonly [name: string, type: CloudEventsType, on: readonly string[], cls: AttributeRule['class'], extension: number, required?: 1]

/**
 * The attribute rules from their rows, each extension's `uri` and `version` read from the request
 * (deep-frozen, as `attributes`). Input that is not what a generated module passes gives rules
 * `checkPlacement` refuses as unreadable, never an empty list and never a throw.
 */
export function attributeRules(request: { readonly extensions: readonly FloorExtension[] }, rows: readonly AttributeRow[]): readonly AttributeRule[] {
  try {
    const extensions = shortList(request.extensions) as readonly FloorExtension[]
    return deepFreeze(
      (shortList(rows) as readonly AttributeRow[]).map(([name, type, on, cls, index, required]) => {
        const { uri, version } = extensions[index]!
        return { name, type, on, ...(required ? { required: true } : {}), class: cls, extension: { uri, version } }
      }),
    )
  } catch {
    return Object.freeze([null]) as unknown as readonly AttributeRule[]
  }
}

/** A validator for a CloudEvents attribute value in the JSON format, by CloudEvents type (an unknown type: nothing passes). */
export function attributeValidator(type: unknown): (value: unknown) => boolean {
  return cloudEventsValidator(type)
}

interface ReadRule {
  name: string
  type: unknown
  on: string[]
  required: boolean
}

const readRules = new WeakMap<object, ReadRule[]>()

/** The attribute rules as data, or undefined when they are not a list of { name, type, on[] }. Frozen lists (generated ones) are read once. */
function rulesOf(rules: unknown): ReadRule[] | undefined {
  try {
    return readRuleList(rules)
  } catch {
    // A proxy that answered once and refused the second time.
    return undefined
  }
}

function readRuleList(rules: unknown): ReadRule[] | undefined {
  if (typeof rules === 'object' && rules !== null) {
    const known = readRules.get(rules)
    if (known) return known
  }
  const read = readData(rules)
  if (!read.ok || !Array.isArray(read.value)) return undefined
  const out: ReadRule[] = []
  for (const r of read.value) {
    if (!isDataObject(r)) return undefined
    const name = member(r, 'name')
    const on = member(r, 'on')
    if (typeof name !== 'string' || !Array.isArray(on) || !on.every((t) => typeof t === 'string')) return undefined
    out.push({ name, type: member(r, 'type'), on: on as string[], required: member(r, 'required') === true })
  }
  // Only a deep-frozen list cannot change after it was read.
  if (typeof rules === 'object' && rules !== null && deepFrozen(rules)) readRules.set(rules, out)
  return out
}

function deepFrozen(value: unknown, depth = 0): boolean {
  if (typeof value !== 'object' || value === null) return true
  if (depth > 8 || !Object.isFrozen(value)) return false
  return Object.values(value).every((v) => deepFrozen(v, depth + 1))
}

/** A validator per selected attribute name (own members of a null-prototype object); for unreadable rules, none. */
export function attributeValidators(rules: readonly AttributeRule[]): Readonly<Record<string, (value: unknown) => boolean>> {
  const out = Object.create(null) as Record<string, (value: unknown) => boolean>
  for (const rule of rulesOf(rules) ?? []) if (!Object.hasOwn(out, rule.name)) out[rule.name] = cloudEventsValidator(rule.type)
  return Object.freeze(out)
}

export type PlacementCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: 'not-allowed' | 'missing' | 'invalid'; readonly attribute: string; readonly reason: string }
  | { readonly ok: false; readonly code: 'unreadable'; readonly reason: string }

/** An own data member of an object, read without running a getter; `undefined` when absent. Throws only where a proxy does. */
function ownValue(object: object, key: string): { value: unknown } | undefined {
  const slot = Reflect.getOwnPropertyDescriptor(object, key)
  if (!slot) return undefined
  if (!('value' in slot)) throw new TypeError(`${key} is an accessor`)
  return { value: slot.value }
}

/**
 * Checks one CloudEvent (structured JSON: extension attributes are top-level members) against the
 * selected attributes: none may appear on an event type its definition does not name, a required
 * one must appear on the types it names, and every value must be one of its CloudEvents type's
 * values. A member whose value is `null` is unset (the CloudEvents JSON format). Whatever the
 * rules say, DASP-EXT-007 holds: no selected attribute and no `daspauthority` on the
 * `dasp.encrypted` outer carrier, and `daspauthority` only on command types. An event that is not
 * an object with a string `type`, or that cannot be read, is `unreadable`.
 */
export function checkPlacement(rules: readonly AttributeRule[], event: unknown): PlacementCheck {
  const list = rulesOf(rules)
  if (!list) return { ok: false, code: 'unreadable', reason: 'The attribute rules are not a list of { name, type, on } objects.' }
  try {
    // Array.isArray throws on a revoked proxy: inside the try.
    if (typeof event !== 'object' || event === null || Array.isArray(event))
      return { ok: false, code: 'unreadable', reason: 'A CloudEvent in structured JSON is an object.' }
    const type = ownValue(event, 'type')?.value
    if (typeof type !== 'string' || type === '') return { ok: false, code: 'unreadable', reason: 'The event has no type (a non-empty string).' }
    const carrier = type === ENCRYPTED_CARRIER
    const valueOf = (name: string) => {
      const found = ownValue(event, name)
      return found === undefined || found.value === null ? undefined : found
    }
    if (carrier && valueOf(AUTHORITY_ATTRIBUTE) !== undefined)
      return {
        ok: false,
        code: 'not-allowed',
        attribute: AUTHORITY_ATTRIBUTE,
        reason: `${AUTHORITY_ATTRIBUTE} may not appear on the ${ENCRYPTED_CARRIER} outer carrier; it goes on the inner command (DASP-EXT-007).`,
      }
    for (const rule of list) {
      const present = valueOf(rule.name)
      if (present && carrier)
        return {
          ok: false,
          code: 'not-allowed',
          attribute: rule.name,
          reason: `${rule.name} may not appear on the ${ENCRYPTED_CARRIER} outer carrier, whose closed outer shape takes no attribute (DASP-EXT-007).`,
        }
      if (present && rule.name === AUTHORITY_ATTRIBUTE && !isCommandType(type))
        return {
          ok: false,
          code: 'not-allowed',
          attribute: rule.name,
          reason: `${rule.name} goes on command types only (DASP-EXT-007), not on ${JSON.stringify(type)}.`,
        }
      const allowed = rule.on.includes(type)
      if (present && !allowed)
        return {
          ok: false,
          code: 'not-allowed',
          attribute: rule.name,
          reason: `${rule.name} may not appear on ${JSON.stringify(type)} events (only ${rule.on.join(', ')}).`,
        }
      if (!present && allowed && rule.required)
        return { ok: false, code: 'missing', attribute: rule.name, reason: `${rule.name} is required on ${type} events in this selection.` }
      if (present && !cloudEventsValidator(rule.type)(present.value))
        return { ok: false, code: 'invalid', attribute: rule.name, reason: `${rule.name} must be a CloudEvents ${typeName(rule.type)} in its JSON form.` }
    }
    return { ok: true }
  } catch {
    return { ok: false, code: 'unreadable', reason: 'The event could not be read (an accessor member, or a proxy that refused).' }
  }
}

/**
 * A rule's type as text for a reason. The rules were read as JSON data, so a type that is not a
 * string is data too: written as JSON, never through `String`, which throws on a member `toString`
 * that is not a function (and would turn the event's verdict into `unreadable`).
 */
const typeName = (type: unknown): string => (typeof type === 'string' ? type : (JSON.stringify(type) ?? 'undefined'))

export interface ConformanceResults {
  readonly implementationVersions: Readonly<Record<string, string>>
  readonly durabilityBoundary: string
  readonly cases: ReadonlyArray<{ readonly id: string; readonly executed: boolean; readonly passed?: boolean; readonly note?: string }>
}

/**
 * The DASP-EXT-008 report skeleton for this exact selection. What it is given is read as data;
 * whatever cannot be read (results that are not JSON, a case without an id or `executed`, a
 * version that is not a string) is left out of the report and named in `problems`, never guessed.
 */
export function conformanceReport(request: Record<string, any>, results: ConformanceResults) {
  const problems: string[] = []
  const readRequest = readData(request)
  if (!readRequest.ok) problems.push(`the selection request is not JSON data: ${readRequest.reason}`)
  const r = readRequest.ok && isDataObject(readRequest.value) ? readRequest.value : {}
  const list = member(r, 'extensions')
  const extensions = (Array.isArray(list) ? list : []).filter(isDataObject)
  const readResults = readData(results)
  if (!readResults.ok) problems.push(`the results are not JSON data: ${readResults.reason}`)
  const given = readResults.ok && isDataObject(readResults.value) ? readResults.value : {}
  const versions = member(given, 'implementationVersions')
  const implementationVersions: Record<string, string> = {}
  if (isDataObject(versions)) {
    for (const [name, version] of Object.entries(versions)) {
      if (typeof version === 'string')
        Object.defineProperty(implementationVersions, name, { value: version, enumerable: true, writable: true, configurable: true })
      else problems.push(`implementationVersions.${name} is not a string`)
    }
  } else problems.push('implementationVersions is not an object of strings')
  const boundary = member(given, 'durabilityBoundary')
  if (typeof boundary !== 'string') problems.push('durabilityBoundary is not a string')
  const cases = member(given, 'cases')
  if (!Array.isArray(cases)) problems.push('cases is not a list')
  const readable: Array<{ id: string; executed: boolean; passed: boolean; note?: string }> = []
  ;(Array.isArray(cases) ? cases : []).forEach((c, i) => {
    const id = isDataObject(c) ? member(c, 'id') : undefined
    const executed = isDataObject(c) ? member(c, 'executed') : undefined
    if (!isDataObject(c) || typeof id !== 'string' || typeof executed !== 'boolean') problems.push(`cases[${i}] is not { id, executed, passed?, note? }`)
    else {
      const note = member(c, 'note')
      readable.push({ id, executed, passed: member(c, 'passed') === true, ...(typeof note === 'string' && note !== '' ? { note } : {}) })
    }
  })
  return deepFreeze({
    core: member(r, 'core'),
    profile: member(r, 'profile'),
    binding: member(r, 'binding'),
    extensions: extensions.map((e) => ({ uri: member(e, 'uri'), version: member(e, 'version'), scope: member(e, 'scope') })),
    pins: extensions.map((e) => ({ uri: member(e, 'uri'), version: member(e, 'version'), content: member(e, 'content') })),
    settings: extensions.map((e) => ({ uri: member(e, 'uri'), scope: member(e, 'scope'), settings: member(e, 'settings') })),
    dependencies: extensions.map((e) => ({ uri: member(e, 'uri'), dependencies: member(e, 'dependencies') })),
    implementationVersions,
    durabilityBoundary: typeof boundary === 'string' ? boundary : '',
    executedCases: readable.filter((c) => c.executed).map((c) => ({ id: c.id, passed: c.passed, ...(c.note ? { note: c.note } : {}) })),
    skippedCases: readable.filter((c) => !c.executed).map((c) => ({ id: c.id, ...(c.note ? { note: c.note } : {}) })),
    problems,
    // DASP-EXT-008: parsing an optional attribute is not enforcing the extension.
    scope: 'extension enforcement, not optional-attribute parsing',
  })
}
