/**
 * The Rust target on long chains of components (an outside pass): the generator overflowed its
 * stack (`RangeError`, no diagnostic) on an `items` chain of 1,500 links and an
 * `additionalProperties` chain of 2,000, and a `properties` chain of 70 structs made a crate rustc
 * refused (a layout "queries overflow the depth limit", and from 135 links E0320 in its drop check).
 * Now a struct member is boxed where the types it holds by value nest 32 deep; a nesting the target
 * cannot write is refused as unsupported, by name, and nothing is written
 * (src/formats/nats/targets/rust/payloads.ts, MAX_NESTED_COMPONENTS, MAX_STRUCT_CHAIN).
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { inspect } from '../src/index.js'
import type { NatsModel } from '../src/formats/nats/model.js'
import { rustCrate } from '../src/formats/nats/targets/rust/crate.js'
import { MAX_NESTED_COMPONENTS, RustUnsupported } from '../src/formats/nats/targets/rust/payloads.js'
import { freshDir } from './helpers/bundlers.js'
import { contracts } from './helpers/cli.js'
import { miniNatsDocument, withComponentSchemas } from './helpers/nats-mini.js'
import { CARGO, SERDE_TARGET, cargo } from './helpers/rust.js'

const dir = freshDir(join(import.meta.dirname, '.tmp/rust-deep-chains'))
const debianCrates = '/usr/share/cargo/registry'
const hasSerde = existsSync(debianCrates) && readdirSync(debianCrates).some((d) => /^serde_json-1\./.test(d))

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
    ['properties', 200, /holds a chain of \d+ types, each a member of the one before: .*E0320/],
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

  it('`contracts generate --target rust` says so, exits 1 and writes nothing', () => {
    const file = join(dir, 'cli-items.asyncapi.yaml')
    writeFileSync(file, chainDocument('items', 1_500))
    const out = join(dir, 'cli-out')
    const r = contracts(['generate', '--target', 'rust', '--serde', '--no-cache', '--out', out, file])
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/^contracts: the schema "A\d+" is nested 256 component types deep .* \(unsupported\)\. Nothing was written\.$/m)
    expect(r.stderr).not.toMatch(/RangeError|^\s+at /m)
    expect(existsSync(out)).toBe(false)
  })

  it(`a chain just inside the bound is written (${MAX_NESTED_COMPONENTS - 10} items links)`, async () => {
    const m = await model('items-inside', chainDocument('items', MAX_NESTED_COMPONENTS - 10))
    const files = rustCrate([m], 'contracts', { serde: true })
    expect(files.some((f) => f.path.endsWith('.rs') && f.text.includes('Vec<'))).toBe(true)
  })
})

describe.runIf(CARGO !== undefined && hasSerde)('a chain of 70 structs each holding the next', () => {
  it('boxes the members past 32 by-value levels, and the crate builds (rustc refused it before)', async () => {
    const m = await model('properties-70', chainDocument('properties', 70))
    const crate = join(dir, 'crate-70')
    const files = [...rustCrate([m], 'contracts', { serde: true })]
    files.push({ path: '.cargo/config.toml', text: `[source.crates-io]\nreplace-with = "debian"\n\n[source.debian]\ndirectory = "${debianCrates}"\n` })
    for (const f of files) {
      const path = join(crate, ...f.path.split('/'))
      mkdirSync(join(path, '..'), { recursive: true })
      writeFileSync(path, f.text)
    }
    expect(files.some((f) => /pub x: Option<Box<A\d+>>/.test(f.text))).toBe(true)
    const build = cargo(['check', '--offline', '--quiet', '--features', 'serde'], crate, SERDE_TARGET)
    expect([build.status, build.output]).toEqual([0, ''])
  })
})
