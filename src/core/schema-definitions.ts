import { jsLiteral, sortKeys } from './emit.js'

/** The module constant holding every linear-time pattern matcher its validators use. */
export const PATTERNS_CONSTANT = '$patterns'
/** The import that constant needs, for the module's header. */
export const LINEAR_PATTERNS_IMPORT = 'import { linearPatterns as $linearPatterns } from "unplugin-contracts/runtime/linear-pattern";'

/** The `$patterns` constant's expression: one matcher per pattern, in code-unit order (deterministic). */
export function patternsConstant(patterns: ReadonlyMap<string, string>): string {
  const record: Record<string, string> = {}
  for (const pattern of sortKeys([...patterns.keys()])) Object.defineProperty(record, pattern, { value: patterns.get(pattern)!, enumerable: true })
  return `/* @__PURE__ */ $linearPatterns(${jsLiteral(record)})`
}
