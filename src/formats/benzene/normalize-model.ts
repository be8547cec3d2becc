import type { Diagnostic } from '../../core/diagnostics.js'
import type { ImportQuery } from '../../core/format.js'
import { joinPointer } from '../../core/json-pointer.js'
import type { JsonSource } from '../../core/json-source.js'
import { schemaClosure } from './closure.js'
import type { BenzeneDocument } from './document.js'
import { contractHash } from './hash.js'
import type { BenzeneModel, TopicModel } from './model.js'
import { nameEntries } from './naming.js'
import type { BenzeneOptions, ValidateOption } from './options.js'
import { serviceLevel, topicScoped, wholeService } from './projection.js'
import { selectScope, type Scope } from './scope.js'

const VALIDATE_VALUES = new Map<string, ValidateOption>([
  ['request', 'request'],
  ['response', 'response'],
  ['both', 'both'],
  ['false', false],
  ['none', false],
])

/** The import query wins over plugin options: `?topics=a,b&includeReserved&validate=request`. */
export function scopeOptions(query: ImportQuery, options: BenzeneOptions | undefined, report?: (message: string, data: Record<string, unknown>) => void): BenzeneOptions {
  const topics = query.has('topics') ? query.get('topics')!.split(',').map((t) => t.trim()).filter(Boolean) : options?.topics
  const flag = query.get('includeReserved')
  const includeReserved = flag === undefined ? options?.includeReserved : flag !== 'false' && flag !== '0'
  let validate = options?.validate
  const asked = query.get('validate')
  if (asked !== undefined) {
    if (VALIDATE_VALUES.has(asked)) validate = VALIDATE_VALUES.get(asked)
    else report?.(`?validate=${asked} is not one of request, response, both, false.`, { option: 'validate', value: asked })
  }
  return { ...options, topics, includeReserved, validate }
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

  const effective = scopeOptions(query, options, (message, data) => report('BENZENE_INVALID_OPTION', '', message, data))
  if (effective.validate !== undefined && effective.validate !== false && !['request', 'response', 'both'].includes(effective.validate)) {
    report('BENZENE_INVALID_OPTION', '', `Option validate: ${JSON.stringify(effective.validate)} is not one of 'request', 'response', 'both', false.`, { option: 'validate', value: effective.validate })
  }
  if (effective.int64 !== undefined && effective.int64 !== 'number' && effective.int64 !== 'string') {
    report('BENZENE_INVALID_OPTION', '', `Option int64: ${JSON.stringify(effective.int64)} is not 'number' or 'string'.`, { option: 'int64', value: effective.int64 })
  }
  const scope = resolveScope(source, doc, effective, diagnostics)
  if (!scope || diagnostics.length > 0) return { diagnostics }

  const requests = nameEntries(
    scope.entries.map((entry) => ({ entry, index: doc.requests.indexOf(entry) })),
    'requests',
    effective.names,
    report,
  )
  const events = nameEntries(
    doc.events.map((entry, index) => ({ entry, index })),
    'events',
    effective.names,
    report,
  )
  if (diagnostics.length > 0) return { diagnostics }

  // Each topic's hash covers its own closure (Contract Document §5.3), so the work is the sum of
  // the closures' sizes: quadratic on a `$ref` chain every topic enters at another point. It is
  // bounded here, before any of it is hashed.
  const closures = requests.map((named) => schemaClosure([named.entry.request, named.entry.response], doc.components.schemas))
  let entries = 0
  for (let i = 0; i < closures.length; i++) {
    entries += closures[i]!.length
    if (entries > MAX_CLOSURE_ENTRIES) {
      report('BENZENE_CLOSURE_TOO_LARGE', joinPointer('', 'requests', requests[i]!.index), `The topics' schema closures hold more than ${MAX_CLOSURE_ENTRIES} schemas together; each topic-scoped hash covers its closure, and the generator does not take on that much work (unsupported).`, { limit: MAX_CLOSURE_ENTRIES })
      return { diagnostics }
    }
  }
  const topics: TopicModel[] = requests.map((named, i) => ({
    ...named,
    hash: contractHash(topicScoped(doc, named.entry, closures[i])),
    components: closures[i]!,
  }))
  const projection = scope.hasIncludeList ? serviceLevel(doc, effective.topics!) : wholeService(doc)
  const positions = new Map<string, { line: number; column: number }>()
  for (const t of topics) positions.set(joinPointer('', 'requests', t.index), position(source, joinPointer('', 'requests', t.index)))
  for (const e of events) positions.set(joinPointer('', 'events', e.index), position(source, joinPointer('', 'events', e.index)))
  return {
    model: {
      file: source.file,
      document: doc,
      topics,
      events,
      moduleHash: contractHash(projection),
      projection: scope.hasIncludeList ? { kind: 'service-level', topics: [...effective.topics!] } : { kind: 'whole-service' },
      options: { validate: effective.validate ?? 'both', int64: effective.int64 ?? 'number' },
      positions,
    },
    diagnostics,
  }
}

/** Schemas the topics' closures may hold together (real documents: a few thousand). */
export const MAX_CLOSURE_ENTRIES = 1_000_000

function position(source: JsonSource, pointer: string) {
  const { line, column } = source.locate(pointer)
  return { line, column }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}
