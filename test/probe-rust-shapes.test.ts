/**
 * The Rust target's closed structs (`#[serde(flatten)] extra: Closed`) and recursive components,
 * probed where they meet: a closed component that contains itself through a list, a map
 * (`additionalProperties` of itself) and an optional member; a nullable closed object; a closed
 * object as a list item and a map value of another closed object; an open object holding a closed
 * one. About 300 payloads, drawn from a seeded generator (trees up to depth 3, then one mutation at
 * a random place: an extra member, a missing or mistyped required member, a `null`, an array for an
 * object), go through the generated TypeScript validator and through the crate (cargo, offline,
 * Debian's serde crates): the same verdicts, and what the crate accepts it writes back as sent.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compile, inspect } from '../src/index.js'
import type { NatsModel } from '../src/formats/nats/model.js'
import { rustCrate } from '../src/formats/nats/targets/rust/crate.js'
import { rustString } from '../src/formats/nats/targets/rust/names.js'
import { loadModule } from './helpers/load-module.js'
import { CARGO, RUSTFMT, SERDE_TARGET, cargo, cargoHas } from './helpers/rust.js'
import { random } from './helpers/seeded-random.js'

const debianCrates = '/usr/share/cargo/registry'
const hasSerde = existsSync(debianCrates) && readdirSync(debianCrates).some((d) => /^serde_json-1\./.test(d))
const work = join(import.meta.dirname, '.tmp/probe-rust-shapes', String(process.pid))

const DOCUMENT = `asyncapi: 3.1.0
info: { title: Closed and recursive shapes (probe), version: 1.0.0 }
x-nats-contract:
  version: 0.2.0-draft
  contract: shapes
  deployment: { binding: test-local, minimumServerVersion: 2.11.0 }
  channels: { tree: {}, wrap: {}, maps: {} }
  operations:
    sendTree: { publish: { api: core, confirmation: none } }
    sendWrap: { publish: { api: core, confirmation: none } }
    sendMaps: { publish: { api: core, confirmation: none } }
channels:
  tree:
    address: shapes.tree
    messages: { tree: { payload: { $ref: '#/components/schemas/Node' } } }
  wrap:
    address: shapes.wrap
    messages: { wrap: { payload: { $ref: '#/components/schemas/Wrap' } } }
  maps:
    address: shapes.maps
    messages: { maps: { payload: { $ref: '#/components/schemas/Maps' } } }
operations:
  sendMaps: { action: send, channel: { $ref: '#/channels/maps' } }
  sendTree: { action: send, channel: { $ref: '#/channels/tree' } }
  sendWrap: { action: send, channel: { $ref: '#/channels/wrap' } }
components:
  schemas:
    Node:
      type: object
      additionalProperties: false
      required: [name]
      properties:
        name: { type: string }
        children: { type: array, items: { $ref: '#/components/schemas/Node' } }
        byKey: { type: object, additionalProperties: { $ref: '#/components/schemas/Node' } }
        next: { $ref: '#/components/schemas/Node' }
        leaf: { $ref: '#/components/schemas/Leaf' }
    Leaf:
      type: [object, 'null']
      additionalProperties: false
      required: [v]
      properties:
        v: { type: string, enum: [a, b] }
    SelfMap:
      type: object
      additionalProperties: { $ref: '#/components/schemas/SelfMap' }
    Maps:
      type: object
      additionalProperties: false
      required: [self, closed]
      properties:
        self: { $ref: '#/components/schemas/SelfMap' }
        closed: { type: object, additionalProperties: false }
        any: { type: object }
        counts: { type: [object, 'null'], additionalProperties: { type: integer } }
        named: { type: object, required: [k], additionalProperties: { type: string } }
    Wrap:
      type: object
      required: [items]
      properties:
        items: { type: array, items: { $ref: '#/components/schemas/Leaf' } }
        map: { type: object, additionalProperties: { $ref: '#/components/schemas/Node' } }
        inner: { $ref: '#/components/schemas/Node' }
`

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

function cases(count: number): Array<[string, string, string]> {
  const r = random(20261204)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!
  const leaf = (): Json => (r() < 0.2 ? null : { v: pick(['a', 'b']) })
  const node = (depth: number): Json => {
    const n: { [key: string]: Json } = { name: `n${Math.floor(r() * 100)}` }
    if (depth > 0 && r() < 0.5) n.children = Array.from({ length: Math.floor(r() * 3) }, () => node(depth - 1))
    if (depth > 0 && r() < 0.4) n.byKey = Object.fromEntries(Array.from({ length: Math.floor(r() * 3) }, (_, i) => [`k${i}`, node(depth - 1)]))
    if (depth > 0 && r() < 0.4) n.next = node(depth - 1)
    if (r() < 0.4) n.leaf = leaf()
    return n
  }
  const wrap = (): Json => {
    const w: { [key: string]: Json } = { items: Array.from({ length: Math.floor(r() * 3) }, leaf) }
    if (r() < 0.5) w.map = { m: node(2) }
    if (r() < 0.5) w.inner = node(2)
    if (r() < 0.3) w.open = { any: [1, 'x'] }
    return w
  }
  /** Every object in `value`, with where it is. */
  const objects = (value: Json, found: Array<{ [key: string]: Json }> = []): Array<{ [key: string]: Json }> => {
    if (Array.isArray(value)) value.forEach((v) => objects(v, found))
    else if (value !== null && typeof value === 'object') {
      found.push(value)
      Object.values(value).forEach((v) => objects(v, found))
    }
    return found
  }
  const mutations: Array<(o: { [key: string]: Json }) => void> = [
    (o) => void (o.extra = 'x'),
    (o) => void (o.Name = 'x'),
    (o) => void delete o.name,
    (o) => void delete o.v,
    (o) => void (o.name = 5),
    (o) => void (o.v = 'c'),
    (o) => void (o.next = null),
    (o) => void (o.children = {}),
    (o) => void (o.byKey = [{ name: 'x' }]),
    (o) => void (o.leaf = []),
    (o) => void (o.items = null),
    (o) => void (o.extra = null),
  ]
  const out: Array<[string, string, string]> = []
  for (let i = 0; i < count; i++) {
    const tree = r() < 0.6
    const value = tree ? node(3) : wrap()
    if (r() < 0.7) {
      const all = objects(value)
      if (all.length > 0) pick(mutations)(pick(all))
    }
    out.push(tree ? ['tree', 'Node', JSON.stringify(value)] : ['wrap', 'Wrap', JSON.stringify(value)])
  }
  return out
}

describe.skipIf(!CARGO || !hasSerde)('Rust closed and recursive shapes, against the validators', () => {
  it('the same verdicts as the TypeScript validators on 300 drawn payloads and maps of every kind, and what is accepted written back as sent', async () => {
    mkdirSync(work, { recursive: true })
    const document = join(work, 'shapes.asyncapi.yaml')
    writeFileSync(document, DOCUMENT)
    const result = await compile(document)
    expect(result.diagnostics).toEqual([])
    const mod = await loadModule(result.code!, 'probe-rust-shapes')
    /** Objects without properties: maps, an object as the validator requires, never an array or a string. */
    const maps: Array<[string, string, string]> = [
      '{"self":{},"closed":{}}',
      '{"self":{"a":{"b":{}}},"closed":{},"any":{"x":[1]},"counts":{"a":1,"b":2},"named":{"k":"v","o":"w"}}',
      '{"self":{},"closed":{},"counts":null}',
      '{"self":[],"closed":{}}',
      '{"self":{"a":[]},"closed":{}}',
      '{"self":{"a":{"b":1}},"closed":{}}',
      '{"self":{},"closed":{"a":1}}',
      '{"self":{},"closed":[]}',
      '{"self":{},"closed":{},"any":[]}',
      '{"self":{},"closed":{},"any":"x"}',
      '{"self":{},"closed":{},"counts":{"a":"1"}}',
      '{"self":{},"closed":{},"counts":{"a":1.5}}',
      '{"self":{},"closed":{},"counts":[1]}',
      '{"closed":{}}',
    ].map((text) => ['maps', 'Maps', text])
    const all = [...maps, ...cases(300)]
    const verdicts = all.map(([channel, , text]) => (mod[channel].validatePayload as (v: unknown) => boolean)(JSON.parse(text)))
    // The draw holds both verdicts for both payloads, or it tests nothing.
    for (const channel of ['tree', 'wrap', 'maps']) for (const ok of [true, false]) expect(all.some(([c], i) => c === channel && verdicts[i] === ok)).toBe(true)

    const model = { ...((await inspect(document)).data as NatsModel), file: document }
    const files = [...rustCrate([model], 'contracts', { serde: true })]
    files.push({ path: '.cargo/config.toml', text: `[source.crates-io]\nreplace-with = "debian"\n\n[source.debian]\ndirectory = "${debianCrates}"\n` })
    // One test reading every case and listing the ones where the crate disagrees (one build, one report).
    const lines = ['#[test]', 'fn verdicts() {', '    let mut wrong: Vec<String> = Vec::new();']
    all.forEach(([, type, text], i) => {
      const rust = `contracts::${model.contract.id}::payloads::${type}`
      lines.push(
        `    {`,
        `        let text = ${rustString(text)};`,
        `        match serde_json::from_str::<${rust}>(text) {`,
        `            Ok(typed) => {`,
        `                let sent: serde_json::Value = serde_json::from_str(text).unwrap();`,
        `                let back = serde_json::to_value(typed).unwrap();`,
        `                if !${verdicts[i]} { wrong.push(format!("${i} accepted: {}", text)); } else if back != sent { wrong.push(format!("${i} written back otherwise: {} -> {}", text, back)); }`,
        `            }`,
        `            Err(e) => if ${verdicts[i]} { wrong.push(format!("${i} refused ({}): {}", e, text)); },`,
        `        }`,
        `    }`,
      )
    })
    lines.push('    assert!(wrong.is_empty(), "{}", wrong.join("\\n"));', '}', '')
    files.push({ path: 'tests/shapes.rs', text: lines.join('\n') })
    files.push({ path: 'Cargo.toml', text: files.find((f) => f.path === 'Cargo.toml')!.text + '\n[dev-dependencies]\nserde_json = "1"\n' })
    const crate = join(work, 'crate')
    rmSync(crate, { recursive: true, force: true })
    for (const f of files.filter((f, i, list) => list.findLastIndex((g) => g.path === f.path) === i)) {
      const path = join(crate, ...f.path.split('/'))
      mkdirSync(join(path, '..'), { recursive: true })
      writeFileSync(path, f.text)
    }
    const run = cargo(['test', '--offline', '--quiet', '--features', 'serde', '--test', 'shapes'], crate, SERDE_TARGET)
    expect([run.status, run.output]).toEqual([0, expect.stringContaining('test result: ok. 1 passed')])
    if (RUSTFMT) {
      const fmt = spawnSync(RUSTFMT, ['--check', '--edition', '2021', join(crate, 'src/lib.rs')], { encoding: 'utf8' })
      expect([fmt.status, fmt.stdout + fmt.stderr]).toEqual([0, ''])
    }
    if (cargoHas('clippy')) {
      const clippy = cargo(['clippy', '--offline', '--quiet', '--features', 'serde', '--', '-D', 'warnings'], crate, SERDE_TARGET)
      expect([clippy.status, clippy.output]).toEqual([0, ''])
    }
  }, 600_000)
})
