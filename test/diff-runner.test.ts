/**
 * The diff runner (src/core/diff/runner.ts) with a fake differ registered for the Benzene format:
 * what the runner does with any differ's findings (order, duplicates, `--audience`, `--fail-on`, the
 * ignore file and its expiry), its refusals, and each side's `read`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { diffContracts, diffPair, judge, DiffUsageError, type DiffEnvironment } from '../src/core/diff/runner.js'
import { IgnoreFileError, findIgnoreFile, parseIgnoreFile, readIgnoreFile } from '../src/core/diff/ignore.js'
import { sortFindings } from '../src/core/diff/findings.js'
import canonicalize from 'canonicalize'
import type { DiffFinding, DiffSide, FormatDiffer } from '../src/core/diff/types.js'
import { formats } from '../src/formats/index.js'
import { loadDiffer } from '../src/formats/diffs.js'

const root = join(import.meta.dirname, '..')
const payments = readFileSync(join(root, 'fixtures/benzene/valid/payments.spec.json'), 'utf8')
const tmp = mkdtempSync(join(tmpdir(), 'contracts-diff-runner-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** Two versions in a folder of their own (a package.json marks the project root for the ignore file). */
function versions(name: string, oldText = payments, newText = payments): { dir: string; old: string; next: string } {
  const dir = join(tmp, name)
  mkdirSync(join(dir, 'old'), { recursive: true })
  mkdirSync(join(dir, 'new'), { recursive: true })
  writeFileSync(join(dir, 'package.json'), '{}')
  writeFileSync(join(dir, 'old/payments.spec.json'), oldText)
  writeFileSync(join(dir, 'new/payments.spec.json'), newText)
  return { dir, old: join(dir, 'old/payments.spec.json'), next: join(dir, 'new/payments.spec.json') }
}

const at = (file: string, line: number, pointer = `/l${line}`) => ({ file, pointer, line, column: 3 })

/** A differ that reports what the test gives it (and records the sides it was handed). */
function fakeDiffer(make: (old: DiffSide<unknown>, next: DiffSide<unknown>) => DiffFinding[] | Promise<DiffFinding[]>) {
  const seen: Array<{ old: DiffSide<unknown>; next: DiffSide<unknown> }> = []
  const differ: FormatDiffer<unknown> = {
    format: 'benzene',
    rules: [
      {
        id: 'fake-removed',
        levels: ['breaking'],
        audiences: ['client'],
        summary: 'Removed.',
        example: { old: 'a', new: 'b' },
        mirror: { none: 'fake' },
      },
    ],
    diff: (old, next) => {
      seen.push({ old, next })
      return make(old, next)
    },
  }
  const env: DiffEnvironment = { formats, loadDiffer: async (format) => (format === 'benzene' ? differ : loadDiffer(format)) }
  return { env, seen }
}

const finding = (rule: string, level: DiffFinding['level'], kinds: string[], line: number, file = '/n'): DiffFinding => ({
  rule,
  level,
  audiences: kinds.map((kind) => ({ kind })),
  new: at(file, line),
  message: `${rule} at ${line}.`,
})

describe('the runner with a fake differ', () => {
  it('hands the differ both models; sorts by new location, then old, then rule; reports each finding once', async () => {
    const { old, next } = versions('order')
    const a = finding('b-rule', 'info', ['client'], 9, next)
    const b = finding('a-rule', 'breaking', ['service'], 9, next)
    const c = finding('z-rule', 'warning', ['client'], 2, next)
    const removed: DiffFinding = { rule: 'fake-removed', level: 'breaking', audiences: [{ kind: 'client' }], old: at(old, 1), message: 'gone' }
    const { env, seen } = fakeDiffer(() => [a, removed, b, c, { ...c, audiences: [{ kind: 'client' }] }])
    const result = await diffContracts({ file: old }, { file: next }, env)
    expect(result.valid).toBe(true)
    expect(result.format).toBe('benzene')
    expect(result.findings).toEqual([c, b, a, removed])
    expect(result.verdict.counts).toEqual({ breaking: 2, warning: 1, info: 1 })
    expect([result.verdict.failed, result.status]).toEqual([true, 1])
    expect(seen).toHaveLength(1)
    expect(seen[0]!.old.file).toBe(old)
    expect(seen[0]!.next.file).toBe(next)
    expect(seen[0]!.old.model).toBeTypeOf('object')
    expect(seen[0]!.next.model).toBeTypeOf('object')
    expect(result.rules.map((r) => r.id)).toEqual(['fake-removed'])
  })

  it('--fail-on: breaking fails by default; a warning fails only with --fail-on warning; info never', async () => {
    const { old, next } = versions('fail-on')
    const warning = [finding('w', 'warning', ['client'], 1, next), finding('i', 'info', [], 2, next)]
    const { env } = fakeDiffer(() => warning)
    expect((await diffContracts({ file: old }, { file: next }, env)).status).toBe(0)
    expect((await diffContracts({ file: old }, { file: next }, env, { failOn: 'warning' })).status).toBe(1)
    expect(judge([finding('i', 'info', [], 2)], { failOn: 'warning' }).failed).toBe(false)
    expect(judge([finding('b', 'breaking', ['x'], 2)], { failOn: 'warning' }).failed).toBe(true)
    expect(judge([]).failed).toBe(false)
  })

  it('--audience keeps the findings that name the kind (and those that break everyone)', () => {
    const all = [
      finding('s', 'breaking', ['service'], 1),
      finding('c', 'breaking', ['client', 'service'], 2),
      finding('i', 'info', [], 3),
      finding('contract-removed', 'breaking', ['everyone'], 4),
    ]
    const verdict = judge(all, { audience: 'client' })
    expect(verdict.findings.map((f) => f.rule)).toEqual(['c', 'contract-removed'])
    expect(verdict.failed).toBe(true)
    expect(judge([all[0]!], { audience: 'client' })).toMatchObject({ findings: [], failed: false })
  })

  it('refuses to diff a version with errors: its diagnostics, no findings, exit status 1', async () => {
    const { old, next } = versions('invalid', payments, payments.replace('"#/components/schemas/SpecRequest"', '"#/components/schemas/Nope"'))
    const { env, seen } = fakeDiffer(() => [finding('x', 'info', [], 1)])
    const result = await diffContracts({ file: old }, { file: next }, env)
    expect([result.valid, result.status, result.findings]).toEqual([false, 1, []])
    expect(result.new.diagnostics.map((d) => d.code)).toContain('BENZENE_REF_MISSING')
    expect(result.old.diagnostics).toEqual([])
    expect(seen).toHaveLength(0)
  })

  it('usage errors: two formats, a file no format claims; a differ that throws is CONTRACTS_INTERNAL', async () => {
    const { old, next } = versions('usage')
    const { env } = fakeDiffer(() => {
      throw new Error('boom')
    })
    await expect(diffPair({ file: old }, { file: join(root, 'fixtures/dasp/counter.dasp.json') }, env)).rejects.toThrow(DiffUsageError)
    await expect(diffPair({ file: old }, { file: join(tmp, 'x.txt') }, env)).rejects.toThrow(/No contract format handles/)
    const thrown = await diffContracts({ file: old }, { file: next }, env)
    expect([thrown.valid, thrown.status]).toEqual([false, 1])
    expect(thrown.new.diagnostics.at(-1)).toMatchObject({ code: 'CONTRACTS_INTERNAL', message: expect.stringContaining('boom') })
  })

  it('the real placeholder differs plug in: no findings, exit 0', async () => {
    const { old, next } = versions('placeholder')
    const result = await diffContracts({ file: old }, { file: next }, { formats, loadDiffer })
    expect([result.valid, result.findings, result.status]).toEqual([true, [], 0])
  })

  it("each side's read: that version's files in its tree; nothing outside it, nothing through a link", async () => {
    const { dir, old, next } = versions('read')
    writeFileSync(join(dir, 'old/notes.txt'), 'old notes')
    writeFileSync(join(dir, 'new/notes.txt'), 'new notes')
    writeFileSync(join(dir, 'secret.txt'), 'secret')
    symlinkSync(join(dir, 'secret.txt'), join(dir, 'new/link.txt'))
    const reads: Array<string | undefined> = []
    const { env } = fakeDiffer(async (o, n) => {
      reads.push(await o.read(join(dir, 'old/notes.txt')), await n.read(join(dir, 'new/notes.txt')))
      reads.push(await n.read(join(dir, 'secret.txt')), await n.read(join(dir, 'new/../secret.txt')), await n.read(join(dir, 'new/link.txt')))
      reads.push(await n.read(join(dir, 'new/missing.txt')), await n.read(join(dir, 'new/a\0b')))
      return []
    })
    await diffContracts({ file: old }, { file: next }, env)
    expect(reads).toEqual(['old notes', 'new notes', undefined, undefined, undefined, undefined, undefined])
  })

  it('a finding whose data JSON cannot hold is still sorted and kept', () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const f = { ...finding('a', 'info', [], 1), data: cyclic }
    expect(sortFindings([f, f])).toHaveLength(2)
  })

  it('orders and deduplicates as sorting every finding by its whole canonical JSON did', () => {
    // The reference: each finding's canonical JSON made up front, kept once, the JSON breaking ties.
    const reference = (findings: DiffFinding[]) => {
      const once = new Map<string, DiffFinding>()
      for (const f of findings) if (!once.has(canonicalize(f)!)) once.set(canonicalize(f)!, f)
      const level = (f: DiffFinding) => ['breaking', 'warning', 'info'].indexOf(f.level)
      const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
      const loc = (a: DiffFinding['new'], b: DiffFinding['new']) =>
        a === undefined || b === undefined
          ? a === b
            ? 0
            : a === undefined
              ? 1
              : -1
          : text(a.file, b.file) || a.line - b.line || a.column - b.column || text(a.pointer, b.pointer)
      return [...once.entries()]
        .sort(
          ([ka, a], [kb, b]) =>
            loc(a.new, b.new) || loc(a.old, b.old) || text(a.rule, b.rule) || level(a) - level(b) || text(a.message, b.message) || text(ka, kb),
        )
        .map(([, f]) => f)
    }
    let seed = 7
    const pick = <T>(items: readonly T[]): T => items[(seed = (seed * 1103515245 + 12345) % 2147483648) % items.length]!
    for (let round = 0; round < 60; round++) {
      const findings: DiffFinding[] = []
      for (let i = 0; i < 12; i++) {
        const at = (line: number) => ({ file: pick(['/a', '/b']), pointer: pick(['/x', '/y']), line, column: 1 })
        const f: DiffFinding = {
          rule: pick(['r1', 'r2']),
          level: pick(['breaking', 'warning', 'info'] as const),
          audiences: pick([[], [{ kind: 'publisher' }], [{ kind: 'subscriber', name: 'c' }]]),
          message: pick(['m1', 'm2']),
        }
        if (pick([true, false])) f.new = at(pick([1, 2]))
        if (pick([true, false])) f.old = at(pick([1, 2]))
        if (pick([true, false])) f.data = { effect: pick(['narrows', 'widens']), witness: pick([1, [1], { a: 1 }]) }
        findings.push(f, ...(pick([true, false]) ? [structuredClone(f)] : []))
      }
      expect(sortFindings(findings)).toEqual(reference(findings))
    }
  })
})

describe('the ignore file', () => {
  const file = '/p/.contracts-diff-ignore.yaml'
  const accepted = `# accepted breaks
- rule: fake-removed
  pointer: /l4
  reason: "v1 is retired"
- rule: z-rule
  pointer: /l2
  reason: until the clients move
  expires: 2026-06-30
`
  it('an entry ignores the finding of its rule and pointer (new or old location), with its reason', () => {
    const list = parseIgnoreFile(file, accepted)
    expect(list.entries).toEqual([
      { rule: 'fake-removed', pointer: '/l4', reason: 'v1 is retired', file, line: 2, column: 3 },
      { rule: 'z-rule', pointer: '/l2', reason: 'until the clients move', expires: '2026-06-30', file, line: 5, column: 3 },
    ])
    const removed: DiffFinding = { rule: 'fake-removed', level: 'breaking', audiences: [{ kind: 'client' }], old: at('/o', 4), message: 'gone' }
    const z = finding('z-rule', 'breaking', ['client'], 2)
    const other = finding('z-rule', 'breaking', ['client'], 3)
    const verdict = judge([removed, z, other], { ignore: list, today: '2026-06-30' })
    expect(verdict.findings).toEqual([other])
    expect(verdict.ignored).toEqual([
      { finding: z, reason: 'until the clients move', entry: list.entries[1] },
      { finding: removed, reason: 'v1 is retired', entry: list.entries[0] },
    ])
    expect(verdict.expired).toEqual([])
    expect(judge([removed, z], { ignore: list, today: '2026-06-30' }).failed).toBe(false)
  })

  it('an expired entry ignores nothing (its break fails again) and is reported', () => {
    const list = parseIgnoreFile(file, accepted)
    const z = finding('z-rule', 'breaking', ['client'], 2)
    const verdict = judge([z], { ignore: list, today: '2026-07-01' })
    expect(verdict.findings).toEqual([z])
    expect(verdict.ignored).toEqual([])
    expect(verdict.expired).toEqual([list.entries[1]])
    expect(verdict.failed).toBe(true)
  })

  it('an empty file, or one of comments only, is an empty list; a pointer with ~0 and ~1 is one', () => {
    expect(parseIgnoreFile(file, '').entries).toEqual([])
    expect(parseIgnoreFile(file, '# nothing accepted yet\n').entries).toEqual([])
    expect(parseIgnoreFile(file, '- rule: a\n  pointer: /a~1b/c~0d\n  reason: r\n').entries[0]!.pointer).toBe('/a~1b/c~0d')
  })

  it('a malformed file is an error at its line and column', () => {
    const cases: Array<[string, number, number, RegExp]> = [
      ['- rule: a\n  pointer: /x\n', 1, 3, /no reason/],
      ['rule: a\n', 1, 1, /a list of entries/],
      ['- rule: a\n  pointer: /x\n  reason: r\n  expires: 2026-02-30\n', 4, 12, /is not a day/],
      // A value at fault is reported where it is written (an outside pass: these were all at the entry's 1:3).
      ['- rule: a\n  pointer: x\n  reason: r\n', 2, 12, /not a JSON Pointer/],
      ['- rule: a\n  pointer: /x\n  reason: "  "\n', 3, 11, /empty reason/],
      // RFC 6901: `~` is `~0` or `~1`, nothing else (an outside pass: such an entry was taken and ignored nothing).
      ['- rule: a\n  pointer: /channels/pl~2aced\n  reason: r\n', 2, 12, /not a JSON Pointer: "~"/],
      ['- rule: a\n  pointer: /channels/placed~\n  reason: r\n', 2, 12, /not a JSON Pointer: "~"/],
      ['- rule: a\n  pointer: /x\n  reason: r\n  colour: red\n', 4, 3, /unknown key "colour"/],
      ['- rule: [a]\n  pointer: /x\n  reason: r\n', 1, 9, /rule must be a string/],
      ['- rule: a\n  pointer: /x\n  reason: "unclosed\n', 4, 1, /./],
      ['- rule: a\n  rule: b\n  pointer: /x\n  reason: r\n', 2, 3, /./],
      ['- just a string\n', 1, 3, /a mapping/],
    ]
    for (const [text, line, column, reason] of cases) {
      let error: unknown
      try {
        parseIgnoreFile(file, text)
      } catch (e) {
        error = e
      }
      expect(error, text).toBeInstanceOf(IgnoreFileError)
      expect([(error as IgnoreFileError).line, (error as IgnoreFileError).column], text).toEqual([line, column])
      expect((error as IgnoreFileError).message, text).toMatch(reason)
      expect((error as IgnoreFileError).message.startsWith(`${file}:${line}:${column}: `)).toBe(true)
    }
    expect(parseIgnoreFile(file, '# nothing accepted\n').entries).toEqual([])
  })

  it('is found next to the new file or above it, up to the project root; never through a link', () => {
    const { dir, next } = versions('find')
    expect(findIgnoreFile(next)).toBeUndefined()
    writeFileSync(join(dir, '.contracts-diff-ignore.yaml'), accepted)
    expect(findIgnoreFile(next)).toBe(join(dir, '.contracts-diff-ignore.yaml'))
    writeFileSync(join(dir, 'new/.contracts-diff-ignore.yaml'), '[]')
    expect(findIgnoreFile(next)).toBe(join(dir, 'new/.contracts-diff-ignore.yaml'))
    const outer = join(tmp, 'outer')
    mkdirSync(join(outer, 'project/contracts'), { recursive: true })
    writeFileSync(join(outer, '.contracts-diff-ignore.yaml'), '[]')
    writeFileSync(join(outer, 'project/package.json'), '{}')
    expect(findIgnoreFile(join(outer, 'project/contracts/x.spec.json'))).toBeUndefined()
    symlinkSync(join(dir, '.contracts-diff-ignore.yaml'), join(outer, 'project/contracts/.contracts-diff-ignore.yaml'))
    expect(() => readIgnoreFile(join(outer, 'project/contracts/.contracts-diff-ignore.yaml'))).toThrow(/symbolic link/)
    expect(readIgnoreFile(join(dir, '.contracts-diff-ignore.yaml')).entries).toHaveLength(2)
  })
})
