/**
 * The Rust target's `--serde` payload types are as wide as the payload validators (issue 30):
 * draft-07 counts `1.0`, `1e2` and `-0.0` as integers, so an integer member, list item, nullable
 * member and whole payload deserialize from them (and write them back as the plain integer the
 * TypeScript side sends), while `1.5`, `1e400` and `"1"` are refused; a schema with `properties`,
 * `required` or `items` but no `type` accepts `5`, `"x"` and `null`, so its type does too; a closed
 * object with `patternProperties` admits the members the patterns name. Each value is run through
 * the generated TypeScript validator and through the crate built with cargo (offline, Debian's
 * serde crates), and the verdicts are compared; so are a channel's headers (`<Channel>Headers`,
 * from its message's headers schema) against its headers validator.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { compile, inspect } from '../src/index.js'
import type { NatsModel } from '../src/formats/nats/model.js'
import { rustCrate } from '../src/formats/nats/targets/rust/crate.js'
import { rustString } from '../src/formats/nats/targets/rust/names.js'
import { loadModule } from './helpers/load-module.js'
import { CARGO, RUSTFMT, SERDE_TARGET, cargo, cargoHas } from './helpers/rust.js'

const repo = join(import.meta.dirname, '..')
const document = join(repo, 'fixtures/nats/rust/payload-widths.asyncapi.yaml')
const work = join(import.meta.dirname, '.tmp', 'rust-serde-widths')
const target = SERDE_TARGET
const debianCrates = '/usr/share/cargo/registry'
const hasSerde = existsSync(debianCrates) && readdirSync(debianCrates).some((d) => /^serde_json-1\./.test(d))

/** [channel export, Rust payload type, JSON text as received, whether the Rust type must accept it]. */
const cases: ReadonlyArray<readonly [string, string, string, boolean]> = [
  // Integers as draft-07 counts them: any number with a zero fractional part.
  ['counted', 'CountedPayload', '{"count":1}', true],
  ['counted', 'CountedPayload', '{"count":1.0}', true],
  ['counted', 'CountedPayload', '{"count":1e2}', true],
  ['counted', 'CountedPayload', '{"count":-0.0}', true],
  ['counted', 'CountedPayload', '{"count":1.5}', false],
  ['counted', 'CountedPayload', '{"count":1e400}', false],
  ['counted', 'CountedPayload', '{"count":"1"}', false],
  ['counted', 'CountedPayload', '{"count":1,"counts":[1,2.0,3e0],"maybe":4.0}', true],
  ['counted', 'CountedPayload', '{"count":1,"maybe":null}', true],
  ['counted', 'CountedPayload', '{"count":1,"counts":[1.5]}', false],
  ['counted', 'CountedPayload', '{"count":1,"maybe":0.5}', false],
  ['tally', 'TallyPayload', '1', true],
  ['tally', 'TallyPayload', '1.0', true],
  ['tally', 'TallyPayload', '1e2', true],
  ['tally', 'TallyPayload', '-0.0', true],
  ['tally', 'TallyPayload', '1.5', false],
  ['tally', 'TallyPayload', '1e400', false],
  ['tally', 'TallyPayload', '"1"', false],
  // No `type`: every JSON type is accepted, whatever `properties`, `required` or `items` say.
  ['untyped', 'UntypedPayload', '5', true],
  ['untyped', 'UntypedPayload', '"x"', true],
  ['untyped', 'UntypedPayload', 'null', true],
  ['untyped', 'UntypedPayload', '{"name":"a"}', true],
  ['listish', 'ListishPayload', '5', true],
  ['listish', 'ListishPayload', '"x"', true],
  ['listish', 'ListishPayload', 'null', true],
  ['listish', 'ListishPayload', '["a"]', true],
  // `additionalProperties: false` beside `patternProperties`: a member a pattern names is allowed.
  ['patterned', 'PatternedPayload', '{"name":"a","x-trace":"b"}', true],
]

/**
 * [channel export, Rust headers type, the headers as the client's validator reads them (JSON), whether
 * the Rust type must accept them]: a closed headers schema with a required header.
 */
const headerCases: ReadonlyArray<readonly [string, string, string, boolean]> = [
  ['traced', 'TracedHeaders', '{"traceId":"a"}', true],
  ['traced', 'TracedHeaders', '{"traceId":"a","hop":"2"}', true],
  ['traced', 'TracedHeaders', '{}', false],
  ['traced', 'TracedHeaders', '{"hop":"2"}', false],
  ['traced', 'TracedHeaders', '{"traceId":"a","other":"b"}', false],
  ['traced', 'TracedHeaders', '{"TraceId":"a"}', false],
]

/** What the TypeScript side receives: JSON.parse, or undefined where JavaScript cannot read it as JSON. */
function parsed(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) }
  } catch {
    return undefined
  }
}

describe.skipIf(!CARGO || !hasSerde)('Rust payload types as wide as the validators', () => {
  it('integers written 1.0, 1e2, -0.0 and schemas with no type deserialize where the validator accepts them; 1.5, 1e400, "1" do not', async () => {
    const result = await compile(document)
    expect(result.diagnostics).toEqual([])
    const mod = await loadModule(result.code!, 'rust-serde-widths')
    // The validator's verdict first: the Rust verdict must be the same on every case here.
    const verdicts = cases.map(([channel, , text]) => {
      const value = parsed(text)
      return value !== undefined && (mod[channel].validatePayload as (v: unknown) => boolean)(value.value)
    })
    expect(cases.map(([c, , text], i) => [c, text, verdicts[i]])).toEqual(cases.map(([c, , text, ok]) => [c, text, ok]))
    const headerVerdicts = headerCases.map(([channel, , text]) => (mod[channel].validateHeaders as (v: unknown) => boolean)(JSON.parse(text)))
    expect(headerCases.map(([c, , text], i) => [c, text, headerVerdicts[i]])).toEqual(headerCases.map(([c, , text, ok]) => [c, text, ok]))

    const model = { ...((await inspect(document)).data as NatsModel), file: document }
    const files = [...rustCrate([model], 'contracts', { serde: true })]
    files.push({ path: '.cargo/config.toml', text: `[source.crates-io]\nreplace-with = "debian"\n\n[source.debian]\ndirectory = "${debianCrates}"\n` })
    const test = ['//! Payloads as received, through the serde types: accepted ones are written back as the TypeScript side writes them.', '']
    cases.forEach(([, type, text, ok], i) => {
      const rust = `contracts::widths::payloads::${type}`
      test.push('#[test]', `fn case_${i}() {`)
      if (ok) {
        // JSON.stringify of what JSON.parse read: `1e2` is sent as `100`, `-0.0` as `0`.
        const sent = JSON.stringify(parsed(text)!.value)
        test.push(
          `    let typed: ${rust} = serde_json::from_str(${rustString(text)}).unwrap();`,
          `    let sent: serde_json::Value = serde_json::from_str(${rustString(sent)}).unwrap();`,
          '    assert_eq!(serde_json::to_value(typed).unwrap(), sent);',
        )
      } else test.push(`    assert!(serde_json::from_str::<${rust}>(${rustString(text)}).is_err());`)
      test.push('}', '')
    })
    headerCases.forEach(([, type, text, ok], i) => {
      const rust = `contracts::widths::payloads::${type}`
      test.push('#[test]', `fn headers_${i}() {`)
      if (ok)
        test.push(
          `    let typed: ${rust} = serde_json::from_str(${rustString(text)}).unwrap();`,
          `    let sent: serde_json::Value = serde_json::from_str(${rustString(text)}).unwrap();`,
          '    assert_eq!(serde_json::to_value(typed).unwrap(), sent);',
        )
      else test.push(`    assert!(serde_json::from_str::<${rust}>(${rustString(text)}).is_err());`)
      test.push('}', '')
    })
    // Past i64 an integer is refused, never wrapped or rounded (the one place the type is narrower than draft-07).
    test.push(
      '#[test]',
      'fn past_i64_refused() {',
      '    assert!(serde_json::from_str::<contracts::widths::payloads::TallyPayload>("9223372036854775808").is_err());',
      '    assert!(serde_json::from_str::<contracts::widths::payloads::TallyPayload>("9.3e18").is_err());',
      // Below i64::MIN serde_json reads the nearest double, -2^63, which is i64::MIN: refused, not rounded (an outside pass).
      '    assert!(serde_json::from_str::<contracts::widths::payloads::TallyPayload>("-9223372036854775809").is_err());',
      '    assert!(serde_json::from_str::<contracts::widths::payloads::TallyPayload>("-9223372036854775999").is_err());',
      '    assert!(serde_json::from_str::<contracts::widths::payloads::TallyPayload>("-9.3e18").is_err());',
      '    assert_eq!(serde_json::from_str::<contracts::widths::payloads::TallyPayload>("-9223372036854775808").unwrap(), i64::MIN);',
      '    assert_eq!(serde_json::from_str::<contracts::widths::payloads::TallyPayload>("9223372036854775807").unwrap(), i64::MAX);',
      '}',
      '',
    )
    files.push({ path: 'tests/widths.rs', text: test.join('\n') })
    files.push({ path: 'Cargo.toml', text: files.find((f) => f.path === 'Cargo.toml')!.text + '\n[dev-dependencies]\nserde_json = "1"\n' })
    rmSync(work, { recursive: true, force: true })
    for (const f of files.filter((f, i, list) => list.findLastIndex((g) => g.path === f.path) === i)) {
      const path = join(work, ...f.path.split('/'))
      mkdirSync(join(path, '..'), { recursive: true })
      writeFileSync(path, f.text)
    }
    // The widths test target only: no unit tests or doctests to build (see rust-target.test.ts).
    const run = cargo(['test', '--offline', '--quiet', '--features', 'serde', '--test', 'widths'], work, target)
    expect([run.status, run.output]).toEqual([0, expect.stringContaining(`test result: ok. ${cases.length + headerCases.length + 1} passed`)])
    if (RUSTFMT) {
      const fmt = spawnSync(RUSTFMT, ['--check', '--edition', '2021', join(work, 'src/lib.rs')], { encoding: 'utf8' })
      expect([fmt.status, fmt.stdout + fmt.stderr]).toEqual([0, ''])
    }
    if (cargoHas('clippy')) {
      const clippy = cargo(['clippy', '--offline', '--quiet', '--features', 'serde', '--', '-D', 'warnings'], work, target)
      expect([clippy.status, clippy.output]).toEqual([0, ''])
    }
  }, 300_000)
})
