/**
 * Differential: random subjects and parameter values over small domains, rendered, parsed and
 * matched by the TypeScript runtime and by the generated Rust crate (a small binary fed over
 * stdin, one request per line), agree on every case.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compile, inspect } from '../src/index.js'
import type { NatsModel } from '../src/formats/nats/model.js'
import { rustCrate } from '../src/formats/nats/targets/rust/crate.js'
import { rustModuleNames } from '../src/formats/nats/targets/rust/generate.js'
import { loadModule } from './helpers/load-module.js'
import { CARGO, cargo } from './helpers/rust.js'

const repo = join(import.meta.dirname, '..')
const document = join(repo, 'conformance/nats/subjects.asyncapi.json')
const work = join(import.meta.dirname, '.tmp', 'rust-differential')
const target = join(import.meta.dirname, '.tmp', 'rust-target-build')
const runs = Number(process.env.PROPERTY_RUNS ?? 200) * 15

/** The binary: `parse|render|match <channel module>[/<filter module>] <argument>` per line; one answer per line. */
function binary(model: NatsModel): string {
  const names = rustModuleNames(model)
  const arms: string[] = []
  for (const c of model.channels) {
    const m = names.get(c.id)!
    if (c.address === undefined) continue
    arms.push(
      `        ("parse", ${JSON.stringify(m.module)}) => match contracts::vectors::${m.module}::parse(arg) {`,
      `            Ok(p) => pairs_of(&[${Object.keys(c.parameters)
        .sort()
        .map((k) => JSON.stringify(k))
        .join(', ')}], |k| p.get(k)),`,
      '            Err(_) => "NONE".to_string(),',
      '        },',
      `        ("render", ${JSON.stringify(m.module)}) => match contracts::vectors::${m.module}::Params::from_pairs(&split_pairs(arg)).and_then(|p| p.render()) {`,
      '            Ok(s) => s,',
      '            Err(_) => "ERR".to_string(),',
      '        },',
    )
    for (const [fname, fm] of m.filters) {
      void fname
      arms.push(`        ("match", ${JSON.stringify(`${m.module}/${fm}`)}) => contracts::vectors::${m.module}::filters::${fm}::matches(arg).to_string(),`)
    }
  }
  return `use std::io::{self, BufRead, Write};

fn split_pairs(arg: &str) -> Vec<(&str, &str)> {
    if arg.is_empty() {
        return Vec::new();
    }
    arg.split('\\u{1}').filter_map(|kv| kv.split_once('\\u{2}')).collect()
}

fn pairs_of<'a>(keys: &[&str], get: impl Fn(&str) -> Option<&'a str>) -> String {
    keys.iter().map(|k| format!("{}={}", k, get(k).unwrap_or("?"))).collect::<Vec<_>>().join(";")
}

fn main() {
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line.unwrap();
        let mut parts = line.splitn(3, '\\t');
        let op = parts.next().unwrap_or("");
        let target = parts.next().unwrap_or("");
        let arg = parts.next().unwrap_or("");
        let answer = match (op, target) {
${arms.join('\n')}
            _ => "UNKNOWN".to_string(),
        };
        writeln!(out, "{}", answer.replace('\\n', "\\\\n")).unwrap();
    }
}
`
}

describe.skipIf(!CARGO)('the TypeScript runtime and the Rust target agree', () => {
  it('on random subjects and parameter values (render, parse, filter matches)', async () => {
    const data = (await inspect(document)).data as NatsModel
    const model = { ...data, file: document }
    rmSync(work, { recursive: true, force: true })
    for (const f of rustCrate([model], 'contracts')) {
      mkdirSync(join(work, f.path, '..'), { recursive: true })
      writeFileSync(join(work, ...f.path.split('/')), f.text)
    }
    mkdirSync(join(work, 'src/bin'), { recursive: true })
    writeFileSync(join(work, 'src/bin/differential.rs'), binary(model))
    const build = cargo(['build', '--offline', '--quiet', '--bin', 'differential'], work, target)
    expect([build.status, build.output]).toEqual([0, ''])
    const mod = await loadModule((await compile(document)).code!, 'differential')
    const names = rustModuleNames(model)

    // Small domains: characters of every class and the subject syntax, and the contract's own literals.
    const char = fc.constantFrom('a', 'b', 'f', 'z', '0', '7', 'E', 'U', '-', '_', '.', '*', '>', 'Ω', ' ')
    const token = fc.oneof(
      fc.constantFrom('eu', 'us', 'ap-south', 'ord-', 'ord-abcdef', 'shop', 'placed', 'kw', 'svc', 'health', 'beef'),
      fc.string({ unit: char, maxLength: 14 }),
    )
    const anySubject = fc.array(token, { minLength: 0, maxLength: 6 }).map((t) => t.join('.'))
    /** Subjects near a template: literals mostly kept, placeholders mostly valid values, wildcards anything (the empty token too), sometimes a token more or less. */
    // Values in each domain and just outside it (a digit after the prefix, one byte too many or too few, case).
    const valid = fc.constantFrom(
      'eu',
      'us',
      'ap-south',
      'ord-abcdef',
      'ord-abcdefgh',
      'beef',
      'A_b-9',
      'ord-0bcdef',
      'ord-',
      'Ord-abcdef',
      'ord-abcdefghi',
      'bee',
      'beeff',
      'BEEF',
      'EU',
      'ap',
    )
    const part = (t: string) =>
      t === '>'
        ? fc.array(fc.oneof(token, fc.constant('')), { minLength: 0, maxLength: 3 })
        : t === '*'
          ? fc.oneof(fc.constant(''), token, valid).map((x) => [x])
          : t.startsWith('{')
            ? fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: token }).map((x) => [x])
            : fc.oneof({ weight: 6, arbitrary: fc.constant(t) }, { weight: 1, arbitrary: token }).map((x) => [x])
    const near = (template: string) =>
      fc.tuple(fc.tuple(...template.split('.').map(part)), fc.constantFrom('same', 'same', 'more', 'less'), token).map(([parts, change, extra]) => {
        const tokens = (parts as string[][]).flat()
        if (change === 'more') tokens.push(extra)
        if (change === 'less') tokens.pop()
        return tokens.join('.')
      })
    const channels = model.channels.filter((c) => c.address !== undefined)
    const subjectFor = (c: (typeof channels)[number], filter?: string) =>
      fc.oneof(anySubject, near(c.address!), ...(filter ? [near(c.filters.find((f) => f.name === filter)!.template)] : []))
    const request = fc.oneof(
      fc.constantFrom(...channels).chain((c) => subjectFor(c).map((s) => ({ op: 'parse' as const, c, arg: s }))),
      fc
        .tuple(
          fc.constantFrom(...channels),
          fc.array(fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: token }), { minLength: 3, maxLength: 3 }),
        )
        .map(([c, values]) => ({
          op: 'render' as const,
          c,
          arg: Object.fromEntries(
            Object.keys(c.parameters)
              .sort()
              .map((k, i) => [k, values[i]!]),
          ),
        })),
      fc.tuple(fc.constantFrom(...channels.filter((c) => c.filters.length > 0)), fc.nat()).chain(([c, i]) => {
        const filter = c.filters[i % c.filters.length]!.name
        return subjectFor(c, filter).map((s) => ({ op: 'match' as const, c, filter, arg: s }))
      }),
    )
    const cases = fc.sample(request, { numRuns: runs, seed: Number(process.env.DIFFERENTIAL_SEED ?? 17) })
    const lines: string[] = []
    const expected: string[] = []
    for (const r of cases) {
      const m = names.get(r.c.id)!
      const channel = mod.channels[r.c.id]
      if (r.op === 'parse') {
        lines.push(`parse\t${m.module}\t${r.arg}`)
        const p = channel.subject.tryParse(r.arg)
        expected.push(
          p
            ? Object.keys(r.c.parameters)
                .sort()
                .map((k) => `${k}=${p[k]}`)
                .join(';')
            : 'NONE',
        )
      } else if (r.op === 'render') {
        const arg = r.arg as Record<string, string>
        lines.push(
          `render\t${m.module}\t${Object.entries(arg)
            .map(([k, v]) => `${k}\u0002${v}`)
            .join('\u0001')}`,
        )
        let out: string
        try {
          out = channel.subject.render(arg)
        } catch {
          out = 'ERR'
        }
        expected.push(out)
      } else {
        lines.push(`match\t${m.module}/${m.filters.get(r.filter)!}\t${r.arg}`)
        expected.push(String(channel.filters[r.filter].matches(r.arg)))
      }
    }
    // Tabs and newlines are not in the domains, so one request per line is unambiguous.
    const run = spawnSync(join(target, 'debug', 'differential'), { input: lines.join('\n') + '\n', encoding: 'utf8' })
    expect(run.status).toBe(0)
    const got = run.stdout.split('\n').slice(0, -1)
    const disagreements = lines.map((l, i) => [l, expected[i], got[i]]).filter(([, e, g]) => e !== g)
    expect(disagreements).toEqual([])
    // Both verdicts were exercised.
    expect(expected.filter((e) => e === 'NONE' || e === 'ERR' || e === 'false').length).toBeGreaterThan(runs / 10)
    expect(expected.filter((e) => e !== 'NONE' && e !== 'ERR' && e !== 'false').length).toBeGreaterThan(runs / 20)
  }, 300_000)
})
