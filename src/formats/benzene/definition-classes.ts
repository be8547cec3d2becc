import { isObject } from '../../runtime/benzene/document.js'

/**
 * Converted definitions that check the same thing, written once. A component schema reached by
 * requests and by responses is converted once per direction (readOnly and writeOnly members make
 * the two differ, but most schemas have none), and two component schemas can be copies of each
 * other: two definitions whose JSON Schemas are equal once each `$ref` is read as the definition it
 * names check every value alike, so one function (or one constant of data) serves both. Nothing a
 * validator reports names a definition, so no verdict and no error changes.
 *
 * Equality is decided bottom-up: a definition outside every reference cycle is keyed by its own
 * text with each reference replaced by its target's class, after its targets (one pass in reverse
 * topological order, linear in the definitions). Definitions on a cycle keep their own class: they
 * are rare (recursive types) and deciding their equality needs a fixed point. `kept`: the schemas
 * are kept across compiles (`ConvertedMemo`), so each one's text is kept by the object.
 */
export function definitionClasses(definitions: ReadonlyMap<string, unknown>, kept = false): Map<string, string> {
  const shapes = new Map<string, { text: string; refs: string[] }>()
  for (const [ref, schema] of definitions) shapes.set(ref, kept ? keptShape(schema) : shapeOf(schema))
  const order = acyclicOrder(definitions, shapes)
  const canonical = new Map<string, string>()
  for (const ref of definitions.keys()) canonical.set(ref, ref)
  const byKey = new Map<string, string>()
  // Each text by a number, so the keys are short (a kept shape's text is the same string, its hash known).
  const texts = new Map<string, number>()
  for (const ref of order) {
    const { text, refs } = shapes.get(ref)!
    let id = texts.get(text)
    if (id === undefined) texts.set(text, (id = texts.size))
    const key = `${id}\u0000${refs.map((target) => canonical.get(target) ?? target).join('\u0000')}`
    const known = byKey.get(key)
    if (known === undefined) byKey.set(key, ref)
    else canonical.set(ref, known)
  }
  return canonical
}

/** A schema with each `$ref` rewritten as `canonical` says (a copy where one changes; the input is never modified). */
export function rewriteRefs(schema: unknown, canonical: ReadonlyMap<string, string>): unknown {
  if (!isObject(schema)) return schema
  let out: Record<string, unknown> | undefined
  const set = (key: string, value: unknown) => {
    if (value === schema[key]) return
    out ??= { ...schema }
    out[key] = value
  }
  if (typeof schema.$ref === 'string') set('$ref', canonical.get(schema.$ref) ?? schema.$ref)
  for (const key of ONE) if (key in schema) set(key, rewriteRefs(schema[key], canonical))
  for (const key of LISTS) if (Array.isArray(schema[key])) rewriteList(schema[key] as unknown[], canonical, (list) => set(key, list))
  for (const key of MAPS) if (isObject(schema[key])) rewriteMap(schema[key], canonical, (map) => set(key, map))
  return out ?? schema
}

/** Keywords holding one subschema, a list of them, a map of them (`schema-check.ts`'s `SUBSCHEMA_KEYWORDS`). */
const ONE = ['items', 'additionalProperties', 'not', 'if', 'then'] as const
const LISTS = ['allOf', 'anyOf', 'oneOf'] as const
const MAPS = ['properties', 'patternProperties'] as const

function rewriteList(list: readonly unknown[], canonical: ReadonlyMap<string, string>, changed: (list: unknown[]) => void): void {
  const next = list.map((member) => rewriteRefs(member, canonical))
  if (next.some((member, i) => member !== list[i])) changed(next)
}

function rewriteMap(map: Record<string, unknown>, canonical: ReadonlyMap<string, string>, changed: (map: Record<string, unknown>) => void): void {
  let out: Record<string, unknown> | undefined
  for (const key of Object.keys(map)) {
    const next = rewriteRefs(map[key], canonical)
    if (next === map[key]) continue
    // defineProperty: a member named `__proto__` stays a member.
    out ??= Object.defineProperties({}, Object.getOwnPropertyDescriptors(map))
    Object.defineProperty(out, key, { value: next, enumerable: true, writable: true, configurable: true })
  }
  if (out !== undefined) changed(out)
}

/** `shapeOf`, kept per schema object: converted schemas never change, and a recompile converts again only what an edit reaches (`ConvertedMemo`). */
const SHAPES = new WeakMap<object, { text: string; refs: string[] }>()
function keptShape(schema: unknown): { text: string; refs: string[] } {
  if (!isObject(schema)) return shapeOf(schema)
  let shape = SHAPES.get(schema)
  if (shape === undefined) SHAPES.set(schema, (shape = shapeOf(schema)))
  return shape
}

/**
 * A schema's text with its references left out, and the references in the order the text names
 * them. Only schema positions are read as schemas: an `enum` or `const` value holding a `$ref`
 * member is data, kept in the text as it is. Recursive over a converted schema's own nesting,
 * which the document's nesting limit bounds (references are not followed).
 */
function shapeOf(schema: unknown): { text: string; refs: string[] } {
  const refs: string[] = []
  const write = (node: unknown): string => {
    if (!isObject(node)) return JSON.stringify(node)
    let text = '{'
    for (const key in node) {
      if (!Object.hasOwn(node, key)) continue
      const value = node[key]
      text += JSON.stringify(key) + ':'
      switch (KIND.get(key)) {
        case 'one':
          text += write(value)
          break
        case 'list':
          if (Array.isArray(value)) {
            text += '['
            for (const member of value) text += write(member) + ','
            text += ']'
          } else text += JSON.stringify(value)
          break
        case 'map':
          if (isObject(value)) {
            text += '{'
            for (const name in value) if (Object.hasOwn(value, name)) text += JSON.stringify(name) + ':' + write(value[name]) + ','
            text += '}'
          } else text += JSON.stringify(value)
          break
        default:
          if (key === '$ref' && typeof value === 'string') {
            refs.push(value)
            text += '#'
          } else text += JSON.stringify(value)
      }
      text += ','
    }
    return text + '}'
  }
  return { text: write(schema), refs }
}

/** How `shapeOf` reads each subschema keyword. */
const KIND = new Map<string, 'one' | 'list' | 'map'>([
  ...ONE.map((key) => [key, 'one'] as const),
  ...LISTS.map((key) => [key, 'list'] as const),
  ...MAPS.map((key) => [key, 'map'] as const),
])

/**
 * The definitions on no reference cycle, each after every definition it reaches (reverse
 * topological order: Kahn's algorithm over the reversed edges). What is left is on a cycle or
 * reaches one, and keeps its own class.
 */
function acyclicOrder(definitions: ReadonlyMap<string, unknown>, shapes: ReadonlyMap<string, { refs: string[] }>): string[] {
  const pending = new Map<string, number>()
  const referrers = new Map<string, string[]>()
  for (const ref of definitions.keys()) {
    const targets = new Set(shapes.get(ref)!.refs.filter((target) => definitions.has(target)))
    pending.set(ref, targets.size)
    for (const target of targets) {
      let list = referrers.get(target)
      if (!list) referrers.set(target, (list = []))
      list.push(ref)
    }
  }
  const ready = [...definitions.keys()].filter((ref) => pending.get(ref) === 0)
  const order: string[] = []
  for (let i = 0; i < ready.length; i++) {
    const ref = ready[i]!
    order.push(ref)
    for (const referrer of referrers.get(ref) ?? []) {
      const left = pending.get(referrer)! - 1
      pending.set(referrer, left)
      if (left === 0) ready.push(referrer)
    }
  }
  return order
}
