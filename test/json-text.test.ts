/**
 * The CLI's JSON text (src/cli/json-text.ts): the characters a terminal acts on that JSON.stringify
 * leaves raw are written as `\u` escapes, and the text parses back to the same value.
 */
import { describe, expect, it } from 'vitest'
import { jsonText } from '../src/cli/json-text.js'

describe('jsonText', () => {
  it('escapes DEL, the C1 controls, direction and separator characters; parses back the same', () => {
    const hostile = { name: 'a\u007fb\u0085c\u009bd\u202ee\u2066f\u2028g\u061ch\u200bi\ufeffj', nested: ['\u200e', 'plain €'], 'key\u202e': 1 }
    const text = jsonText(hostile)
    expect(text).not.toMatch(/[\u007f-\u009f\u061c\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/)
    expect(text).toContain('\\u202e')
    expect(text).toContain('plain €')
    expect(JSON.parse(text)).toEqual(hostile)
  })
})
