import type { CompileMemos } from '../../core/memo.js'
import type { SchemaFacts } from './schema-facts.js'

/**
 * A schema's JSON text as one compiler's compiles know it: a number that is the same for the same
 * text (equal numbers, equal texts), and its hash input once asked for (`bytesOfSchema`).
 */
export interface KeptSchema {
  readonly id: number
  /** Its JSON text's length (what keeping something made from it costs is about proportional). */
  readonly length: number
  bytes?: Buffer
}

/**
 * Each schema's `KeptSchema`, kept by its JSON text across the compiles of one compiler (the memo
 * `benzene:schemas`), and within a compile by the schema object (its text is made once, however
 * many stages ask: the hashes and the validators' conversions both key by it). JSON text decides:
 * the same members in the same order are the same schema; a reordered one is a new number, never
 * a wrong one.
 */
export function keptSchemas(memos: CompileMemos, facts: SchemaFacts): (schema: unknown) => KeptSchema {
  let known = PER_COMPILE.get(facts)
  if (known?.memos !== memos) PER_COMPILE.set(facts, (known = { memos, seen: new WeakMap() }))
  const { seen } = known
  const memo = memos.of<KeptSchema>('benzene:schemas')
  const byText = (text: string) => {
    let kept = memo.get(text)
    if (kept === undefined) memo.set(text, (kept = { id: nextId++, length: text.length }), 2 * text.length)
    return kept
  }
  return (schema) => {
    if (typeof schema !== 'object' || schema === null) return byText(JSON.stringify(schema) ?? 'undefined')
    let kept = seen.get(schema)
    if (kept === undefined) seen.set(schema, (kept = byText(JSON.stringify(schema))))
    return kept
  }
}

/** What a compile (its facts) has looked up already, by schema object. */
const PER_COMPILE = new WeakMap<SchemaFacts, { memos: CompileMemos; seen: WeakMap<object, KeptSchema> }>()

let nextId = 0
