/**
 * Every declared diagnostic code with its severity and one-line meaning, by chapter: what
 * docs/diagnostics.md is generated from (`npm run docs:diagnostics`), and what SARIF rules and the
 * language server's code links describe a code with. Read off the same declarations the compiler
 * uses (each rule's header, each `codes.ts` table), so the three cannot disagree.
 */
import { CORE_CODES, type CodeInfo, type DiagnosticCode } from '../core/codes.js'
import type { Severity } from '../core/diagnostics.js'
import { BENZENE_MODEL_CODES } from '../formats/benzene/codes.js'
import { benzeneRules } from '../formats/benzene/rules/index.js'
import { DASP_LOAD_CODES } from '../formats/dasp/codes.js'
import { daspRules, shapeRules } from '../formats/dasp/rules/index.js'
import { NATS_LOAD_CODES, NATS_LOCK_CODES, NATS_MODEL_CODES, NATS_TARGET_CODES } from '../formats/nats/codes.js'
import { gateRules, natsRules } from '../formats/nats/rules/index.js'
import { PLUGIN_CODES } from '../plugin/codes.js'

export interface CodeRow {
  code: string
  severity: Severity
  meaning: string
  /** The stage that emits it: `core`, `options`, `rule`, `load`, `model`, `lock`, `target`. */
  where: string
}

export interface CodeChapter {
  title: string
  intro: string
  rows: CodeRow[]
}

const rules = (list: ReadonlyArray<{ code: string; severity?: Severity; description: string }>, where: string): CodeRow[] =>
  list.map((r) => ({ code: r.code, severity: r.severity ?? 'error', meaning: r.description, where }))
const table = (codes: Readonly<Record<string, CodeInfo>>, where: string): CodeRow[] =>
  Object.entries(codes).map(([code, info]) => ({ code, severity: info.severity, meaning: info.meaning, where }))

/** Every declared code, by chapter (the order docs/diagnostics.md shows them in). */
export function codeChapters(): CodeChapter[] {
  return [
    { title: 'Every format', intro: 'Reading, parsing, limits and the pipeline (`src/core/codes.ts`).', rows: table(CORE_CODES, 'core') },
    {
      title: 'The plugin',
      intro: 'Its options, checked once when the plugin is made (`src/plugin/codes.ts`; [Options](options.md#checked-options)).',
      rows: table(PLUGIN_CODES, 'options'),
    },
    {
      title: 'Benzene',
      intro: 'Rules (`src/formats/benzene/rules/`), then options, scope and naming (`src/formats/benzene/codes.ts`).',
      rows: [...rules(benzeneRules, 'rule'), ...table(BENZENE_MODEL_CODES, 'model')],
    },
    {
      title: 'NATS',
      intro:
        'Reading the bundle (`src/formats/nats/codes.ts`), then the rules (`src/formats/nats/rules/`) and naming; `contracts lock` has codes of its own (stage `lock`), and so has the Rust target of `contracts generate` (stage `target`).',
      rows: [
        ...table(NATS_LOAD_CODES, 'load'),
        ...rules([...gateRules, ...natsRules], 'rule'),
        ...table(NATS_MODEL_CODES, 'model'),
        ...table(NATS_LOCK_CODES, 'lock'),
        ...table(NATS_TARGET_CODES, 'target'),
      ],
    },
    {
      title: 'DASP',
      intro: 'Reading definitions and pins (`src/formats/dasp/codes.ts`), then the rules (`src/formats/dasp/rules/`).',
      rows: [...table(DASP_LOAD_CODES, 'load'), ...rules([...shapeRules, ...daspRules], 'rule')],
    },
  ]
}

let byCode: Map<string, CodeRow & { chapter: string }> | undefined

/** A code's declaration (severity, meaning, chapter), or undefined for a code nobody declared (none compiles). */
export function codeInfo(code: DiagnosticCode | string): (CodeRow & { chapter: string }) | undefined {
  byCode ??= new Map(codeChapters().flatMap((c) => c.rows.map((r) => [r.code, { ...r, chapter: c.title }] as const)))
  return byCode.get(code)
}

/** The HTML id of a code's row in docs/diagnostics.md (`#benzene_ref_missing`): lower case, as GitHub matches fragments. */
export const codeAnchor = (code: string): string => code.toLowerCase()
