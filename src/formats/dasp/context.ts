import type { Diagnostic } from '../../core/diagnostics.js'
import { joinPointer } from '../../core/json-pointer.js'
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

  get requested(): RequestedExtension[] {
    const list = Array.isArray(this.selection.extensions) ? this.selection.extensions : []
    return list.flatMap((e: unknown, index: number) => (isObject(e) && typeof e.uri === 'string' && typeof e.version === 'string' ? [{ index, uri: e.uri, version: e.version, scope: e.scope, settings: e.settings }] : []))
  }

  definitionOf(uri: string, version: string): Definition | undefined {
    return this.byIdentity.get(identityKey(uri, version))
  }

  report(code: string, pointer: string, message: string, data?: Record<string, unknown>): void {
    this.reportIn(this.input.selection, code, pointer, message, data)
  }

  reportIn(file: LoadedJson, code: string, pointer: string, message: string, data?: Record<string, unknown>): void {
    const { line, column } = file.source.locate(pointer)
    this.diagnostics.push({ code, severity: 'error', message, file: file.file, pointer, line, column, ...(data ? { data } : {}) })
  }

  pointer(...tokens: Array<string | number>): string {
    return joinPointer('', ...tokens)
  }
}
