/**
 * Outside hostile pass on POSITIONS AND TEXT in every output: `contracts check` (text with its code
 * frame, `--json`, `--format github`, `--format sarif`), the language server and `contracts diff`
 * (text, `--json`, github, sarif), for documents whose violation comes AFTER text that makes the
 * units differ (astral characters, combining marks, CJK, a BOM, CRLF and lone CR, tabs, U+2028 and
 * U+2029, NEL, a 100k-character line, a last line without a newline, a YAML flow mapping, block
 * scalar, second document, alias, a second file). Every expected position is computed here from the
 * text alone (an independent oracle: the token's offset found by search, lines and UTF-16 units
 * counted here), never from another surface. The built CLI and server are run as child processes,
 * each CLI mode once over all the files. Every wait is bounded; nothing asserts a duration.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Ajv } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { Log, Result } from 'sarif'
import {
  createProtocolConnection,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  StreamMessageReader,
  StreamMessageWriter,
  type Diagnostic as LspDiagnostic,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
  type TextDocumentContentChangeEvent,
} from 'vscode-languageserver-protocol/node.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLI } from './helpers/cli.js'

const root = join(import.meta.dirname, '..')
const WAIT_MS = 20_000
mkdirSync(join(root, 'test/.tmp/probe-positions'), { recursive: true })
const dir = mkdtempSync(join(root, 'test/.tmp/probe-positions/run-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
// A folder with a package.json: the project root the CLI takes relative paths and the ignore file from.
writeFileSync(join(dir, 'package.json'), '{}')

// ---------------------------------------------------------------------------------------------
// The oracle: positions counted from the text here.
// ---------------------------------------------------------------------------------------------

interface Pos {
  line: number
  character: number
}

/** 0-based line and UTF-16 character of `offset`, line ends `\r\n`, `\r` and `\n` (LSP 3.17's three; nothing else). */
function lspPosition(text: string, offset: number): Pos {
  let line = 0
  let start = 0
  for (let i = 0; i < offset; i++) {
    const c = text[i]
    if (c === '\r' && text[i + 1] === '\n' && i + 1 < offset) {
      i++
      line++
      start = i + 1
    } else if (c === '\n' || c === '\r') {
      line++
      start = i + 1
    }
  }
  return { line, character: offset - start }
}

/** The 1-based line and column the compiler promises: UTF-16 units, the text read without a leading BOM. */
function checkPosition(text: string, offset: number): { line: number; column: number } {
  const bom = text.startsWith('\uFEFF') ? 1 : 0
  const p = lspPosition(text.slice(bom), offset - bom)
  return { line: p.line + 1, column: p.character + 1 }
}

/** The document's lines as LSP counts them. */
function lspLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/)
}

/** The text a range covers, or undefined when the range does not lie inside the document. */
function rangeText(text: string, range: { start: Pos; end: Pos }): string | undefined {
  const lines = lspLines(text)
  const offsetOf = (p: Pos) => {
    if (p.line < 0 || p.line >= lines.length || p.character < 0 || p.character > lines[p.line]!.length) return undefined
    let offset = 0
    for (let l = 0; l < p.line; l++) {
      offset += lines[l]!.length
      offset += text.startsWith('\r\n', offset) ? 2 : 1
    }
    return offset + p.character
  }
  const [a, b] = [offsetOf(range.start), offsetOf(range.end)]
  if (a === undefined || b === undefined || b < a) return undefined
  return text.slice(a, b)
}

/**
 * Terminal cells of a string, written apart from the implementation (Unicode UAX #11, East Asian
 * Width, as wcwidth and terminals apply it), for the characters these documents use: combining marks
 * draw in the cell before (0), CJK ideographs and emoji take two cells, a tab moves to the next stop
 * of 8; everything else here takes one.
 */
function cells(text: string, startCell = 0): number {
  let at = startCell
  for (const ch of text) {
    const c = ch.codePointAt(0)!
    if (c === 0x09) at = (Math.floor(at / 8) + 1) * 8
    else if (c >= 0x0300 && c <= 0x036f) continue
    else if ((c >= 0x4e00 && c <= 0x9fff) || (c >= 0x1f300 && c <= 0x1faff) || c === 0x2026) at += c === 0x2026 ? 1 : 2
    else at += 1
  }
  return at - startCell
}

/** Every code point a terminal acts on (C0 but LF/TAB, DEL, C1, bidi controls, line/paragraph separators, invisible ones). */
const actsOnTerminal = (c: number) =>
  (c < 0x20 && c !== 0x0a && c !== 0x09) ||
  (c >= 0x7f && c <= 0x9f) ||
  [0x061c, 0x200b, 0x200e, 0x200f, 0x2028, 0x2029, 0xfeff].includes(c) ||
  (c >= 0x202a && c <= 0x202e) ||
  (c >= 0x2060 && c <= 0x2069)
const terminalClean = (text: string) => [...text].every((ch) => !actsOnTerminal(ch.codePointAt(0)!))

// ---------------------------------------------------------------------------------------------
// The documents.
// ---------------------------------------------------------------------------------------------

interface Case {
  /** Path relative to `dir`. */
  name: string
  text: string
  code: string
  /** The token the diagnostic is at: its offset in `text` (BOM included) and the text the LSP range must cover. */
  offset: number
  token: string
  /** For the LSP: the file the diagnostic is published for, when it is not `name` (a second file). */
  via?: string
}

const cases: Case[] = []
function add(name: string, text: string, code: string, token: string, offset = text.lastIndexOf(token), via?: string): void {
  if (offset < 0) throw new Error(`${token} not in ${name}`)
  cases.push({ name, text, code, offset, token, via })
}

/** A Benzene contract whose `$ref` is malformed (BENZENE_REF_FORM at `"#/nope"`), `before` written just before it on its line. */
const benzene = (before: string, eol = '\n') =>
  [
    '{',
    '"openapi":"3.0.1",',
    '"info":{"title":"t","version":"1"},"events":[],"components":{"schemas":{}},',
    `"requests":[{"topic":"a","response":{"type":"string"},"request":{"description":"${before}","$ref":"#/nope"}}]`,
    '}',
    '',
  ].join(eol)
const REF = '"#/nope"'

add('b-astral.spec.json', benzene('😀\u{10000}😀'), 'BENZENE_REF_FORM', REF)
add('b-combining.spec.json', benzene('e\u0301\u0301a\u0308'), 'BENZENE_REF_FORM', REF)
add('b-cjk.spec.json', benzene('中文字'), 'BENZENE_REF_FORM', REF)
add('b-mixed.spec.json', benzene('😀中e\u0301\u{10000}'), 'BENZENE_REF_FORM', REF)
// JSON allows U+2028 and U+2029 raw in strings: they are no line break for JSON, nor for LSP 3.17 (\n, \r\n, \r only).
add('b-separators.spec.json', benzene('a\u2028b\u2029c').replace('"info":{"title":"t"', '"info":{"title":"x\u2028y\u2029z"'), 'BENZENE_REF_FORM', REF)
add('b-nel.spec.json', benzene('a\u0085b').replace('"info":{"title":"t"', '"info":{"title":"x\u0085y"'), 'BENZENE_REF_FORM', REF)
// Raw characters a terminal acts on (JSON allows DEL, C1 and bidi controls raw), and an escaped ESC.
add('b-terminal.spec.json', benzene('\u202e\u2066\u200b\u007f\u009b\\u001b[2J'), 'BENZENE_REF_FORM', REF)
// Escapes are counted as written (`\t` two units, `\ud83d\ude00` twelve), not as the characters they stand for.
add('b-escapes.spec.json', benzene('\\t\\n\\ud83d\\ude00'), 'BENZENE_REF_FORM', REF)
add('b-crlf.spec.json', benzene('😀', '\r\n'), 'BENZENE_REF_FORM', REF)
add('b-cr.spec.json', benzene('😀', '\r'), 'BENZENE_REF_FORM', REF)
add('b-mixed-eol.spec.json', benzene('😀', '\n').replace('{\n', '{\r').replace('3.0.1",\n', '3.0.1",\r\n'), 'BENZENE_REF_FORM', REF)
// Tabs as JSON whitespace between the tokens before it.
add(
  'b-tabs.spec.json',
  benzene('😀').replace('"request":{"description"', '"request":\t{\t"description"').replace('"$ref":"#/nope"', '"$ref":\t\t"#/nope"'),
  'BENZENE_REF_FORM',
  REF,
)
// A BOM, and everything on line 1: the compiler's column does not count it, the editor's does.
add('b-bom.spec.json', '\uFEFF' + benzene('😀').replace(/\n/g, ''), 'BENZENE_REF_FORM', REF)
// A line of about 102,000 UTF-16 units (34,000 CJK + emoji pairs) before the violation.
add('b-long.spec.json', benzene('中😀'.repeat(34_000)), 'BENZENE_REF_FORM', REF)
// The violation on the last line, with no newline after it (a duplicate key).
const lastLine = benzene('x').trimEnd().replace(/\n\}$/, ',\n"openapi":"3.0.1"}')
add('b-last.spec.json', lastLine, 'JSON_DUPLICATE_KEY', '"openapi"')

/** The NATS fixture, with `insert` written after the stream's `name: LEDGER` line (in its closed config). */
const ledger = readFileSync(join(root, 'fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8')
const nats = (insert: string, base = ledger) => {
  const at = '        name: LEDGER\n'
  if (!base.includes(at)) throw new Error('fixture changed')
  return base.replace(at, at + insert)
}
// NATS_STREAM_CONFIG: a key the closed stream config does not take, reported at its value `zzmark`.
add('y-key.asyncapi.yaml', nats('        "😀中e\u0301\u{10000}": zzmark\n'), 'NATS_STREAM_CONFIG', 'zzmark')
add('y-crlf.asyncapi.yaml', nats('        "😀中": zzmark\n').replace(/\n/g, '\r\n'), 'NATS_STREAM_CONFIG', 'zzmark')
add('y-bom-crlf.asyncapi.yaml', '\uFEFF' + nats('        "😀中": zzmark\n').replace(/\n/g, '\r\n'), 'NATS_STREAM_CONFIG', 'zzmark')
// YAML 1.2 (§5.4): NEL, U+2028 and U+2029 are not line breaks (1.1 had them; 1.2 dropped them for JSON compatibility).
const separators = ledger.replace('  title: Ledger\n', '  title: "Led\u0085ger\u2028x\u2029y"\n  description: p\u0085q\u2028r\u2029s\n')
add('y-separators.asyncapi.yaml', nats('        "a\u0085b\u2028c\u2029d": zzmark\n', separators), 'NATS_STREAM_CONFIG', 'zzmark')
add('y-tab.asyncapi.yaml', nats('        "😀":\tzzmark\n'), 'NATS_STREAM_CONFIG', 'zzmark')
const block = ledger.replace('  title: Ledger\n', '  title: Ledger\n  description: |\n    😀 line\n    中文\u2028more\n\n    e\u0301\n')
add('y-block.asyncapi.yaml', nats('        "中": zzmark\n', block), 'NATS_STREAM_CONFIG', 'zzmark')
add('y-alias.asyncapi.yaml', nats('        "😀中": *nm\n').replace('        name: LEDGER\n', '        name: &nm LEDGER\n'), 'NATS_STREAM_CONFIG', '*nm')
// A key with `%`, `,`, `:`, a newline (the `\n` escape of a double-quoted scalar) and a bidi override: it reaches the message and the pointer.
add('y-msg.asyncapi.yaml', nats('        "a%b,c:d\\ne\u202ef": zzmark\n'), 'NATS_STREAM_CONFIG', 'zzmark')
// A duplicate key in a flow mapping after astral and CJK text on its line.
const flow = ledger.replace('info:\n  title: Ledger\n  version: 2.0.0\n', 'info: { title: "😀中e\u0301", title: x, version: 2.0.0 }\n')
add('y-flow.asyncapi.yaml', flow, 'YAML_DUPLICATE_KEY', 'title', flow.indexOf('title: x'))
// A BOM, and the whole document a flow mapping on line 1.
const bomFlow = '\uFEFF{ "😀": 1, "😀": 2 }'
add('y-bom-flow.asyncapi.yaml', bomFlow, 'YAML_DUPLICATE_KEY', '"😀"')
// A second document in the stream: the error at its `---`.
const multi = nats('        "😀": zzmark\n') + '---\n' + ledger
add('y-multi.asyncapi.yaml', multi, 'YAML_SYNTAX', '---', multi.indexOf('\n---\n') + 1)
// The last line without a newline: a duplicate root key.
const yLast = ledger.trimEnd() + '\n# 😀中\nasyncapi: 3.1.0'
add('y-last.asyncapi.yaml', yLast, 'YAML_DUPLICATE_KEY', 'asyncapi')

// DASP: a selection whose setting key is hostile (`%`, `,`, `:`, a newline, a bidi override) after
// astral text on its line, and a second file (a definition it reads, BOM and CRLF) reported in that file.
const dasp = readFileSync(join(root, 'fixtures/dasp/counter.dasp.json'), 'utf8')
const hostileKey = '😀中%,:\\n\u202ez'
const daspText = dasp.replace('"grant_bytes": 16384', `"grant_bytes": 16384, "${hostileKey}": 424242`)
if (daspText === dasp) throw new Error('fixture changed')
mkdirSync(join(dir, 'dasp/extensions'), { recursive: true })
for (const f of ['encrypted-delivery.dasp-ext.json', 'proof-of-authority.dasp-ext.json'])
  writeFileSync(join(dir, 'dasp/extensions', f), readFileSync(join(root, 'fixtures/dasp/extensions', f)))
const definition = '\uFEFF' + readFileSync(join(root, 'fixtures/dasp/extensions/proof-of-authority.dasp-ext.json'), 'utf8').replace(/\n/g, '\r\n')
const definitionText = definition.replace('"../pins/proof-of-authority.manifest.json"', '"../pins/😀中.manifest.json"')
add('dasp/counter.dasp.json', daspText, 'DASP_SETTINGS', '424242')
add(
  'dasp/extensions/proof-of-authority.dasp-ext.json',
  definitionText,
  'DASP_PIN_MISMATCH',
  '"../pins/😀中.manifest.json"',
  undefined,
  'dasp/counter.dasp.json',
)

for (const c of cases) {
  mkdirSync(join(dir, c.name, '..'), { recursive: true })
  writeFileSync(join(dir, c.name), c.text)
}

// Lone CR line ends in YAML: kept apart, the defect below.
const yCr = nats('        "😀中": zzmark\n').replace(/\n/g, '\r')
writeFileSync(join(dir, 'y-cr.asyncapi.yaml'), yCr)

// File names GitHub annotations and SARIF URIs must escape.
const names = ['n%1,2:3.spec.json', 'n\nline.spec.json', 'n\rreturn.spec.json', 'n sp#q?%25é😀.spec.json']
mkdirSync(join(dir, 'names'))
const oneLine = benzene('x').replace(/\n/g, '')
for (const n of names) writeFileSync(join(dir, 'names', n), oneLine)

// ---------------------------------------------------------------------------------------------
// Running the CLI: each mode once over every file.
// ---------------------------------------------------------------------------------------------

const env = { ...process.env, UNPLUGIN_CONTRACTS_CACHE: '0', NO_COLOR: '1' }
function cli(args: string[], cwd = dir) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env, timeout: WAIT_MS, maxBuffer: 256 * 1024 * 1024 })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

interface JsonDiagnostic {
  code: string
  severity: string
  message: string
  file: string
  pointer: string
  line: number
  column: number
}

const sarifValidate = (() => {
  const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv
  const { $schema: _draft, id, ...schema } = JSON.parse(readFileSync(join(root, 'test/fixtures/sarif/sarif-schema-2.1.0.json'), 'utf8'))
  const ajv = new Ajv({ allErrors: true, strict: false })
  addFormats(ajv)
  return ajv.compile({ $id: id, ...schema })
})()

/** The code frame under a text diagnostic: the `>` line's number, its shown text, the caret's index in its line and the cells before it (from the `| `). */
interface Frame {
  at: string
  line: number
  shown: string
  caret: number
  /** Terminal cells before the caret, counted from where the shown text starts (tab stops as the terminal's). */
  caretCells: number
  /** Where the shown text starts on its line (for tab stops). */
  prefix: number
}
function frames(stderr: string): Frame[] {
  const lines = stderr.split('\n')
  const out: Frame[] = []
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith('  at ')) continue
    const at = lines[i]!
    let j = i + 1
    while (j < lines.length && lines[j] !== '' && !/^> *\d+ \| /.test(lines[j]!)) j++
    const m = /^> *(\d+) \| (.*)$/.exec(lines[j] ?? '')
    if (!m) continue
    const prefix = lines[j]!.indexOf('| ') + 2
    const caretLine = lines[j + 1]!
    out.push({
      at,
      line: Number(m[1]),
      shown: m[2]!,
      caret: caretLine.indexOf('^') - prefix,
      caretCells: cells(caretLine.slice(prefix, caretLine.indexOf('^')), prefix),
      prefix,
    })
  }
  return out
}

let json: JsonDiagnostic[]
let raw: { json: string; sarif: string }
let text: { stderr: string; frames: Frame[] }
let github: string
let sarif: Log
const files = [...cases.map((c) => c.name).filter((n) => !n.includes('/extensions/')), 'y-cr.asyncapi.yaml', ...names.map((n) => `names/${n}`)]

beforeAll(() => {
  const j = cli(['check', '--json', ...files])
  expect(j.status, j.stderr).toBe(1)
  json = (JSON.parse(j.stdout) as { diagnostics: JsonDiagnostic[] }).diagnostics
  const t = cli(['check', ...files])
  text = { stderr: t.stderr, frames: frames(t.stderr) }
  github = cli(['check', '--format', 'github', ...files]).stdout
  const sarifOut = cli(['check', '--format', 'sarif', ...files]).stdout
  sarif = JSON.parse(sarifOut) as Log
  raw = { json: j.stdout, sarif: sarifOut }
})

/** The frame printed under the diagnostic at `name:line:column`. */
const frameAt = (name: string, want: { line: number; column: number }) =>
  text.frames.find(
    (f) => f.at === `  at ${join(dir, name)}:${want.line}:${want.column}` || f.at.startsWith(`  at ${join(dir, name)}:${want.line}:${want.column} (`),
  )
/** The violation is on line 1 of a text with a BOM (the frame defect below). */
const bomLineOne = (c: Case) => c.text.startsWith('\uFEFF') && checkPosition(c.text, c.offset).line === 1

const find = (c: { name: string; code: string }) => {
  const d = json.find((x) => x.file === join(dir, c.name) && x.code === c.code)
  expect(d, `${c.code} in ${c.name}: ${JSON.stringify(json.filter((x) => x.file === join(dir, c.name)))}`).toBeDefined()
  return d!
}

describe('contracts check: the position of each violation, on every surface', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s: --json line and column are the oracle’s (UTF-16, BOM not counted)', (_, c) => {
    const d = find(c)
    // Holds (pinned): the 1-based line and UTF-16 column counted here from the text.
    expect({ line: d.line, column: d.column }).toEqual(checkPosition(c.text, c.offset))
  })

  it.each(cases.filter((c) => !bomLineOne(c)).map((c) => [c.name, c] as const))(
    '%s: the text output’s location, and its code frame’s line and caret (under the token as a terminal draws the shown line)',
    (_, c) => {
      const want = checkPosition(c.text, c.offset)
      const frame = frameAt(c.name, want)
      expect(frame, `no frame at ${c.name}:${want.line}:${want.column} in\n${text.stderr.slice(0, 3000)}`).toBeDefined()
      // Holds (pinned): the `>` line is the diagnostic's line, and the caret stands as many terminal
      // cells in as the shown (escaped, windowed) line takes before the token.
      expect(frame!.line).toBe(want.line)
      const token = c.token.replace(/[\u202e]/g, '\\u{202e}')
      const starts = [...frame!.shown.matchAll(new RegExp(token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g'))].map((m) => m.index)
      expect(
        starts.some((i) => cells(frame!.shown.slice(0, i), frame!.prefix) === frame!.caretCells),
        `${JSON.stringify(frame!.shown)} caret at cell ${frame!.caretCells}`,
      ).toBe(true)
      expect(terminalClean(frame!.shown)).toBe(true)
    },
  )

  it.each(cases.map((c) => [c.name, c] as const))('%s: --format github line and col', (_, c) => {
    const want = checkPosition(c.text, c.offset)
    // Holds (pinned): one annotation at the same line and column.
    expect(github).toContain(`::error file=${c.name},line=${want.line},col=${want.column},title=${c.code}::`)
  })

  it.each(cases.map((c) => [c.name, c] as const))('%s: --format sarif region', (_, c) => {
    const want = checkPosition(c.text, c.offset)
    const uri = c.name.split('/').map(encodeURIComponent).join('/')
    const result = sarif.runs[0]!.results!.find((r) => r.ruleId === c.code && r.locations![0]!.physicalLocation!.artifactLocation!.uri === uri)
    expect(result, uri).toBeDefined()
    // Holds (pinned): startLine/startColumn as --json (columnKind utf16CodeUnits).
    expect(result!.locations![0]!.physicalLocation!.region).toMatchObject({ startLine: want.line, startColumn: want.column })
  })

  it('the SARIF log of all of them is valid against the official 2.1.0 schema and says utf16CodeUnits', () => {
    // Holds (pinned).
    expect(sarifValidate(sarif), JSON.stringify(sarifValidate.errors, null, 2)).toBe(true)
    expect(sarif.runs[0]!.columnKind).toBe('utf16CodeUnits')
  })

  it('Was a defect (fixed): YAML with lone CR line ends is reported at 1:1 on every surface, not at the violation', () => {
    // Was a defect (fixed): y-cr.asyncapi.yaml is the NATS fixture with an unknown stream-config key whose value is
    // `zzmark`, every line ended by a lone CR. The compile finds NATS_STREAM_CONFIG at the right pointer
    // (/x-nats-contract/streams/ledger/config/😀中), but --json, text, github and sarif say line 1,
    // column 1 (the code frame shows `asyncapi: 3.1.0`), and the LSP range is 0:0-0:8 over `asyncapi`.
    // Expected: the line and column of `zzmark` (line 44 here). YAML 1.2 §5.4: a lone CR is a line
    // break (b-break ::= CR LF | CR | LF); LSP 3.17 (Position): "\r" is an end-of-line sequence; and
    // docs/diagnostics.md: "Every problem ... is a diagnostic { code, severity, message, file, pointer, line, column }".
    // The JSON reader gets lone CR right (b-cr.spec.json above).
    const d = find({ name: 'y-cr.asyncapi.yaml', code: 'NATS_STREAM_CONFIG' })
    expect(d.pointer).toBe('/x-nats-contract/streams/ledger/config/😀中')
    expect({ line: d.line, column: d.column }).toEqual(checkPosition(yCr, yCr.indexOf('zzmark')))
  })

  it('Was a defect (fixed): the code frame’s caret was placed by UTF-16 units, so after CJK or combining marks it was not under the token on a terminal', () => {
    // Was a defect (fixed): on `"request":{"description":"中文字","$ref":"#/nope"...` the caret is 38 spaces in, the
    // token's UTF-16 index in the shown line; a terminal draws each of 中文字 in two cells (Unicode
    // UAX #11, East Asian Width W; wcwidth), so the token starts at cell 41 and the caret shows under
    // the `f` of `$ref`. After `éé` written with combining marks (U+0301, zero cells) it is 2 cells
    // right of the token. Expected: the caret padded by the cells the shown line takes before the token
    // (as the frame already does for a tab, which it copies into the caret line). The promise: the code
    // frame's caret under the violating character (test/terminal-text.test.ts: "the code frame (with its caret still under the column)").
    for (const name of ['b-cjk.spec.json', 'b-combining.spec.json']) {
      const c = cases.find((x) => x.name === name)!
      const want = checkPosition(c.text, c.offset)
      const frame = frameAt(name, want)!
      const tokenAt = frame.shown.indexOf(REF)
      expect(frame.caretCells, name).toBe(cells(frame.shown.slice(0, tokenAt), frame.prefix))
    }
  })

  it('a tab before the token: the caret line keeps the tab, so it is under the token on a terminal', () => {
    // Holds (pinned): y-tab's caret line copies the tab (the cells match the shown line's).
    const c = cases.find((x) => x.name === 'y-tab.asyncapi.yaml')!
    const want = checkPosition(c.text, c.offset)
    const frame = frameAt(c.name, want)!
    const raw = text.stderr.split('\n')
    const frameLine = raw.findIndex((l) => /^> *\d+ \| /.test(l) && l.includes('zzmark') && l.includes('\t'))
    const caretLine = raw[frameLine + 1]!
    const prefix = raw[frameLine]!.indexOf('| ') + 2
    expect(cells(caretLine.slice(prefix, caretLine.indexOf('^')), prefix)).toBe(cells(frame.shown.slice(0, frame.shown.indexOf('zzmark')), prefix))
  })
})

describe('contracts check: a BOM on the violation’s line', () => {
  it('Was a defect (fixed): the code frame’s caret is one unit left of the token on line 1 of a text with a BOM', () => {
    // Was a defect (fixed): `\uFEFF{ "😀": 1, "😀": 2 }` (YAML_DUPLICATE_KEY at 1:12, right in --json) is framed as
    // `> 1 | \u{feff}{ "😀": 1, "😀": 2 }` with the caret at index 18, under the space before the
    // second `"😀"` (index 19); b-bom.spec.json (a one-line JSON contract with a BOM, a windowed frame)
    // has its caret at 51 with `"#/nope"` at 52. The frame shows the BOM (as `\u{feff}`), the column
    // does not count it, and the caret is placed as if the escape were one unit shorter. Expected: the
    // caret under the token, as on every other line (the frame's promise, as above).
    for (const c of cases.filter(bomLineOne)) {
      const frame = frameAt(c.name, checkPosition(c.text, c.offset))
      expect(frame, c.name).toBeDefined()
      expect(frame!.shown.slice(frame!.caret).startsWith(c.token), `${c.name}: ${JSON.stringify(frame!.shown)} caret ${frame!.caret}`).toBe(true)
    }
  })
})

describe('contracts check: text from file names and documents, escaped for each output', () => {
  const annotations = () => github.split('\n').filter((l) => l !== '')

  it('GitHub: every annotation is one line; `%`, `,`, `:` and a newline in a file name are escaped in the file property', () => {
    // Holds (pinned): GitHub workflow commands escape `%` as %25, `\n` as %0A, and in properties `:` as %3A and `,` as %2C.
    for (const line of annotations()) expect(line, line).toMatch(/^::(error|warning) file=[^\n]*?,line=\d+,col=\d+,title=[A-Z_]+::/)
    expect(annotations()).toHaveLength(json.length)
    expect(github).toContain('::error file=names/n%251%2C2%3A3.spec.json,line=1,col=')
    expect(github).toContain('::error file=names/n%0Aline.spec.json,line=1,col=')
    expect(github).toContain('::error file=names/n sp#q?%2525é😀.spec.json,line=1,col=')
  })

  it('Was a defect (fixed): GitHub: a CR in a file name is written as the text `\\u{d}`, not %0D, so the annotation names a file that does not exist', () => {
    // Was a defect (fixed): for names/n\rreturn.spec.json the annotation says `file=names/n\u{d}return.spec.json`
    // (the terminal escape, eight characters); a newline in a name becomes %0A (above) and is
    // decoded back by the runner, a CR does not. Expected `file=names/n%0Dreturn.spec.json`. GitHub
    // workflow commands (the toolkit's toCommandProperties/escapeProperty): `\r` is written %0D in
    // data and properties; docs/cli.md: annotations are "escaped as workflow commands require".
    expect(github).toContain('::error file=names/n%0Dreturn.spec.json,line=1,col=')
  })

  it('GitHub: a message with a document key holding `%`, `,`, `:` and a newline stays on its line', () => {
    const line = annotations().find((l) => l.startsWith('::error file=y-msg.asyncapi.yaml,') && l.includes('title=NATS_STREAM_CONFIG'))
    expect(line).toBeDefined()
    // Holds (pinned): `%` as %25 and the newline as %0A in the message; `,` and `:` stay (data escapes neither);
    // the bidi override is made visible.
    expect(line).toContain('::a%25b,c:d%0Ae\\u{202e}f is not part of the closed stream configuration')
    expect(terminalClean(line!)).toBe(true)
    // A DASP message quotes the key as JSON (its newline is the two characters `\n`).
    const dasp = annotations().find((l) => l.startsWith('::error file=dasp/counter.dasp.json,') && l.includes('title=DASP_SETTINGS'))
    expect(dasp).toContain('"😀中%25,:\\n\\u{202e}z"')
  })

  it('SARIF: each file name is a percent-encoded relative URI that decodes back to it', () => {
    const uris = sarif.runs[0]!.results!.map((r: Result) => r.locations![0]!.physicalLocation!.artifactLocation!)
    for (const n of names) {
      const uri = `names/${encodeURIComponent(n)}`
      // Holds (pinned): RFC 3986 percent-encoding (space, `#`, `?`, `%`, `,`, `:`, CR, LF, non-ASCII as UTF-8), base %SRCROOT%.
      expect(uris, n).toContainEqual({ uri, uriBaseId: '%SRCROOT%' })
      expect(decodeURIComponent(uri)).toBe(`names/${n}`)
    }
    expect(sarifValidate(sarif)).toBe(true)
  })

  it('--json and SARIF: valid JSON that writes every character a terminal acts on as a \\u escape', () => {
    // Holds (pinned): docs/cli.md, "Every --json and SARIF output writes the characters a terminal acts on ... as \u escapes".
    for (const [what, out] of Object.entries(raw)) {
      expect(terminalClean(out.replace(/\n/g, '')), what).toBe(true)
      expect(out, what).toContain('\\u202e')
    }
    const d = find({ name: 'y-msg.asyncapi.yaml', code: 'NATS_STREAM_CONFIG' })
    expect(d.message).toContain('a%b,c:d\ne\u202ef is not part')
    expect(d.pointer).toBe('/x-nats-contract/streams/ledger/config/a%b,c:d\ne\u202ef')
    expect(find({ name: 'dasp/counter.dasp.json', code: 'DASP_SETTINGS' }).pointer).toBe('/extensions/1/settings/😀中%,:\n\u202ez')
  })

  it('text: a CR, ESC or bidi override in a file name, message or pointer is made visible', () => {
    // Holds (pinned): `\u{d}`, `\u{202e}` in the `at` line; nothing a terminal acts on anywhere in stderr (LF aside).
    expect(text.stderr).toContain(`  at ${join(dir, 'names/n\\u{d}return.spec.json')}:1:`)
    expect(terminalClean(text.stderr.replace(/\n/g, ''))).toBe(true)
  })

  it('Was a defect (fixed): text: a newline in a file name or in a document key is written raw, so the `at` line breaks and a name can forge a line', () => {
    // Was a defect (fixed): for names/n\nline.spec.json stderr has `  at /…/names/n` and then `line.spec.json:1:…` on a
    // line of its own; the NATS key "a%b,c:d\ne‮f" (y-msg, a YAML `\n` escape) breaks the `error
    // NATS_STREAM_CONFIG:` line and the `at` line's pointer the same way (and the DASP key's newline its
    // pointer; the DASP message quotes the key as JSON). A file named `x\nerror FAKE: ...` prints a line that
    // reads as a diagnostic. A CR is escaped as `\u{d}` (above), a newline is not. Expected: `\u{a}` (or
    // another visible form) for a newline taken from a name or a document, so each diagnostic's lines
    // are the tool's own. The promise: text from a document (and a path) reaches the terminal with no
    // control character acting on it (test/terminal-text.test.ts: "Control characters ... come out as
    // visible escapes, in the message, the path, the code frame").
    const atLines = text.stderr.split('\n').filter((l) => l.startsWith('  at '))
    expect(atLines.some((l) => l.startsWith(`  at ${join(dir, 'names/n')}`) && l.includes('line.spec.json:1:'))).toBe(true)
    const message = text.stderr.split('\n').find((l) => l.startsWith('error NATS_STREAM_CONFIG: a%b,c:d'))!
    expect(message).toContain(' is not part of the closed stream configuration')
    expect(atLines.some((l) => l.includes('(/x-nats-contract/streams/ledger/config/a%b,c:d') && l.endsWith('f)'))).toBe(true)
  })
})

// ---------------------------------------------------------------------------------------------
// The language server.
// ---------------------------------------------------------------------------------------------

interface Server {
  child: ChildProcess
  connection: ProtocolConnection
  publications: PublishDiagnosticsParams[]
  stderr: string[]
}

async function startServer(): Promise<Server> {
  const child = spawn(process.execPath, [CLI, 'lsp', '--stdio'], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'], env })
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!))
  const server: Server = { child, connection, publications: [], stderr: [] }
  connection.onNotification(PublishDiagnosticsNotification.type, (p) => void server.publications.push(p))
  connection.onNotification('window/logMessage', () => {})
  child.stderr!.on('data', (chunk: Buffer) => server.stderr.push(chunk.toString()))
  // A write after the server went away must fail the test that checks it is alive, not the run.
  connection.onError(() => {})
  connection.listen()
  await within(
    connection.sendRequest(InitializeRequest.type, { processId: null, rootUri: pathToFileURL(dir).href, capabilities: {}, workspaceFolders: null }),
    'initialize',
  )
  void connection.sendNotification(InitializedNotification.type, {})
  return server
}

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, fail) => (timer = setTimeout(() => fail(new Error(`no ${what} within ${WAIT_MS} ms`)), WAIT_MS))),
  ])
}

/** The first publication for `uri` that satisfies `test`, polled (bounded). */
async function published(server: Server, uri: string, test: (p: PublishDiagnosticsParams) => boolean = () => true): Promise<PublishDiagnosticsParams> {
  const deadline = Date.now() + WAIT_MS
  for (;;) {
    const found = server.publications.find((p) => p.uri === uri && test(p))
    if (found) return found
    if (Date.now() > deadline) {
      const seen = server.publications.map((p) => `${p.uri} v${p.version}: ${p.diagnostics.map((d) => d.code).join(',')}`)
      throw new Error(`no publication for ${uri} within ${WAIT_MS} ms; seen ${seen.join(' | ')}; stderr ${server.stderr.join('')}`)
    }
    await new Promise((done) => setTimeout(done, 20))
  }
}

const openDoc = (server: Server, uri: string, text: string, languageId = uri.endsWith('.json') ? 'json' : 'yaml') =>
  void server.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId, version: 1, text } })
const change = (server: Server, uri: string, version: number, ...contentChanges: TextDocumentContentChangeEvent[]) =>
  void server.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version }, contentChanges })

/** Every range inside the text the server holds, start before end. */
function inside(text: string, diagnostics: LspDiagnostic[]): boolean {
  return diagnostics.every((d) => rangeText(text, d.range) !== undefined)
}

describe('contracts lsp: the same positions, 0-based, the BOM counted as the editor counts it', () => {
  let server: Server
  beforeAll(async () => {
    server = await startServer()
    for (const c of cases) if (!c.via) openDoc(server, pathToFileURL(join(dir, c.name)).href, c.text)
    openDoc(server, pathToFileURL(join(dir, 'y-cr.asyncapi.yaml')).href, yCr)
  })
  afterAll(() => void server.child.kill())

  it.each(cases.filter((c) => !c.via).map((c) => [c.name, c] as const))('%s: the range starts at the token and covers it', async (_, c) => {
    const uri = pathToFileURL(join(dir, c.name)).href
    const { diagnostics } = await published(server, uri, (p) => p.diagnostics.some((d) => d.code === c.code))
    const d = diagnostics.find((x) => x.code === c.code && rangeText(c.text, x.range)?.startsWith(c.token[0]!))
    expect(d, JSON.stringify(diagnostics.map((x) => [x.code, x.range]))).toBeDefined()
    // Holds (pinned): the start is the oracle's (a BOM on line 1 counted), the range lies inside the
    // document and covers exactly the token (a quoted string, a word, an alias).
    expect(d!.range.start).toEqual(lspPosition(c.text, c.offset))
    expect(rangeText(c.text, d!.range)).toBe(c.token)
    expect(inside(c.text, diagnostics)).toBe(true)
    // The code and severity as check --json says.
    expect(d!.severity).toBe(1)
  })

  it('Was a defect (fixed): a diagnostic in a second file the editor has not open is published with an empty range', async () => {
    // Was a defect (fixed): opening dasp/counter.dasp.json publishes DASP_PIN_MISMATCH for the definition it reads,
    // dasp/extensions/proof-of-authority.dasp-ext.json (not open), at {8:16}-{8:16}: the start is right,
    // the range is empty. With the definition open too, the same diagnostic is {8:16}-{8:58}, over
    // the manifest string. Expected the range over the token either way (the server read the file's
    // text for the check). docs/editors.md: "The range runs to the end of the token at the position
    // (a quoted string, a word)"; the problems view lists it "even when the file is not open".
    for (const c of cases.filter((x) => x.via)) {
      const uri = pathToFileURL(join(dir, c.name)).href
      const { diagnostics } = await published(server, uri, (p) => p.diagnostics.some((d) => d.code === c.code))
      const d = diagnostics.find((x) => x.code === c.code)!
      expect(d.range.start).toEqual(lspPosition(c.text, c.offset))
      expect(rangeText(c.text, d.range)).toBe(c.token)
    }
  })

  it('Was a defect (fixed): YAML with lone CR line ends: the range is 0:0-0:8 over `asyncapi`, not at the violation', async () => {
    // Was a defect (fixed): as for check (above): NATS_STREAM_CONFIG in y-cr.asyncapi.yaml is published at
    // {0:0}-{0:8}. Expected the position of `zzmark` on line 43 (0-based). LSP 3.17 (Position, "the
    // protocol supports \n, \r\n and \r as end-of-line sequences"); docs/editors.md: "The positions and
    // codes are the ones contracts check --json reports" (and both are wrong here).
    const uri = pathToFileURL(join(dir, 'y-cr.asyncapi.yaml')).href
    const { diagnostics } = await published(server, uri, (p) => p.diagnostics.length > 0)
    const d = diagnostics.find((x) => x.code === 'NATS_STREAM_CONFIG')!
    expect(d.range.start).toEqual(lspPosition(yCr, yCr.indexOf('zzmark')))
  })
})

describe('contracts lsp under hostile use: never a crash, a bounded answer', () => {
  let server: Server
  const lsp = join(dir, 'lsp')
  const outside = mkdtempSync(join(tmpdir(), 'contracts-probe-positions-outside-'))
  const valid = readFileSync(join(root, 'fixtures/benzene/valid/payments.spec.json'), 'utf8')
  beforeAll(async () => {
    mkdirSync(join(lsp, 'sub'), { recursive: true })
    server = await startServer()
  })
  afterAll(() => {
    server.child.kill()
    rmSync(outside, { recursive: true, force: true })
  })
  const uriOf = (name: string) => pathToFileURL(join(lsp, name)).href

  it('a didChange whose range lies past the end of a line or of the document is clamped (LSP 3.17), and positions follow the text', async () => {
    const uri = uriOf('range.spec.json')
    openDoc(server, uri, valid)
    await published(server, uri, (p) => p.version === 1)
    // Past the last line: the edit lands at the end of the document (`}` then `x`): JSON_SYNTAX at the `x`.
    change(server, uri, 2, { range: { start: { line: 9999, character: 3 }, end: { line: 10_000, character: 0 } }, text: 'x' })
    const afterEnd = valid + 'x'
    const v2 = await published(server, uri, (p) => p.version === 2)
    // Holds (pinned): a JSON_SYNTAX diagnostic inside the document, at the appended character.
    expect(v2.diagnostics.map((d) => d.code)).toContain('JSON_SYNTAX')
    expect(inside(afterEnd, v2.diagnostics)).toBe(true)
    expect(v2.diagnostics.find((d) => d.code === 'JSON_SYNTAX')!.range.start).toEqual(lspPosition(afterEnd, afterEnd.length - 1))
    // Past the end of line 0 (`{`): the character clamps to the line's length, so the key goes after the `{`.
    change(
      server,
      uri,
      3,
      { range: { start: { line: 0, character: 500 }, end: { line: 0, character: 900 } }, text: '"openapi":"3.0.1",' },
      { range: { start: { line: 9999, character: 0 }, end: { line: 9999, character: 0 } }, text: '' },
    )
    const v3text = '{"openapi":"3.0.1",' + afterEnd.slice(1)
    const v3 = await published(server, uri, (p) => p.version === 3)
    const dup = v3.diagnostics.find((d) => d.code === 'JSON_DUPLICATE_KEY')
    // Holds (pinned): the second `"openapi"` (the fixture's own, now on line 1) is the duplicate.
    expect(dup?.range.start, JSON.stringify(v3.diagnostics)).toEqual(lspPosition(v3text, v3text.indexOf('"openapi"', 5)))
    expect(inside(v3text, v3.diagnostics)).toBe(true)
    // A reversed range and a negative position: no crash, a publication for the version.
    change(server, uri, 4, { range: { start: { line: 3, character: 2 }, end: { line: 1, character: 0 } }, text: '' })
    change(server, uri, 5, { range: { start: { line: -1, character: -5 }, end: { line: 0, character: 0 } }, text: '' })
    change(server, uri, 6, { text: valid })
    expect((await published(server, uri, (p) => p.version === 6)).diagnostics).toEqual([])
  })

  it('an incremental change that splits a surrogate pair: answered, every range inside the text', async () => {
    const uri = uriOf('surrogate.spec.json')
    const text = benzene('😀😀')
    openDoc(server, uri, text)
    await published(server, uri, (p) => p.version === 1)
    const at = lspPosition(text, text.indexOf('😀') + 1)
    // An `X` between the high and the low surrogate of the first emoji.
    change(server, uri, 2, { range: { start: at, end: at }, text: 'X' })
    const split = text.slice(0, text.indexOf('😀') + 1) + 'X' + text.slice(text.indexOf('😀') + 1)
    const v2 = await published(server, uri, (p) => p.version === 2)
    expect(inside(split, v2.diagnostics)).toBe(true)
    // Holds (pinned): the text is checked as the client holds it (lone surrogates and all): the violation
    // after it is where the client's text has it, one unit further on.
    expect(v2.diagnostics.map((d) => [d.code, d.range.start])).toEqual([['BENZENE_REF_FORM', lspPosition(split, split.indexOf(REF))]])
    // Deleting only the low surrogate of the second emoji.
    const second = split.lastIndexOf('😀')
    change(server, uri, 3, { range: { start: lspPosition(split, second + 1), end: lspPosition(split, second + 2) }, text: '' })
    const lone = split.slice(0, second + 1) + split.slice(second + 2)
    const v3 = await published(server, uri, (p) => p.version === 3)
    expect(inside(lone, v3.diagnostics)).toBe(true)
    expect(v3.diagnostics.map((d) => [d.code, d.range.start])).toEqual([['BENZENE_REF_FORM', lspPosition(lone, lone.indexOf(REF))]])
  })

  it('a 20 MB text: CONTRACTS_TOO_LARGE, inside the document', async () => {
    const uri = uriOf('huge.spec.json')
    const huge = benzene('a'.repeat(20 * 1024 * 1024))
    openDoc(server, uri, huge)
    const p = await published(server, uri, (x) => x.version === 1)
    // Holds (pinned): the 16 MiB limit of a build (docs/editors.md), a bounded answer.
    expect(p.diagnostics.map((d) => d.code)).toEqual(['CONTRACTS_TOO_LARGE'])
    expect(inside(huge, p.diagnostics)).toBe(true)
  })

  it('200 rapid changes: the last version is published with its own positions; versions never go back', async () => {
    const uri = uriOf('rapid.spec.json')
    openDoc(server, uri, valid)
    let last = ''
    for (let version = 2; version <= 201; version++) {
      last = benzene('😀'.repeat(version % 7) + '中'.repeat(version % 5))
      change(server, uri, version, { text: version % 2 ? last : valid })
    }
    const final = await published(server, uri, (p) => p.version === 201)
    const d = final.diagnostics.find((x) => x.code === 'BENZENE_REF_FORM')
    expect(d).toBeDefined()
    expect(d!.range.start).toEqual(lspPosition(last, last.indexOf(REF)))
    const versions = server.publications.filter((p) => p.uri === uri).map((p) => p.version ?? 0)
    expect(versions).toEqual([...versions].sort((a, b) => a - b))
  })

  it('file URIs percent-encoded, with an encoded slash, of another host, or a link out of the tree: the server stays up', async () => {
    const text = benzene('😀中')
    const encoded = `${pathToFileURL(lsp).href}/sp%20%F0%9F%98%80%23%25.spec.json`
    const slash = `${pathToFileURL(lsp).href}/a%2Fb.spec.json`
    const host = 'file://elsewhere/x.spec.json'
    writeFileSync(join(outside, 'target.spec.json'), text)
    symlinkSync(join(outside, 'target.spec.json'), join(lsp, 'link.spec.json'))
    const link = uriOf('link.spec.json')
    for (const uri of [encoded, slash, host, link]) openDoc(server, uri, text)
    // Holds (pinned): a percent-encoded name is the file it decodes to, published under the URI the
    // client sent, with the position as for any other text.
    const enc = await published(server, encoded)
    expect(enc.diagnostics.find((d) => d.code === 'BENZENE_REF_FORM')?.range.start).toEqual(lspPosition(text, text.indexOf(REF)))
    // Holds (pinned): a link out of the tree is refused (never followed), inside the document.
    const linked = await published(server, link)
    expect(linked.diagnostics.map((d) => d.code)).toEqual(['CONTRACTS_SYMLINK'])
    expect(inside(text, linked.diagnostics)).toBe(true)
    // Liveness: a document opened after all of them is answered, and the process has not exited.
    const after = uriOf('after.spec.json')
    openDoc(server, after, text)
    await published(server, after)
    expect(server.child.exitCode).toBeNull()
    // Holds (pinned): nothing is published for a URI no path can stand for (an encoded `/`, another host).
    expect(server.publications.filter((p) => p.uri === slash || p.uri === host)).toEqual([])
  })

  it('Was a defect (fixed): a file URI not in normal form (`sub/../x`, `./x`, `//x`): the editor text is not checked and the URI is published as clean', async () => {
    // Was a defect (fixed): didOpen of `…/lsp/sub/../dotdot.spec.json` (and `…/lsp/./dot.spec.json`,
    // `…/lsp//double.spec.json`) with a text whose $ref is malformed: the server publishes an empty
    // list for that URI (version 1: "checked, no problems") and, for a URI the client never opened
    // (`…/lsp/dotdot.spec.json`), CONTRACTS_READ_FAILED "there is no such file": it read the disk, not
    // the editor's text (with a file on disk, that file's problems under the other URI). `%00` in the
    // name does the same (published under `nul%5C0.spec.json`). Expected: the text's BENZENE_REF_FORM
    // under the URI the client sent. docs/editors.md: "reading the editor's unsaved text of every open
    // document instead of the file on disk"; "A checked contract without problems is published with
    // none" (so an empty list says this text is clean); LSP 3.17 publishDiagnostics: the diagnostics of
    // the document the uri names.
    const text = benzene('😀中')
    const base = pathToFileURL(lsp).href
    const uris = [`${base}/sub/../dotdot.spec.json`, `${base}/./dot.spec.json`, `${base}//double.spec.json`]
    for (const uri of uris) openDoc(server, uri, text)
    for (const uri of uris) {
      const p = await published(server, uri)
      expect(p.diagnostics.find((d) => d.code === 'BENZENE_REF_FORM')?.range.start, uri).toEqual(lspPosition(text, text.indexOf(REF)))
    }
  })
})

// ---------------------------------------------------------------------------------------------
// contracts diff: the new and old locations on every surface.
// ---------------------------------------------------------------------------------------------

describe('contracts diff: positions and text in text, --json, github and sarif', () => {
  const folder = join(dir, 'diff')
  const oldName = 'old.spec.json'
  // A name with a space, an astral character and the characters GitHub properties and URIs escape.
  const newName = 'new 😀%,:#?.spec.json'
  const head =
    '{"openapi":"3.0.1","info":{"title":"t","version":"1"},"requests":[{"topic":"a","request":{"$ref":"#/components/schemas/A"},"response":{"$ref":"#/components/schemas/B"}}],"events":[],"components":{"schemas":{'
  const oldText = [head, '"A":{"type":"object","properties":{}},', '"B":{"description":"x","type":"string"}}}}', ''].join('\n')
  // The new version: a BOM, CRLF, a property whose name holds a bidi override, `%,:` and a newline (the
  // JSON `\n` escape), and the changed type after astral, CJK and combining text on its line.
  const newText =
    '\uFEFF' +
    [
      head,
      '"A":{"type":"object","properties":{"😀p\u202e%,:\\nq":{"type":"string"}}},',
      '"B":{"description":"😀中e\u0301\u202e","type":"integer"}}}}',
      '',
    ].join('\r\n')
  const property = '😀p\u202e%,:\nq'
  const expected = {
    typeNew: checkPosition(newText, newText.indexOf('"integer"')),
    typeOld: checkPosition(oldText, oldText.lastIndexOf('"string"')),
    propertyNew: checkPosition(newText, newText.indexOf('{"type":"string"}}},')),
    propertyOld: checkPosition(oldText, oldText.indexOf('{"type":"object"')),
  }
  // A NATS pair: the new version with a BOM, CRLF and NEL, U+2028 and astral text in a line above the change.
  const natsNew =
    '\uFEFF' +
    ledger
      .replace('  title: Ledger\n', '  title: Ledger\n  description: "😀\u2028中\u0085x"\n')
      .replace('max_msgs: 50000000', 'max_msgs: 100')
      .replace(/\n/g, '\r\n')
  let out: { text: string; stderr: string; json: string; github: string; sarif: string; nats: string }

  beforeAll(() => {
    mkdirSync(folder)
    writeFileSync(join(folder, 'package.json'), '{}')
    writeFileSync(join(folder, oldName), oldText)
    writeFileSync(join(folder, newName), newText)
    writeFileSync(join(folder, 'old.asyncapi.yaml'), ledger)
    writeFileSync(join(folder, 'new.asyncapi.yaml'), natsNew)
    const run = (...extra: string[]) => cli(['diff', oldName, newName, ...extra], folder)
    const t = run()
    expect(t.status, t.stderr).toBe(1)
    out = {
      text: t.stdout,
      stderr: t.stderr,
      json: run('--json').stdout,
      github: run('--format', 'github').stdout,
      sarif: run('--format', 'sarif').stdout,
      nats: cli(['diff', '--json', 'old.asyncapi.yaml', 'new.asyncapi.yaml'], folder).stdout,
    }
  })

  interface Finding {
    rule: string
    old: { file: string; line: number; column: number; pointer: string }
    new: { file: string; line: number; column: number; pointer: string }
    message: string
  }
  const finding = (rule: string, document = out.json) => (JSON.parse(document) as { findings: Finding[] }).findings.find((f) => f.rule === rule)!

  it('--json: the new and the old location of each finding are the oracle’s (the BOM not counted, CRLF one line end)', () => {
    // Holds (pinned).
    expect(finding('schema-type-changed')).toMatchObject({
      new: { file: join(folder, newName), ...expected.typeNew },
      old: { file: join(folder, oldName), ...expected.typeOld },
    })
    expect(finding('schema-property-added')).toMatchObject({ new: expected.propertyNew, old: expected.propertyOld })
    expect(finding('schema-property-added').new.pointer).toBe(`/components/schemas/A/properties/${property}`)
    // Holds (pinned): the terminal-acting characters of the name are \u escapes in the JSON text.
    expect(terminalClean(out.json.replace(/\n/g, ''))).toBe(true)
    const nats = finding('nats-stream-limit-changed', out.nats)
    expect(nats.new).toMatchObject(checkPosition(natsNew, natsNew.indexOf('100\r\n')))
    expect(nats.old).toMatchObject(checkPosition(ledger, ledger.indexOf('50000000')))
  })

  it('text: each finding at `file:line:column (pointer)` of its new location; nothing a terminal acts on', () => {
    // Holds (pinned).
    const { line, column } = expected.typeNew
    expect(out.text).toContain(`schema-type-changed  ${newName}:${line}:${column} (/components/schemas/B/type)`)
    expect(out.text).toContain(`schema-annotation-changed  ${newName}:${line}:20 (/components/schemas/B/description)`)
    expect(terminalClean(out.text.replace(/\n/g, ''))).toBe(true)
    expect(out.text).toContain('\\u{202e}')
  })

  it('Was a defect (fixed): text: the added property’s newline is written raw in the pointer, so the finding’s line breaks in two', () => {
    // Was a defect (fixed): the schema-property-added line ends `(/components/schemas/A/properties/😀p\u{202e}%,:` and
    // `q)  [a]  Component schema "A": ...` follows as a line of its own (the message quotes the name
    // and is whole). Expected one line per finding, the newline shown as an escape (as `check` should,
    // above). docs/cli.md: "then one line per finding with its level, rule id, file:line:column (pointer)
    // of the new location ..., the parties named and the sentence".
    const lines = out.text.split('\n').filter((l) => l.includes('schema-property-added'))
    expect(lines.length).toBeGreaterThan(0)
    for (const l of lines) expect(l, l).toContain('was added')
  })

  it('github: one annotation per finding on the new line and column, the name’s `%`, `,`, `:` escaped, the message’s `%` and newline too', () => {
    // Holds (pinned).
    const escapedName = 'new 😀%25%2C%3A#?.spec.json'
    const { line, column } = expected.typeNew
    expect(out.github).toContain(`::error file=${escapedName},line=${line},col=${column},title=schema-type-changed::`)
    const p = expected.propertyNew
    const added = out.github.split('\n').find((l) => l.includes('title=schema-property-added'))!
    expect(added.startsWith(`::error file=${escapedName},line=${p.line},col=${p.column},title=schema-property-added::`)).toBe(true)
    // The message quotes the name as JSON (its newline the two characters `\n`); `%` is %25.
    expect(added).toContain('Property "😀p\\u{202e}%25,:\\nq" was added')
    for (const l of out.github.split('\n').filter((x) => x !== '')) expect(l).toMatch(/^::(error|warning|notice) file=/)
  })

  it('sarif: valid, the new location with its region, the old one as relatedLocations, the name percent-encoded', () => {
    const log = JSON.parse(out.sarif) as Log
    // Holds (pinned).
    expect(sarifValidate(log), JSON.stringify(sarifValidate.errors, null, 2)).toBe(true)
    expect(log.runs[0]!.columnKind).toBe('utf16CodeUnits')
    const result = log.runs[0]!.results!.find((r) => r.ruleId === 'schema-type-changed')!
    expect(result.locations![0]!.physicalLocation).toEqual({
      artifactLocation: { uri: encodeURIComponent(newName), uriBaseId: '%SRCROOT%' },
      region: { startLine: expected.typeNew.line, startColumn: expected.typeNew.column },
    })
    expect(encodeURIComponent(newName)).toBe('new%20%F0%9F%98%80%25%2C%3A%23%3F.spec.json')
    expect(result.relatedLocations![0]!.physicalLocation).toEqual({
      artifactLocation: { uri: oldName, uriBaseId: '%SRCROOT%' },
      region: { startLine: expected.typeOld.line, startColumn: expected.typeOld.column },
    })
    expect(terminalClean(out.sarif.replace(/\n/g, ''))).toBe(true)
  })
})
