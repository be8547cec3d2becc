import { parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser'
import type { Diagnostic } from './diagnostics.js'
import { joinPointer, splitPointer } from './json-pointer.js'
import { LineIndex } from './source-text.js'

/**
 * A JSON document with the position of every value, so that any rule can report a JSON Pointer and
 * get back a line and column. Strict JSON: comments, trailing commas and duplicate keys are
 * diagnostics, not extensions. The value itself comes from `JSON.parse`, so numbers and strings
 * are exactly what every other JSON consumer (and the contract hash) sees.
 */
export interface JsonSource {
  file: string
  text: string
  value: unknown
  lines: LineIndex
  /** Position of the value at `pointer`, or of its nearest existing ancestor. */
  locate(pointer: string): { line: number; column: number; offset: number }
}

export interface JsonParseResult {
  source: JsonSource
  diagnostics: Diagnostic[]
}

export function parseJsonSource(file: string, text: string): JsonParseResult {
  // A byte order mark is tolerated; replacing it by a space keeps every offset where it was.
  const body = text.charCodeAt(0) === 0xfeff ? ' ' + text.slice(1) : text
  const lines = new LineIndex(body)
  const errors: ParseError[] = []
  const root = parseTree(body, errors, { disallowComments: true, allowTrailingComma: false })
  const diagnostics: Diagnostic[] = []
  const at = (offset: number) => lines.position(offset)

  // Only the first syntax error: the ones after it are mostly the parser losing its way.
  for (const error of errors.slice(0, 1)) {
    diagnostics.push({
      code: 'JSON_SYNTAX',
      severity: 'error',
      message: `Invalid JSON: ${describeParseError(printParseErrorCode(error.error))}.`,
      file,
      pointer: '',
      ...at(error.offset),
    })
  }
  if (root === undefined && errors.length === 0) {
    diagnostics.push({ code: 'JSON_SYNTAX', severity: 'error', message: 'Invalid JSON: the file is empty.', file, pointer: '', line: 1, column: 1 })
  }

  const nodes = new Map<string, Node>()
  if (root) indexNodes(root, '', nodes, (pointer, key) => {
    diagnostics.push({
      code: 'JSON_DUPLICATE_KEY',
      severity: 'error',
      message: `Duplicate key ${JSON.stringify(key.value)}: JSON consumers disagree on which value wins, so a contract may not repeat a key.`,
      file,
      pointer,
      ...at(key.offset),
    })
  })

  let value: unknown
  if (diagnostics.length === 0) {
    try {
      value = JSON.parse(body)
    } catch (error) {
      diagnostics.push({ code: 'JSON_SYNTAX', severity: 'error', message: `Invalid JSON: ${(error as Error).message}`, file, pointer: '', line: 1, column: 1 })
    }
  }

  const locate = (pointer: string) => {
    let node = nodes.get(pointer)
    let tokens = splitPointer(pointer)
    while (!node && tokens.length > 0) {
      tokens = tokens.slice(0, -1)
      node = nodes.get(joinPointer('', ...tokens))
    }
    const offset = node?.offset ?? 0
    return { ...lines.position(offset), offset }
  }

  return { source: { file, text, value, lines, locate }, diagnostics }
}

function indexNodes(node: Node, pointer: string, out: Map<string, Node>, onDuplicate: (pointer: string, key: Node) => void): void {
  out.set(pointer, node)
  if (node.type === 'object') {
    const seen = new Set<string>()
    for (const property of node.children ?? []) {
      const [key, value] = property.children ?? []
      if (!key || typeof key.value !== 'string') continue
      const child = joinPointer(pointer, key.value)
      if (seen.has(key.value)) onDuplicate(child, key)
      seen.add(key.value)
      if (value) indexNodes(value, child, out, onDuplicate)
    }
  } else if (node.type === 'array') {
    node.children?.forEach((child, i) => indexNodes(child, joinPointer(pointer, i), out, onDuplicate))
  }
}

function describeParseError(code: string): string {
  // jsonc-parser's codes are PascalCase identifiers; turn them into words for people.
  return code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()
}
