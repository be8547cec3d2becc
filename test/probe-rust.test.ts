/**
 * The Rust target's `--serde` payload types, probed from outside against the payload validators at
 * the edges of what a serde type says: a required
 * member that may be `null` must be present (serde reads an absent `Option` as `None`), and so must a
 * required member the properties do not describe (`extra` would take an object without it), which a
 * closed object can never hold; a closed object is read from an object only (serde reads a plain
 * struct from a JSON array too, by position); an optional
 * member is `null` only where its schema allows it, and a `null` it allows is written back (serde
 * alone reads a present `null` as absent); `type: null` is `null` only; a component that contains
 * itself through a list builds (a type alias cannot name itself, E0391); a component that refers to
 * itself through `$ref`s alone builds and, like its validator, accepts nothing. Each value goes
 * through the generated TypeScript validator and through the crate (cargo, offline, Debian's serde
 * crates); the verdicts must be the same, and what the crate accepts it writes back as sent.
 * Documents: fixtures/nats/rust/payload-nulls.asyncapi.yaml, payload-recursion.asyncapi.yaml.
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

const repo = join(import.meta.dirname, '..')
const debianCrates = '/usr/share/cargo/registry'
const hasSerde = existsSync(debianCrates) && readdirSync(debianCrates).some((d) => /^serde_json-1\./.test(d))

/** [channel export, Rust payload type, JSON text, the validator's verdict]. */
type Case = readonly [string, string, string, boolean]

/**
 * Runs every case through the generated validator (its verdict must be the one written) and through
 * the crate generated from `name`.asyncapi.yaml (cargo test, offline): the same verdict, and what is
 * accepted written back as sent. Then rustfmt and clippy, as the Rust target promises.
 */
async function differential(name: string, cases: readonly Case[]): Promise<void> {
  const document = join(repo, `fixtures/nats/rust/${name}.asyncapi.yaml`)
  const work = join(import.meta.dirname, '.tmp', 'probe-rust', name)
  const result = await compile(document)
  // Components that name themselves through $ref alone are warned about (JSON Schema: SHOULD NOT), and still built.
  expect(result.diagnostics.filter((d) => d.code !== 'NATS_SCHEMA_CYCLE' || d.severity !== 'warning')).toEqual([])
  const mod = await loadModule(result.code!, `probe-rust-${name}`)
  const verdicts = cases.map(([channel, , text]) => (mod[channel].validatePayload as (v: unknown) => boolean)(JSON.parse(text)))
  expect(cases.map(([c, , text], i) => [c, text, verdicts[i]])).toEqual(cases.map(([c, , text, ok]) => [c, text, ok]))

  const model = { ...((await inspect(document)).data as NatsModel), file: document }
  const files = [...rustCrate([model], 'contracts', { serde: true })]
  files.push({ path: '.cargo/config.toml', text: `[source.crates-io]\nreplace-with = "debian"\n\n[source.debian]\ndirectory = "${debianCrates}"\n` })
  const test = ['//! Payloads through the serde types: what the validator accepts is read and written back as sent, the rest refused.', '']
  cases.forEach(([, type, text, ok], i) => {
    const rust = `contracts::${model.contract.id}::payloads::${type}`
    test.push('#[test]', `fn case_${i}() {`)
    if (ok)
      test.push(
        `    let typed: ${rust} = serde_json::from_str(${rustString(text)}).unwrap();`,
        `    let sent: serde_json::Value = serde_json::from_str(${rustString(text)}).unwrap();`,
        '    assert_eq!(serde_json::to_value(typed).unwrap(), sent);',
      )
    else test.push(`    assert!(serde_json::from_str::<${rust}>(${rustString(text)}).is_err());`)
    test.push('}', '')
  })
  files.push({ path: 'tests/edges.rs', text: test.join('\n') })
  files.push({ path: 'Cargo.toml', text: files.find((f) => f.path === 'Cargo.toml')!.text + '\n[dev-dependencies]\nserde_json = "1"\n' })
  rmSync(work, { recursive: true, force: true })
  for (const f of files.filter((f, i, list) => list.findLastIndex((g) => g.path === f.path) === i)) {
    const path = join(work, ...f.path.split('/'))
    mkdirSync(join(path, '..'), { recursive: true })
    writeFileSync(path, f.text)
  }
  const run = cargo(['test', '--offline', '--quiet', '--features', 'serde', '--test', 'edges'], work, SERDE_TARGET)
  expect([run.status, run.output]).toEqual([0, expect.stringContaining(`test result: ok. ${cases.length} passed`)])
  if (RUSTFMT) {
    const fmt = spawnSync(RUSTFMT, ['--check', '--edition', '2021', join(work, 'src/lib.rs')], { encoding: 'utf8' })
    expect([fmt.status, fmt.stdout + fmt.stderr]).toEqual([0, ''])
  }
  if (cargoHas('clippy')) {
    const clippy = cargo(['clippy', '--offline', '--quiet', '--features', 'serde', '--', '-D', 'warnings'], work, SERDE_TARGET)
    expect([clippy.status, clippy.output]).toEqual([0, ''])
  }
}

describe.skipIf(!CARGO || !hasSerde)('Rust payload types at the edges, against the validators', () => {
  it('null and absence: a required member must be present (nullable, or not among the properties), an optional one is null only where its schema allows, and that null is kept; a closed object is never an array', async () => {
    await differential('payload-nulls', [
      // Required and nullable (written out, and through an alias): present, `null` or not.
      ['required', 'RequiredPayload', '{"nullable":null,"aliased":null}', true],
      ['required', 'RequiredPayload', '{"nullable":"a","aliased":"b"}', true],
      ['required', 'RequiredPayload', '{"aliased":null}', false],
      ['required', 'RequiredPayload', '{"nullable":null}', false],
      ['required', 'RequiredPayload', '{}', false],
      // Optional: absent, present, `null` where the schema refuses or allows it.
      ['optional', 'OptionalPayload', '{}', true],
      ['optional', 'OptionalPayload', '{"text":"a"}', true],
      ['optional', 'OptionalPayload', '{"text":null}', false],
      ['optional', 'OptionalPayload', '{"anything":null}', true],
      ['optional', 'OptionalPayload', '{"anything":[1,"x",null]}', true],
      ['optional', 'OptionalPayload', '{"nothing":null}', true],
      ['optional', 'OptionalPayload', '{"nothing":0}', false],
      ['optional', 'OptionalPayload', '{"nothing":"null"}', false],
      ['optional', 'OptionalPayload', '{"nullable":null}', true],
      // Required but not among the properties: present (any value) or refused.
      ['undescribed', 'UndescribedPayload', '{"id":"a","tag":null}', true],
      ['undescribed', 'UndescribedPayload', '{"id":"a","tag":[1,{"x":2}]}', true],
      ['undescribed', 'UndescribedPayload', '{"id":"a","tag":1,"more":true}', true],
      ['undescribed', 'UndescribedPayload', '{"id":"a"}', false],
      ['undescribed', 'UndescribedPayload', '{"tag":1}', false],
      // Closed: an object with no other member; never an array (serde reads a plain struct from one, by position).
      ['closed', 'ClosedPayload', '{}', true],
      ['closed', 'ClosedPayload', '{"a":null}', true],
      ['closed', 'ClosedPayload', '{"a":"x","b":1}', false],
      ['closed', 'ClosedPayload', '[]', false],
      ['closed', 'ClosedPayload', '[null]', false],
      ['closed', 'ClosedPayload', '["x"]', false],
      // Closed and requiring a member it does not describe: no object is valid.
      ['sealed', 'SealedPayload', '{"id":"a"}', false],
      ['sealed', 'SealedPayload', '{"id":"a","tag":1}', false],
      ['sealed', 'SealedPayload', '["a",1]', false],
    ])
  }, 300_000)

  it('components that contain themselves through a list build; ones that name themselves through $ref alone build and, like their validators, accept nothing', async () => {
    await differential('payload-recursion', [
      ['nested', 'NestedPayload', '[]', true],
      ['nested', 'NestedPayload', '[[[]],[]]', true],
      ['nested', 'NestedPayload', '[[1]]', false],
      ['nested', 'NestedPayload', 'null', false],
      ['maybe', 'MaybePayload', 'null', true],
      ['maybe', 'MaybePayload', '[[null],[]]', true],
      ['maybe', 'MaybePayload', '[1]', false],
      ['pingpong', 'PingpongPayload', '1', false],
      ['pingpong', 'PingpongPayload', 'null', false],
      ['pingpong', 'PingpongPayload', '{}', false],
      ['selfref', 'SelfrefPayload', '"x"', false],
      ['selfref', 'SelfrefPayload', '[]', false],
      // A required member whose type is such a newtype around an `Option`: present, `null` or not.
      ['holder', 'HolderPayload', '{"maybe":null}', true],
      ['holder', 'HolderPayload', '{"maybe":[[]]}', true],
      ['holder', 'HolderPayload', '{}', false],
    ])
  }, 300_000)
})
