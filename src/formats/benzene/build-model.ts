import { BENZENE_MODEL_CODES, type BenzeneModelCode } from './codes.js'
import { declaredDiagnostics, type Diagnostic } from '../../core/diagnostics.js'
import { joinPointer } from '../../runtime/shared/json-pointer.js'
import type { JsonSource } from '../../core/json-source.js'
import { directReferences, schemaClosure } from '../../runtime/benzene/closure.js'
import type { BenzeneDocument, RequestEntry } from '../../runtime/benzene/document.js'
import { bytesOfSchema, contractHash } from '../../runtime/benzene/hash-node.js'
import type { CompileMemos } from '../../core/memo.js'
import type { BenzeneChecked, BenzeneModel, TopicModel } from './model.js'
import { nameEntries } from './naming.js'
import { keptSchemas, type KeptSchema } from './kept-schemas.js'
import type { BenzeneOptions } from './options.js'
import { serviceLevel, topicScoped, wholeService } from '../../runtime/benzene/projection.js'
import { isReservedEvent, selectScope, type Scope } from '../../runtime/benzene/scope.js'

/** The model's diagnostics, at their codes' declared severities. */
const modelDiagnostic = declaredDiagnostics(BENZENE_MODEL_CODES)

/** Seeds 5.1-5.2 with the fail-loud rule: undefined (and a `BENZENE_UNKNOWN_TOPIC` diagnostic) when the include-list names unknown topics. */
export function resolveScope(source: JsonSource, doc: BenzeneDocument, effective: BenzeneOptions, diagnostics: Diagnostic[]): Scope | undefined {
  const scope = selectScope(doc, effective)
  if (scope.unknownTopics.length === 0) return scope
  diagnostics.push(
    modelDiagnostic(
      source,
      'BENZENE_UNKNOWN_TOPIC',
      '/requests',
      `The include-list names ${plural(scope.unknownTopics.length, 'topic')} this document does not have: ${scope.unknownTopics.join(', ')}. Topics it has: ${scope.validTopics.join(', ') || '(none)'}.`,
      { unknownTopics: scope.unknownTopics, validTopics: scope.validTopics },
    ),
  )
  return undefined
}

/** Scope, names and hashes: everything generation needs, or the diagnostics that stop it. `options` are resolved (`resolveBenzeneOptions`). */
export function buildModel(checked: BenzeneChecked, effective: BenzeneOptions, memos?: CompileMemos): { model?: BenzeneModel; diagnostics: Diagnostic[] } {
  const { source, facts } = checked
  const doc = source.value as BenzeneDocument
  const diagnostics: Diagnostic[] = []
  const report = (code: BenzeneModelCode, pointer: string, message: string, data?: Record<string, unknown>) =>
    diagnostics.push(modelDiagnostic(source, code, pointer, message, data))

  const scope = resolveScope(source, doc, effective, diagnostics)
  if (!scope || diagnostics.length > 0) return { diagnostics }

  // Each entry's index in `requests`, looked up once (indexOf per entry was quadratic in the topics).
  const indexOf = new Map(doc.requests.map((entry, index) => [entry, index]))
  const requests = nameEntries(
    scope.entries.map((entry) => ({ entry, index: indexOf.get(entry)! })),
    'requests',
    effective.names,
    report,
  )
  // Benzene Contract Document §5.1's reserved rule is written generically: an event whose topic is
  // `benzene:`-prefixed is reserved (events carry no flag: one written anyway is ignored) and, like a reserved request, is left out
  // of the default output unless reserved topics are asked for.
  const events = nameEntries(
    doc.events.flatMap((entry, index) => (effective.includeReserved || !isReservedEvent(entry) ? [{ entry, index }] : [])),
    'events',
    effective.names,
    report,
  )
  if (diagnostics.length > 0) return { diagnostics }

  // Each topic's hash covers its own closure (Contract Document §5.3), so the work is the sum of
  // the closures' sizes: quadratic on a `$ref` chain every topic enters at another point. It is
  // bounded here, before any of it is hashed.
  // Each schema's references as the check's facts keep them by schema object (a recompile's unchanged schemas are not walked again).
  const { objects } = facts
  const references = objects === undefined ? undefined : (schema: unknown) => objects.references(schema)?.references ?? directReferences(schema)
  const closures = requests.map((named) => schemaClosure([named.entry.request, named.entry.response], doc.components.schemas, references))
  let entries = 0
  for (let i = 0; i < closures.length; i++) {
    entries += closures[i]!.length
    if (entries > MAX_CLOSURE_ENTRIES) {
      report(
        'BENZENE_CLOSURE_TOO_LARGE',
        joinPointer('', 'requests', requests[i]!.index),
        `The topics' schema closures hold more than ${MAX_CLOSURE_ENTRIES} schemas together; each topic-scoped hash covers its closure, and the generator does not take on that much work (unsupported).`,
        { limit: MAX_CLOSURE_ENTRIES },
      )
      return { diagnostics }
    }
  }
  const kept = memos ? keptSchemas(memos) : undefined
  const bytesOf = kept ? schemaBytes(kept) : bytesOfSchema
  const topicHash = memos
    ? topicHashes(memos, doc, bytesOf, kept!)
    : (entry: RequestEntry, closure: readonly string[]) => contractHash(topicScoped(doc, entry, closure), bytesOf)
  const topics: TopicModel[] = requests.map((named, i) => ({
    ...named,
    hash: topicHash(named.entry, closures[i]!),
    components: closures[i]!,
  }))
  const projection = scope.hasIncludeList ? serviceLevel(doc, effective.topics!) : wholeService(doc)
  const fields: Omit<BenzeneModel, 'source' | 'positions'> = {
    file: source.file,
    document: doc,
    facts,
    topics,
    events,
    moduleHash: contractHash(projection, bytesOf),
    projection: scope.hasIncludeList ? { kind: 'service-level', topics: [...effective.topics!] } : { kind: 'whole-service' },
    options: { validate: effective.validate ?? 'both', int64: effective.int64 ?? 'number', validators: effective.validators ?? 'code' },
  }
  // Positions are found when first read (a source map, a listing of the model): finding them scans
  // the whole text, which a build that makes no source map never needs (bench/: a tenth of a
  // 1,000-topic model). The source's `locate` is let go once they are found.
  let locate: JsonSource['locate'] | undefined = source.locate
  let positions: BenzeneModel['positions'] | undefined
  Object.defineProperty(fields, 'positions', {
    enumerable: true,
    get: () => {
      if (positions === undefined) {
        positions = new Map()
        for (const t of topics) positions.set(joinPointer('', 'requests', t.index), position(locate!, joinPointer('', 'requests', t.index)))
        for (const e of events) positions.set(joinPointer('', 'events', e.index), position(locate!, joinPointer('', 'events', e.index)))
        locate = undefined
      }
      return positions
    },
  })
  // The source is kept for the differ's locations, non-enumerable so that no listing of the model shows it.
  const text: BenzeneModel['source'] = { file: source.file, text: source.text, lines: source.lines }
  const model = Object.defineProperty(fields, 'source', { value: text, enumerable: false }) as BenzeneModel
  return { model, diagnostics }
}

/**
 * Each component schema's hash input, kept by its JSON text across the compiles of one compiler
 * (`keptSchemas`): after an edit, only the schemas it changed are canonicalized again.
 */
function schemaBytes(kept: (schema: unknown) => KeptSchema): (schema: unknown) => Buffer {
  return (schema) => {
    if (typeof schema !== 'object' || schema === null) return bytesOfSchema(schema)
    const known = kept(schema)
    return (known.bytes ??= bytesOfSchema(schema))
  }
}

/**
 * Each topic's hash, kept across the compiles of one compiler by what its topic-scoped projection
 * is made of (Contract Document §5.3): the document's other members, the entry, and each schema of
 * its closure by name and by its JSON text (`keptSchemas`' number for it). After an edit of one
 * topic, only the topics whose projection it touched are hashed again. A key that differs only in member order is a miss, never a wrong hit.
 */
function topicHashes(
  memos: CompileMemos,
  doc: BenzeneDocument,
  bytesOf: (schema: unknown) => Buffer,
  kept: (schema: unknown) => KeptSchema,
): (entry: RequestEntry, closure: readonly string[]) => string {
  const memo = memos.of<string>('benzene:topic-hash')
  const { byEntry } = memos.kept('benzene:topic-hash-entries', () => new TopicHashesByEntry())
  const { requests: _requests, events: _events, components, ...head } = doc
  const { schemas, ...otherComponents } = components
  const headKey = JSON.stringify([head, otherComponents])
  return (entry, closure) => {
    // The same entry object (its text unchanged: core/json-regions.ts), the same other members and
    // its closure the same schema objects by the same names: the hash computed last time, found
    // without writing the key below.
    const last = byEntry.get(entry)
    if (last !== undefined && last.head === headKey && sameClosure(last, closure, schemas)) return last.hash
    // The entry by its text's number: an entry the edit left unchanged is the same object, its text not made again.
    let key = `${headKey}\0${kept(entry).id}`
    for (const name of closure) key += `\0${name}\0${kept(schemas[name]).id}`
    let hash = memo.get(key)
    if (hash === undefined) memo.set(key, (hash = contractHash(topicScoped(doc, entry, closure), bytesOf)), hash.length)
    byEntry.set(entry, { head: headKey, names: closure, schemas: closure.map((name) => schemas[name]), hash })
    return hash
  }
}

/** A topic's hash as last computed for an entry object, with what it was computed from (`topicHashes`). */
interface EntryHash {
  head: string
  names: readonly string[]
  schemas: readonly unknown[]
  hash: string
}

/** By entry object, across the compiles of one compiler (let go with the objects). */
class TopicHashesByEntry {
  byEntry = new WeakMap<object, EntryHash>()
  clear(): void {
    this.byEntry = new WeakMap()
  }
}

/** Whether `closure` names the same schemas, each the same object, as `last` was computed from. */
function sameClosure(last: EntryHash, closure: readonly string[], schemas: Readonly<Record<string, unknown>>): boolean {
  if (last.names.length !== closure.length) return false
  for (let i = 0; i < closure.length; i++) if (last.names[i] !== closure[i] || last.schemas[i] !== schemas[closure[i]!]) return false
  return true
}

/** Schemas the topics' closures may hold together (real documents: a few thousand). */
export const MAX_CLOSURE_ENTRIES = 1_000_000

function position(locate: JsonSource['locate'], pointer: string) {
  const { line, column } = locate(pointer)
  return { line, column }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}
