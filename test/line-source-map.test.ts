/**
 * The line-level source map of a generated module (src/core/line-source-map.ts), written with the
 * VLQ codec alone, is the map `@jridgewell/gen-mapping` writes from the same mappings, key for key:
 * lines out of order, several mappings on one line, empty lines between and after, a first column.
 */
import { addMapping, GenMapping, setSourceContent, toEncodedMap } from '@jridgewell/gen-mapping'
import { describe, expect, it } from 'vitest'
import type { Generated } from '../src/core/format.js'
import { lineSourceMap } from '../src/core/line-source-map.js'

type Mappings = NonNullable<Generated['mappings']>

function byGenMapping(file: string, mappings: Mappings, text: string) {
  const map = new GenMapping({ file: file + '.js' })
  setSourceContent(map, file, text)
  for (const { line, position } of mappings)
    addMapping(map, { generated: { line, column: 0 }, source: file, original: { line: position.line, column: position.column - 1 } })
  return toEncodedMap(map)
}

const at = (line: number, sourceLine: number, column: number) => ({ line, position: { line: sourceLine, column } })

describe('lineSourceMap', () => {
  const cases: Record<string, Mappings> = {
    'no mapping': [],
    'one line': [at(1, 1, 1)],
    'lines in order, with gaps': [at(2, 3, 5), at(5, 10, 1), at(9, 4, 12)],
    'lines out of order': [at(7, 20, 3), at(2, 1, 1), at(4, 40, 30)],
    'several mappings on one line': [at(3, 2, 2), at(3, 8, 1), at(1, 1, 1), at(3, 5, 9)],
    'large positions': [at(1000, 123456, 789), at(1, 1, 1), at(64, 33, 33)],
  }
  for (const [name, mappings] of Object.entries(cases))
    it(`writes what gen-mapping writes: ${name}`, () => {
      const text = '{\n  "a": 1\n}\n'
      const ours = lineSourceMap('/app/x.spec.json', mappings, text)
      const theirs = byGenMapping('/app/x.spec.json', mappings, text)
      expect(ours).toStrictEqual(theirs)
      expect(Object.keys(ours)).toEqual(Object.keys(theirs))
    })

  it('writes an empty map for a module without mappings', () => {
    expect(lineSourceMap('/app/x.spec.json', undefined, '')).toMatchObject({ mappings: '', sources: ['/app/x.spec.json'], sourcesContent: [''] })
  })

  it('throws on a line number below 1 (a bug of the format, reported by the compile)', () => {
    expect(() => lineSourceMap('/app/x.spec.json', [at(0, 1, 1)], '')).toThrow(RangeError)
  })
})
