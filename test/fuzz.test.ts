/**
 * Fuzzing (fast-check) for the three formats: structured mutations of valid documents and
 * byte-level mutations of their text. Invariants: compile returns (never throws) and terminates (within the test's timeout),
 * never reports an internal error, and when it reports no error the module loads and its exports
 * are frozen. `npm test` runs a quick profile; `npm run fuzz` runs FUZZ_RUNS cases per format.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml'
import { describe, expect, it } from 'vitest'
import { ContractCompiler } from '../src/index.js'
import { loadModule } from './helpers/load-module.js'

const RUNS = Number(process.env.FUZZ_RUNS ?? 40)
const root = join(import.meta.dirname, '..')
const work = join(import.meta.dirname, '.tmp/fuzz')
rmSync(work, { recursive: true, force: true })
mkdirSync(work, { recursive: true })
cpSync(join(root, 'fixtures/dasp'), join(work, 'dasp'), { recursive: true })

type Json = unknown
const counts: Record<string, { cases: number; valid: number }> = {}

/** One structured mutation, applied at a path chosen by `pick` among the value's nodes. */
type Mutation = {
  op: 'delete' | 'duplicate' | 'retype' | 'ref' | 'number' | 'string' | 'nest' | 'key' | 'pattern' | 'wide' | 'chain'
  pick: number
  seed: number
}
const mutation: fc.Arbitrary<Mutation> = fc.record({
  op: fc.constantFrom('delete', 'duplicate', 'retype', 'ref', 'number', 'string', 'nest', 'key', 'pattern', 'wide', 'chain'),
  pick: fc.nat(),
  seed: fc.nat(),
})

function nodes(value: Json): Array<{ parent: Record<string, Json> | Json[]; key: string | number }> {
  const out: Array<{ parent: Record<string, Json> | Json[]; key: string | number }> = []
  const walk = (v: Json) => {
    if (Array.isArray(v)) v.forEach((c, i) => (out.push({ parent: v, key: i }), walk(c)))
    else if (v && typeof v === 'object')
      for (const [k, c] of Object.entries(v)) {
        out.push({ parent: v as Record<string, Json>, key: k })
        walk(c)
      }
  }
  walk(value)
  return out
}

const STRANGE = [
  '',
  'x'.repeat(10_000),
  '__proto__',
  'constructor',
  '"`${process.exit(1)}`*/</script>\u2028\u2029',
  '\ud800',
  '#/components/schemas/Nope',
  '../../etc/passwd',
  'http://127.0.0.1:9/x',
]

/** Patterns built to freeze a backtracking engine, or that no linear engine can take. */
const HOSTILE_PATTERNS = ['^(a+)+$', '(a|a)*b', '^(\\d+)*$', '(.*a){12}', '\\d+\\d+\\d+$', '^(?=(a+)+$)b', '(a)\\1+$', '[', '^[a-z]{2,}$']

function mutate(value: Json, mutations: Mutation[]): Json {
  const doc = JSON.parse(JSON.stringify(value))
  for (const m of mutations) {
    const all = nodes(doc)
    if (all.length === 0) break
    const { parent, key } = all[m.pick % all.length]!
    const current = (parent as Record<string | number, Json>)[key]
    const set = (v: Json) => {
      if (Array.isArray(parent)) parent[key as number] = v
      else Object.defineProperty(parent, key as string, { value: v, enumerable: true, writable: true, configurable: true })
    }
    switch (m.op) {
      case 'delete':
        if (Array.isArray(parent)) parent.splice(key as number, 1)
        else delete (parent as Record<string, Json>)[key as string]
        break
      case 'duplicate':
        if (Array.isArray(parent)) parent.push(JSON.parse(JSON.stringify(current ?? null)))
        else set([current, current])
        break
      case 'retype':
        set([null, 0, 'text', true, [], {}, [current]][m.seed % 7])
        break
      case 'ref':
        set({ $ref: STRANGE[m.seed % STRANGE.length] })
        break
      case 'number':
        set([1e308, -0, 2 ** 53 + 1, -1, 0.5, 1e-300][m.seed % 6])
        break
      case 'string':
        set(STRANGE[m.seed % STRANGE.length])
        break
      case 'nest': {
        let nested: Json = current ?? null
        for (let i = 0; i < (m.seed % 80) + 1; i++) nested = { n: nested }
        set(nested)
        break
      }
      case 'key':
        if (!Array.isArray(parent))
          Object.defineProperty(parent, STRANGE[m.seed % STRANGE.length]!, { value: current, enumerable: true, writable: true, configurable: true })
        break
      case 'pattern':
        // A hostile pattern on whatever object is here (a schema, or not).
        if (current && typeof current === 'object' && !Array.isArray(current))
          (current as Record<string, Json>).pattern = HOSTILE_PATTERNS[m.seed % HOSTILE_PATTERNS.length]!
        else set({ type: 'string', pattern: HOSTILE_PATTERNS[m.seed % HOSTILE_PATTERNS.length]! })
        break
      case 'wide': {
        // Many copies of a member beside it: wide overlaps (channels, operations, topics, settings).
        // Copies of a large member are fewer: the sum stays near 200 KB, so an input is wide, not
        // merely big (big inputs are test/hostile-compile.test.ts's, at full size).
        const size = JSON.stringify(current ?? null).length
        const copies = Math.min(50 + (m.seed % 150), Math.max(1, Math.floor(200_000 / Math.max(1, size))))
        if (Array.isArray(parent)) for (let i = 0; i < copies; i++) parent.push(JSON.parse(JSON.stringify(current ?? null)))
        else
          for (let i = 0; i < copies; i++)
            Object.defineProperty(parent, `${String(key)}${i}`, {
              value: JSON.parse(JSON.stringify(current ?? null)),
              enumerable: true,
              writable: true,
              configurable: true,
            })
        break
      }
      case 'chain': {
        // A long chain of members referring to the next one (`$ref`, or `allOf` of a `$ref`).
        if (Array.isArray(parent)) break
        const length = 100 + (m.seed % 800)
        const base = `${String(key)}_`
        for (let i = 0; i < length; i++) {
          const next = { $ref: `#/components/schemas/${base}${i + 1}` }
          Object.defineProperty(parent, `${base}${i}`, {
            value: m.seed % 2 ? { allOf: [next] } : { type: 'object', properties: { next } },
            enumerable: true,
            writable: true,
            configurable: true,
          })
        }
        break
      }
    }
  }
  return doc
}

/** Byte-level edits of a text: flip, insert or delete characters. */
const byteEdits = fc.array(fc.record({ at: fc.nat(), kind: fc.constantFrom('flip', 'insert', 'delete'), ch: fc.integer({ min: 0, max: 127 }) }), {
  minLength: 1,
  maxLength: 6,
})
function editBytes(text: string, edits: Array<{ at: number; kind: string; ch: number }>): string {
  let out = text
  for (const e of edits) {
    const i = e.at % Math.max(1, out.length)
    const c = String.fromCharCode(e.ch)
    out =
      e.kind === 'flip' ? out.slice(0, i) + c + out.slice(i + 1) : e.kind === 'insert' ? out.slice(0, i) + c + out.slice(i) : out.slice(0, i) + out.slice(i + 1)
  }
  return out
}

let n = 0
async function check(format: string, file: string, text: string): Promise<void> {
  writeFileSync(file, text)
  let result
  try {
    result = await new ContractCompiler().compile(file)
  } catch (error) {
    throw new Error(`compile threw on ${file}: ${String(error)}\n---\n${text.slice(0, 2000)}`, { cause: error })
  }
  counts[format] ??= { cases: 0, valid: 0 }
  counts[format].cases++
  const internal = result.diagnostics.find((d) => d.code === 'CONTRACTS_INTERNAL')
  expect(internal, internal?.message).toBeUndefined()
  for (const d of result.diagnostics) expect(d.line >= 1 && d.column >= 1, `${d.code} has a position`).toBe(true)
  if (result.diagnostics.some((d) => d.severity === 'error')) return
  counts[format].valid++
  const mod = await loadModule(result.code!, `fuzz-${format}`)
  for (const [name, value] of Object.entries(mod))
    if (typeof value === 'object' && value !== null) expect(Object.isFrozen(value), `${name} is frozen`).toBe(true)
  expect((globalThis as { __PWNED?: unknown }).__PWNED, 'nothing from a file name ran').toBeUndefined()
}

/** Shrunk counterexamples of `npm run fuzz` runs, replayed on every test run. */
const REGRESSIONS: Record<string, Mutation[][]> = {
  benzene: [],
  // A chain of 1,600 members copied 153 times (one input of several MB): held under 2 s per compile.
  'nats-flow': [
    [
      { op: 'chain', pick: 7290430, seed: 0 },
      { op: 'wide', pick: 4, seed: 3703 },
      { op: 'delete', pick: 762349362, seed: 334379404 },
    ],
  ],
  // An operation's channel $ref made to name nothing reached the generator (now NATS_REF_UNRESOLVED).
  nats: [
    [
      { op: 'ref', pick: 206231657, seed: 73745889 },
      { op: 'delete', pick: 971794858, seed: 0 },
    ],
  ],
  // A definitions entry 10,000 characters long made lstat throw ENAMETOOLONG: CONTRACTS_INTERNAL (now a diagnostic).
  dasp: [
    [
      { op: 'string', pick: 1308067287, seed: 467037838 },
      { op: 'delete', pick: 0, seed: 0 },
    ],
  ],
}

/** Every fourth case gets a file name that would break out of a comment or a template literal. */
const name = (i: number) => (i % 4 === 0 ? `case${i}\n;globalThis.__PWNED=${i};\`\${globalThis.__PWNED}\`\u2028\r"'` : `case${i}`)

const FORMATS = [
  {
    name: 'benzene',
    source: 'fixtures/benzene/valid/payments.spec.json',
    file: (i: number) => join(work, `${name(i)}.spec.json`),
    parse: JSON.parse,
    print: (v: Json) => JSON.stringify(v, null, 2),
  },
  {
    name: 'nats',
    source: 'fixtures/nats/valid/ledger.asyncapi.yaml',
    file: (i: number) => join(work, `${name(i)}.asyncapi.yaml`),
    parse: (t: string) => parseYaml(t),
    print: (v: Json) => stringifyYaml(v),
  },
  // The same document as one line of flow YAML (JSON is YAML): long lines on the fast path.
  {
    name: 'nats-flow',
    source: 'fixtures/nats/valid/ledger.asyncapi.yaml',
    file: (i: number) => join(work, `${name(i)}.asyncapi.yaml`),
    parse: (t: string) => parseYaml(t),
    print: (v: Json) => JSON.stringify(v),
  },
  {
    name: 'dasp',
    source: 'fixtures/dasp/counter.dasp.json',
    file: (i: number) => join(work, 'dasp', `${name(i)}.dasp.json`),
    parse: JSON.parse,
    print: (v: Json) => JSON.stringify(v, null, 2),
  },
] as const

describe.each(FORMATS)('fuzz $name', (format) => {
  const source = readFileSync(join(root, format.source), 'utf8')
  const value = format.parse(source)
  // Byte-level edits apply to the text as this variant prints it (one line, for nats-flow).
  const text = format.name === 'nats-flow' ? format.print(value) : source

  it(`structured mutations (${RUNS} cases)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 4 }), async (ms) => check(format.name, format.file(n++), format.print(mutate(value, ms)))),
      { numRuns: RUNS },
    )
  })

  it('counterexamples found by full runs stay fixed', async () => {
    for (const ms of REGRESSIONS[format.name]) await check(format.name, format.file(n++), format.print(mutate(value, ms)))
  })

  it(`byte-level mutations (${RUNS} cases)`, async () => {
    await fc.assert(
      fc.asyncProperty(byteEdits, async (edits) => check(format.name, format.file(n++), editBytes(text, edits))),
      { numRuns: RUNS },
    )
  })
})

describe('fuzz summary', () => {
  it('ran every format', () => {
    for (const f of FORMATS) expect(counts[f.name]?.cases).toBe(RUNS * 2 + REGRESSIONS[f.name]!.length)
    if (process.env.FUZZ_REPORT) writeFileSync(process.env.FUZZ_REPORT, JSON.stringify(counts, null, 2) + '\n')
  })
})
