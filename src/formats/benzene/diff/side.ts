/**
 * One version as the Benzene differ reads it: the document, where any of its nodes is (through the
 * model's positioned source), and its entries by label (`topic` or `topic@version`).
 */
import type { DiffLocation, DiffSide } from '../../../core/diff/types.js'
import type { SchemaSide } from '../../../core/diff/schema-diff-types.js'
import { entryLabel, isObject, refTarget, type BenzeneDocument, type EventEntry, type RequestEntry } from '../../../runtime/benzene/document.js'
import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import type { BenzeneModel } from '../model.js'
import { locateAll } from './locator.js'

export interface Indexed<E> {
  entry: E
  index: number
  label: string
  /** `/requests/3` or `/events/0`. */
  pointer: string
}

export interface BenzeneVersion {
  file: string
  model: BenzeneModel
  doc: BenzeneDocument
  requests: Map<string, Indexed<RequestEntry>>
  events: Map<string, Indexed<EventEntry>>
  /**
   * Where the node at `pointer` is (or its nearest ancestor that exists): its line and column are
   * filled in by `settle`, which places every location asked for in one scan of the text.
   */
  at(pointer: string): DiffLocation
  settle(): void
  /** `pointer` in this version as a schema side for the schema engine, `$ref`s resolved within the document. */
  schema(pointer: string): SchemaSide
}

/** Entries by label; a label seen twice (the checker refuses it) keeps its first entry. O(entries). */
function byLabel<E extends { topic: string; version?: string }>(list: readonly E[], name: 'requests' | 'events'): Map<string, Indexed<E>> {
  const out = new Map<string, Indexed<E>>()
  list.forEach((entry, index) => {
    const label = entryLabel(entry)
    if (!out.has(label)) out.set(label, { entry, index, label, pointer: joinPointer('', name, index) })
  })
  return out
}

export function readVersion(side: DiffSide<BenzeneModel>): BenzeneVersion {
  const { model } = side
  const doc = model.document
  const source = model.source as BenzeneModel['source'] | undefined
  const file = side.file
  const schemas = isObject(doc.components?.schemas) ? doc.components.schemas : {}
  const pending: DiffLocation[] = []
  const resolve: SchemaSide['resolve'] = (ref) => {
    const name = refTarget(ref)
    if (name === undefined || !Object.hasOwn(schemas, name)) return undefined
    return { file, document: doc, pointer: joinPointer('', 'components', 'schemas', name) }
  }
  return {
    file,
    model,
    doc,
    requests: byLabel(doc.requests, 'requests'),
    events: byLabel(doc.events, 'events'),
    at(pointer) {
      const location = { file, pointer, line: 1, column: 1 }
      pending.push(location)
      return location
    },
    settle() {
      // A model made by hand without its source (buildModel always sets one) places everything at the top.
      if (!source || pending.length === 0) return
      const offsetOf = locateAll(source.text, new Set(pending.map((l) => l.pointer)))
      for (const location of pending) Object.assign(location, source.lines.position(offsetOf(location.pointer)))
      pending.length = 0
    },
    schema: (pointer) => ({ file, document: doc, pointer, resolve }),
  }
}
