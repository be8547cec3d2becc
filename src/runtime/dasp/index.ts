/**
 * `unplugin-contracts/runtime/dasp`: what generated DASP selection modules import. The checks a
 * client needs at run time: exact confirmation, the saved session floor, attribute placement and
 * the DASP-EXT-008 report skeleton.
 */
import canonicalize from 'canonicalize'
import { deepFreeze } from '../shared/deep-freeze.js'
import { isObject } from '../shared/json-value.js'

export { deepFreeze }

/** True only when the confirmed selection is exactly the request (same members and values, any key order). */
export function isExactSelection(request: unknown, confirmed: unknown): boolean {
  try {
    return canonicalize(confirmed) === canonicalize(request)
  } catch {
    return false
  }
}

export interface FloorExtension {
  readonly uri: string
  readonly version: string
  readonly content: unknown
  readonly scope: string
  /** The settings that persist with the session. */
  readonly settings: Readonly<Record<string, unknown>>
}

export interface SessionFloor {
  readonly extensions: readonly FloorExtension[]
}

export type FloorCheck =
  | { readonly ok: true }
  | {
      readonly ok: false
      readonly code: 'missing-record' | 'missing-extension' | 'other-version' | 'changed-pin' | 'weaker-settings'
      readonly reason: string
      readonly extension?: string
    }

/**
 * Checks a fresh selection (`offered`) against a session's saved protection floor (`saved`,
 * DASP-EXT-005). A missing or unreadable record is never an empty floor; every saved extension must
 * be offered at the same version, content pin and scope with the same persistent settings.
 * More (stronger current policy) is accepted.
 */
export function checkSessionFloor(saved: unknown, offered: unknown): FloorCheck {
  if (!isObject(saved) || !Array.isArray(saved.extensions))
    return { ok: false, code: 'missing-record', reason: 'The saved requirement record is missing or unreadable; it is never treated as an empty set.' }
  const extensions = isObject(offered) && Array.isArray(offered.extensions) ? offered.extensions.filter(isObject) : []
  for (const floor of saved.extensions as FloorExtension[]) {
    const sameUri = extensions.filter((e) => e.uri === floor.uri && e.scope === floor.scope)
    if (sameUri.length === 0)
      return {
        ok: false,
        code: 'missing-extension',
        reason: `${floor.uri} (${floor.scope}) is required by the saved session floor and is not offered.`,
        extension: floor.uri,
      }
    const match = sameUri.find((e) => e.version === floor.version)
    if (!match)
      return {
        ok: false,
        code: 'other-version',
        reason: `${floor.uri} is offered at ${sameUri.map((e) => e.version).join(', ')}; the session saved ${floor.version}, which cannot be silently replaced.`,
        extension: floor.uri,
      }
    if (canonicalize(match.content) !== canonicalize(floor.content))
      return {
        ok: false,
        code: 'changed-pin',
        reason: `${floor.uri} ${floor.version} is offered with another content pin than the saved one.`,
        extension: floor.uri,
      }
    for (const [name, value] of Object.entries(floor.settings)) {
      const offeredValue = isObject(match.settings) ? match.settings[name] : undefined
      if (canonicalize(offeredValue) !== canonicalize(value))
        return { ok: false, code: 'weaker-settings', reason: `${floor.uri} setting ${name} differs from the saved floor.`, extension: floor.uri }
    }
  }
  return { ok: true }
}

export interface AttributeRule {
  readonly name: string
  readonly type: 'Boolean' | 'Integer' | 'String' | 'Binary' | 'URI' | 'URI-reference' | 'Timestamp'
  readonly on: readonly string[]
  readonly required?: boolean
  readonly class: 'saved' | 'delivery'
  readonly extension: { readonly uri: string; readonly version: string }
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** A validator for a CloudEvents attribute value in the JSON format, by CloudEvents type. */
export function attributeValidator(type: AttributeRule['type']): (value: unknown) => boolean {
  switch (type) {
    case 'Boolean':
      return (v) => typeof v === 'boolean'
    case 'Integer':
      return (v) => Number.isInteger(v) && (v as number) >= -2147483648 && (v as number) <= 2147483647
    case 'String':
      return (v) => typeof v === 'string'
    case 'Binary':
      return (v) => typeof v === 'string' && BASE64.test(v)
    case 'URI':
      return (v) => typeof v === 'string' && /^[A-Za-z][A-Za-z0-9+.-]*:\S*$/.test(v)
    case 'URI-reference':
      return (v) => typeof v === 'string' && !/\s/.test(v)
    case 'Timestamp':
      return (v) => typeof v === 'string' && RFC3339.test(v)
  }
}

export function attributeValidators(rules: readonly AttributeRule[]): Readonly<Record<string, (value: unknown) => boolean>> {
  const out = Object.create(null) as Record<string, (value: unknown) => boolean>
  for (const rule of rules) out[rule.name] = attributeValidator(rule.type)
  return Object.freeze(out)
}

export type PlacementCheck =
  { readonly ok: true } | { readonly ok: false; readonly code: 'not-allowed' | 'missing' | 'invalid'; readonly attribute: string; readonly reason: string }

/**
 * Checks one CloudEvent (structured JSON: extension attributes are top-level members) against the
 * selected attributes: none may appear on an event type its definition does not name, a required
 * one must appear on the types it names, and every value must fit its CloudEvents type.
 */
export function checkPlacement(rules: readonly AttributeRule[], event: unknown): PlacementCheck {
  const e = isObject(event) ? event : {}
  for (const rule of rules) {
    const present = Object.hasOwn(e, rule.name)
    const allowed = typeof e.type === 'string' && rule.on.includes(e.type)
    if (present && !allowed)
      return {
        ok: false,
        code: 'not-allowed',
        attribute: rule.name,
        reason: `${rule.name} may not appear on ${JSON.stringify(e.type)} events (only ${rule.on.join(', ')}).`,
      }
    if (!present && allowed && rule.required)
      return { ok: false, code: 'missing', attribute: rule.name, reason: `${rule.name} is required on ${e.type as string} events in this selection.` }
    if (present && !attributeValidator(rule.type)(e[rule.name]))
      return { ok: false, code: 'invalid', attribute: rule.name, reason: `${rule.name} must be a CloudEvents ${rule.type}.` }
  }
  return { ok: true }
}

export interface ConformanceResults {
  readonly implementationVersions: Readonly<Record<string, string>>
  readonly durabilityBoundary: string
  readonly cases: ReadonlyArray<{ readonly id: string; readonly executed: boolean; readonly passed?: boolean; readonly note?: string }>
}

/** The DASP-EXT-008 report skeleton for this exact selection. */
export function conformanceReport(request: Record<string, any>, results: ConformanceResults) {
  const extensions = (request.extensions ?? []) as Array<Record<string, any>>
  return deepFreeze({
    core: request.core,
    profile: request.profile,
    binding: request.binding,
    extensions: extensions.map((e) => ({ uri: e.uri, version: e.version, scope: e.scope })),
    pins: extensions.map((e) => ({ uri: e.uri, version: e.version, content: e.content })),
    settings: extensions.map((e) => ({ uri: e.uri, scope: e.scope, settings: e.settings })),
    dependencies: extensions.map((e) => ({ uri: e.uri, dependencies: e.dependencies })),
    implementationVersions: { ...results.implementationVersions },
    durabilityBoundary: results.durabilityBoundary,
    executedCases: results.cases.filter((c) => c.executed).map((c) => ({ id: c.id, passed: c.passed === true, ...(c.note ? { note: c.note } : {}) })),
    skippedCases: results.cases.filter((c) => !c.executed).map((c) => ({ id: c.id, ...(c.note ? { note: c.note } : {}) })),
    // DASP-EXT-008: parsing an optional attribute is not enforcing the extension.
    scope: 'extension enforcement, not optional-attribute parsing',
  })
}
