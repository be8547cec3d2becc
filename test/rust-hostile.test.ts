/**
 * The Rust target against contracts written to attack it (issue 29): descriptions that would run a
 * script in the `cargo doc` page, compile as doctests or be refused by rustc (U+202E, a bare CR),
 * and names that shadow the prelude, std or the crate's own items or collide when joined (token
 * types `result`, `option`, `string`; a channel `payloads` with `--serde`; member `b` of `A` beside a
 * component `AB`). The crate is built with cargo (clippy and rustfmt too), its documentation opened
 * in real Chromium; the name map and the doc text are also checked as properties.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import fc from 'fast-check'
import type { Browser } from 'playwright-core'
import { parse } from 'yaml'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inspect } from '../src/index.js'
import type { NatsModel } from '../src/formats/nats/model.js'
import { crateName, rustCrate } from '../src/formats/nats/targets/rust/crate.js'
import { docLines } from '../src/formats/nats/targets/rust/doc.js'
import { rustLayout, rustModuleNames } from '../src/formats/nats/targets/rust/generate.js'
import { Names, PRELUDE_NAMES, type Style } from '../src/formats/nats/targets/rust/names.js'
import { CHROMIUM, launchChromium, serveStatic } from './helpers/chromium.js'
import { CARGO, RUSTFMT, SERDE_TARGET, cargo, cargoHas } from './helpers/rust.js'

const repo = join(import.meta.dirname, '..')
const fixtures = join(repo, 'fixtures/hostile/rust')
const work = join(import.meta.dirname, '.tmp', 'rust-hostile')
/** The serde crates are built once for the Rust tests (SERDE_TARGET); the docs land in its `doc` folder. */
const target = SERDE_TARGET
const runs = Number(process.env.PROPERTY_RUNS ?? 200)

// An oracle of its own (not the generator's lists): Rust 2021/2024 keywords, and rustc's case lints.
const KEYWORDS = new Set(
  'as break const continue crate else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while async await dyn abstract become box do final macro override priv typeof unsized virtual yield try union gen'.split(
    ' ',
  ),
)
const NOT_RAW = new Set(['crate', 'self', 'Self', 'super', '_'])

/** A Rust identifier rustc accepts: ASCII, not a keyword unless raw, and raw only where Rust allows it. */
function validIdentifier(id: string): boolean {
  const raw = id.startsWith('r#')
  const name = raw ? id.slice(2) : id
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || name === '_') return false
  return raw ? !NOT_RAW.has(name) : !KEYWORDS.has(name)
}

/** rustc's `non_snake_case`, `non_camel_case_types`, `non_upper_case_globals`; clippy's `just_underscores_and_digits` and no leading `_`. */
function lintClean(id: string, style: Style): boolean {
  const name = id.replace(/^r#/, '')
  if (name.startsWith('_')) return false
  const trimmed = name.replace(/^_+|_+$/g, '')
  if (style === 'snake') return !/[A-Z]/.test(trimmed) && !trimmed.includes('__')
  if (style === 'screaming') return !/[a-z]/.test(trimmed)
  const cased = (c: string | undefined) => c !== undefined && /[A-Za-z]/.test(c)
  return !/^[a-z]/.test(trimmed) && !trimmed.includes('__') && ![...trimmed].some((c, i, all) => c === '_' && (cased(all[i - 1]) || cased(all[i + 1])))
}

/** Names that collide once sanitized: keywords, prelude names, the crate's own items, joins (`A`+`B` vs `AB`), empties and digits. */
const piece = fc.constantFrom('self', 'Self', 'super', 'crate', '_', '', 'type', 'r#type', 'result', 'Result', 'option', 'string', 'payloads', 'common')
const joint = fc.constantFrom('', '_', '-', ' ', '.', '__')
const name = fc.oneof(
  fc.tuple(piece, joint, fc.constantFrom('a', 'A', 'b', 'B', 'ab', 'AB', 'a_b', '1', '2', 'x', 'X')).map(([a, j, b]) => `${a}${j}${b}`),
  piece,
  fc.string({ maxLength: 6 }),
)

describe('the Rust target on hostile contracts', () => {
  it('the name map is injective, valid and lint-clean on colliding sets, and deterministic (property)', () => {
    fc.assert(
      fc.property(fc.array(name, { maxLength: 40 }), fc.constantFrom<Style>('snake', 'camel', 'screaming'), (names, style) => {
        const reserved = [...PRELUDE_NAMES, 'payloads', 'common', 'lib']
        const map = new Names(style, reserved)
        const ids = names.map((n) => map.get(n))
        const again = new Names(style, reserved)
        expect(names.map((n) => again.get(n))).toEqual(ids)
        const byName = new Map<string, string>()
        names.forEach((n, i) => {
          expect(validIdentifier(ids[i]!), `${JSON.stringify(n)} -> ${ids[i]}`).toBe(true)
          expect(lintClean(ids[i]!, style), `${JSON.stringify(n)} -> ${ids[i]}`).toBe(true)
          expect(reserved).not.toContain(ids[i]!.replace(/^r#/, ''))
          if (byName.has(n)) expect(ids[i]).toBe(byName.get(n))
          byName.set(n, ids[i]!)
        })
        const distinct = new Set([...byName.values()].map((id) => id.replace(/^r#/, '')))
        expect(distinct.size).toBe(byName.size)
      }),
      { numRuns: runs },
    )
  })

  it('one namespace holds types and modules in their own styles and keeps them apart (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(name, fc.constantFrom<Style>('snake', 'camel')), { maxLength: 30 }), (entries) => {
        const space = new Names('camel', PRELUDE_NAMES)
        const ids = new Map<string, string>()
        for (const [n, style] of entries) {
          const id = space.get(`${style}:${n}`, n, style)
          expect(lintClean(id, style) && validIdentifier(id)).toBe(true)
          ids.set(`${style}:${n}`, id.replace(/^r#/, ''))
        }
        expect(new Set(ids.values()).size).toBe(ids.size)
      }),
      { numRuns: runs },
    )
  })

  it('doc text is plain text: every Markdown or HTML character escaped, nothing invisible, no indentation (property)', () => {
    const unescape = (line: string) => line.replace(/\\([!-/:-@[-`{-~])/g, '$1')
    const invisible = /[\p{C}\p{Zl}\p{Zp}]/u
    const text = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 60 }),
      fc.string({ unit: fc.constantFrom(...'<>&`*_[]()#|\\~$^"\'-.=+:!1 \t\n\r/ah'.split(''), '\u202e', '\u2066', '\u0000', '\u2028'), maxLength: 60 }),
    )
    fc.assert(
      fc.property(text, (description) => {
        const expected = description
          .split(/\r\n|\r|\n/)
          .map((l) => l.replace(/^[ \t]+|[ \t]+$/g, ''))
          .map((l) => [...l].map((c) => (c !== '\t' && invisible.test(c) ? `\\u{${c.codePointAt(0)!.toString(16)}}` : c)).join(''))
          .filter((l) => l !== '')
        const lines = docLines(description)
        for (const line of lines) {
          expect(
            [...line].some((c) => c !== '\t' && invisible.test(c)),
            line,
          ).toBe(false)
          expect(/^[ \t]/.test(line), line).toBe(false)
          // With the escapes blanked out, no character with a Markdown or HTML meaning is left.
          expect(line.replace(/\\[!-/:-@[-`{-~]/g, ' '), line).not.toMatch(/[`*_[\]<>&#|~$^"'\\]|--|\.\.|:\/\//)
        }
        // What a reader sees: the text itself, line by line.
        expect(lines.filter((l) => l !== '').map(unescape)).toEqual(expected)
      }),
      { numRuns: runs * 5 },
    )
  })

  it('a crate name cargo refuses, or one that is a dependency of the crate, is prefixed', () => {
    for (const folder of ['test', 'std', 'core', 'serde', 'serde_json', 'serde-json', 'fn', 'self', 'build', 'deps', '123'])
      expect(crateName(folder), folder).toBe(`contracts-${folder.toLowerCase()}`)
    expect(crateName('My Contracts')).toBe('my-contracts')
  })

  const debianCrates = '/usr/share/cargo/registry'
  const hasSerde = existsSync(debianCrates) && readdirSync(debianCrates).some((d) => /^serde_json-1\./.test(d))
  if (CARGO && !hasSerde) console.warn("*** Debian's serde crates are not installed: the hostile Rust crate tests are SKIPPED ***")

  describe.skipIf(!CARGO || !hasSerde)('built with cargo (offline, --serde)', () => {
    const documents = ['docs', 'names', 'lib', 'main'].map((n) => join(fixtures, `${n}.asyncapi.yaml`))
    const all: NatsModel[] = []
    /** One `cargo doc` of the crate, read by both tests that need its pages (a second run only re-checked that they were fresh). */
    let documented: { status: number | null; output: string } | undefined
    const cargoDoc = () => (documented ??= cargo(['doc', '--offline', '--no-deps', '--features', 'serde'], work, target))

    beforeAll(async () => {
      for (const file of documents) {
        const r = await inspect(file)
        expect([file, r.diagnostics]).toEqual([file, []])
        all.push({ ...(r.data as NatsModel), file })
      }
      const names = all.find((m) => m.contract.id === 'names')!
      const modules = rustModuleNames(names)
      const layout = rustLayout(names)
      const channel = modules.get('payloads')!.module
      const files = [...rustCrate(all, 'contracts', { serde: true })]
      files.push({ path: '.cargo/config.toml', text: `[source.crates-io]\nreplace-with = "debian"\n\n[source.debian]\ndirectory = "${debianCrates}"\n` })
      files.push({ path: 'Cargo.toml', text: files.find((f) => f.path === 'Cargo.toml')!.text + '\n[dev-dependencies]\nserde_json = "1"\n' })
      files.push({
        path: 'tests/hostile.rs',
        text: `//! The names of fixtures/hostile/rust/names.asyncapi.yaml, used as the contract says.
use contracts::names;

/// Member \`b\` of \`A\` is its own type, not the component \`AB\`: the valid payload is accepted.
#[test]
fn member_b_of_a_is_not_component_ab() {
    let input: serde_json::Value = serde_json::from_str(r#"{"b":{"x":"hello"}}"#).unwrap();
    let a: names::payloads::A = serde_json::from_value(input.clone()).unwrap();
    assert_eq!(serde_json::to_value(&a).unwrap(), input);
    let payload: names::payloads::${layoutPayload(channel)} = serde_json::from_value(input).unwrap();
    assert_eq!(payload, a);
    // The component AB is another schema: closed, with a required integer y.
    assert!(serde_json::from_str::<names::payloads::Ab>(r#"{"x":"hello"}"#).is_err());
    assert!(serde_json::from_str::<names::payloads::Ab>(r#"{"y":1}"#).is_ok());
}

/// Trees and nodes that contain each other: boxed, they build and round-trip.
#[test]
fn mutually_recursive_components() {
    let input: serde_json::Value = serde_json::from_str(r#"{"left":{"tree":{"children":[{"left":{"parent":{"node":{}}}}]}}}"#).unwrap();
    let tree: names::payloads::Tree = serde_json::from_value(input.clone()).unwrap();
    assert_eq!(serde_json::to_value(&tree).unwrap(), input);
}

/// Token types named result, option and string: their own enums, the prelude's types untouched.
#[test]
fn token_types_named_like_the_prelude() {
    assert!(names::${layout.accepts.get('result')}("ok"));
    assert!(!names::${layout.accepts.get('result')}("maybe"));
    assert!(names::${layout.accepts.get('option')}("none"));
    assert!(names::${layout.accepts.get('string')}("b"));
    assert!(names::${layout.accepts.get('Self')}("crate"));
    let ok: Result<String, ()> = Ok(String::from("std"));
    assert_eq!(ok.ok(), Some("std".to_string()));
}

/// Parameters named like the locals of parse and from_pairs (t1, pairs, out) keep their own values.
#[test]
fn parameters_named_like_locals() {
    let p = names::${channel}::parse("a.ok.some.a").unwrap();
    assert_eq!((p.get("t1"), p.get("pairs"), p.get("out")), (Some("ok"), Some("some"), Some("a")));
    assert_eq!(p.render().unwrap(), "a.ok.some.a");
    let q = names::${channel}::Params::from_pairs(&[("out", "b"), ("t1", "err"), ("pairs", "none")]).unwrap();
    assert_eq!(q.render().unwrap(), "a.err.none.b");
    assert!(names::${channel}::parse("a.ok.a.some").is_err());
}
`,
      })
      rmSync(work, { recursive: true, force: true })
      for (const f of files.filter((f, i, list) => list.findLastIndex((g) => g.path === f.path) === i)) {
        const path = join(work, ...f.path.split('/'))
        mkdirSync(join(path, '..'), { recursive: true })
        writeFileSync(path, f.text)
      }
    }, 300_000)

    it('builds and passes its tests with every colliding name; rustfmt- and clippy-clean', () => {
      // The contracts named lib and main are modules of their own: src/lib.rs stays the crate root.
      expect(readdirSync(join(work, 'src')).sort()).toEqual(['common.rs', 'docs.rs', 'lib.rs', 'lib_2.rs', 'main_2.rs', 'names.rs'])
      const test = cargo(['test', '--offline', '--quiet', '--features', 'serde', '--test', 'hostile'], work, target)
      expect([test.status, test.output]).toEqual([0, expect.stringContaining('test result: ok. 4 passed')])
      if (RUSTFMT) {
        const fmt = spawnSync(RUSTFMT, ['--check', '--edition', '2021', join(work, 'src/lib.rs')], { encoding: 'utf8' })
        expect([fmt.status, fmt.stdout + fmt.stderr]).toEqual([0, ''])
      } else console.warn('*** rustfmt is not installed: the rustfmt check is SKIPPED ***')
      if (cargoHas('clippy')) {
        const clippy = cargo(['clippy', '--offline', '--quiet', '--features', 'serde', '--', '-D', 'warnings'], work, target)
        expect([clippy.status, clippy.output]).toEqual([0, ''])
      } else console.warn('*** clippy is not installed: the clippy check is SKIPPED ***')
    }, 300_000)

    it('U+202E and a bare CR in a description build; cargo test --doc compiles no doctest from one; cargo doc warns about nothing', () => {
      const docs = readFileSync(join(work, 'src/docs.rs'), 'utf8')
      expect(docs).toContain('\\\\u{202e}')
      expect(docs).not.toMatch(/[\u202a-\u202e\u2066-\u2069\r\0]/)
      const doctests = cargo(['test', '--offline', '--features', 'serde', '--doc'], work, target)
      expect([doctests.status, doctests.output]).toEqual([0, expect.stringContaining('running 0 tests')])
      const doc = cargoDoc()
      expect(doc.status).toBe(0)
      expect(doc.output).not.toMatch(/warning/)
    }, 300_000)

    describe.skipIf(!CHROMIUM)('the cargo doc pages in Chromium', () => {
      let browser: Browser
      beforeAll(async () => {
        browser = await launchChromium()
      }, 60_000)
      afterAll(async () => browser?.close())

      it('run no script, load nothing from elsewhere, and show the descriptions as the contract wrote them', async () => {
        const doc = cargoDoc()
        expect(doc.status).toBe(0)
        const root = join(target, 'doc')
        const pages: string[] = []
        const walk = (dir: string) => {
          for (const e of readdirSync(dir, { withFileTypes: true }))
            if (e.isDirectory()) walk(join(dir, e.name))
            else if (e.name.endsWith('.html')) pages.push(relative(root, join(dir, e.name)))
        }
        walk(join(root, 'contracts', 'docs'))
        pages.push('contracts/index.html')
        // The pages that show something from the hostile contract (the others hold only std's trait docs).
        const hostile = pages.filter((p) => readFileSync(join(root, p), 'utf8').includes('PWNED'))
        expect(hostile.length).toBeGreaterThanOrEqual(6)
        const server = await serveStatic(root)
        const seen = { dialogs: 0, elsewhere: [] as string[], tags: new Set<string>() }
        const collapse = (s: string) => s.replace(/\s+/g, ' ').trim()
        const document = parse(readFileSync(documents[0]!, 'utf8')) as { info: { description: string }; channels: Record<string, { description: string }> }
        // What a reader must see, computed here: the text, its invisible characters as \u{...}.
        const shown = (description: string) =>
          collapse(
            [...description.replace(/\r\n|\r|\n/g, ' ')]
              .map((c) => (c !== '\t' && /[\p{C}\p{Zl}\p{Zp}]/u.test(c) ? `\\u{${c.codePointAt(0)!.toString(16)}}` : c))
              .join(''),
          )
        const texts = new Map<string, string>()
        // One tab visits every page, as a reader following links would (a tab per page cost a renderer each).
        const page = await browser.newPage()
        page.on('dialog', (d) => {
          seen.dialogs++
          void d.dismiss()
        })
        page.on('request', (r) => {
          if (!r.url().startsWith(server.url) && !r.url().startsWith('data:')) seen.elsewhere.push(r.url())
        })
        try {
          for (const path of hostile) {
            await page.goto(`${server.url}/${path}`, { waitUntil: 'load' })
            expect([path, await page.evaluate(() => (globalThis as { __PWNED?: unknown }).__PWNED)]).toEqual([path, undefined])
            const found = await page.evaluate(() => {
              const blocks = [...document.querySelectorAll<HTMLElement>('.docblock, .docblock-short')].filter((e) => e.innerText.includes('PWNED'))
              return {
                tags: blocks.flatMap((b) => [...b.querySelectorAll('*')].map((e) => e.tagName)),
                text: blocks.map((e) => e.innerText).join('\n'),
                links: [...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href')!),
              }
            })
            for (const t of found.tags) seen.tags.add(t)
            expect(found.links.filter((href) => /^\s*javascript:|evil/i.test(href))).toEqual([])
            texts.set(path, collapse(found.text))
          }
        } finally {
          await page.close()
          await server.close()
        }
        expect(texts.size).toBe(hostile.length)
        expect(seen.dialogs).toBe(0)
        expect(seen.elsewhere).toEqual([])
        // Paragraphs and code spans only: no script, image, link, heading, list, table, quote or code block.
        expect([...seen.tags].sort()).toEqual(['CODE', 'P'])
        const channel = rustModuleNames(all[0]!).get('<script>globalThis.__PWNED=4</script>')!.module
        expect(texts.get('contracts/docs/index.html')).toContain(shown(document.info.description))
        expect(shown(document.info.description)).toContain('<script>globalThis.__PWNED = 1</script> <img src=x onerror="globalThis.__PWNED = 2">')
        expect(shown(document.info.description)).toContain('admin\\u{202e}\\u{2066}txt.exe\\u{2069} done # Heading ```')
        expect(texts.get(`contracts/docs/${channel}/index.html`)).toContain(shown(document.channels['<script>globalThis.__PWNED=4</script>']!.description))
        expect(texts.get(`contracts/docs/${channel}/index.html`)).toContain('Channel "<script>globalThis.__PWNED=4</script>": s.{<b>p</b>}.x.')
      }, 300_000)
    })
  })
})

/** The payload type of a channel module (as `writePayloads` names it when no schema took the name first). */
function layoutPayload(module: string): string {
  return `${module
    .replace(/^r#/, '')
    .split('_')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('')}Payload`
}
