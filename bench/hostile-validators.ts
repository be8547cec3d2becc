/** Hostile input families of the validators surface, timed at n and 10n by `bench/complexity.ts`. */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { patternEngine } from '../src/core/pattern-safety.js'
import { linearPatterns } from '../src/runtime/shared/linear-pattern.js'
import { patternMatchers } from '../src/runtime/shared/pattern-matchers.js'
import { schemaValidator, type Schema } from '../src/runtime/shared/schema-check.js'
import { MAX_ERRORS } from '../src/runtime/shared/schema-errors.js'
import { generatedValidator } from '../test/helpers/validator-code.js'
import type { Family } from './family.js'

/** The tree of nodes (issue 29): a `oneOf` whose branches share a recursive member. */
const NODE = 'defs#/definitions/Node'
const branch = (kind: string): Schema => ({
  type: 'object',
  properties: { kind: { const: kind }, children: { type: 'array', items: { $ref: NODE } } },
  required: ['kind', 'children'],
})
const TREE: Readonly<Record<string, Schema>> = { [NODE]: { oneOf: [branch('leafy'), branch('branchy')] } }

/** A chain of `levels` nodes without `kind`: both branches fail at every level (4x the work per two levels before memoizing). */
function chain(levels: number): unknown {
  let node: unknown = { children: [] }
  for (let i = 0; i < levels; i++) node = { children: [node] }
  return node
}

/** The data file of a validator family (its parse is the floor), and the validation of it as the timed work. */
const treeFamily = (name: string, validator: () => (data: unknown) => boolean): Family => ({
  name,
  // 6 and 60 levels: 60 x 4 schema steps stays under the validation depth limit (256).
  n: 6,
  // Per level, the errors below it are replayed: 2^k at level k until MAX_ERRORS caps them.
  work: (n) => {
    let total = 0
    for (let k = 1; k <= n; k++) total += Math.min(2 ** k, MAX_ERRORS)
    return total
  },
  make: (n, dir) => {
    const path = join(dir, 'tree.json')
    writeFileSync(path, JSON.stringify(chain(n)))
    return path
  },
  run: (path) => {
    const data = JSON.parse(readFileSync(path, 'utf8'))
    const validate = validator()
    return () => validate(data)
  },
})

/** `^(a?){n}a{n}$` written out: a pattern only the linear engine may run, its program growing with n. */
const longPattern = (n: number) => `^${'(a?)'.repeat(n)}${'a'.repeat(n)}$`

/** A NATS document whose payload has the long pattern: compiled (refused past MAX_PATTERN_PROGRAM, at 10n the 50 KB attack). */
function patternDocument(n: number): string {
  return `asyncapi: 3.1.0
info: { title: Long pattern, version: 1.0.0 }
x-nats-contract:
  version: 0.2.0-draft
  contract: long-pattern
  deployment: { binding: bench, minimumServerVersion: 2.11.0 }
  tokenTypes:
    region: { kind: enum, values: [eu, us] }
  channels:
    posted: { parameters: { region: region } }
  operations:
    post: { publish: { api: core, confirmation: none } }
channels:
  posted:
    address: bench.{region}.posted
    parameters: { region: {} }
    messages:
      it:
        payload: { type: object, properties: { v: { type: string, pattern: '${longPattern(n)}' } } }
operations:
  post:
    action: send
    channel: { $ref: '#/channels/posted' }
`
}

const LINEAR = '^([a-z]+\\.)*[a-z]+$'

/** Patterns no proof covers (src/core/pattern-safety.ts): each runs on the budgeted backtracking matcher. */
const BACKREFERENCE = '^(a+)+\\1$'
const LOOKBEHIND = '(?<=\\$)\\d+$'

/** A value in a file, and a fresh budgeted matcher of `pattern` timed on it (its program assembled on the first match). */
const budgetedFamily = (name: string, pattern: string, n: number, value: (n: number) => string): Family => ({
  name,
  n,
  make: (size, dir) => {
    const path = join(dir, 'value.json')
    writeFileSync(path, JSON.stringify(value(size)))
    return path
  },
  run: (path) => {
    const text = JSON.parse(readFileSync(path, 'utf8')) as string
    const engine = patternEngine(pattern)
    if (engine.engine !== 'budgeted') throw new Error(`${pattern} is expected to need the budgeted matcher`)
    return () => patternMatchers({ [pattern]: engine.spec })[pattern]!.test(text)
  },
})

export const families: Family[] = [
  treeFamily('tree of nodes, generated validator (levels; per error replayed)', () => generatedValidator({ $ref: NODE }, TREE)),
  treeFamily('tree of nodes, interpreter (levels; per error replayed)', () => schemaValidator({ $ref: NODE }, TREE)),
  {
    name: 'long pattern, compiled and refused (repeats)',
    n: 1000,
    make: (n, dir) => {
      const path = join(dir, 'c.asyncapi.yaml')
      writeFileSync(path, patternDocument(n))
      return path
    },
  },
  {
    name: 'long value on a linear-engine pattern (characters)',
    n: 10_000,
    make: (n, dir) => {
      const path = join(dir, 'value.json')
      writeFileSync(path, JSON.stringify(`${'abc.'.repeat(Math.floor(n / 4))}end`))
      return path
    },
    run: (path) => {
      const value = JSON.parse(readFileSync(path, 'utf8')) as string
      const engine = patternEngine(LINEAR)
      if (engine.engine !== 'linear') throw new Error(`${LINEAR} is expected to need the linear engine`)
      // A fresh matcher per run: its program is compiled once, its first match timed with the rest.
      return () => linearPatterns({ [LINEAR]: engine.source })[LINEAR]!.test(value)
    },
  },
  // Exponential on a backtracking engine: the budget (MAX_PATTERN_STEPS) ends the match at any length, undecided.
  budgetedFamily('backreference pattern on its attack value, budgeted matcher (characters)', BACKREFERENCE, 1000, (n) => `${'a'.repeat(n)}b`),
  // Linear in the value: one start position per character, each refused by the lookbehind at once.
  budgetedFamily('lookbehind pattern on a long value, budgeted matcher (characters)', LOOKBEHIND, 5000, (n) => `${'1'.repeat(n)}x`),
]
