/**
 * One version as the Benzene differ reads it: the document, where any of its nodes is (through the
 * model's positioned source), and its entries by label (`topic` or `topic@version`).
 */
import type { DiffLocation, DiffSide } from '../../../core/diff/types.js'
import type { SchemaSide } from '../../../core/diff/schema-diff-types.js'
import { entryLabel, isObject, refTarget, type BenzeneDocument, type EventEntry, type RequestEntry } from '../../../runtime/benzene/document.js'
import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import type { BenzeneModel } from '../model.js'

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
  /** Where the node at `pointer` is (or its nearest ancestor that exists). */
  at(pointer: string): DiffLocation
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
      // A model made without its source (none is, but the type allows a hand-made one) places at the top.
      const { line, column } = source ? source.locate(pointer) : { line: 1, column: 1 }
      return { file, pointer, line, column }
    },
    schema: (pointer) => ({ file, document: doc, pointer, resolve }),
  }
}
