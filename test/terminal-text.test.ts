/**
 * What a hostile contract can put on a terminal, a CI log or an overlay through a diagnostic: nothing
 * that a terminal acts on. Control characters (an ESC sequence that clears the screen or sets the
 * window title), direction overrides and line separators come out as visible escapes, in the message,
 * the path, the code frame (with its caret still under the column) and GitHub annotations; the same
 * text through `contracts check` as a real process.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { codeFrame } from '../src/core/code-frame.js'
import { formatDiagnostic } from '../src/core/report.js'
import { terminalLine, terminalSafe } from '../src/core/terminal-text.js'
import { CLI } from './helpers/cli.js'

/** Written apart from the implementation: every code point a terminal may act on, by Unicode category. */
function actsOnTerminal(c: number): boolean {
  if (c === 0x0a || c === 0x09) return false
  if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true
  if ([0x061c, 0x200e, 0x200f, 0x2028, 0x2029].includes(c) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) return true
  // Characters that draw nothing between two others: two names differing by one look the same (ZWJ and ZWNJ write scripts and emoji, and stay).
  return c === 0x200b || (c >= 0x2060 && c <= 0x2064) || c === 0xfeff
}
const clean = (text: string) => [...text].every((ch) => !actsOnTerminal(ch.codePointAt(0)!))

const hostile = fc.constantFrom(
  '\x1b[2J',
  '\x1b]0;title\x07',
  '\u202e',
  '\u2066',
  '\u200b',
  '\ufeff',
  '\u200d',
  '\r',
  '\u2028',
  '\x9b31m',
  '\x7f',
  '\0',
  'é',
  '—',
  '\t',
  'a',
  // Text that looks like an escape: `\u{a}` written by the document, a lone backslash, `u{`.
  '\\u{a}',
  '\\',
  'u{',
)

/** Written apart from the implementation: every `\u{hex}` read back as its character. */
const unescape = (text: string) => text.replace(/\\u\{([0-9a-f]+)\}/g, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))

describe('terminal-safe text', () => {
  it('leaves nothing a terminal acts on, keeps everything else, and is the identity on safe text (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(hostile, fc.string({ unit: 'binary', maxLength: 4 })), { maxLength: 20 }), (parts) => {
        const text = parts.join('')
        const safe = terminalSafe(text)
        expect(clean(safe.replace(/\n/g, ''))).toBe(true)
        if (clean(text) && !text.includes('\\u{')) expect(safe).toBe(text)
        // Unambiguous: reading every escape back gives the text, so two texts never print the same.
        expect(unescape(safe)).toBe(text)
        expect(unescape(terminalLine(text))).toBe(text)
        // Only what must be escaped is: each unsafe character, and each backslash that starts `u{`.
        const escapes = safe.match(/\\u\{[0-9a-f]+\}/g)?.length ?? 0
        const unsafe = [...text].filter((ch) => ch !== '\n' && actsOnTerminal(ch.codePointAt(0)!)).length
        expect(escapes).toBe(unsafe + (text.match(/\\(?=u\{)/g)?.length ?? 0))
      }),
      { numRuns: 300 },
    )
  })

  it('a code frame escapes the line and keeps its caret under the column', () => {
    const source = 'first\n  "a\x1b[31m\u202eb": 1\nlast\n'
    const column = source.split('\n')[1]!.indexOf('b') + 1
    const frame = codeFrame(source, 2, column).split('\n')
    const line = frame.find((l) => l.startsWith('>'))!
    const caret = frame[frame.indexOf(line) + 1]!
    expect(line).toContain('"a\\u{1b}[31m\\u{202e}b"')
    expect(line[caret.indexOf('^')]).toBe('b')
    expect(clean(frame.join(''))).toBe(true)
  })

  it('the caret stands under its character after wide, fullwidth and combining characters (UAX #11), in the sources and in the package as installed', async () => {
    // What the terminal draws: CJK and fullwidth forms two cells, an emoji of East Asian Width W two,
    // a combining mark none, the rest one. The package's chunks hold their own copy of the width
    // table (scripts/bundle-cli.mjs), so the bundle is asked too, by the package's name.
    const { formatDiagnostic: installed } = await import('unplugin-contracts')
    const cells = (text: string) =>
      [...text].reduce((n, c) => n + (/\p{Mn}/u.test(c) ? 0 : /[\u3000-\u9fff\uff01-\uff60]|\p{Extended_Pictographic}/u.test(c) ? 2 : 1), 0)
    for (const prefix of ['名前', 'ＡＢＣ', 'e\u0301te\u0301', '🙂x', 'plain']) {
      const source = `{\n  "${prefix}": tru\n}\n`
      const column = source.split('\n')[1]!.indexOf('tru') + 1
      const frames = [
        codeFrame(source, 2, column),
        installed({ code: 'X', severity: 'error', message: 'm', file: '/p/a.json', pointer: '', line: 2, column }, () => source),
      ]
      for (const frame of frames) {
        const lines = frame.split('\n')
        const at = lines.findIndex((l) => l.startsWith('>'))
        const line = lines[at]!
        const caret = lines[at + 1]!
        const bar = line.indexOf('| ') + 2
        // The caret's cell equals the cells drawn before `tru` on the line.
        expect(cells(caret.slice(bar, caret.indexOf('^'))), prefix).toBe(cells(line.slice(bar, line.indexOf('tru'))))
      }
    }
  })

  it('a diagnostic: message, path, pointer and related locations escaped', () => {
    const text = formatDiagnostic({
      code: 'X',
      severity: 'error',
      message: 'named "\x1b]0;pwned\x07"',
      file: '/p/\u202eevil.spec.json',
      pointer: '/a\u2028b',
      line: 1,
      column: 1,
      related: [{ file: '/p/\x1b[2Jother.json', line: 1, column: 1, pointer: '', message: 'also \u2066here' }],
    } as never)
    expect(clean(text.replace(/\n/g, ''))).toBe(true)
    expect(text).toContain('named "\\u{1b}]0;pwned\\u{7}"')
    expect(text).toContain('/p/\\u{202e}evil.spec.json')
  })
})

describe('contracts check prints no terminal control from a contract', () => {
  const dir = join(import.meta.dirname, '.tmp/terminal-text')
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const payments = readFileSync(join(import.meta.dirname, '../fixtures/benzene/valid/payments.spec.json'), 'utf8')
  // A $ref naming nothing, written with an escape sequence and a direction override: quoted in the message.
  writeFileSync(join(dir, 'ref.spec.json'), payments.replace('"#/components/schemas/RefundPayment"', '"#/components/schemas/Refund\\u001b[2J\\u202eX"'))
  // Raw control bytes in YAML text: shown by the code frame.
  writeFileSync(join(dir, 'raw.asyncapi.yaml'), 'asyncapi: 3.1.0\ninfo: { title: "t\x1b[31m\u202e", version: 1.0.0 }\nchannels: {}\n')

  for (const format of [[], ['--format', 'github']]) {
    it(`text ${format.length ? 'as GitHub annotations' : 'with code frames'}`, () => {
      const r = spawnSync(process.execPath, [CLI, 'check', ...format, join(dir, 'ref.spec.json'), join(dir, 'raw.asyncapi.yaml')], { encoding: 'utf8' })
      expect(r.status).toBe(1)
      const output = r.stdout + r.stderr
      expect(output).toContain('BENZENE_REF_MISSING')
      expect(output).toContain('\\u{202e}')
      expect(clean(output.replace(/\n/g, '')), JSON.stringify(output)).toBe(true)
    })
  }
})
