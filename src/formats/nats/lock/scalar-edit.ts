import { lazyRequire } from '../../../core/lazy-require.js'
import { splitPointer } from '../../../runtime/shared/json-pointer.js'
import { loneCrsAsLineFeeds } from '../../../core/source-text.js'

const yaml = lazyRequire<typeof import('yaml')>('yaml')
const jsonc = lazyRequire<typeof import('jsonc-parser')>('jsonc-parser')

/** A string to write at a pointer, in place of the scalar there. */
export interface ScalarEdit {
  pointer: string
  value: string
}

/** Where an edit could not be made in place, and why (one sentence). */
export interface RefusedEdit {
  pointer: string
  reason: string
}

/**
 * The text with each edit's scalar replaced, and nothing else touched: comments, order, layout and
 * the value's own quoting stay as they were, because the new value goes exactly where the old
 * one's characters were (the parsers' source ranges). A value that cannot be rewritten that way (a
 * collection, a block scalar, an alias, an anchored or tagged node, a missing member) is refused,
 * and then no text is given. The caller parses the result again to confirm it reads as intended.
 */
export function replaceScalars(file: string, text: string, edits: readonly ScalarEdit[]): { text?: string; refused: RefusedEdit[] } {
  const ranges: Array<{ start: number; end: number; text: string }> = []
  const refused: RefusedEdit[] = []
  const located = /\.ya?ml$/.test(file) ? yamlRanges(text, edits) : jsonRanges(text, edits)
  for (const [i, found] of located.entries()) {
    if ('reason' in found) refused.push({ pointer: edits[i]!.pointer, reason: found.reason })
    else ranges.push(found)
  }
  if (refused.length > 0) return { refused }
  // Back to front, so that each range's offsets still hold when it is replaced.
  ranges.sort((a, b) => b.start - a.start)
  let out = text
  for (const r of ranges) out = out.slice(0, r.start) + r.text + out.slice(r.end)
  return { text: out, refused }
}

type Located = { start: number; end: number; text: string } | { reason: string }

const NOT_SCALAR = 'its value is not a plain or quoted scalar (write the digest as `sha256: <64 hex digits>`)'

/** YAML reads a plain scalar of digits (or digits, `e`, digits) as a number: such a digest is quoted. */
const plainYaml = (value: string) => (/^[0-9]+(?:[eE][0-9]+)?$/.test(value) || !/^[0-9a-z]+$/.test(value) ? JSON.stringify(value) : value)

function yamlRanges(text: string, edits: readonly ScalarEdit[]): Located[] {
  const { isScalar, isCollection, parseDocument } = yaml()
  // As the exact reader parses (yaml-source.ts), so the nodes are the ones the value came from.
  const doc = parseDocument(loneCrsAsLineFeeds(text), { uniqueKeys: false, prettyErrors: false, strict: true, merge: false, version: '1.2' })
  return edits.map(({ pointer, value }): Located => {
    const path = splitPointer(pointer)
    const parent = doc.getIn(path.slice(0, -1), true)
    if (!isCollection(parent) || !parent.has(path.at(-1))) return { reason: 'the member is missing (add `sha256: ""` and lock again)' }
    const node = parent.get(path.at(-1), true)
    if (!isScalar(node) || !node.range || node.anchor !== undefined || node.tag !== undefined) return { reason: NOT_SCALAR }
    const [start, end] = node.range
    switch (node.type) {
      case 'QUOTE_DOUBLE':
        return { start, end, text: JSON.stringify(value) }
      case 'QUOTE_SINGLE':
        return { start, end, text: `'${value.replace(/'/g, "''")}'` }
      case 'PLAIN':
        // An empty plain scalar (`sha256:` with nothing after it) has no place of its own to write into.
        return start === end ? { reason: 'the member has no value (write `sha256: ""` and lock again)' } : { start, end, text: plainYaml(value) }
      default:
        return { reason: NOT_SCALAR }
    }
  })
}

function jsonRanges(text: string, edits: readonly ScalarEdit[]): Located[] {
  const { findNodeAtLocation, parseTree } = jsonc()
  // A byte order mark is read as a space, as the JSON reader does (json-source.ts): offsets stay.
  const root = parseTree(text.charCodeAt(0) === 0xfeff ? ' ' + text.slice(1) : text)
  return edits.map(({ pointer, value }): Located => {
    const path = splitPointer(pointer)
    const parent = root && findNodeAtLocation(root, path.slice(0, -1))
    const member = parent?.type === 'object' ? parent.children?.find((p) => p.children?.[0]?.value === path.at(-1)) : undefined
    const node = member?.children?.[1]
    if (!node) return { reason: 'the member is missing (add `"sha256": ""` and lock again)' }
    if (node.type === 'object' || node.type === 'array') return { reason: NOT_SCALAR }
    return { start: node.offset, end: node.offset + node.length, text: JSON.stringify(value) }
  })
}
