import { joinPointer } from '../../../core/json-pointer.js'
import { patternEngine } from '../../../core/pattern-safety.js'
import { isObject } from '../document.js'
import type { NatsRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): one iterative walk of components and channels, each pattern decided once (linear in its length). */

/**
 * A schema `pattern` (in `components` or a channel's messages) that no engine can run safely on
 * payloads: see `src/core/pattern-safety.ts`. One iterative walk of those two sections: linear in
 * their size, each pattern decided once.
 */
export const patternSupported: NatsRule = {
  code: 'NATS_PATTERN_UNSUPPORTED',
  description: 'A schema `pattern` that could take super-linear time on a backtracking engine and that the linear-time engine cannot express.',
  check(ctx) {
    const stack: Array<[unknown, string]> = [
      [ctx.doc.components, '/components'],
      [ctx.doc.channels, '/channels'],
    ]
    while (stack.length > 0) {
      const [value, pointer] = stack.pop()!
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) stack.push([value[i], joinPointer(pointer, i)])
        continue
      }
      if (!isObject(value)) continue
      if (typeof value.pattern === 'string') {
        const engine = patternEngine(value.pattern)
        if (engine.engine === 'unsupported') {
          ctx.report(this.code, joinPointer(pointer, 'pattern'), `Pattern ${JSON.stringify(value.pattern)} is unsupported: ${engine.reason}.`, { pattern: value.pattern })
        }
      }
      for (const key of Object.keys(value)) stack.push([value[key], joinPointer(pointer, key)])
    }
  },
}

