/**
 * `contracts check --format sarif`: the diagnostics of a run as one SARIF 2.1.0 log (OASIS, Static
 * Analysis Results Interchange Format), the format code scanning services ingest
 * (`github/codeql-action/upload-sarif`). One run; one rule per code that occurs, described by the
 * code's declaration and linked to its row of docs/diagnostics.md; one result per diagnostic.
 */
import { relative, sep } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Location, Log, ReportingDescriptor, Result } from 'sarif'
import type { Diagnostic, RelatedLocation } from '../core/diagnostics.js'
import { packageVersion } from '../core/package-info.js'
import { codeInfo } from './code-catalogue.js'
import { codeDocsUrl, informationUrl } from './docs-links.js'

/** The schema the log names (`$schema`): the OASIS schema of SARIF 2.1.0 (with its errata). */
export const SARIF_SCHEMA = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json'

/** The base a result's file is relative to: the working directory the check ran in (the checkout, in CI). */
export const SRCROOT = '%SRCROOT%'

/**
 * A message string as SARIF 2.1.0 §3.11.5 requires it: `{` and `}` doubled (a single brace opens a
 * placeholder, `{0}`, that a viewer fills from `arguments`), in every message and multiformat message
 * string (§3.12: they may be format strings too). A NATS subject's `{orderId}` in a message was
 * written as it is, which a conforming viewer reads as a malformed placeholder.
 */
export function sarifText(text: string): string {
  return text.replace(/[{}]/g, '$&$&')
}

/** The SARIF log of one `check` run. `cwd` is the folder paths are made relative to. */
export function sarifLog(diagnostics: readonly Diagnostic[], cwd: string = process.cwd()): Log {
  const rules: ReportingDescriptor[] = []
  const ruleIndex = new Map<string, number>()
  const results: Result[] = diagnostics.map((d) => {
    let index = ruleIndex.get(d.code)
    if (index === undefined) {
      index = rules.push(diagnosticRule(d.code)) - 1
      ruleIndex.set(d.code, index)
    }
    const result: Result = {
      ruleId: d.code,
      ruleIndex: index,
      level: d.severity === 'error' ? 'error' : 'warning',
      message: { text: sarifText(d.message) },
      locations: [location(d, cwd)],
      // The JSON Pointer says where in the document, whatever the file's syntax; `data` what the code promises.
      properties: { pointer: d.pointer, ...(d.data ? { data: d.data } : {}) },
    }
    if (d.related?.length) result.relatedLocations = d.related.map((r, i) => ({ id: i + 1, ...location(r, cwd), message: { text: sarifText(r.message) } }))
    return result
  })
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'unplugin-contracts', version: packageVersion, semanticVersion: packageVersion, informationUri: informationUrl(), rules } },
        // Where %SRCROOT% is (a folder URI ends with a slash), so a reader can find the files without the CI's layout.
        originalUriBaseIds: { [SRCROOT]: { uri: folderUri(cwd) } },
        // Columns count UTF-16 code units, as the diagnostics' do (src/core/source-text.ts); said explicitly.
        columnKind: 'utf16CodeUnits',
        invocations: [{ executionSuccessful: true }],
        results,
      },
    ],
  }
}

/** A code's rule: its declared meaning and severity, and the link to its row of the docs when there are docs to link to. */
export function diagnosticRule(code: string): ReportingDescriptor {
  const info = codeInfo(code)
  const meaning = info?.meaning ?? code
  const helpUri = codeDocsUrl(code)
  return {
    id: code,
    // SARIF's `name` is a readable identifier: BENZENE_REF_MISSING -> BenzeneRefMissing.
    name: code
      .toLowerCase()
      .split('_')
      .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
      .join(''),
    shortDescription: { text: sarifText(meaning) },
    fullDescription: { text: sarifText(meaning) },
    help: {
      text: sarifText(helpUri ? `${meaning} See ${helpUri}` : meaning),
      markdown: sarifText(helpUri ? `${meaning} See [${code}](${helpUri}).` : meaning),
    },
    ...(helpUri ? { helpUri } : {}),
    defaultConfiguration: { level: info?.severity === 'warning' ? 'warning' : 'error' },
    ...(info ? { properties: { tags: [info.chapter], stage: info.where } } : {}),
  }
}

/** A file and position as a SARIF location: the file relative to %SRCROOT% when it is under it, else an absolute file URI. */
export function location(at: Pick<Diagnostic | RelatedLocation, 'file' | 'line' | 'column'>, cwd: string): Location {
  const rel = relative(cwd, at.file)
  const inside = rel !== '' && rel !== '..' && !rel.startsWith('..' + sep) && !/^[a-zA-Z]:|^[\\/]/.test(rel)
  const artifactLocation = inside ? { uri: rel.split(sep).map(encodeURIComponent).join('/'), uriBaseId: SRCROOT } : { uri: pathToFileURL(at.file).href }
  return { physicalLocation: { artifactLocation, region: { startLine: at.line, startColumn: at.column } } }
}

export function folderUri(folder: string): string {
  const href = pathToFileURL(folder).href
  return href.endsWith('/') ? href : href + '/'
}
