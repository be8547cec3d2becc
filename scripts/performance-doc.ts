/**
 * `npm run docs:performance`: writes the figures of docs/performance.md again from
 * bench/results.json: the table between the `figures` markers (one row per results.json key) and
 * every figure quoted in the text as `**3.49** (`key`)` or `**1.17** (`key.field`)`, each kept at the
 * precision the text gives it. test/performance-doc.test.ts fails when the chapter differs from
 * what this writes, so the chapter cannot drift from the measurements.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
export const PERFORMANCE_DOC = join(root, 'docs/performance.md')
export const RESULTS = join(root, 'bench/results.json')

export type Row = { ratio: number; target: string; met: boolean; ours_ms?: number; baseline_ms?: number; spread?: [number, number]; [field: string]: unknown }
export type Results = Record<string, Row>

/** The file of bench/ that measures each row (a case run alone: `npx tsx bench/<file>.ts`). */
const BENCH_FILES: Array<[RegExp, string]> = [
  [/^nats-compile-|^module-size-nats-/, 'bench/nats-compile.ts'],
  [/-recompile-/, 'bench/incremental.ts'],
  [/^subject-/, 'bench/subjects.ts'],
  [/^benzene-validators-/, 'bench/validators.ts'],
  [/^cold-/, 'bench/cold-start.ts'],
  [/^build-100-contracts-/, 'bench/bundler-build.ts'],
  [/^types-/, 'bench/types.ts'],
  [/^vite-dev-edit-served-/, 'bench/dev-loop-server.ts'],
  [/^module-size-/, 'bench/module-size.ts'],
  [/^nats-client-/, 'bench/nats-client.ts'],
  [/^nats-validators-/, 'bench/nats-validator-forms.ts'],
  [/^diff-/, 'bench/diff.ts'],
  [/^executor-/, 'bench/executor.ts'],
  [/^cluster-/, 'bench/cluster.ts'],
  [
    /^(nats-topology-|nats-scaling-|benzene-scaling-|benzene-compile-|vite-warm-rebuild$|tree-shaking-|runtime-size-|nats-memory-|vite-dev-edit-to-visible-)/,
    'bench/run.ts',
  ],
]

export function benchFile(key: string): string {
  const found = BENCH_FILES.find(([pattern]) => pattern.test(key))
  if (!found) throw new Error(`scripts/performance-doc.ts: no bench file known for the results.json key ${key}`)
  return found[1]
}

/** A key of results.json, or a key and one of its row's fields: `nats-compile-500-vs-js-yaml.yaml_parseDocument_ratio`. */
export const KEY_SHAPE = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)+(?:\.[A-Za-z_]+)?$/

/** A figure quoted in the text: a bold number, a few words at most (its unit), then its key in parentheses. */
const FIGURE = /\*\*([0-9][0-9,]*(?:\.[0-9]+)?)\*\*([a-zA-Zµ ]{0,16})\s+\(`([a-z][a-z0-9]*(?:-[a-z0-9]+)+)(?:\.([A-Za-z_]+))?`/g

export interface Figure {
  key: string
  field: string
  shown: string
}

/** Every bold number of the text: each must be a quoted figure. */
export const boldNumbers = (doc: string): string[] => [...doc.matchAll(/\*\*[0-9][0-9,.]*\*\*/g)].map((m) => m[0])

/** Every figure the text quotes, with its key and field (`ratio` unless named). */
export function quotedFigures(doc: string): Figure[] {
  return [...doc.matchAll(FIGURE)].map((m) => ({ shown: m[1]!, key: m[3]!, field: m[4] ?? 'ratio' }))
}

/** `value` written at the precision and with the digit grouping of `shown`. */
export function asShown(value: number, shown: string): string {
  const decimals = shown.includes('.') ? shown.length - shown.indexOf('.') - 1 : 0
  const text = value.toFixed(decimals)
  if (!shown.includes(',')) return text
  const [whole, fraction] = text.split('.')
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  return fraction === undefined ? grouped : `${grouped}.${fraction}`
}

/** The value of a row's field, a number (a figure of the text must name one). */
export function fieldValue(results: Results, key: string, field: string): number {
  const row = results[key]
  if (row === undefined) throw new Error(`docs/performance.md quotes ${key}, which bench/results.json has no row for`)
  const value = row[field]
  if (typeof value !== 'number') throw new Error(`docs/performance.md quotes ${key}.${field}, which is not a number in bench/results.json`)
  return value
}

const ms = (value: number | undefined) => (value === undefined ? '' : value >= 100 ? value.toFixed(0) : value.toFixed(1))
const ratio = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(2))
const cell = (text: string) => text.replace(/\|/g, '\\|')

/** The table of every row, in results.json's order. */
export function figuresTable(results: Results): string {
  const lines = [
    '<!-- Written by `npm run docs:performance` from bench/results.json; do not edit. -->',
    '',
    '| case (`results.json` key) | measured by | ours (ms) | baseline (ms) | ratio | spread | target | met |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ]
  for (const [key, row] of Object.entries(results)) {
    const spread = Array.isArray(row.spread) ? `${row.spread[0].toFixed(2)}-${row.spread[1].toFixed(2)}` : ''
    lines.push(
      `| \`${key}\` | \`${benchFile(key)}\` | ${ms(row.ours_ms)} | ${ms(row.baseline_ms)} | ${ratio(row.ratio)} | ${spread} | ${cell(row.target)} | ${row.met ? 'yes' : 'NO'} |`,
    )
  }
  return lines.join('\n')
}

/** The chapter with its table and every quoted figure written from `results`. */
export function refreshedDoc(doc: string, results: Results): string {
  const start = '<!-- figures:start -->\n'
  const end = '\n<!-- figures:end -->'
  const from = doc.indexOf(start)
  const to = doc.indexOf(end)
  if (from === -1 || to < from) throw new Error('docs/performance.md has lost its figures markers')
  const tabled = doc.slice(0, from + start.length) + figuresTable(results) + doc.slice(to)
  return tabled.replace(FIGURE, (match, shown: string, _unit: string, key: string, field: string | undefined) =>
    match.replace(`**${shown}**`, `**${asShown(fieldValue(results, key, field ?? 'ratio'), shown)}**`),
  )
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const results = JSON.parse(readFileSync(RESULTS, 'utf8')) as Results
  writeFileSync(PERFORMANCE_DOC, refreshedDoc(readFileSync(PERFORMANCE_DOC, 'utf8'), results))
}
