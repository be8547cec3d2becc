import type { Diagnostic } from '../../core/diagnostics.js'
import type { ImportQuery } from '../../core/format.js'
import { joinPointer } from '../../core/json-pointer.js'
import type { JsonSource } from '../../core/json-source.js'
import { entryLabel, type BenzeneDocument } from './document.js'
import { contractHash } from './hash.js'
import type { BenzeneModel, TopicModel } from './model.js'
import { exportNameOf, isUsableExportName, MODULE_EXPORTS } from './naming.js'
import type { BenzeneOptions } from './options.js'
import { serviceLevel, topicScoped, wholeService } from './projection.js'
import { schemaClosure } from './closure.js'
import { selectScope, type Scope } from './scope.js'

/** The import query wins over plugin options: `?topics=a,b&includeReserved`. */
export function scopeOptions(query: ImportQuery, options: BenzeneOptions | undefined): BenzeneOptions {
  const topics = query.has('topics') ? query.get('topics')!.split(',').map((t) => t.trim()).filter(Boolean) : options?.topics
  const flag = query.get('includeReserved')
  const includeReserved = flag === undefined ? options?.includeReserved : flag !== 'false' && flag !== '0'
  return { ...options, topics, includeReserved }
}

/** Seeds 5.1-5.2 with the fail-loud rule: undefined (and a `BENZENE_UNKNOWN_TOPIC` diagnostic) when the include-list names unknown topics. */
export function resolveScope(source: JsonSource, doc: BenzeneDocument, effective: BenzeneOptions, diagnostics: Diagnostic[]): Scope | undefined {
  const scope = selectScope(doc, effective)
  if (scope.unknownTopics.length === 0) return scope
  diagnostics.push({
    code: 'BENZENE_UNKNOWN_TOPIC',
    severity: 'error',
    message: `The include-list names ${plural(scope.unknownTopics.length, 'topic')} this document does not have: ${scope.unknownTopics.join(', ')}. Topics it has: ${scope.validTopics.join(', ') || '(none)'}.`,
    file: source.file,
    pointer: '/requests',
    ...position(source, '/requests'),
    data: { unknownTopics: scope.unknownTopics, validTopics: scope.validTopics },
  })
  return undefined
}

/** Scope, names and hashes: everything generation needs, or the diagnostics that stop it. */
export function buildModel(source: JsonSource, doc: BenzeneDocument, query: ImportQuery, options: BenzeneOptions | undefined): { model?: BenzeneModel; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = []
  const report = (code: string, pointer: string, message: string, data?: Record<string, unknown>) =>
    diagnostics.push({ code, severity: 'error', message, file: source.file, pointer, ...position(source, pointer), ...(data ? { data } : {}) })

  const effective = scopeOptions(query, options)
  const scope = resolveScope(source, doc, effective, diagnostics)
  if (!scope) return { diagnostics }

  const versionsInScope = new Map<string, number>()
  for (const entry of scope.entries) versionsInScope.set(entry.topic, (versionsInScope.get(entry.topic) ?? 0) + 1)
  const byName = new Map<string, TopicModel>()
  const topics: TopicModel[] = []
  for (const entry of scope.entries) {
    const index = doc.requests.indexOf(entry)
    const pointer = joinPointer('', 'requests', index, 'topic')
    const { name, chosen } = exportNameOf(entry, effective.names)
    if (!isUsableExportName(name)) {
      const why = MODULE_EXPORTS.has(name) ? 'is taken by the module itself' : 'is not a valid JavaScript identifier'
      report('BENZENE_INVALID_EXPORT_NAME', pointer, `Export name ${JSON.stringify(name)} for topic ${JSON.stringify(entryLabel(entry))} ${why}. ${chosen ? 'Choose another in the `names` option.' : `Name it with the option names: { ${JSON.stringify(entryLabel(entry))}: "<exportName>" }.`}`, { topic: entry.topic, version: entry.version, exportName: name })
      continue
    }
    const other = byName.get(name)
    if (other) {
      report(
        'BENZENE_EXPORT_COLLISION',
        pointer,
        `Topics ${JSON.stringify(entryLabel(other.entry))} and ${JSON.stringify(entryLabel(entry))} would both be exported as ${JSON.stringify(name)}. Resolve it with the option names: { ${JSON.stringify(entryLabel(entry))}: "<exportName>" }.`,
        { exportName: name, topics: [entryLabel(other.entry), entryLabel(entry)] },
      )
      continue
    }
    const model: TopicModel = {
      entry,
      index,
      exportName: name,
      mapKey: (versionsInScope.get(entry.topic) ?? 0) > 1 ? entryLabel(entry) : entry.topic,
      hash: contractHash(topicScoped(doc, entry)),
      components: schemaClosure([entry.request, entry.response], doc.components.schemas),
    }
    byName.set(name, model)
    topics.push(model)
  }
  if (diagnostics.length > 0) return { diagnostics }

  const projection = scope.hasIncludeList ? serviceLevel(doc, effective.topics!) : wholeService(doc)
  const positions = new Map(topics.map((t) => [t.index, position(source, joinPointer('', 'requests', t.index))]))
  return {
    model: { file: source.file, document: doc, topics, moduleHash: contractHash(projection), projection: projection.kind as BenzeneModel['projection'], positions },
    diagnostics,
  }
}

function position(source: JsonSource, pointer: string) {
  const { line, column } = source.locate(pointer)
  return { line, column }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}
