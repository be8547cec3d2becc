import type { CompileMemos } from '../../core/memo.js'

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
 * `benzene:schemas`), and by the schema object: its text is made once however many stages ask (the
 * hashes and the validators' conversions both key by it), and not again in a recompile for a schema
 * the edit left unchanged, which is the same object (core/json-regions.ts). JSON text decides: the
 * same members in the same order are the same schema; a reordered one is a new number, never a
 * wrong one. Values are never changed once parsed, so an object's text is its text for good.
 */
export function keptSchemas(memos: CompileMemos): (schema: unknown) => KeptSchema {
  const { seen } = memos.kept('benzene:schema-objects', () => new SeenSchemas())
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

/** What the compiles of one compiler have looked up already, by schema object (let go with the objects). */
class SeenSchemas {
  seen = new WeakMap<object, KeptSchema>()
  clear(): void {
    this.seen = new WeakMap()
  }
}

let nextId = 0
