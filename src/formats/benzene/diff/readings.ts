/**
 * A Benzene document as the validators of one direction read it (OpenAPI 3.0.3, Schema Object:
 * readOnly and writeOnly; docs/benzene.md, "Runtime validation"): a request's validators (and an
 * event message's, which the generator checks the same way) do not require readOnly members, a
 * response's do not require writeOnly ones; nothing else about a schema depends on the direction.
 * The engine compares the document as written, where `required: [n]` of a readOnly `n` is required
 * everywhere: an outside pass against the generated modules over HTTP found such a member made
 * required reported as breaking clients, with a request the new service accepts as witness, and a
 * member made readOnly reported as an unknown change for both sides, where it breaks the service.
 *
 * So a directional schema is compared in each direction's reading: the same document with every
 * `required` list without the members that direction does not require, and without the `readOnly`
 * and `writeOnly` flags (their whole effect is now in `required`), at the same pointers. Made once
 * per version and direction, only for a document with such a member; O(the document's size).
 */
import { hasFlag, isObject } from '../../../runtime/benzene/document.js'

export type Reading = 'request' | 'response'

/** The direction whose validators check a payload at `place` (an event message's are a request's: generate.ts). */
export const readingOf = (place: 'request' | 'response' | 'message'): Reading => (place === 'response' ? 'response' : 'request')

/** `doc` as `reading`'s validators read it (see the module comment). */
export function readAs(doc: unknown, reading: Reading): unknown {
  const hidden = reading === 'request' ? 'readOnly' : 'writeOnly'
  // Recursion is bounded: documents are held to the depth limit when read.
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk)
    if (!isObject(node)) return node
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(node)) {
      if ((key === 'readOnly' || key === 'writeOnly') && typeof value === 'boolean') continue
      out[key] = walk(value)
    }
    if (Array.isArray(node.required)) {
      const properties = isObject(node.properties) ? node.properties : {}
      out.required = node.required.filter((name) => typeof name !== 'string' || !hasFlag(properties[name], hidden))
    }
    return out
  }
  return walk(doc)
}

/** Whether the document has a member marked readOnly or writeOnly anywhere (else both readings are the document as written). */
export function hasDirectionalMembers(text: string | undefined, doc: unknown): boolean {
  const written = text ?? JSON.stringify(doc)
  return written.includes('"readOnly"') || written.includes('"writeOnly"')
}
