/**
 * The Rust target's `--serde` payload types against the payload validators on random schemas and
 * random payloads: schemas drawn from the keywords a serde type says exactly (the JSON types, string
 * enums, nullable pairs, lists, objects with required members and closed or open, `$ref`s to
 * components that may refer to each other, schemas with no type), payloads shaped after them and
 * mutated (additionalProperties true, {}, false, false beside empty patternProperties). Every payload goes through the generated TypeScript validator and through a small binary
 * built on the generated crate (cargo, offline, Debian's serde crates, fed over stdin): the same
 * verdict on each, and what the crate accepts it writes back as the JSON it read. Integers stay
 * inside 2^53 (past i64 the crate refuses, the one documented limit).
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { isDeepStrictEqual } from 'node:util'
import { describe, expect, it } from 'vitest'
import { compile, inspect } from '../src/index.js'
import type { NatsModel } from '../src/formats/nats/model.js'
import { rustCrate } from '../src/formats/nats/targets/rust/crate.js'
import { loadModule } from './helpers/load-module.js'
import { CARGO, SERDE_TARGET, cargo } from './helpers/rust.js'
import { random } from './helpers/seeded-random.js'

const work = join(import.meta.dirname, '.tmp', 'probe-rust-differential')
const debianCrates = '/usr/share/cargo/registry'
const hasSerde = existsSync(debianCrates) && readdirSync(debianCrates).some((d) => /^serde_json-1\./.test(d))
const CHANNELS = 40
const COMPONENTS = 4
const VALUES = 40
const seed = Number(process.env.PROBE_SEED ?? 4)

type Schema = Record<string, unknown> | true
const KEYS = ['a', 'b', 'type', 'extra', 'a-b', 'a_b', 'Self', '0']
const ref = fc.integer({ min: 0, max: COMPONENTS - 1 }).map((i): Schema => ({ $ref: `#/components/schemas/C${i}` }))
const leaf = fc.constantFrom<Schema | true>(
  { type: 'string' },
  { type: 'integer' },
  { type: 'number' },
  { type: 'boolean' },
  { type: 'null' },
  {},
  { description: 'no type' },
  { type: 'string', enum: ['x', 'y'] },
  { enum: ['x', 'Self', 'a-b', 'a_b'] },
  { type: ['string', 'null'] },
  { type: ['integer', 'null'] },
  { type: ['null', 'boolean'] },
  { type: ['string'] },
  { type: 'array', items: true },
  true,
)
const { schema } = fc.letrec<{ schema: Schema }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    ref,
    fc.record({ type: fc.constantFrom('array', ['array', 'null']), items: tie('schema') }),
    fc
      .record({
        type: fc.constantFrom('object', ['object', 'null']),
        properties: fc.dictionary(fc.constantFrom(...KEYS), tie('schema'), { minKeys: 1, maxKeys: 3 }),
        required: fc.subarray(KEYS, { maxLength: 3 }),
        closed: fc.constantFrom<Record<string, unknown>>(
          {},
          { additionalProperties: false },
          { additionalProperties: false, patternProperties: {} },
          { additionalProperties: true },
          { additionalProperties: {} },
        ),
      })
      .map(({ closed, ...s }) => ({ ...s, ...closed })),
  ),
}))

/** A value shaped after `s` (members, items, enum values), with a wrong turn now and then. */
function sample(s: unknown, components: Record<string, Schema>, r: () => number, depth = 0): unknown {
  const any = [null, true, 0, 1, -1, 1.5, 2.0, 1e3, 9007199254740991, '', 'x', 'Self', [], {}, [null], { a: null }]
  const pick = <T>(list: readonly T[]): T => list[Math.floor(r() * list.length)]!
  if (r() < 0.12 || depth > 6 || typeof s !== 'object' || s === null) return pick(any)
  const schema = s as Record<string, unknown>
  if (typeof schema.$ref === 'string') return sample(components[schema.$ref.split('/').pop()!], components, r, depth + 1)
  if (Array.isArray(schema.enum)) return r() < 0.8 ? pick(schema.enum) : pick(any)
  const types = schema.type === undefined ? [] : ([] as string[]).concat(schema.type as string)
  const type = types.length > 0 ? pick(types) : pick(['string', 'object', 'array', 'integer', 'null'])
  switch (type) {
    case 'string':
      return pick(['', 'x', 'y', 'a b', 'é'])
    case 'integer':
      return pick([0, 1, -7, 2.0, 1e3, 4294967296])
    case 'number':
      return pick([0, 1.5, -0.25, 1e21, 3])
    case 'boolean':
      return r() < 0.5
    case 'null':
      return null
    case 'array':
      return Array.from({ length: Math.floor(r() * 3) }, () => sample(schema.items, components, r, depth + 1))
    default: {
      const out: Record<string, unknown> = {}
      const properties = (schema.properties ?? {}) as Record<string, unknown>
      const required = (schema.required ?? []) as string[]
      for (const key of new Set([...Object.keys(properties), ...required]))
        if (required.includes(key) ? r() < 0.9 : r() < 0.5) out[key] = sample(properties[key], components, r, depth + 1)
      if (r() < 0.15) out[pick(['z', 'extra', ...KEYS])] = pick(any)
      return out
    }
  }
}

/** The document: channel `cN` carries schema N; components C0..C3 may refer to each other. A payload or component is an object (`true` is `{}` there). */
function document(drawnChannels: Schema[], drawnComponents: Schema[]): string {
  const channels = drawnChannels.map((s) => (s === true ? {} : s))
  const components = drawnComponents.map((s) => (s === true ? {} : s))
  const names = channels.map((_, i) => `c${i}`)
  return JSON.stringify({
    asyncapi: '3.1.0',
    info: { title: 'Random payloads (Rust differential)', version: '1.0.0' },
    'x-nats-contract': {
      version: '0.2.0-draft',
      contract: 'random',
      deployment: { binding: 'test-local', minimumServerVersion: '2.11.0' },
      channels: Object.fromEntries(names.map((n) => [n, {}])),
      operations: Object.fromEntries(names.map((n) => [`send${n}`, { publish: { api: 'core', confirmation: 'none' } }])),
    },
    channels: Object.fromEntries(names.map((n, i) => [n, { address: `random.${n}`, messages: { [n]: { payload: channels[i] } } }])),
    operations: Object.fromEntries(names.map((n) => [`send${n}`, { action: 'send', channel: { $ref: `#/channels/${n}` } }])),
    components: { schemas: Object.fromEntries(components.map((c, i) => [`C${i}`, c])) },
  })
}

/** The binary: `<channel index> <json>` per line; `ok <json written back>` or `err` per line. */
function binary(count: number): string {
  const arms = Array.from({ length: count }, (_, i) => `            "${i}" => run::<P::C${i}Payload>(json),`).join('\n')
  return `use contracts::random::payloads as P;
use std::io::BufRead;

fn run<T: serde::de::DeserializeOwned + serde::Serialize>(json: &str) -> String {
    match serde_json::from_str::<T>(json) {
        Ok(value) => format!("ok {}", serde_json::to_string(&value).unwrap()),
        Err(_) => "err".to_string(),
    }
}

fn main() {
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let line = line.unwrap();
        let (index, json) = line.split_once(' ').unwrap();
        let answer = match index {
${arms}
            _ => "unknown".to_string(),
        };
        println!("{}", answer);
    }
}
`
}

describe.skipIf(!CARGO || !hasSerde)('Rust payload types against the validators on random schemas', () => {
  it('the same verdict on every payload, and accepted payloads written back as read', async () => {
    const [[channels, components]] = fc.sample(
      fc.tuple(fc.array(schema, { minLength: CHANNELS, maxLength: CHANNELS }), fc.array(schema, { minLength: COMPONENTS, maxLength: COMPONENTS })),
      {
        numRuns: 1,
        seed,
      },
    )
    rmSync(work, { recursive: true, force: true })
    mkdirSync(work, { recursive: true })
    const file = join(work, 'random.asyncapi.yaml')
    writeFileSync(file, document(channels!, components!))
    const result = await compile(file)
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
    const mod = await loadModule(result.code!, 'probe-rust-differential')
    const r = random(seed)
    const named = Object.fromEntries(components!.map((c, i) => [`C${i}`, c]))
    const requests: Array<{ channel: number; text: string; accepted: boolean }> = []
    channels!.forEach((s, channel) => {
      const texts = new Set<string>()
      for (let i = 0; i < VALUES; i++) texts.add(JSON.stringify(sample(s, named, r)))
      for (const text of texts) requests.push({ channel, text, accepted: (mod[`c${channel}`].validatePayload as (v: unknown) => boolean)(JSON.parse(text)) })
    })

    const model = { ...((await inspect(file)).data as NatsModel), file }
    const crate = join(work, 'crate')
    const files = [...rustCrate([model], 'contracts', { serde: true })]
    files.push({ path: '.cargo/config.toml', text: `[source.crates-io]\nreplace-with = "debian"\n\n[source.debian]\ndirectory = "${debianCrates}"\n` })
    files.push({ path: 'src/bin/probe.rs', text: binary(channels!.length) })
    for (const f of files) {
      const path = join(crate, ...f.path.split('/'))
      mkdirSync(join(path, '..'), { recursive: true })
      writeFileSync(path, f.text)
    }
    const build = cargo(['build', '--offline', '--quiet', '--features', 'serde', '--bin', 'probe'], crate, SERDE_TARGET)
    expect([build.status, build.output]).toEqual([0, ''])
    const run = spawnSync(join(SERDE_TARGET, 'debug', 'probe'), {
      input: requests.map((q) => `${q.channel} ${q.text}`).join('\n') + '\n',
      encoding: 'utf8',
      timeout: 60_000,
    })
    const answers = run.stdout.trimEnd().split('\n')
    expect(answers.length).toBe(requests.length)
    const differences = requests.flatMap((q, i) => {
      const answer = answers[i]!
      const rust = answer.startsWith('ok ')
      const back = rust ? JSON.parse(answer.slice(3)) : undefined
      if (rust !== q.accepted || (rust && !isDeepStrictEqual(back, JSON.parse(q.text))))
        return [{ schema: channels![q.channel], payload: q.text, validator: q.accepted, rust: answer }]
      return []
    })
    expect(differences.slice(0, 10), `${differences.length} of ${requests.length} differ; components ${JSON.stringify(components)}`).toEqual([])
  }, 600_000)
})
