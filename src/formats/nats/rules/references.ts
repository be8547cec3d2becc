import { refSites } from '../../../core/json-refs.js'
import { resolveFragment } from '../schemas.js'
import type { NatsRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): one walk of the document for `$ref` sites, each resolved once: O(document). */

/**
 * Same-document `$ref`s (`#/...`) must name something. Without this an operation could point at a
 * channel that does not exist, or a message at a missing schema, and compile to a module that
 * silently lacks it. References to other files are load.ts's job (locked, never fetched).
 */
export const refResolves: NatsRule = {
  code: 'NATS_REF_UNRESOLVED',
  description: 'A same-document $ref names nothing in the document.',
  check(ctx) {
    // Most references repeat (every channel's message, say): each is resolved once.
    const resolves = new Map<string, boolean>()
    for (const { ref, pointer } of refSites(ctx.doc)) {
      if (!ref.startsWith('#')) continue
      let ok = resolves.get(ref)
      if (ok === undefined) resolves.set(ref, (ok = resolveFragment(ctx.doc, ref) !== undefined))
      if (!ok) ctx.report(this.code, pointer, `$ref ${JSON.stringify(ref)} names nothing in this document.`, { ref })
    }
  },
}
