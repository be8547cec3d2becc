import type { CompileMemos, ContentMemo } from '../../core/memo.js'
import { generationReferences } from './inheritance.js'
import { keptSchemas, type KeptSchema } from './kept-schemas.js'
import type { SchemaFacts } from './schema-facts.js'

/** One reference a conversion made, in the order made: the component name, the variant asked, and the reference written. */
export type TracedReference = [name: string, variant: string, target: string]

/** A conversion kept across compiles: its result, and the references it made to get it. */
interface Kept {
  json: unknown
  trace: TracedReference[]
}

/** Schemas a kept conversion's key may name (its own and what it reaches); past this, it is converted every time. */
const MAX_REACH = 64

/**
 * The JSON Schema conversions (json-schema.ts `convert`) of one compiler's compiles, kept per
 * schema: after an edit, only the schemas whose conversion it can change are converted again, and
 * every other one is the very object the last compile made (so what is kept by identity after it,
 * such as `definitionClasses`' texts and the validator functions' pieces, is found at once).
 *
 * A conversion reads the schema, the facts of the component schemas it reaches (references,
 * discriminator choices, what extends them: `generationReferences`, followed) and which component
 * schemas extend which (`allOf` references, anywhere in the catalogue). Its key is the direction,
 * the `int64` option, the variant, the JSON text of the schema and of each one it reaches, and the
 * catalogue's `allOf` hierarchy; texts are named by number (`keptSchemas`), equal numbers equal texts.
 * The definition keys it writes (`req#/definitions/d3`) depend on the order the whole module asks
 * for definitions: a kept conversion replays its references in order (the same calls, so the
 * same definitions are asked for) and stands only when each is written as it was then.
 */
export class ConvertedMemo {
  private readonly kept: ContentMemo<Kept>
  private readonly schemas: (schema: unknown) => KeptSchema
  /** This compile's key part for what each component name reaches (`reachKey`). */
  private readonly reaches = new Map<string, string | undefined>()
  private readonly hierarchy: number

  constructor(
    memos: CompileMemos,
    private readonly facts: SchemaFacts,
    private readonly int64: string,
  ) {
    this.kept = memos.of<Kept>('benzene:converted')
    this.schemas = keptSchemas(memos)
    this.hierarchy = this.schemas(JSON.stringify([...facts.hierarchy.children])).id
  }

  /**
   * The kept conversion of `schema` (`name` when it is a component's definition, `variant` the
   * direction and the rest of what was asked), when its key matches and `replay` writes each of
   * its references as before; otherwise `convert`'s, kept for the next compile. `replay` makes the
   * reference calls the conversion made, so a conversion done after a failed replay asks for
   * nothing new.
   */
  converted(
    schema: unknown,
    name: string | undefined,
    variant: string,
    replay: (name: string, variant: string) => string,
    convert: (trace: TracedReference[]) => unknown,
  ): unknown {
    const key = this.key(schema, name, variant)
    if (key === undefined) return convert([])
    const kept = this.kept.get(key)
    if (kept !== undefined) {
      let same = true
      for (const [target, asked, written] of kept.trace) if (replay(target, asked) !== written) same = false
      if (same) return kept.json
    }
    const trace: TracedReference[] = []
    const json = convert(trace)
    // What it holds: the key, the converted schema (objects: a few times its text), the trace.
    this.kept.set(key, { json, trace }, key.length + 4 * this.schemas(schema).length + 64 * (trace.length + 1))
    return json
  }

  private key(schema: unknown, name: string | undefined, variant: string): string | undefined {
    const reach = name === undefined ? this.reachOf(generationReferences(schema, this.facts)) : this.reachKey(name)
    if (reach === undefined) return undefined
    return `${this.int64}\0${variant}\0${name === undefined ? 'r' : `n${name}`}\0${this.hierarchy}\0${this.schemas(schema).id}${reach}`
  }

  /** The key part for what a component schema reaches, once per compile and name. */
  private reachKey(name: string): string | undefined {
    if (this.reaches.has(name)) return this.reaches.get(name)
    const { facts } = this
    const schema = Object.hasOwn(facts.catalogue, name) ? facts.catalogue[name] : undefined
    const key = this.reachOf(schema === undefined ? [] : generationReferences(schema, facts, name))
    this.reaches.set(name, key)
    return key
  }

  /**
   * Each component schema reached from `references` (`generationReferences`, followed), by name
   * and text, in the order found (the same texts are found in the same order); undefined past
   * `MAX_REACH` of them.
   */
  private reachOf(references: readonly string[]): string | undefined {
    const { facts } = this
    let key = ''
    const seen = new Set<string>()
    const queue = [...references]
    for (let i = 0; i < queue.length; i++) {
      const next = queue[i]!
      if (seen.has(next)) continue
      seen.add(next)
      if (seen.size > MAX_REACH) return undefined
      const reached = Object.hasOwn(facts.catalogue, next) ? facts.catalogue[next] : undefined
      key += `\0${next}\0${this.schemas(reached).id}`
      if (reached !== undefined) for (const ref of generationReferences(reached, facts, next)) if (!seen.has(ref)) queue.push(ref)
    }
    return key
  }
}
