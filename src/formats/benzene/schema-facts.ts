import { sortKeys } from '../../core/emit.js'
import { directReferences, pushChildren } from '../../runtime/benzene/closure.js'
import { joinPointer } from '../../runtime/shared/json-pointer.js'
import { isObject, refTarget, type Schema } from '../../runtime/benzene/document.js'
import type { Report } from '../../core/rule.js'
import type { ReportCall } from '../../core/kept-reports.js'
import { recording, replay } from '../../core/rule-runner.js'
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
  /** The top-level schemas, their pointers and what is kept of them (`keptRoots`), once listed. */
  private roots?: RootRecord[]
  /** The roots the local rules look at in this compile (`attention`). */
  private attending?: RootRecord[]
  /** Component name -> its `allOf` merge contribution (all-of.ts `mergedOf`). */
  readonly merges = new Map<string, Merged>()
  /** Whether each name's merge is closed (all-of.ts `closedOf`): asked far more often than its names. */
  readonly closedMerges = new Map<string, boolean>()

  /**
   * `objects`: what a compiler's compiles read from schema objects alone, kept by the object
   * (`SchemaObjectFacts`); a one-shot compile has none.
   */
  constructor(
    readonly doc: unknown,
    readonly objects?: SchemaObjectFacts,
  ) {
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
      const push = (s: unknown, w: Where) => {
        collected.schemas.push(s)
        collected.wheres.push(w)
      }
      if (this.objects !== undefined) {
        for (const { schema, pointer, kept } of this.keptRoots()) {
          if (kept === undefined) push(schema, () => pointer)
          else for (let i = 0; i < kept.schemas.length; i++) push(kept.schemas[i], kept.wheres[i]!)
        }
      } else for (const { schema, pointer } of documentSchemas(this.doc)) walkSchema(schema, () => pointer, push)
      this.nodes = collected
    }
    for (let i = 0; i < this.nodes.schemas.length; i++) visit(this.nodes.schemas[i], this.nodes.wheres[i]!)
  }

  /**
   * `forEachSchema` for a rule whose reports at a schema are decided by that schema and the schemas
   * nested in it alone (not by a `$ref`'s target, the catalogue or another part of the document):
   * `visit` reports through the `report` it is given. With schema-object facts kept across a
   * compiler's compiles, each top-level schema the edit left unchanged (the same object) at the
   * same pointer has the rule's reports there from the last compile replayed, in the same order,
   * without being visited (`KeptRoot.visited`, `KeptRoot.calls`). `rule` names the rule (its code).
   */
  forEachSchemaLocal(rule: string, report: Report, visit: (schema: unknown, where: Where, report: Report) => void): void {
    if (this.objects === undefined) {
      this.forEachSchema((schema, where) => visit(schema, where, report))
      return
    }
    const { objects } = this
    // The rule's bit in each schema's `visited`; a rule past the bits there is visited every time.
    const bit = objects.bitOf(rule)
    // One recording report for the rule (core's, as the runner records kept rules), writing into
    // the calls of the schema being visited.
    const calls: ReportCall<never>[] = []
    const recorded = recording(report, calls)
    for (const { schema, pointer, kept } of this.attention()) {
      if (kept === undefined) {
        visit(schema, () => pointer, report)
        continue
      }
      if ((kept.visited & bit) !== 0) {
        for (const call of kept.calls?.get(rule) ?? NO_CALLS) replay(report, call)
        continue
      }
      for (let i = 0; i < kept.schemas.length; i++) visit(kept.schemas[i], kept.wheres[i]!, recorded)
      const made = calls.splice(0)
      // A schema with more reports than are kept is visited again next time (what is held stays small).
      if (bit !== 0 && made.length <= MAX_KEPT_CALLS) {
        kept.visited |= bit
        if (made.length > 0) (kept.calls ??= new Map()).set(rule, made)
      }
    }
  }

  /**
   * The top-level schemas a local rule must look at (`forEachSchemaLocal`): all but those where
   * every local rule known reported nothing last time, at the same pointer (the common case after an
   * edit: everything the edit left alone). Listed once a compile.
   */
  private attention(): ReadonlyArray<RootRecord> {
    if (this.attending === undefined) {
      const all = this.objects!.allBits()
      this.attending = this.keptRoots().filter(({ kept }) => kept === undefined || kept.calls !== undefined || kept.visited !== all)
    }
    return this.attending
  }

  /** The top-level schemas with what is kept of each (`SchemaObjectFacts.root`), listed once a compile. */
  private keptRoots(): ReadonlyArray<RootRecord> {
    if (this.roots === undefined) {
      const objects = this.objects!
      const roots: RootRecord[] = []
      const doc = this.doc
      if (isObject(doc)) {
        // As `documentSchemas` lists them: requests, events, then the catalogue.
        objects.listRoots(doc.requests, 'requests', REQUEST_KEYS, roots)
        objects.listRoots(doc.events, 'events', EVENT_KEYS, roots)
        const schemas = isObject(doc.components) ? doc.components.schemas : undefined
        if (isObject(schemas))
          for (const [name, schema] of Object.entries(schemas))
            roots.push(objects.rootRecord(schema, -1, name, () => joinPointer('', 'components', 'schemas', name)))
      }
      this.roots = roots
    }
    return this.roots
  }
}

/**
 * What is read from a schema object alone (not following `$ref`), kept by the object across the
 * compiles of one compiler: parsed values never change, and a recompile's schemas that its edit
 * left unchanged are the same objects (core/json-regions.ts), so none of this is read again for
 * them. Let go with the objects (weak maps).
 */
export class SchemaObjectFacts {
  private roots = new WeakMap<object, KeptRoot>()
  private lists = new WeakMap<object, RootRecord[]>()
  /** The local rules (`forEachSchemaLocal`) these compiles have run, by code. */
  private readonly localRules = new Map<string, number>()

  /** The bit that stands for `rule` in each schema's `visited` (0 past the bits a number holds: never kept). */
  bitOf(rule: string): number {
    let bit = this.localRules.get(rule)
    if (bit === undefined) this.localRules.set(rule, (bit = this.localRules.size < 30 ? 1 << this.localRules.size : 0))
    return bit
  }

  /** The bits of every local rule these compiles have run. */
  allBits(): number {
    let all = 0
    for (const bit of this.localRules.values()) all |= bit
    return all
  }
  private plain = new WeakMap<object, { references: readonly string[]; choices: boolean }>()
  private directional = new WeakMap<object, boolean>()

  /**
   * The roots of a list of entries (`requests` or `events`: each entry's schemas under `keys`),
   * appended to `out`; kept by the list object, which is the same one only when its text is
   * unchanged (core/json-regions.ts), and then its entries stand where they stood.
   */
  listRoots(list: unknown, name: string, keys: readonly string[], out: RootRecord[]): void {
    if (!Array.isArray(list)) return
    let records = this.lists.get(list)
    if (records === undefined) {
      records = []
      for (let i = 0; i < list.length; i++) {
        const entry: unknown = list[i]
        if (!isObject(entry)) continue
        for (const key of keys) if (key in entry) records.push(this.rootRecord(entry[key], i, key, () => `/${name}/${i}/${key}`))
      }
      this.lists.set(list, records)
    }
    for (const record of records) out.push(record)
  }

  /**
   * A top-level schema and what is kept of it: every schema nested in it (itself first, as
   * `walkSchema` visits them) with its pointer, and what the local rules reported there (undefined
   * for a value that is not an object). It stands at `index` (an entry's, or -1 for a component) and
   * `key` (the entry's member, or the component's name); `pointerOf` spells that, asked only when
   * the schema is new or moved (its walk's pointers then read the new one; its reports are dropped).
   */
  rootRecord(schema: unknown, index: number, key: string, pointerOf: () => string): RootRecord {
    if (!isObject(schema)) return { schema, pointer: pointerOf(), kept: undefined }
    let kept = this.roots.get(schema)
    if (kept === undefined) {
      const at = { pointer: pointerOf() }
      const made: KeptRoot = { at, index, key, schemas: [], wheres: [], visited: 0, calls: undefined }
      walkSchema(
        schema,
        () => at.pointer,
        (s, w) => {
          made.schemas.push(s)
          made.wheres.push(w)
        },
      )
      this.roots.set(schema, (kept = made))
    } else if (kept.index !== index || kept.key !== key) {
      // Moved (a renamed component, an entry at another index): its reports named the old pointers.
      kept.at.pointer = pointerOf()
      kept.index = index
      kept.key = key
      kept.visited = 0
      kept.calls = undefined
    }
    return { schema, pointer: kept.at.pointer, kept }
  }

  /**
   * The component names `schema` names by `$ref` in the positions §5.3's closure walks
   * (`directReferences`, in the order `generationReferences` finds them too), and whether any schema
   * there has `discriminator`, `oneOf` or `anyOf` (whose choices depend on the catalogue: then these
   * alone are not its generation references). Undefined for a value that is not an object.
   */
  references(schema: unknown): { references: readonly string[]; choices: boolean } | undefined {
    if (!isObject(schema)) return undefined
    let kept = this.plain.get(schema)
    if (kept === undefined) this.plain.set(schema, (kept = { references: directReferences(schema), choices: hasChoice(schema) }))
    return kept
  }

  /** `hasDirectionalMember`, kept by the object. */
  directionalMember(schema: unknown, read: (schema: unknown) => boolean): boolean {
    if (!isObject(schema)) return read(schema)
    let kept = this.directional.get(schema)
    if (kept === undefined) this.directional.set(schema, (kept = read(schema)))
    return kept
  }

  clear(): void {
    this.roots = new WeakMap()
    this.lists = new WeakMap()
    this.plain = new WeakMap()
    this.directional = new WeakMap()
  }
}

/** Whether a schema, or one nested in it where §5.3's closure walks, has `discriminator`, `oneOf` or `anyOf`. */
function hasChoice(schema: unknown): boolean {
  const stack: unknown[] = [schema]
  while (stack.length > 0) {
    const s = stack.pop()
    if (!isObject(s)) continue
    if ('discriminator' in s || 'oneOf' in s || 'anyOf' in s) return true
    pushChildren(s, stack)
  }
  return false
}

/** A top-level schema where the compile under way found it, and what is kept of it (`SchemaObjectFacts.rootRecord`). */
interface RootRecord {
  schema: unknown
  pointer: string
  kept: KeptRoot | undefined
}

const REQUEST_KEYS = ['request', 'response']
const EVENT_KEYS = ['message']

/** A top-level schema's walk and the local rules' reports there. */
interface KeptRoot {
  /** Where the schema stands in the compile under way (its walk's pointers read it). */
  at: { pointer: string }
  /** The entry's index (-1 for a component) and the member or component name it stands at. */
  index: number
  key: string
  schemas: unknown[]
  wheres: Where[]
  /** The local rules (their bits: `SchemaObjectFacts.bitOf`) whose reports here are kept, from when each last visited it at `at.pointer` (none once it moves). */
  visited: number
  /** The report calls of the rules among them that reported anything here, by rule (none: undefined). */
  calls: Map<string, readonly ReportCall<never>[]> | undefined
}

const NO_CALLS: readonly ReportCall<never>[] = []

/** The most report calls kept for one rule at one top-level schema (`forEachSchemaLocal`). */
const MAX_KEPT_CALLS = 256

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
