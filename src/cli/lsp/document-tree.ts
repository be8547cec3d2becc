/**
 * What is under the cursor in a JSON or YAML document: the path to the value (or key) at an offset
 * and the offsets of its text. The compiler's sources answer pointer -> position; hover needs the
 * other direction, from a text that may be half-typed, so this parses tolerantly (jsonc-parser's
 * tree, yaml's document) and never throws: an unreadable or over-deep text has no node.
 */
import { lazyRequire } from '../../core/lazy-require.js'
import { LIMITS, tooDeepJson } from '../../core/limits.js'
import { loneCrsAsLineFeeds } from '../../core/source-text.js'

// Loaded on the first hover: the CLI's other commands never pay for them (dist/cli.js is one module).
const jsonc = lazyRequire<typeof import('jsonc-parser')>('jsonc-parser')
const yaml = lazyRequire<typeof import('yaml')>('yaml')

export interface NodeAt {
  /** The path from the document's root to the value, or to the member whose key is under the cursor. */
  path: Array<string | number>
  /** Whether the cursor is on the member's key rather than its value. */
  key: boolean
  /** The value there when it is a string (a key's own text when `key`). */
  text?: string
  /** Offsets of the node's source text (quotes included), end exclusive. */
  start: number
  end: number
  /** The value of the member (for a key: the value it names), when it is a string. */
  valueText?: string
  valueStart?: number
  valueEnd?: number
}

/** The node at `offset` of a document, or undefined (nothing there, or a text this does not read). */
export function nodeAt(text: string, isYaml: boolean, offset: number): NodeAt | undefined {
  if (text.length > LIMITS.fileBytes) return undefined
  try {
    return isYaml ? yamlNodeAt(text, offset) : jsonNodeAt(text, offset)
  } catch {
    // A parser's stack on a hostile text: no hover, never a failed request.
    return undefined
  }
}

function jsonNodeAt(text: string, offset: number): NodeAt | undefined {
  // jsonc-parser recurses once per level: past the compiler's depth limit there is nothing to show.
  if (tooDeepJson(text) !== -1) return undefined
  const { findNodeAtOffset, getNodePath, parseTree } = jsonc()
  const tree = parseTree(text, [], { allowTrailingComma: true, disallowComments: false })
  const node = tree && findNodeAtOffset(tree, offset, true)
  if (!node) return undefined
  const parent = node.parent
  if (parent?.type === 'property' && parent.children?.[0] === node) {
    const value = parent.children[1]
    return {
      path: value ? getNodePath(value) : [...(parent.parent ? getNodePath(parent.parent) : []), String(node.value)],
      key: true,
      text: String(node.value),
      start: node.offset,
      end: node.offset + node.length,
      ...(value?.type === 'string' ? { valueText: value.value as string, valueStart: value.offset, valueEnd: value.offset + value.length } : {}),
    }
  }
  return {
    path: getNodePath(node),
    key: false,
    ...(node.type === 'string' ? { text: node.value as string } : {}),
    start: node.offset,
    end: node.offset + node.length,
  }
}

/** One step down per level, iteratively: only the branch holding the offset is followed. */
function yamlNodeAt(text: string, offset: number): NodeAt | undefined {
  const { isMap, isPair, isScalar, isSeq, parseDocument } = yaml()
  const doc = parseDocument(loneCrsAsLineFeeds(text), { uniqueKeys: false, prettyErrors: false, strict: false, version: '1.2' })
  let node: unknown = doc.contents
  const path: Array<string | number> = []
  const within = (n: unknown) => {
    const range = (n as { range?: [number, number, number] } | null)?.range
    return range !== undefined && offset >= range[0] && offset <= range[1]
  }
  for (let depth = 0; depth <= LIMITS.depth * 4; depth++) {
    if (isScalar(node)) {
      const [start, end] = node.range!
      return { path, key: false, ...(typeof node.value === 'string' ? { text: node.value } : {}), start, end }
    }
    if (isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && (within(item.key) || within(item.value)))
      if (!pair) return undefined
      const name = isScalar(pair.key) ? String(pair.key.value) : undefined
      if (name === undefined) return undefined
      if (within(pair.key)) {
        const [start, end] = (pair.key as { range: [number, number, number] }).range
        const value = pair.value
        return {
          path: [...path, name],
          key: true,
          text: name,
          start,
          end,
          ...(isScalar(value) && typeof value.value === 'string' ? { valueText: value.value, valueStart: value.range![0], valueEnd: value.range![1] } : {}),
        }
      }
      path.push(name)
      node = pair.value
      continue
    }
    if (isSeq(node)) {
      const index = node.items.findIndex((item) => within(item))
      if (index === -1) return undefined
      path.push(index)
      node = node.items[index]
      continue
    }
    return undefined
  }
  return undefined
}
