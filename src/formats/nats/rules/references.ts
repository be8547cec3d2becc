import { joinPointer } from '../../../core/json-pointer.js'
import { isObject } from '../document.js'
import { resolveFragment } from '../schemas.js'
import type { NatsRule } from './rule.js'

/**
 * Same-document `$ref`s (`#/...`) must name something. Without this an operation could point at a
 * channel that does not exist, or a message at a missing schema, and compile to a module that
 * silently lacks it. References to other files are load.ts's job (locked, never fetched).
 */
export const refResolves: NatsRule = {
  code: 'NATS_REF_UNRESOLVED',
  description: 'A same-document $ref names nothing in the document.',
  check(ctx) {
    // Iterative: the depth limit already bounds the document, but a stack costs nothing here.
    const stack: Array<[value: unknown, pointer: string]> = [[ctx.doc, '']]
    while (stack.length > 0) {
      const [value, pointer] = stack.pop()!
      if (Array.isArray(value)) value.forEach((item, i) => stack.push([item, joinPointer(pointer, i)]))
      else if (isObject(value)) {
        for (const [key, child] of Object.entries(value)) {
          const at = joinPointer(pointer, key)
          if (key === '$ref' && typeof child === 'string' && child.startsWith('#')) {
            if (resolveFragment(ctx.doc, child) === undefined) ctx.report(this.code, at, `$ref ${JSON.stringify(child)} names nothing in this document.`, { ref: child })
          } else stack.push([child, at])
        }
      }
    }
  },
}
