/**
 * Where the nodes at a set of JSON Pointers start in a JSON text, found in one scan. The source's
 * own `locate` builds a syntax tree of the whole document for any pointer deeper than two levels:
 * on two 5,000-topic documents that tree was most of a diff's time and memory. This scan visits
 * only the containers on the way to an asked pointer (the others are skipped bracket to bracket,
 * strings jumped by `indexOf`), so it is linear in the text with a small constant.
 */
import { stringEnd } from '../../../core/json-scan.js'
import { splitPointer } from '../../../runtime/shared/json-pointer.js'

interface Node {
  children?: Map<string, Node>
  /** Offset of the value, -1 until the scan finds it. */
  offset: number
}

/** The offset of the container closing the one opened at `open` (the text's length if none does). */
function skipContainer(text: string, open: number): number {
  let depth = 0
  for (let i = open; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 34 /* " */) i = stringEnd(text, i)
    else if (c === 123 /* { */ || c === 91 /* [ */) depth++
    else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--
      if (depth === 0) return i
    }
  }
  return text.length
}

/** Records the offset of every trie node's value in `text` (valid JSON: the document parsed). */
function scan(text: string, root: Node): void {
  const frames: Array<{ array: boolean; index: number; node: Node; key: string }> = []
  let expectValue = true
  let pendingKey = ''
  const child = (): Node | undefined => {
    const frame = frames[frames.length - 1]
    if (!frame) return root
    return frame.node.children?.get(frame.array ? String(frame.index) : frame.key)
  }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 34 /* " */) {
      const end = stringEnd(text, i)
      if (expectValue) {
        const node = child()
        if (node) node.offset = i
        expectValue = false
      } else pendingKey = JSON.parse(text.slice(i, end + 1)) as string
      i = end
    } else if (c === 58 /* : */) {
      frames[frames.length - 1]!.key = pendingKey
      expectValue = true
    } else if (c === 44 /* , */) {
      const frame = frames[frames.length - 1]!
      if (frame.array) frame.index++
      expectValue = frame.array
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      const node = child()
      if (node) node.offset = i
      expectValue = false
      // Nothing asked inside: jumped over whole.
      if (!node?.children) i = skipContainer(text, i)
      else {
        frames.push({ array: c === 91, index: 0, node, key: '' })
        expectValue = c === 91
      }
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      frames.pop()
      expectValue = false
    } else if (expectValue && c > 32 && c !== 0xfeff) {
      const node = child()
      if (node) node.offset = i
      expectValue = false
    }
  }
}

/**
 * The offsets of the values at `pointers` in `text`; a pointer naming no node answers its nearest
 * ancestor that exists (the whole document at worst, offset 0 when even that is not found).
 */
export function locateAll(text: string, pointers: Iterable<string>): (pointer: string) => number {
  const root: Node = { offset: -1 }
  for (const pointer of pointers) {
    let node = root
    for (const token of splitPointer(pointer)) {
      node.children ??= new Map()
      let next = node.children.get(token)
      if (!next) node.children.set(token, (next = { offset: -1 }))
      node = next
    }
  }
  scan(text, root)
  return (pointer) => {
    let node: Node | undefined = root
    let offset = root.offset
    for (const token of splitPointer(pointer)) {
      node = node.children?.get(token)
      if (!node || node.offset === -1) break
      offset = node.offset
    }
    return Math.max(offset, 0)
  }
}
