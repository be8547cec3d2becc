/**
 * The source map of a generated module: each generated line that a format ties to a position of the
 * contract maps there (column 0 of the line). Written as the decoded segments of the one source and
 * encoded by `@jridgewell/sourcemap-codec` alone, which a build loads with the first map it makes:
 * a general map writer (`@jridgewell/gen-mapping`, which loads the codec, a map reader and a URL
 * resolver with it) did the same work and cost a Rollup build that reads every module's map, from
 * the persistent cache too, three more packages and a map object per module. The map is the same,
 * key for key: `test/line-source-map.test.ts` holds it to gen-mapping's.
 */
import type { EncodedSourceMap } from '@jridgewell/gen-mapping'
import type { SourceMapSegment } from '@jridgewell/sourcemap-codec'
import type { Generated } from './format.js'
import { lazyRequire } from './lazy-require.js'

export type { EncodedSourceMap }

const codec = lazyRequire<typeof import('@jridgewell/sourcemap-codec')>('@jridgewell/sourcemap-codec')

/**
 * The map of `file.js` generated from `file` (its `text` kept as the source's content). Lines in
 * their order, several mappings on one line in the order given; a line number below 1 is a bug of
 * the format and throws (the caller reports it).
 */
export function lineSourceMap(file: string, mappings: Generated['mappings'], text: string): EncodedSourceMap {
  const lines: SourceMapSegment[][] = []
  for (const { line, position } of mappings ?? []) {
    if (!Number.isInteger(line) || line < 1) throw new RangeError(`generated line ${line} of ${file} is not a line number`)
    for (let i = lines.length; i < line; i++) lines.push([])
    lines[line - 1]!.push([0, 0, position.line - 1, position.column - 1])
  }
  while (lines.length > 0 && lines[lines.length - 1]!.length === 0) lines.pop()
  return {
    version: 3,
    file: `${file}.js`,
    names: [],
    sourceRoot: undefined,
    sources: [file],
    sourcesContent: [text],
    mappings: codec().encode(lines),
    ignoreList: [],
  }
}
