/**
 * The Rust target on long chains of components (an outside pass): the generator overflowed its
 * stack (`RangeError`, no diagnostic) on an `items` chain of 1,500 links and an
 * `additionalProperties` chain of 2,000, and a `properties` chain of 70 structs made a crate rustc
 * refused (a layout "queries overflow the depth limit", and from 135 links E0320 in its drop check).
 * Now a struct member is boxed where the types it holds by value nest 32 deep; a nesting the target
 * cannot write is refused as unsupported, by name, and nothing is written
 * (src/formats/nats/targets/rust/payloads.ts, MAX_NESTED_COMPONENTS, MAX_STRUCT_CHAIN).
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { inspect } from '../src/index.js'
import type { NatsModel } from '../src/formats/nats/model.js'
import { rustCrate } from '../src/formats/nats/targets/rust/crate.js'
import { RustUnsupported } from '../src/formats/nats/targets/rust/payloads.js'
import { GENERIC_NESTING } from '../src/formats/nats/targets/rust/drop-check.js'
import { freshDir } from './helpers/bundlers.js'
import { contracts } from './helpers/cli.js'
import { miniNatsDocument, withComponentSchemas } from './helpers/nats-mini.js'
import { CARGO, DEBIAN_CRATES, SERDE_TARGET, cargo, writeCrate } from './helpers/rust.js'

const dir = freshDir(join(import.meta.dirname, '.tmp/rust-deep-chains'))
const hasSerde = existsSync(DEBIAN_CRATES) && readdirSync(DEBIAN_CRATES).some((d) => /^serde_json-1\./.test(d))

type Link = 'items' | 'additionalProperties' | 'properties'
/** A NATS document whose payload is the head of a chain of `n` components of one kind. */
function chainDocument(kind: Link, n: number): string {
  const next = (i: number) => ({ $ref: `#/components/schemas/A${i + 1}` })
  const link = (i: number) =>
    kind === 'items'
      ? { type: 'array', items: next(i) }
      : kind === 'additionalProperties'
        ? { type: 'object', additionalProperties: next(i) }
        : { type: 'object', properties: { x: next(i) } }
  const schemas = Object.fromEntries([...Array.from({ length: n }, (_, i) => [`A${i}`, link(i)]), [`A${n}`, { type: 'string' }]])
  return withComponentSchemas(miniNatsDocument({ message: ['        payload: { $ref: "#/components/schemas/A0" }'] }), schemas)
}

async function model(name: string, text: string): Promise<NatsModel> {
  const file = join(dir, `${name}.asyncapi.yaml`)
  writeFileSync(file, text)
  return { ...((await inspect(file)).data as NatsModel), file }
}

describe('chains the Rust target cannot write are refused as unsupported, by name', () => {
  it.each([
    ['items', 2_000, /nested 256 component types deep/],
    ['additionalProperties', 2_000, /nested 256 component types deep/],
    ['properties', 200, /holds a chain of types, each a member of the one before, deeper than rustc's drop check takes \(E0320/],
  ] as const)('%s, %i links', async (kind, n, message) => {
    const m = await model(`${kind}-${n}`, chainDocument(kind, n))
    let thrown: unknown
    try {
      rustCrate([m], 'contracts', { serde: true })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(RustUnsupported)
    expect((thrown as Error).message).toMatch(message)
  })

  it('`contracts generate --target rust` reports NATS_RUST_UNSUPPORTED at the schema (a code frame at its line), exits 1 and writes nothing', () => {
    const file = join(dir, 'cli-items.asyncapi.yaml')
    const text = chainDocument('items', 1_500)
    writeFileSync(file, text)
    const out = join(dir, 'cli-out')
    const r = contracts(['generate', '--target', 'rust', '--serde', '--no-cache', '--out', out, file])
    expect(r.status).toBe(1)
    // A diagnostic like the checker's: code, message, file:line:column with the pointer, a code frame at that line.
    const at =
      /^error NATS_RUST_UNSUPPORTED: The schema "(A\d+)" is nested 256 component types deep .* \(unsupported\)\.\n\s*at (.+):(\d+):(\d+) \(\/components\/schemas\/(A\d+)\)$/m.exec(
        r.stderr,
      )
    expect(at, r.stderr).not.toBeNull()
    expect([at![1], at![2]]).toEqual([at![5], file])
    const line = text.split('\n').findIndex((l) => l.trimStart().startsWith(`${at![1]}:`)) + 1
    expect(Number(at![3])).toBe(line)
    expect(r.stderr).toMatch(new RegExp(`> *${line} \\|`))
    expect(r.stderr).toMatch(/^contracts: the Rust target cannot write this document; nothing was written\.$/m)
    expect(r.stderr).not.toMatch(/RangeError|^\s+at .*\.js:/m)
    expect(existsSync(out)).toBe(false)
  })
})

describe.runIf(CARGO !== undefined && hasSerde)('a chain of 55 structs each optionally holding the next (rustc refused 70 unboxed)', () => {
  it('boxes the members past 32 by-value levels, and the crate builds (rustc refused it before)', async () => {
    const m = await model('properties-55', chainDocument('properties', 55))
    const crate = join(dir, 'crate-55')
    const files = rustCrate([m], 'contracts', { serde: true })
    writeCrate(crate, files)
    expect(files.some((f) => /pub x: Option<Box<A\d+>>/.test(f.text))).toBe(true)
    const build = cargo(['check', '--offline', '--quiet', '--features', 'serde'], crate, SERDE_TARGET)
    expect([build.status, build.output]).toEqual([0, ''])
  })
})

/**
 * The bounds of drop-check.ts against rustc: for each shape of chain, the longest the target writes
 * (found by a search over the chain's length) is in one crate cargo builds, and one link more is
 * refused as unsupported (E0320 for the drop check, E0275 for the trait solver), at the schema or
 * channel whose type it is. `atLeast`: what a shape must still be written to (the bounds are not
 * made so tight that a realistic document is refused). Shapes an outside pass found written and
 * refused by rustc are among them (nullable objects and maps).
 */
type Shape = { name: string; link: (next: { $ref: string }) => unknown; wrapped?: true; atLeast: number; refusal: RegExp }
const E0320 = /deeper than rustc's drop check takes \(E0320/
const SHAPES: Shape[] = [
  { name: 'required', link: (next) => ({ type: 'object', required: ['x'], properties: { x: next } }), atLeast: 100, refusal: E0320 },
  { name: 'optional', link: (next) => ({ type: 'object', properties: { x: next } }), atLeast: 50, refusal: E0320 },
  { name: 'optional-list', link: (next) => ({ type: 'object', properties: { x: { type: 'array', items: next } } }), atLeast: 40, refusal: E0320 },
  {
    name: 'optional-map',
    link: (next) => ({ type: 'object', properties: { x: { type: 'object', additionalProperties: next } } }),
    atLeast: 25,
    refusal: E0320,
  },
  { name: 'nullable-optional', link: (next) => ({ type: ['object', 'null'], properties: { x: next } }), atLeast: 30, refusal: E0320 },
  { name: 'maps-in-a-struct', link: (next) => ({ type: 'object', additionalProperties: next }), wrapped: true, atLeast: 40, refusal: E0320 },
  { name: 'nullable-maps-in-a-struct', link: (next) => ({ type: ['object', 'null'], additionalProperties: next }), wrapped: true, atLeast: 25, refusal: E0320 },
  {
    name: 'lists-in-a-struct',
    link: (next) => ({ type: 'array', items: next }),
    wrapped: true,
    atLeast: GENERIC_NESTING,
    refusal: /lists, maps or options one inside another: .*\(E0275\)/,
  },
]

function shapeDocument(shape: Shape, n: number, contract: string): string {
  const next = (i: number) => ({ $ref: `#/components/schemas/A${i + 1}` })
  const schemas = Object.fromEntries([...Array.from({ length: n }, (_, i) => [`A${i}`, shape.link(next(i))]), [`A${n}`, { type: 'string' }]])
  const payload = shape.wrapped
    ? '        payload: { type: object, required: [x], properties: { x: { $ref: "#/components/schemas/A0" } } }'
    : '        payload: { $ref: "#/components/schemas/A0" }'
  return withComponentSchemas(miniNatsDocument({ message: [payload] }).replace('contract: m', `contract: ${contract}`), schemas)
}

/** Whether the target writes a chain of `n` links of `shape` (the refusal, when it does not). */
async function writes(shape: Shape, n: number): Promise<RustUnsupported | undefined> {
  try {
    rustCrate([await model(`${shape.name}-${n}`, shapeDocument(shape, n, 'm'))], 'contracts', { serde: true })
    return undefined
  } catch (error) {
    if (error instanceof RustUnsupported) return error
    throw error
  }
}

const longestOf = new Map<string, number>()
/** The longest chain of `shape` the target writes (bounded search: written at 1, refused by 400). */
async function longest(shape: Shape): Promise<number> {
  const known = longestOf.get(shape.name)
  if (known !== undefined) return known
  let low = 1
  let high = 400
  expect(await writes(shape, low)).toBeUndefined()
  expect(await writes(shape, high)).toBeInstanceOf(RustUnsupported)
  while (high - low > 1) {
    const mid = (low + high) >> 1
    if ((await writes(shape, mid)) === undefined) low = mid
    else high = mid
  }
  longestOf.set(shape.name, low)
  return low
}

describe('each shape of chain: the longest the target writes, and one link more refused', () => {
  it.each(SHAPES.map((s) => [s.name, s] as const))('%s', async (_name, shape) => {
    const n = await longest(shape)
    expect(n).toBeGreaterThanOrEqual(shape.atLeast)
    const refusal = (await writes(shape, n + 1))!
    expect(refusal.message).toMatch(shape.refusal)
    expect(refusal.pointer).toMatch(/^\/(components\/schemas\/A\d+|channels\/placed)$/)
  })
})

describe.runIf(CARGO !== undefined && hasSerde)('the longest chain of each shape, in one crate', () => {
  it('builds (cargo check: rustc takes every one)', async () => {
    const models: NatsModel[] = []
    for (const [i, shape] of SHAPES.entries()) models.push(await model(`crate-${shape.name}`, shapeDocument(shape, await longest(shape), `m${i}`)))
    const crate = join(dir, 'crate-shapes')
    writeCrate(crate, rustCrate(models, 'contracts', { serde: true }))
    const build = cargo(['check', '--offline', '--quiet', '--features', 'serde'], crate, SERDE_TARGET)
    expect([build.status, build.output]).toEqual([0, ''])
  }, 300_000)
})
