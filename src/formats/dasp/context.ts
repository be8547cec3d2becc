import canonicalize from 'canonicalize'
import { joinPointer } from '../../runtime/shared/json-pointer.js'
import { compileItemSchema, type ItemValidator } from './item-schemas.js'
import { isObject, type DaspInput, type LoadedJson } from './load.js'
import { DEFINITION_SHAPE, SELECTION_SHAPE, readableView, shapeProblems, type ShapeProblem } from './shapes.js'

export interface Definition {
  /** Index in the selection's `definitions`. */
  index: number
  file: LoadedJson
  /** The readable view: the definition without its malformed parts (shapes.ts). */
  value: Record<string, any>
  /** The definition as written. */
  raw: Record<string, unknown>
  uri: string
  version: string
}

/** A part of a file as its readable view holds it (`DaspContext.differs`). */
export interface ReadPart {
  file: LoadedJson
  pointer: string
  value: unknown
}

export interface RequestedExtension {
  index: number
  uri: string
  version: string
  scope: unknown
  settings: unknown
}

export const identityKey = (uri: string, version: string) => `${uri}\u0000${version}`
/** An identity loosened for near misses people make: a trailing slash, another case, `draft-1` for `draft-01`. */
const looseKey = (uri: string, version: string) => `${uri.toLowerCase().replace(/\/+$/, '')}\u0000${version.toLowerCase().replace(/(\D)0+(\d)/g, '$1$2')}`

// The boolean schemas `true` and `false` as the objects they mean (the memo below keys objects).
const ANY_ITEM = {}
const NO_ITEM = { not: {} }

/** For `isRequested`: any scope will do. */
export const ANY_SCOPE = Symbol('any scope')
/** A key for (uri, version, scope) with values of any JSON type kept apart (`"1"` is not `1`). */
const requestKey = (uri: unknown, version: unknown, scope: unknown) =>
  typeof scope === 'symbol' ? JSON.stringify([uri, version]) + '*' : JSON.stringify([uri, version, scope ?? null]) + (scope === undefined ? 'u' : '')

/**
 * What the DASP rules read: the selection and its definitions as readable views (the closed
 * shapes' malformed parts left out, so a rule never reads a member of the wrong type), the
 * definitions by exact identity, and what could not be read at all (rules report through the runner, core/rule-runner.ts).
 *
 * A shape problem stops no rule. A rule skips only a verdict that depends on a part it cannot
 * read: `unreadable` says whether a part was malformed, `someDefinitionUnreadable` whether a
 * definition the selection lists gave nothing to read (so "no definition has this identity" cannot
 * be said), `mayBeRequested` whether an unreadable request entry might be the one asked about.
 *
 * Every fact derived from the document lives here, made on first use and kept for this compile
 * only (`check` hands the context to `model`): the request's indexes, the near-miss index of the
 * definitions' identities, each array setting's compiled element schema. No module-level table
 * keyed by a document or its parts (a compiled schema is shared by content only: item-schemas.ts).
 */
export class DaspContext {
  readonly selection: Record<string, any>
  readonly definitions: Definition[]
  readonly byIdentity = new Map<string, Definition>()
  /** The closed shapes' problems, by file (reported by the shape rules). */
  readonly shapeProblems = new Map<LoadedJson, ShapeProblem[]>()
  /** Whether a `definitions` entry gave no definition with a readable identity. */
  readonly someDefinitionUnreadable: boolean
  private readonly pruned = new Map<LoadedJson, Set<string>>()
  /** Per file, every pointer that has a pruned part strictly inside it (so `unreadableWithin` is a lookup, not a scan). */
  private readonly containsPruned = new Map<LoadedJson, Set<string>>()

  constructor(readonly input: DaspInput) {
    const view = (file: LoadedJson, shape: object): unknown => {
      const problems = shapeProblems(shape, file.source.value)
      this.shapeProblems.set(file, problems)
      const prunes = problems.flatMap((p) => (p.prune === undefined ? [] : [p.prune]))
      this.pruned.set(file, new Set(prunes))
      const containers = new Set<string>()
      for (const pointer of prunes)
        for (let at = pointer.slice(0, pointer.lastIndexOf('/')); !containers.has(at); at = at.slice(0, at.lastIndexOf('/'))) {
          containers.add(at)
          if (at === '') break
        }
      this.containsPruned.set(file, containers)
      return readableView(file.source.value, prunes)
    }
    const selection = view(input.selection, SELECTION_SHAPE)
    this.selection = (isObject(selection) ? selection : {}) as Record<string, any>
    this.definitions = input.definitions.flatMap(({ index, loaded }) => {
      const value = view(loaded, DEFINITION_SHAPE)
      const identity = isObject(value) && isObject(value.identity) ? value.identity : {}
      if (!isObject(value) || typeof identity.uri !== 'string' || typeof identity.version !== 'string') return []
      return [
        {
          index,
          file: loaded,
          value: value as Record<string, any>,
          raw: loaded.source.value as Record<string, unknown>,
          uri: identity.uri,
          version: identity.version,
        },
      ]
    })
    this.someDefinitionUnreadable = input.unreadable.length > 0 || this.definitions.length < input.definitions.length
    for (const d of this.definitions) if (!this.byIdentity.has(identityKey(d.uri, d.version))) this.byIdentity.set(identityKey(d.uri, d.version), d)
  }

  /** Was the part at `pointer` (or a part containing it) malformed, and so left out of the readable view? */
  unreadable(file: LoadedJson, pointer: string): boolean {
    const pruned = this.pruned.get(file)
    if (!pruned || pruned.size === 0) return false
    for (let at = pointer; ; at = at.slice(0, at.lastIndexOf('/'))) {
      if (pruned.has(at)) return true
      if (at === '') return false
    }
  }

  /** Was anything at or inside `pointer` malformed? */
  unreadableWithin(file: LoadedJson, pointer: string): boolean {
    return this.unreadable(file, pointer) || this.containsPruned.get(file)?.has(pointer) === true
  }

  /**
   * Whether two parts (each a value of its file's readable view, at `pointer`) differ in something
   * both sides can read: a part malformed on either side might be what the other holds, so it
   * proves nothing, while a malformed or unknown member beside the parts compared changes nothing.
   * With nothing malformed in either, the two are compared whole (canonical JSON). Worst case: one
   * visit per member of the smaller part, each a lookup in the pruned pointers' sets.
   */
  differs(a: ReadPart, b: ReadPart): boolean {
    if (this.unreadable(a.file, a.pointer) || this.unreadable(b.file, b.pointer)) return false
    if (!this.unreadableWithin(a.file, a.pointer) && !this.unreadableWithin(b.file, b.pointer)) return canonicalize(a.value) !== canonicalize(b.value)
    const bothArrays = Array.isArray(a.value) && Array.isArray(b.value)
    if (!bothArrays && !(isObject(a.value) && isObject(b.value) && !Array.isArray(a.value) && !Array.isArray(b.value))) return true
    const left = a.value as Record<string, unknown>
    const right = b.value as Record<string, unknown>
    // A pruned array entry reads as undefined, never removed: lengths are the documents' own.
    if (bothArrays && (left as unknown as unknown[]).length !== (right as unknown as unknown[]).length) return true
    const keys = new Set([...Object.keys(left), ...Object.keys(right)])
    for (const key of keys) {
      const at = (part: ReadPart, value: Record<string, unknown>): ReadPart => ({
        file: part.file,
        pointer: joinPointer(part.pointer, key),
        value: Object.hasOwn(value, key) ? value[key] : undefined,
      })
      if (this.differs(at(a, left), at(b, right))) return true
    }
    return false
  }

  private requestedList?: RequestedExtension[]
  private requestedIndex?: { exact: Set<string>; byUri: Map<string, RequestedExtension>; scopeUnknown: Set<string>; identityUnknown: boolean }

  /** The requested extensions with a readable URI and version, listed once (rules ask for them inside loops). */
  get requested(): RequestedExtension[] {
    if (!this.requestedList) {
      const list = Array.isArray(this.selection.extensions) ? this.selection.extensions : []
      this.requestedList = list.flatMap((e: unknown, index: number) =>
        isObject(e) && typeof e.uri === 'string' && typeof e.version === 'string'
          ? [{ index, uri: e.uri, version: e.version, scope: e.scope, settings: e.settings }]
          : [],
      )
    }
    return this.requestedList!
  }

  /**
   * Is an extension requested with exactly this URI, version and scope (`ANY_SCOPE`: any)? A set lookup: rules ask once per dependency or policy entry, and
   * scanning the request each time made dependencies x extensions.
   */
  isRequested(uri: unknown, version: unknown, scope: unknown): boolean {
    return this.index().exact.has(requestKey(uri, version, scope))
  }

  /**
   * Requested, or possibly requested by an entry that cannot be read: one without a readable
   * identity (it could be any extension), or this identity with an unreadable scope. A rule that
   * would report an omission reports it only when this is false.
   */
  mayBeRequested(uri: unknown, version: unknown, scope: unknown): boolean {
    const index = this.index()
    return (
      this.isRequested(uri, version, scope) ||
      index.identityUnknown ||
      (typeof uri === 'string' && typeof version === 'string' && index.scopeUnknown.has(identityKey(uri, version)))
    )
  }

  /** The first requested extension with this URI, whatever its version. */
  requestedWithUri(uri: unknown): RequestedExtension | undefined {
    return typeof uri === 'string' ? this.index().byUri.get(uri) : undefined
  }

  private index() {
    if (!this.requestedIndex) {
      const exact = new Set<string>()
      const byUri = new Map<string, RequestedExtension>()
      const scopeUnknown = new Set<string>()
      for (const e of this.requested) {
        exact.add(requestKey(e.uri, e.version, e.scope))
        exact.add(requestKey(e.uri, e.version, ANY_SCOPE))
        if (typeof e.scope !== 'string') scopeUnknown.add(identityKey(e.uri, e.version))
        if (!byUri.has(e.uri)) byUri.set(e.uri, e)
      }
      const entries = Array.isArray(this.selection.extensions) ? this.selection.extensions.length : 0
      const selectionMalformed = !Array.isArray(this.selection.extensions) && this.unreadable(this.input.selection, '/extensions')
      this.requestedIndex = { exact, byUri, scopeUnknown, identityUnknown: this.requested.length < entries || selectionMalformed }
    }
    return this.requestedIndex
  }

  private nearIndex?: { exact: Map<string, Definition>; uri: Map<string, Definition> }

  /** The first definition whose identity is a near miss of this one (same loosened URI and version, else URI): two map lookups after one pass. */
  closestDefinition(uri: string, version: string): Definition | undefined {
    if (!this.nearIndex) {
      const exact = new Map<string, Definition>()
      const byUri = new Map<string, Definition>()
      for (const d of this.definitions) {
        const both = looseKey(d.uri, d.version)
        const onlyUri = looseKey(d.uri, '')
        if (!exact.has(both)) exact.set(both, d)
        if (!byUri.has(onlyUri)) byUri.set(onlyUri, d)
      }
      this.nearIndex = { exact, uri: byUri }
    }
    return this.nearIndex.exact.get(looseKey(uri, version)) ?? this.nearIndex.uri.get(looseKey(uri, ''))
  }

  private readonly itemValidators = new Map<object, ItemValidator>()

  /** The compiled element schema of an array setting (`items`), once per schema of this document; a string when it does not compile. */
  itemValidator(items: unknown): ItemValidator {
    if (typeof items === 'boolean') return this.itemValidator(items ? ANY_ITEM : NO_ITEM)
    if (!isObject(items)) return 'items is not a JSON Schema'
    let known = this.itemValidators.get(items)
    if (known === undefined) this.itemValidators.set(items, (known = compileItemSchema(items)))
    return known
  }

  definitionOf(uri: string, version: string): Definition | undefined {
    return this.byIdentity.get(identityKey(uri, version))
  }

  pointer(...tokens: Array<string | number>): string {
    return joinPointer('', ...tokens)
  }
}
