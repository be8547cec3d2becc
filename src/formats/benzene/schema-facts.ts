import { sortKeys } from '../../core/emit.js'
import { isObject, refTarget, type Schema } from '../../runtime/benzene/document.js'
import type { Merged } from './all-of.js'
import type { Discriminator } from './inheritance.js'
import { documentSchemas, walkSchema, type Where } from './schema-walk.js'

export type Catalogue = Readonly<Record<string, Schema>>

/** Who extends whom through a top-level `allOf` `$ref`, and the memos the inheritance reading fills. */
export interface Hierarchy {
  /** Parent name -> the names whose top-level `allOf` references it, in sorted order. */
  children: Map<string, string[]>
  /** Child name -> the names its top-level `allOf` references, in order. */
  parents: Map<string, string[]>
  /** Parent name -> its descendants as a set (asked once per parent, however many alternatives name its family). */
  families: Map<string, ReadonlySet<string>>
  descendants: Map<string, string[]>
  /** Memos per component name: its choice, the names that choice selects, and whether its own shape is used. */
  choices: Map<string, Discriminator | undefined>
  selected: Map<string, ReadonlySet<string>>
  ownShape: Map<string, boolean>
  /** Component name -> generationReferences of its schema. */
  references: Map<string, readonly string[]>
  /** Alternatives (a schema object) -> the family choice they make (inheritance.ts `inheritedChoice`), or null for none. */
  inherited: WeakMap<object, Discriminator | null>
}

/**
 * What the check stage derives from one Benzene document and hands on to the model and the
 * generators (the format's `Checked` value, with the source): the schema catalogue, the inheritance
 * hierarchy (inheritance.ts), the `allOf` merges (all-of.ts) and the list of every schema node with
 * its pointer (schema-walk.ts). Each is made once, on first use, and lives as long as this object:
 * nothing is kept in module-level tables, so what one stage knows is exactly what it was handed.
 */
export class SchemaFacts {
  readonly catalogue: Catalogue
  private built?: Hierarchy
  private nodes?: { schemas: unknown[]; wheres: Where[] }
  /** Component name -> its `allOf` merge contribution (all-of.ts `mergedOf`). */
  readonly merges = new Map<string, Merged>()

  constructor(readonly doc: unknown) {
    const components = isObject(doc) && isObject(doc.components) ? doc.components.schemas : undefined
    this.catalogue = isObject(components) ? (components as Record<string, Schema>) : {}
  }

  /** The hierarchy: one pass over the catalogue, on first use. */
  get hierarchy(): Hierarchy {
    return (this.built ??= buildHierarchy(this.catalogue))
  }

  /**
   * Every schema in the document, nested ones included, with its pointer. The list is made once and
   * shared by the rules that walk it (walking once saves most of validation's time).
   */
  forEachSchema(visit: (schema: unknown, where: Where) => void): void {
    if (!this.nodes) {
      const collected = { schemas: [] as unknown[], wheres: [] as Where[] }
      for (const { schema, pointer } of documentSchemas(this.doc)) {
        walkSchema(
          schema,
          () => pointer,
          (s, w) => {
            collected.schemas.push(s)
            collected.wheres.push(w)
          },
        )
      }
      this.nodes = collected
    }
    for (let i = 0; i < this.nodes.schemas.length; i++) visit(this.nodes.schemas[i], this.nodes.wheres[i]!)
  }
}

function buildHierarchy(catalogue: Catalogue): Hierarchy {
  const h: Hierarchy = {
    children: new Map(),
    parents: new Map(),
    families: new Map(),
    descendants: new Map(),
    choices: new Map(),
    selected: new Map(),
    ownShape: new Map(),
    references: new Map(),
    inherited: new WeakMap(),
  }
  for (const name of sortKeys(Object.keys(catalogue))) {
    const schema = catalogue[name]
    if (!isObject(schema) || !Array.isArray(schema.allOf)) continue
    for (const member of schema.allOf as unknown[]) {
      const parent = isObject(member) ? refTarget(member.$ref) : undefined
      if (parent === undefined || parent === name) continue
      const list = h.children.get(parent) ?? []
      if (list[list.length - 1] !== name) list.push(name)
      h.children.set(parent, list)
      const up = h.parents.get(name) ?? []
      if (!up.includes(parent)) up.push(parent)
      h.parents.set(name, up)
    }
  }
  return h
}
