import { splitPointer } from '../../../runtime/shared/json-pointer.js'
import { documentShape, walkShape } from './shape.js'
import { benzeneRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): O(document) through the shared shape walk. */

export const requiredMembers = benzeneRule({
  code: 'BENZENE_MISSING_MEMBER',
  description:
    "A member the specification marks REQUIRED is absent (openapi, info.title, info.version, requests, events, components.schemas, a request's topic/request/response, an event's topic/message, a mapping's method/path).",
  check({ doc }, report) {
    walkShape(doc, documentShape, '', (pointer, spec, _value, present) => {
      if (present || !spec.required) return
      const tokens = splitPointer(pointer)
      const name = tokens.at(-1)!
      report(pointer, `Missing required member ${JSON.stringify(name)}${tokens.length > 1 ? ` in ${'/' + tokens.slice(0, -1).join('/')}` : ''}.`, {
        member: name,
      })
    })
  },
})
