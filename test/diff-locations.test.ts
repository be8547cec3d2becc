/**
 * What every finding of every format's differ promises, checked on every fixture pair of the three
 * formats (each rule's firing and near edits) through the runner, as `contracts diff` runs them:
 * a location in both versions, each naming a node of its own file (read apart from the differs, with
 * the `yaml` package), an `info` finding that names no audience (info: nobody breaks), and each
 * audience named once.
 * Something one version lacks is located there at the node enclosing where it is in the other
 * (docs/cli.md, `contracts diff`).
 */
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { findingAnnotation, whereRead, whereShown } from '../src/cli/diff-report.js'
import { diffContracts } from '../src/core/diff/runner.js'
import { SCHEMA_DIFF_RULES } from '../src/core/diff/schema-diff.js'
import type { DiffFinding, DiffLocation } from '../src/core/diff/types.js'
import { loadDiffer } from '../src/formats/diffs.js'
import { formats } from '../src/formats/index.js'
import { splitPointer } from '../src/runtime/shared/json-pointer.js'
import { makeVersion, type Edit } from './dasp-diff-fixtures.js'
import { miniNatsDocument } from './helpers/nats-mini.js'
import { testFolder } from './helpers/temp-folder.js'

const FIXTURES = resolve(import.meta.dirname, '../fixtures/diff')
const env = { formats, loadDiffer }

/** Whether `pointer` names a node of the file's JSON or YAML value. */
function names(file: string, pointer: string): boolean {
  let node: unknown = parse(readFileSync(file, 'utf8'), { maxAliasCount: -1 })
  for (const token of splitPointer(pointer)) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, token)) return false
    node = (node as Record<string, unknown>)[token]
  }
  return true
}

function expectPromises(findings: readonly DiffFinding[], label: string): void {
  for (const finding of findings) {
    const what = `${label}: ${finding.rule} ${finding.message}`
    for (const location of [finding.old, finding.new] as Array<DiffLocation | undefined>) {
      expect(location, `${what}: a location in both versions`).toBeDefined()
      expect(names(location!.file, location!.pointer), `${what}: ${location!.pointer} names a node of ${location!.file}`).toBe(true)
    }
    if (finding.level === 'info') expect(finding.audiences, `${what}: info names no audience`).toEqual([])
    const named = finding.audiences.map((a) => `${a.kind}\u0000${a.name ?? ''}`)
    expect(new Set(named).size, `${what}: each audience once`).toBe(named.length)
  }
}

/** Every folder under `root` holding `old.<ext>` and `new.<ext>` (and maybe `near.<ext>`), as [label, old, other] pairs. */
function pairs(root: string, extension: string): Array<[string, string, string]> {
  const out: Array<[string, string, string]> = []
  const walk = (dir: string) => {
    const old = join(dir, `old${extension}`)
    if (existsSync(old))
      for (const other of ['new', 'near']) {
        const file = join(dir, `${other}${extension}`)
        if (existsSync(file)) out.push([`${dir.slice(root.length + 1)} ${other}`, old, file])
      }
    for (const entry of readdirSync(dir)) if (statSync(join(dir, entry)).isDirectory()) walk(join(dir, entry))
  }
  walk(root)
  return out
}

describe('every finding is located in both versions, at nodes of each, and info names no audience', () => {
  it('Benzene: every rule fixture', async () => {
    const all = pairs(join(FIXTURES, 'benzene'), '.spec.json')
    expect(all.length).toBeGreaterThan(40)
    for (const [label, old, next] of all) {
      const result = await diffContracts({ file: old }, { file: next }, env)
      expect(result.valid, label).toBe(true)
      expectPromises(result.findings, label)
    }
  })

  it('NATS: every rule fixture, bundles and interactions included', async () => {
    const all = [
      ...pairs(join(FIXTURES, 'nats'), '.asyncapi.yaml'),
      ...readdirSync(join(FIXTURES, 'nats/bundle-pairs'))
        .filter((rule) => statSync(join(FIXTURES, 'nats/bundle-pairs', rule)).isDirectory())
        .flatMap((rule) => {
          const at = (version: string) => join(FIXTURES, 'nats/bundle-pairs', rule, version, 'payments/asyncapi/asyncapi.yaml')
          return (['new', 'near'] as const).map((next): [string, string, string] => [`bundle-pairs/${rule} ${next}`, at('old'), at(next)])
        }),
    ]
    expect(all.length).toBeGreaterThan(80)
    for (const [label, old, next] of all) {
      const result = await diffContracts({ file: old }, { file: next }, env)
      expect(result.valid, `${label}: ${JSON.stringify([...result.old.diagnostics, ...result.new.diagnostics].slice(0, 2))}`).toBe(true)
      expectPromises(result.findings, label)
    }
  })

  it('DASP: every rule case', async () => {
    const cases = JSON.parse(readFileSync(join(FIXTURES, 'dasp/cases.json'), 'utf8')) as Array<{
      rule: string
      old?: Edit[]
      new?: Edit[]
      near: { old?: Edit[]; new?: Edit[] }
    }>
    const dir = testFolder('diff-locations-dasp')
    expect(cases.length).toBeGreaterThan(30)
    for (const [i, c] of cases.entries())
      for (const [kind, pair] of [
        ['fires', c],
        ['near', c.near],
      ] as const) {
        const old = makeVersion(join(dir, `${i}-${kind}/old`), pair.old ?? [])
        const next = makeVersion(join(dir, `${i}-${kind}/new`), pair.new ?? [])
        const result = await diffContracts({ file: old }, { file: next }, env)
        expect(result.valid, `${c.rule} ${kind}`).toBe(true)
        expectPromises(result.findings, `${c.rule} ${kind}`)
      }
  })
})

describe('the rule catalogues', () => {
  it('a rule that reports only at info names no audience; every other names one (each format, and the schema engine)', async () => {
    const catalogues = [
      ...(await Promise.all(['benzene', 'nats', 'dasp'].map(async (format) => [format, (await loadDiffer(format))!.rules] as const))),
      ['schema', SCHEMA_DIFF_RULES] as const,
    ]
    for (const [name, rules] of catalogues)
      for (const rule of rules) expect(rule.audiences.length > 0, `${name} ${rule.id}`).toBe(rule.levels.some((level) => level !== 'info'))
  })
})

describe('what the outputs show of a removal', () => {
  it('a GitHub annotation and a SARIF result are on the new file, at the node that held it; the text shows where it was', async () => {
    const old = join(FIXTURES, 'benzene/benzene-request-removed/old.spec.json')
    const next = join(FIXTURES, 'benzene/benzene-request-removed/new.spec.json')
    const result = await diffContracts({ file: old }, { file: next }, env)
    const removed = result.findings.find((f) => f.rule === 'benzene-request-removed')!
    expect([removed.old!.pointer, removed.new!.pointer]).toEqual(['/requests/2', '/requests'])
    const annotation = findingAnnotation(removed, FIXTURES)
    expect(annotation).toMatch(
      new RegExp(`^::error file=benzene/benzene-request-removed/new\\.spec\\.json,line=${removed.new!.line},col=${removed.new!.column},`),
    )
    expect(whereShown(removed)).toBe(removed.new)
    expect(whereRead(removed)).toBe(removed.old)
    // A change at one node is read where it is now.
    const changed = (
      await diffContracts(
        { file: join(FIXTURES, 'benzene/benzene-openapi-changed/old.spec.json') },
        { file: join(FIXTURES, 'benzene/benzene-openapi-changed/new.spec.json') },
        env,
      )
    ).findings.find((f) => f.rule === 'benzene-openapi-changed')!
    expect(whereRead(changed)).toBe(changed.new)
  })
})

describe('a node one version lacks inside a thing both have', () => {
  it('NATS: a payload taken out of a message is located at the message in the new version', async () => {
    const dir = testFolder('diff-locations-payload')
    const text = (message: string) => miniNatsDocument({ message: [`        ${message}`] })
    const old = join(dir, 'old.asyncapi.yaml')
    const next = join(dir, 'new.asyncapi.yaml')
    writeFileSync(old, text('payload: { type: integer }'))
    writeFileSync(next, text('summary: no payload now'))
    const result = await diffContracts({ file: old }, { file: next }, env)
    expect(result.valid).toBe(true)
    expect(result.findings.length).toBeGreaterThan(0)
    expectPromises(result.findings, 'payload removed')
    const removed = result.findings.find((f) => f.old!.pointer === '/channels/placed/messages/placed/payload')!
    expect([removed.new!.pointer, removed.new!.line, removed.new!.column]).toEqual(['/channels/placed/messages/placed', 20, 9])
  })
})
