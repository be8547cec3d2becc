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
import { hasDirectionalMembers, readAs, type Reading } from './readings.js'

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
  /**
   * `pointer` in this version as a schema side for the schema engine, `$ref`s resolved within the
   * document; with a `reading`, in the document as that direction's validators read it (readings.ts).
   */
  schema(pointer: string, reading?: Reading): SchemaSide
  /** Whether the two readings differ (the document has readOnly or writeOnly members). */
  directional: boolean
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
  const resolverIn =
    (document: unknown): SchemaSide['resolve'] =>
    (ref) => {
      const name = refTarget(ref)
      if (name === undefined || !Object.hasOwn(schemas, name)) return undefined
      return { file, document, pointer: joinPointer('', 'components', 'schemas', name) }
    }
  const resolve = resolverIn(doc)
  const directional = hasDirectionalMembers(source?.text, doc)
  // Each direction's reading of the document, made on first use (only a directional document has two).
  const readings = new Map<Reading, { document: unknown; resolve: SchemaSide['resolve'] }>()
  const reading = (which: Reading) => {
    let made = readings.get(which)
    if (made === undefined) {
      const document = readAs(doc, which)
      readings.set(which, (made = { document, resolve: resolverIn(document) }))
    }
    return made
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
    schema: (pointer, which) => {
      if (which === undefined || !directional) return { file, document: doc, pointer, resolve }
      const read = reading(which)
      return { file, document: read.document, pointer, resolve: read.resolve }
    },
    directional,
  }
}
