/**
 * The JSON bytes of many objects that differ from one template only at a few member paths (the
 * requests of one admission differ only in their branch members). The template is written once
 * with a marker string at each varying member and cut at the markers; each variant's bytes are the
 * pieces with its members' own JSON written between them.
 *
 * Why this is `JSON.stringify` of the variant: `JSON.stringify` writes an object's members in the
 * object's own key order, and each member's value independently of the others' values, so with the
 * keys unchanged (a marker replaces a value, it adds no key) replacing a member's value replaces
 * exactly that value's text. A marker is found by its JSON text, and accepted only when that text
 * occurs exactly once in the template's JSON: the marker's own occurrence is always there, so the
 * one found is it (a template whose data happens to contain a marker's text gets no splicer).
 * Spliced values are limited to what `JSON.stringify` writes the same at the top level as inside
 * an object (strings, finite numbers, booleans, null); anything else answers undefined, and the
 * caller serializes the variant whole.
 */
const encoder = /* @__PURE__ */ new TextEncoder()

/** The bytes of the template with `values[i]` at `paths[i]`; undefined when a value cannot be spliced. O(bytes). */
export type JsonSplicer = (values: readonly unknown[]) => Uint8Array | undefined

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype

/** A copy with the same own members in the same order (`__proto__` kept an own member, as a spread keeps it). */
const copyOf = (source: Record<string, unknown>): Record<string, unknown> => ({ ...source })

function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/**
 * A splicer of `template` (plain JSON data: objects, arrays, strings, finite numbers, booleans,
 * null) at `paths` (member names from the root, each path ending at an existing member of a plain
 * object, no path a prefix of another); undefined when the template does not allow one. O(template).
 */
export function jsonSplicer(template: Record<string, unknown>, paths: readonly (readonly string[])[]): JsonSplicer | undefined {
  if (!isPlainObject(template)) return undefined
  // A path on another's way (or the same path twice) would overwrite that one's marker.
  const prefix = (a: readonly string[], b: readonly string[]) => a.length <= b.length && a.every((t, i) => b[i] === t)
  for (let i = 0; i < paths.length; i++) for (let j = 0; j < paths.length; j++) if (i !== j && prefix(paths[i]!, paths[j]!)) return undefined
  const marked = copyOf(template)
  const copied = new Set<object>([marked])
  const markers: string[] = []
  for (let i = 0; i < paths.length; i++) {
    const path = paths[i]!
    if (path.length === 0) return undefined
    let current = marked
    for (let depth = 0; depth < path.length - 1; depth++) {
      const key = path[depth]!
      const found = Object.hasOwn(current, key) ? current[key] : undefined
      if (!isPlainObject(found)) return undefined
      let next = found
      if (!copied.has(next)) {
        next = copyOf(next)
        copied.add(next)
        define(current, key, next)
      }
      current = next
    }
    const last = path[path.length - 1]!
    // Only an existing member is replaced: a new key would change the template's key order.
    if (!Object.hasOwn(current, last)) return undefined
    const marker = `\u0000splice ${i}\u0000`
    define(current, last, marker)
    markers.push(JSON.stringify(marker))
  }
  const text = JSON.stringify(marked)
  const found: { at: number; slot: number; length: number }[] = []
  for (let slot = 0; slot < markers.length; slot++) {
    const m = markers[slot]!
    const at = text.indexOf(m)
    // Its own occurrence is there (no path overwrites another's marker): more than one means the data holds its text.
    if (at < 0 || text.indexOf(m, at + 1) >= 0) return undefined
    found.push({ at, slot, length: m.length })
  }
  found.sort((a, b) => a.at - b.at)
  const pieces: Uint8Array[] = []
  const order: number[] = []
  let from = 0
  for (const f of found) {
    pieces.push(encoder.encode(text.slice(from, f.at)))
    order.push(f.slot)
    from = f.at + f.length
  }
  pieces.push(encoder.encode(text.slice(from)))
  let fixed = 0
  for (const p of pieces) fixed += p.length
  const texts: string[] = new Array<string>(order.length)
  return (values) => {
    if (values.length !== paths.length) return undefined
    // Each value's JSON, and an upper bound of its UTF-8 length (three bytes per UTF-16 unit).
    let size = fixed
    for (let i = 0; i < order.length; i++) {
      const value = values[order[i]!]
      if (!(typeof value === 'string' || typeof value === 'boolean' || value === null || (typeof value === 'number' && Number.isFinite(value))))
        return undefined
      const json = JSON.stringify(value)
      texts[i] = json
      size += 3 * json.length
    }
    const out = new Uint8Array(size)
    let at = 0
    for (let i = 0; i < order.length; i++) {
      const piece = pieces[i]!
      out.set(piece, at)
      at += piece.length
      const json = texts[i]!
      let ascii = true
      for (let k = 0; k < json.length; k++) {
        const c = json.charCodeAt(k)
        if (c >= 0x80) {
          ascii = false
          break
        }
        out[at + k] = c
      }
      at += ascii ? json.length : encoder.encodeInto(json, out.subarray(at)).written
    }
    const tail = pieces[order.length]!
    out.set(tail, at)
    at += tail.length
    return at === size ? out : out.subarray(0, at)
  }
}
