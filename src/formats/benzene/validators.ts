import { createRequire } from 'node:module'
import type { Schema } from './document.js'
import { convert, definitionsDocument, type ConvertContext, type Direction } from './json-schema.js'

const require = createRequire(import.meta.url)
const Ajv = require('ajv') as typeof import('ajv').default
const standaloneCode = require('ajv/dist/standalone') as typeof import('ajv/dist/standalone/index.js').default

/** ajv runtime helpers the generated code may ask for; `unplugin-contracts/runtime` provides each. */
export const AJV_RUNTIME_MODULES = new Set(['ajv/dist/runtime/ucs2length', 'ajv/dist/runtime/equal'])

export interface ValidatorRequest {
  /** A JavaScript identifier for the validator constant. */
  name: string
  schema: unknown
  direction: Direction
}

/**
 * Standalone validators (ajv's standalone code generation) for the given payload schemas. Each
 * validator is a self-contained function expression, so a bundler drops the ones no import uses;
 * the code has no `require`, no `import`, no `eval` or `new Function`: ajv's two runtime helpers
 * come from `unplugin-contracts/runtime`.
 */
export function generateValidators(requests: readonly ValidatorRequest[], catalogue: Readonly<Record<string, Schema>>, int64: 'number' | 'string'): Map<string, string> {
  const contexts: Record<Direction, ConvertContext> = {
    request: { catalogue, direction: 'request', int64, documentId: 'req', keys: new Map(), open: new Set() },
    response: { catalogue, direction: 'response', int64, documentId: 'res', keys: new Map(), open: new Set() },
  }
  const roots = requests.map((r, i) => ({ ...r, id: `v${i}`, json: convert(r.schema, contexts[r.direction]) }))
  const out = new Map<string, string>()
  if (roots.length === 0) return out
  const ajv = new Ajv({
    allErrors: true,
    // Presence checks with hasOwnProperty: a payload without `constructor` or `__proto__` members
    // must not be judged by the ones every object inherits.
    ownProperties: true,
    strict: false,
    validateFormats: false,
    unicodeRegExp: true,
    code: { source: true, lines: false, optimize: true },
  })
  for (const direction of ['request', 'response'] as const) {
    const document = definitionsDocument(contexts[direction])
    if (Object.keys(document.definitions as object).length > 0 || roots.some((r) => r.direction === direction)) ajv.addSchema(document)
  }
  for (const root of roots) ajv.addSchema(typeof root.json === 'boolean' ? { $id: root.id } : { ...root.json, $id: root.id })
  for (const root of roots) out.set(root.name, wrap(standaloneCode(ajv, ajv.getSchema(root.id)!)))
  return out
}

/**
 * ajv's CommonJS standalone output inside a function expression, so that it is one value with no
 * free variables but its own `module` and the runtime's `$ajvRuntime`, which answers ajv's calls
 * for its two helpers. (In this code `"` only appears escaped inside string literals, so the
 * replaced text is always a call, never data.)
 */
function wrap(code: string): string {
  for (const [, id] of code.matchAll(/\brequire\("([^"]*)"\)/g)) {
    if (!AJV_RUNTIME_MODULES.has(id!)) throw new Error(`ajv standalone code needs ${id}, which the runtime does not provide`)
  }
  // `</` only occurs inside string literals here; `<\/` is the same string and cannot close a <script>.
  const body = code.replace(/\brequire\("/g, '$ajvRuntime("').replace(/<\//g, '<\\/')
  return `/* @__PURE__ */ (function (module) {${body}\nreturn module.exports;})({ exports: {} })`
}
