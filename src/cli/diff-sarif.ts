/**
 * `contracts diff --format sarif`: one SARIF 2.1.0 log for code scanning. One rule per rule id that
 * occurs, described by its differ's catalogue entry and linked to its section of docs/diff.md; one
 * result per finding, at the new location (`locations`) with the old one as a related location; a
 * finding the ignore file accepted is a result with an external suppression (its reason as the
 * justification); the diagnostics of a version with errors are results as `check --format sarif` makes them.
 */
import type { Log, ReportingDescriptor, Result } from 'sarif'
import { CORE_DIFF_RULES } from '../core/diff/core-rules.js'
import { SCHEMA_DIFF_RULES } from '../core/diff/schema-diff.js'
import type { DiffFinding, DiffRule } from '../core/diff/types.js'
import { packageVersion } from '../core/package-info.js'
import { diffRuleDocsUrl, informationUrl } from './docs-links.js'
import { invalidDiagnostics, whereShown, type DiffRun } from './diff-report.js'
import { SARIF_SCHEMA, SRCROOT, diagnosticRule, folderUri, location, sarifText } from './sarif.js'

const LEVEL = { breaking: 'error', warning: 'warning', info: 'note' } as const

/** SARIF's readable rule name: `subject-narrowed` -> `SubjectNarrowed`. */
const ruleName = (id: string) =>
  id
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')

function descriptor(id: string, rule: DiffRule | undefined): ReportingDescriptor {
  const summary = rule?.summary ?? id
  const helpUri = diffRuleDocsUrl(id)
  const example = rule ? `\n\nold: ${rule.example.old}\nnew: ${rule.example.new}` : ''
  return {
    id,
    name: ruleName(id),
    shortDescription: { text: sarifText(summary) },
    fullDescription: { text: sarifText(summary) },
    help: {
      text: sarifText(`${summary}${example}${helpUri ? `\n\nSee ${helpUri}` : ''}`),
      markdown: sarifText(helpUri ? `${summary} See [${id}](${helpUri}).` : summary),
    },
    ...(helpUri ? { helpUri } : {}),
    defaultConfiguration: { level: LEVEL[rule?.levels[0] ?? 'warning'] },
    properties: { tags: ['contracts-diff'], ...(rule ? { levels: [...rule.levels], audiences: [...rule.audiences] } : {}) },
  }
}

/** The SARIF log of one `contracts diff` run; paths relative to `cwd` (%SRCROOT%). */
export function diffSarifLog(run: DiffRun, cwd: string = process.cwd()): Log {
  const catalogue = new Map<string, DiffRule>()
  for (const rule of [...CORE_DIFF_RULES, ...SCHEMA_DIFF_RULES, ...run.entries.flatMap((e) => e.rules)])
    if (!catalogue.has(rule.id)) catalogue.set(rule.id, rule)
  const rules: ReportingDescriptor[] = []
  const index = new Map<string, number>()
  const ruleIndex = (id: string, make: () => ReportingDescriptor) => {
    let i = index.get(id)
    if (i === undefined) index.set(id, (i = rules.push(make()) - 1))
    return i
  }
  const findingResult = (finding: DiffFinding, suppression?: string): Result => {
    const result: Result = {
      ruleId: finding.rule,
      ruleIndex: ruleIndex(finding.rule, () => descriptor(finding.rule, catalogue.get(finding.rule))),
      level: LEVEL[finding.level],
      message: { text: sarifText(finding.message) },
      locations: [location(whereShown(finding), cwd)],
      properties: {
        level: finding.level,
        audiences: finding.audiences,
        ...(finding.new ? { pointer: finding.new.pointer } : {}),
        ...(finding.old ? { oldPointer: finding.old.pointer } : {}),
        ...(finding.data ? { data: finding.data } : {}),
      },
    }
    if (finding.new && finding.old) result.relatedLocations = [{ id: 1, ...location(finding.old, cwd), message: { text: sarifText('In the old version.') } }]
    if (suppression !== undefined) result.suppressions = [{ kind: 'external', justification: suppression }]
    return result
  }
  const results: Result[] = [
    ...run.verdict.findings.map((f) => findingResult(f)),
    ...run.verdict.ignored.map(({ finding, reason }) => findingResult(finding, reason)),
    ...invalidDiagnostics(run).map((d): Result => ({
      ruleId: d.code,
      ruleIndex: ruleIndex(d.code, () => diagnosticRule(d.code)),
      level: d.severity === 'error' ? 'error' : 'warning',
      message: { text: sarifText(d.message) },
      locations: [location(d, cwd)],
      properties: { pointer: d.pointer, ...(d.data ? { data: d.data } : {}) },
    })),
  ]
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'unplugin-contracts', version: packageVersion, semanticVersion: packageVersion, informationUri: informationUrl(), rules } },
        originalUriBaseIds: { [SRCROOT]: { uri: folderUri(cwd) } },
        columnKind: 'utf16CodeUnits',
        invocations: [{ executionSuccessful: true }],
        results,
      },
    ],
  }
}
