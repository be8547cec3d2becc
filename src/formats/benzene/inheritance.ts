import { sortKeys } from '../../core/emit.js'
import { reach } from '../../core/graph.js'
import { pushChildren } from '../../runtime/benzene/closure.js'
import { isObject, refTarget, type Schema } from '../../runtime/benzene/document.js'
import type { SchemaFacts } from './schema-facts.js'

/**
 * OpenAPI 3.0 discriminators (Schema Object, "Composition and Inheritance"; Discriminator Object),
 * both ways the specification writes them:
 * - a schema with `oneOf`/`anyOf` members and a `discriminator` chooses among its `$ref` members;
 * - a component schema with a `discriminator` and no `oneOf`/`anyOf` is a parent: the component
 *   schemas that extend it with `allOf: [{ $ref: Parent }, ...]` (and those extending them) are
 *   what it chooses among. Its Pet/Cat/Dog example is what Swashbuckle and NSwag emit for classes.
 * A value selects a schema by `mapping`, else by the selected schema's own name. Where a selected
 * schema extends the schema that selects it, its `$ref` to that schema means the selector's own
 * fields (its "own shape"), not the choice again, which would lead straight back to it.
 */

export interface Discriminator {
  propertyName: string
  /** Discriminator value -> the component schema it selects: `mapping` first (values sorted), then implicit names. */
  values: Array<[value: string, schemaName: string]>
  /** `oneOf`/`anyOf` members that are not references: no value selects them, a payload may still match them. */
  inline: unknown[]
  /** The keyword holding the members, or `allOf` for a parent chosen among the schemas extending it. */
  mode: 'oneOf' | 'anyOf' | 'allOf'
  /**
   * A parent whose own choice decides every payload that none of `values` selects (a parent listed
   * among alternatives stands for its family): referenced once rather than written out value by value.
   */
  rest?: string
}

/** How many values all the parents' discriminators may hold together: each becomes a branch of a validator and of a type. */
export const MAX_DISCRIMINATOR_VALUES = 100_000

/**
 * Every schema that extends `name`, directly or through others, sorted; past `limit` of them the
 * walk stops (the list is then longer than `limit`, but not complete).
 * Breadth-first over the children lists: O(descendants) after the catalogue's one pass.
 */
export function descendantsOf(name: string, facts: SchemaFacts, limit = MAX_DISCRIMINATOR_VALUES): string[] {
  const h = facts.hierarchy
  const known = h.descendants.get(name)
  if (known) return known
  const seen = new Set<string>([name])
  const queue = [name]
  for (let i = 0; i < queue.length && seen.size <= limit + 1; i++) {
    for (const child of h.children.get(queue[i]!) ?? []) {
      if (seen.has(child)) continue
      seen.add(child)
      queue.push(child)
    }
  }
  seen.delete(name)
  const out = [...seen].sort()
  if (out.length <= limit) h.descendants.set(name, out)
  return out
}

/** A `discriminator` with a usable `propertyName`, or undefined. */
function discriminatorObject(schema: Schema): { propertyName: string; mapping: Record<string, unknown> } | undefined {
  const d = schema.discriminator
  if (!isObject(d) || typeof d.propertyName !== 'string' || d.propertyName === '') return undefined
  return { propertyName: d.propertyName, mapping: isObject(d.mapping) ? d.mapping : {} }
}

/** The component name a mapping value names: a reference, or the bare name. */
export function mappingTarget(target: unknown): string | undefined {
  return typeof target === 'string' ? (refTarget(target) ?? target) : undefined
}

/**
 * The choice a schema makes, or undefined when it makes none. `name` is the schema's component
 * name when it is one: only a component schema can be a parent (children name it by `$ref`).
 * A parent whose discriminator selects nothing makes no choice (the rules report it).
 */
export function discriminatorOf(schema: Schema, facts: SchemaFacts, name?: string): Discriminator | undefined {
  const d = discriminatorObject(schema)
  if (!d) return inheritedChoice(schema, facts)
  const mode = Array.isArray(schema.oneOf) ? 'oneOf' : Array.isArray(schema.anyOf) ? 'anyOf' : 'allOf'
  const values: Array<[string, string]> = []
  const taken = new Set<string>()
  const mapped = new Set<string>()
  for (const value of sortKeys(Object.keys(d.mapping))) {
    const target = mappingTarget(d.mapping[value])
    if (target === undefined) continue
    values.push([value, target])
    taken.add(value)
    mapped.add(target)
  }
  // Implicit values: a selectable schema not named by `mapping` is selected by its own name.
  const implicit = (target: string) => {
    if (!mapped.has(target) && !taken.has(target)) {
      values.push([target, target])
      taken.add(target)
    }
  }
  const inline: unknown[] = []
  if (mode === 'allOf') {
    if (name === undefined) return undefined
    for (const child of descendantsOf(name, facts)) implicit(child)
  } else {
    for (const member of schema[mode] as unknown[]) {
      const target = isObject(member) ? refTarget(member.$ref) : undefined
      if (target === undefined) inline.push(member)
      else implicit(target)
    }
  }
  if (mode === 'allOf' && values.length === 0) return undefined
  return { propertyName: d.propertyName, values, inline, mode }
}

/**
 * A `oneOf`/`anyOf` without a discriminator of its own whose members are all `$ref`s into one
 * parent's family: the parent itself and/or schemas its discriminator selects (Swashbuckle and
 * NSwag write request bodies as `oneOf: [Animal, Cat, Dog]` beside `Animal`'s discriminator). Read
 * as plain alternatives, a correct Cat matches both `Animal` (whose choice selects Cat) and `Cat`,
 * and `oneOf` refuses it; the parent's discriminator is what tells the members apart, so it is the
 * choice here. A value selects a listed member, or a schema extending one; a listed parent also
 * stands for its whole family and, by its own name, for its own fields (OpenAPI's implicit value).
 * Undefined when the members are not one family (then they are plain alternatives).
 * Cost per schema: O(ancestors of the first member x members), plus, when only children are
 * listed, their descendants; memoized per schema object; each parent's family set is built once
 * per catalogue. A listed parent is referenced (`rest`), not written out value by value.
 */
function inheritedChoice(schema: Schema, facts: SchemaFacts): Discriminator | undefined {
  const hasOne = Array.isArray(schema.oneOf)
  if (hasOne === Array.isArray(schema.anyOf)) return undefined
  const known = facts.hierarchy.inherited.get(schema)
  if (known !== undefined) return known ?? undefined
  const found = findInheritedChoice((hasOne ? schema.oneOf : schema.anyOf) as unknown[], hasOne ? 'oneOf' : 'anyOf', facts)
  facts.hierarchy.inherited.set(schema, found ?? null)
  return found
}

function findInheritedChoice(members: unknown[], mode: 'oneOf' | 'anyOf', facts: SchemaFacts): Discriminator | undefined {
  const listed: string[] = []
  for (const member of members) {
    const target = isObject(member) ? refTarget(member.$ref) : undefined
    if (target === undefined || !Object.hasOwn(facts.catalogue, target)) return undefined
    listed.push(target)
  }
  // One member is that member: `oneOf: [{ $ref: P }]` wraps P (to add `nullable`, say) and means P.
  if (listed.length < 2) return undefined
  const parent = familyParent(listed, facts)
  if (parent === undefined) return undefined
  const d = namedDiscriminator(parent, facts)!
  if (listed.includes(parent)) {
    // The parent stands for its whole family (its own choice, referenced once) and, by its own
    // name when its discriminator does not already select it, for its own fields.
    const own = d.values.some(([value, target]) => target === parent || value === parent)
    return { propertyName: d.propertyName, values: own ? [] : [[parent, parent]], inline: [], mode, rest: parent }
  }
  // Only children listed: a value selects one of them or a schema extending one.
  const admitted = new Set<string>(listed)
  for (const name of listed) for (const below of descendantsOf(name, facts)) admitted.add(below)
  const values = d.values.filter(([, target]) => admitted.has(target))
  return values.length === 0 ? undefined : { propertyName: d.propertyName, values, inline: [], mode }
}

/**
 * The parent whose family every listed name belongs to: a listed parent selecting all the others,
 * else the nearest parent above the first member (its `allOf` ancestors, breadth-first) selecting
 * them all. Ancestors are walked once each.
 */
function familyParent(listed: readonly string[], facts: SchemaFacts): string | undefined {
  const h = facts.hierarchy
  const selects = (parent: string) => {
    if (!isParent(parent, facts)) return false
    let family = h.families.get(parent)
    if (!family) h.families.set(parent, (family = new Set(descendantsOf(parent, facts))))
    return listed.every((name) => name === parent || family.has(name))
  }
  const candidates = listed.filter((name) => isParent(name, facts))
  for (const name of candidates) if (selects(name)) return name
  const seen = new Set<string>([listed[0]!])
  const queue = [listed[0]!]
  for (let i = 0; i < queue.length; i++) {
    for (const up of h.parents.get(queue[i]!) ?? []) {
      if (seen.has(up)) continue
      seen.add(up)
      if (selects(up)) return up
      queue.push(up)
    }
  }
  return undefined
}

/**
 * The payload values a discriminator value stands for. Mapping keys are JSON object keys, so always
 * strings; producers that tag by number (.NET's `[JsonDerivedType(typeof(T), 0)]`, which ASP.NET
 * Core maps as `"0"`) send `{"$type": 0}`. A key that is an integer in canonical decimal form is
 * therefore matched by that number as well as by the string; the selected schema's own property,
 * when it declares one, narrows it further.
 */
export function discriminatorLiterals(value: string): Array<string | number> {
  return /^-?(?:0|[1-9]\d{0,15})$/.test(value) && Number.isSafeInteger(Number(value)) && value !== '-0' ? [value, Number(value)] : [value]
}

/** The choice of a component schema (memoized: validators and types ask for each reference). */
export function namedDiscriminator(name: string, facts: SchemaFacts): Discriminator | undefined {
  const h = facts.hierarchy
  if (h.choices.has(name)) return h.choices.get(name)
  const schema = Object.hasOwn(facts.catalogue, name) ? facts.catalogue[name] : undefined
  const d = isObject(schema) ? discriminatorOf(schema, facts, name) : undefined
  h.choices.set(name, d)
  return d
}

/** True when `name` is a parent: a component schema choosing among the schemas that extend it. */
export function isParent(name: string, facts: SchemaFacts): boolean {
  return namedDiscriminator(name, facts)?.mode === 'allOf'
}

/**
 * True when the top-level `allOf` of `child` references `parent` and `parent`'s discriminator
 * selects `child`: that reference means `parent`'s own shape.
 */
export function extendsSelector(child: string | undefined, parent: string, facts: SchemaFacts): boolean {
  if (child === undefined) return false
  const h = facts.hierarchy
  let selected = h.selected.get(parent)
  if (!selected) h.selected.set(parent, (selected = new Set(namedDiscriminator(parent, facts)?.values.map(([, target]) => target))))
  return selected.has(child)
}

/**
 * True when a component schema's own shape is used apart from its choice: a parent (its children
 * extend its own fields, and `mapping` may select it itself), or a selector that a schema it
 * selects extends.
 */
export function hasOwnShape(name: string, facts: SchemaFacts): boolean {
  const h = facts.hierarchy
  let own = h.ownShape.get(name)
  if (own === undefined) {
    own = isParent(name, facts) || (h.children.get(name) ?? []).some((child) => extendsSelector(child, name, facts))
    h.ownShape.set(name, own)
  }
  return own
}

/**
 * The component names a schema needs generated beside it: what it `$ref`s (Contract Document
 * §5.3's edges) plus what its discriminators select, which a `mapping` or a parent's children name
 * without a `$ref`. The hashes keep §5.3's closure; types and validators follow these edges.
 */
export function generationReferences(schema: unknown, facts: SchemaFacts, name?: string): readonly string[] {
  const h = facts.hierarchy
  if (name !== undefined) {
    const known = h.references.get(name)
    if (known) return known
  }
  // A schema with no choice anywhere in it names exactly its `$ref`s, whatever the catalogue
  // holds: read once per schema object by a compiler that keeps them.
  const plain = facts.objects?.references(schema)
  if (plain !== undefined && !plain.choices) {
    if (name !== undefined) h.references.set(name, plain.references)
    return plain.references
  }
  // One iterative walk over §5.3's positions, collecting references and choices together.
  const out = new Set<string>()
  const stack: unknown[] = [schema]
  while (stack.length > 0) {
    const s = stack.pop()
    if (!isObject(s)) continue
    const target = refTarget(s.$ref)
    if (target !== undefined) out.add(target)
    if ('discriminator' in s || 'oneOf' in s || 'anyOf' in s) {
      const d = discriminatorOf(s, facts, s === schema ? name : undefined)
      if (d) for (const [, selected] of d.values) out.add(selected)
      if (d?.rest !== undefined) out.add(d.rest)
    }
    pushChildren(s, stack)
  }
  const list = [...out]
  if (name !== undefined) h.references.set(name, list)
  return list
}

/** Every component name the roots need generated (generationReferences, followed), sorted. Linear in what is reached. */
export function generationReach(roots: readonly unknown[], facts: SchemaFacts): string[] {
  const known = (names: readonly string[]) => names.filter((n) => Object.hasOwn(facts.catalogue, n))
  const reached = reach(
    roots.flatMap((root) => known(generationReferences(root, facts))),
    (name) => known(generationReferences(facts.catalogue[name], facts, name)),
  )
  return [...reached].sort()
}
