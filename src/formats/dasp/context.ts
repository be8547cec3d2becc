import { diagnosticAt, type Diagnostic } from '../../core/diagnostics.js'
import { joinPointer } from '../../runtime/shared/json-pointer.js'
import { isObject, type DaspInput, type LoadedJson } from './load.js'

export interface Definition {
  /** Index in the selection's `definitions`. */
  index: number
  file: LoadedJson
  value: Record<string, any>
  uri: string
  version: string
}

export interface RequestedExtension {
  index: number
  uri: string
  version: string
  scope: unknown
  settings: unknown
}

export const identityKey = (uri: string, version: string) => `${uri}\u0000${version}`
/** For `isRequested`: any scope will do. */
export const ANY_SCOPE = Symbol('any scope')
/** A key for (uri, version, scope) with values of any JSON type kept apart (`"1"` is not `1`). */
const requestKey = (uri: unknown, version: unknown, scope: unknown) =>
  typeof scope === 'symbol' ? JSON.stringify([uri, version]) + '*' : JSON.stringify([uri, version, scope ?? null]) + (scope === undefined ? 'u' : '')

/** What the DASP rules read: the selection, its definitions by exact identity, and reporting helpers. */
export class DaspContext {
  readonly diagnostics: Diagnostic[] = []
  readonly selection: Record<string, any>
  readonly definitions: Definition[]
  readonly byIdentity = new Map<string, Definition>()

  constructor(readonly input: DaspInput) {
    this.selection = (isObject(input.selection.source.value) ? input.selection.source.value : {}) as Record<string, any>
    this.definitions = input.definitions.flatMap(({ index, loaded }) => {
      const value = loaded.source.value
      const identity = isObject(value) && isObject(value.identity) ? value.identity : {}
      if (!isObject(value) || typeof identity.uri !== 'string' || typeof identity.version !== 'string') return []
      return [{ index, file: loaded, value: value as Record<string, any>, uri: identity.uri, version: identity.version }]
    })
    for (const d of this.definitions) if (!this.byIdentity.has(identityKey(d.uri, d.version))) this.byIdentity.set(identityKey(d.uri, d.version), d)
  }

  private requestedList?: RequestedExtension[]
  private requestedIndex?: { exact: Set<string>; byUri: Map<string, RequestedExtension> }

  /** The well-formed requested extensions, listed once (rules ask for them inside loops). */
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

  /** The first requested extension with this URI, whatever its version. */
  requestedWithUri(uri: unknown): RequestedExtension | undefined {
    return typeof uri === 'string' ? this.index().byUri.get(uri) : undefined
  }

  private index(): { exact: Set<string>; byUri: Map<string, RequestedExtension> } {
    if (!this.requestedIndex) {
      const exact = new Set<string>()
      const byUri = new Map<string, RequestedExtension>()
      for (const e of this.requested) {
        exact.add(requestKey(e.uri, e.version, e.scope))
        exact.add(requestKey(e.uri, e.version, ANY_SCOPE))
        if (!byUri.has(e.uri)) byUri.set(e.uri, e)
      }
      this.requestedIndex = { exact, byUri }
    }
    return this.requestedIndex
  }

  definitionOf(uri: string, version: string): Definition | undefined {
    return this.byIdentity.get(identityKey(uri, version))
  }

  report(code: string, pointer: string, message: string, data?: Record<string, unknown>): void {
    this.reportIn(this.input.selection, code, pointer, message, data)
  }

  reportIn(file: LoadedJson, code: string, pointer: string, message: string, data?: Record<string, unknown>): void {
    this.diagnostics.push(diagnosticAt({ file: file.file, locate: file.source.locate }, code, pointer, message, data))
  }

  pointer(...tokens: Array<string | number>): string {
    return joinPointer('', ...tokens)
  }
}
