/**
 * One version of the document as the differ reads it: its parsed value with the position of every
 * node. The compile already parsed it: the model keeps that parse (`NatsModel.parsed`), so the
 * differ reads neither the text nor the YAML again (on a 5,000-channel document the second parse
 * was about a third of the comparison, bench/diff.ts). A model without it (made by hand) has its
 * text read through `DiffSide.read` (under `--against`, from git), parsed once per side.
 *
 * Positions: the fast YAML path (core/yaml-fast.ts) knows where each mapping and sequence starts; a
 * scalar (an address, a config field) is found by scanning its parent mapping's own keys from that
 * start (O(the mapping's text)). Only what that cannot answer (a quoted key, a sequence item, a
 * document the fast path refuses) parses the exact path, once: on a 5,000-channel document with a
 * finding per channel, the exact parse and its garbage were most of the diff's time (bench/).
 */
import { withStandardRefs } from '../standard-refs.js'
import { resolve } from 'node:path'
import type { DiffLocation, DiffSide } from '../../../core/diff/types.js'
import { mayOverflowNumber } from '../../../core/limits.js'
import type { JsonSource } from '../../../core/json-source.js'
import { LineIndex } from '../../../core/source-text.js'
import { loadFastYaml } from '../../../core/yaml-fast.js'
import { parseExactYaml, parseYamlSource } from '../../../core/yaml-source.js'
import { joinPointer, splitPointer } from '../../../runtime/shared/json-pointer.js'
import type { NatsModel } from '../model.js'

export interface PositionedDocument {
  file: string
  /** The parsed document (JSON values only); `{}` when the text could not be read. */
  value: unknown
  /** The location of the node at `pointer` (its nearest ancestor when it has none). */
  at(pointer: string): DiffLocation
}

/**
 * The document of one side: the model's own parse when it carries one (`NatsModel.parsed`, the
 * compile's; the runner compiles each version from the same text `read` gives), else its text read
 * once through the side.
 */
export async function positioned(side: DiffSide<NatsModel>): Promise<PositionedDocument> {
  const file = side.file
  const parsed = side.model.parsed
  if (parsed !== undefined && resolve(parsed.file) === resolve(file)) {
    if (parsed.collectionStart) return fromFast(file, parsed.text, parsed.value, parsed.lines, parsed.collectionStart)
    return fromText(file, parsed.text)
  }
  let text: string | undefined
  try {
    text = await side.read(file)
  } catch {
    text = undefined
  }
  if (text === undefined) return { file, value: {}, at: (pointer) => ({ file, pointer, line: 1, column: 1 }) }
  return fromText(file, text)
}

export function fromText(file: string, text: string): PositionedDocument {
  const fast = file.endsWith('.json') || mayOverflowNumber(text) ? undefined : loadFastYaml(text)
  if (!fast) {
    const { source } = parseYamlSource(file, text)
    return { file, value: withStandardRefs(source.value ?? {}), at: (pointer) => located(file, pointer, () => source.locate(pointer)) }
  }
  // Read as the compile reads it: root channels, operations, replies and parameters through their
  // references (standard-refs.ts); the compile's own parse (above) is that view already.
  return fromFast(file, text, withStandardRefs(fast.value), new LineIndex(text), (pointer) => fast.start(pointer))
}

/** A document the fast YAML path read: its collections' starts known, a scalar found from its parent's. */
function fromFast(file: string, text: string, value: unknown, lines: LineIndex, start: (pointer: string) => number | undefined): PositionedDocument {
  let exact: JsonSource | undefined
  // Many findings share a node (a shared schema's `required`, reported for each payload that names it): each found once.
  const found = new Map<string, { line: number; column: number }>()
  return {
    file,
    value: value ?? {},
    at(pointer) {
      const known = found.get(pointer)
      if (known) return { file, pointer, line: known.line, column: known.column }
      const location = located(file, pointer, () => {
        let offset = start(pointer)
        if (offset === undefined) {
          const tokens = splitPointer(pointer)
          const key = tokens.pop()
          const parent = key === undefined ? undefined : start(joinPointer('', ...tokens))
          if (parent !== undefined) offset = keyValue(text, parent, key!)
        }
        if (offset !== undefined) return lines.position(offset)
        exact ??= parseExactYaml(file, text).source
        return exact.locate(pointer)
      })
      found.set(pointer, { line: location.line, column: location.column })
      return location
    },
  }
}

function located(file: string, pointer: string, find: () => { line: number; column: number }): DiffLocation {
  try {
    const { line, column } = find()
    return { file, pointer, line, column }
  } catch {
    return { file, pointer, line: 1, column: 1 }
  }
}

/** A key written plain (no quotes, nothing YAML would read specially) can be found by its text. */
const PLAIN_KEY = /^[A-Za-z0-9_$][A-Za-z0-9_.$/-]*$/

const isSpace = (c: number) => c === 32 || c === 9
const isBreak = (c: number) => c === 10 || c === 13

/**
 * The offset of the value of `key` in the mapping that starts at `start`, or undefined. A flow
 * mapping (`{`) is scanned at its own depth, quotes skipped; a block mapping line by line, keys at
 * the first key's column, until a line less indented ends it. O(the mapping's text).
 */
function keyValue(text: string, start: number, key: string): number | undefined {
  if (!PLAIN_KEY.test(key)) return undefined
  const valueAfter = (at: number): number | undefined => {
    let i = at + key.length
    while (isSpace(text.charCodeAt(i))) i++
    if (text.charCodeAt(i) !== 58 /* : */) return undefined
    i++
    while (isSpace(text.charCodeAt(i)) || isBreak(text.charCodeAt(i))) i++
    return i
  }
  const boundary = (at: number) => {
    const c = text.charCodeAt(at + key.length)
    return isSpace(c) || c === 58
  }
  if (text.charCodeAt(start) === 123 /* { */) {
    let depth = 0
    let expectKey = true
    for (let i = start + 1; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (isSpace(c) || isBreak(c)) continue
      if (depth === 0 && expectKey && text.startsWith(key, i) && boundary(i)) return valueAfter(i)
      expectKey = false
      if (c === 34 || c === 39) i = skipQuoted(text, i)
      else if (c === 123 || c === 91) depth++
      else if (c === 125 || c === 93) {
        if (depth === 0) return undefined
        depth--
      } else if (c === 44 && depth === 0) expectKey = true
    }
    return undefined
  }
  const lineStart = text.lastIndexOf('\n', start - 1) + 1
  const column = start - lineStart
  if (text.startsWith(key, start) && boundary(start)) return valueAfter(start)
  for (let i = text.indexOf('\n', start); i !== -1 && i < text.length; i = text.indexOf('\n', i + 1)) {
    let j = i + 1
    while (text.charCodeAt(j) === 32) j++
    const c = text.charCodeAt(j)
    if (Number.isNaN(c)) return undefined
    if (isBreak(c) || c === 35 /* # */) continue
    const indent = j - i - 1
    if (indent < column) return undefined
    if (indent === column && text.startsWith(key, j) && boundary(j)) return valueAfter(j)
  }
  return undefined
}

/** The offset of the closing quote of the quoted scalar opening at `at`. */
function skipQuoted(text: string, at: number): number {
  const quote = text.charCodeAt(at)
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (quote === 34 && c === 92 /* \ */) i++
    else if (c === quote) {
      if (quote === 39 && text.charCodeAt(i + 1) === 39) i++
      else return i
    }
  }
  return text.length
}

/** Pointer helpers for the places the differ names. */
export const ptr = {
  channel: (id: string) => joinPointer('', 'channels', id),
  profileChannel: (id: string) => joinPointer('', 'x-nats-contract', 'channels', id),
  operation: (id: string) => joinPointer('', 'operations', id),
  profileOperation: (id: string) => joinPointer('', 'x-nats-contract', 'operations', id),
  profile: (...tokens: Array<string | number>) => joinPointer('', 'x-nats-contract', ...tokens),
  of: (...tokens: Array<string | number>) => joinPointer('', ...tokens),
}
