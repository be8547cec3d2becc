/** `contracts check --format sarif`: one SARIF 2.1.0 log, valid against the official OASIS schema (test/fixtures/sarif/). */
import { Ajv } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Log } from 'sarif'
import { afterAll, describe, expect, it } from 'vitest'
import { codeInfo } from '../src/cli/code-catalogue.js'
import { diagnosticsDocUrl, informationUrl, repositoryWebUrl } from '../src/cli/docs-links.js'
import type { Diagnostic } from '../src/core/diagnostics.js'
import { contracts } from './helpers/cli.js'

const root = join(import.meta.dirname, '..')
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

/**
 * The official schema is JSON Schema draft-04, which ajv 8 does not read as such; the only draft-04
 * word it uses that draft-07 spells differently is the root's `id` (now `$id`), so that is mapped
 * and `$schema` dropped. Formats (`uri`, `date-time`) are checked too (ajv-formats).
 */
function sarifValidator() {
  const { $schema: _draft, id, ...schema } = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures/sarif/sarif-schema-2.1.0.json'), 'utf8'))
  const ajv = new Ajv({ allErrors: true, strict: false, code: { optimize: false } })
  addFormats(ajv)
  return ajv.compile({ $id: id, ...schema })
}
const validate = sarifValidator()

const failing = [
  'fixtures/benzene/invalid/ref-missing.spec.json',
  'fixtures/benzene/invalid/duplicate-topic.spec.json',
  'fixtures/benzene/invalid/openapi-value.spec.json',
  'fixtures/nats/invalid/token-type.asyncapi.yaml',
  // A message with braces: `address {account}`.
  'fixtures/nats/invalid/parameters-mismatch.asyncapi.yaml',
]

/**
 * How a SARIF viewer reads a plain message string (SARIF 2.1.0 §3.11.5): `{{` and `}}` are literal
 * braces; a single brace opens or closes a placeholder (`{0}`). Written apart from the CLI's writer.
 */
function readMessage(text: string): { text: string; placeholders: number } {
  let out = ''
  let placeholders = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if ((c === '{' || c === '}') && text[i + 1] === c) {
      out += c
      i++
    } else if (c === '{' || c === '}') placeholders++
    else out += c
  }
  return { text: out, placeholders }
}

const tmp = mkdtempSync(join(tmpdir(), 'contracts-sarif-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

describe('contracts check --format sarif', () => {
  const run = contracts(['check', '--format', 'sarif', ...failing])
  const json = contracts(['check', '--json', ...failing])
  const log = JSON.parse(run.stdout) as Log
  const diagnostics = (JSON.parse(json.stdout) as { diagnostics: Diagnostic[] }).diagnostics

  it('a failing check writes one log that the official SARIF 2.1.0 schema accepts; exit status and summary as before', () => {
    expect(validate(log), JSON.stringify(validate.errors, null, 2)).toBe(true)
    // The validator is not vacuous: a level SARIF does not have, or a region at line 0, is refused.
    const broken = structuredClone(log)
    broken.runs[0]!.results![0]!.level = 'fatal' as 'error'
    expect(validate(broken)).toBe(false)
    const lineZero = structuredClone(log)
    lineZero.runs[0]!.results![0]!.locations![0]!.physicalLocation!.region!.startLine = 0
    expect(validate(lineZero)).toBe(false)
    expect([run.status, json.status]).toEqual([1, 1])
    expect(run.stderr.trim()).toBe(json.stderr.trim())
    expect(log.version).toBe('2.1.0')
    expect(log.runs).toHaveLength(1)
    const driver = log.runs[0]!.tool.driver
    const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version
    expect(driver).toMatchObject({ name: 'unplugin-contracts', version, semanticVersion: version, informationUri: informationUrl() })
    expect(log.runs[0]!.columnKind).toBe('utf16CodeUnits')
    expect(log.runs[0]!.originalUriBaseIds).toEqual({ '%SRCROOT%': { uri: pathToFileURL(root).href + '/' } })
  })

  it('one rule per code that occurs: the declared description, severity and a link to its row of docs/diagnostics.md', () => {
    const rules = log.runs[0]!.tool.driver.rules!
    const codes = [...new Set(diagnostics.map((d) => d.code))]
    expect(rules.map((r) => r.id)).toEqual(codes)
    expect(codes).toEqual(['BENZENE_REF_MISSING', 'BENZENE_DUPLICATE_TOPIC', 'BENZENE_OPENAPI_VALUE', 'NATS_TOKEN_TYPE', 'NATS_PARAMETERS_MISMATCH'])
    const doc = readFileSync(join(root, 'docs/diagnostics.md'), 'utf8')
    for (const rule of rules) {
      const info = codeInfo(rule.id)!
      expect(readMessage(rule.shortDescription!.text).text).toBe(info.meaning)
      expect(readMessage(rule.help!.text).text).toContain(info.meaning)
      expect(rule.defaultConfiguration!.level).toBe(info.severity)
      // This checkout names no repository in package.json: the link is the docs file beside the package.
      expect(rule.helpUri).toBe(`${pathToFileURL(join(root, 'docs/diagnostics.md')).href}#${rule.id.toLowerCase()}`)
      expect(doc).toContain(`<a id="${rule.id.toLowerCase()}"></a>\`${rule.id}\``)
    }
    expect(rules.find((r) => r.id === 'BENZENE_OPENAPI_VALUE')!.defaultConfiguration!.level).toBe('warning')
  })

  it('one result per diagnostic: rule, level, message, the file relative to %SRCROOT% and the region of `check --json`', () => {
    const results = log.runs[0]!.results!
    const rules = log.runs[0]!.tool.driver.rules!
    expect(results).toHaveLength(diagnostics.length)
    results.forEach((result, i) => {
      const d = diagnostics[i]!
      expect(rules[result.ruleIndex!]!.id).toBe(result.ruleId)
      // The text a viewer shows is the diagnostic's message, with no placeholder in it.
      expect(readMessage(result.message.text!), result.message.text).toEqual({ text: d.message, placeholders: 0 })
      expect(result).toMatchObject({
        ruleId: d.code,
        level: d.severity,
        locations: [
          {
            physicalLocation: {
              artifactLocation: { uri: d.file.slice(root.length + 1), uriBaseId: '%SRCROOT%' },
              region: { startLine: d.line, startColumn: d.column },
            },
          },
        ],
        properties: { pointer: d.pointer },
      })
    })
    const missing = results.find((r) => r.ruleId === 'BENZENE_REF_MISSING')!
    expect(missing.locations![0]!.physicalLocation!.region).toEqual({ startLine: 16, startColumn: 17 })
    expect(missing.locations![0]!.physicalLocation!.artifactLocation!.uri).toBe('fixtures/benzene/invalid/ref-missing.spec.json')
    expect(results.find((r) => r.ruleId === 'NATS_TOKEN_TYPE')!.locations![0]!.physicalLocation!.region).toEqual({ startLine: 13, startColumn: 14 })
    // Was a defect (fixed): braces were written as they are, which a viewer reads as a (malformed) placeholder.
    const braces = results.find((r) => r.ruleId === 'NATS_PARAMETERS_MISMATCH')!
    expect(braces.message.text).toContain('address {{account}}')
    for (const rule of log.runs[0]!.tool.driver.rules!)
      for (const text of [rule.shortDescription!.text, rule.fullDescription!.text, rule.help!.text, rule.help!.markdown!])
        expect(readMessage(text).placeholders, text).toBe(0)
  })

  it("a rule's related location becomes the result's relatedLocations", () => {
    const duplicate = log.runs[0]!.results!.find((r) => r.ruleId === 'BENZENE_DUPLICATE_TOPIC')!
    expect(duplicate.relatedLocations).toEqual([
      {
        id: 1,
        physicalLocation: {
          artifactLocation: { uri: 'fixtures/benzene/invalid/duplicate-topic.spec.json', uriBaseId: '%SRCROOT%' },
          region: { startLine: 9, startColumn: 5 },
        },
        message: { text: 'requests[0] declares it first.' },
      },
    ])
  })

  it('columns count UTF-16 code units, and a file outside the working directory is an absolute file URI', () => {
    // An astral character (two code units) before the error on its line: column 17 + 2 + the added text.
    const text = readFileSync(join(root, failing[0]!), 'utf8').replace(
      '"$ref": "#/components/schemas/Orders"',
      '"description": "\u{1F600}", "$ref": "#/components/schemas/Orders"',
    )
    const dir = join(tmp, 'outside folder')
    mkdirSync(dir)
    const file = join(dir, 'emoji.spec.json')
    writeFileSync(file, text)
    const sarif = JSON.parse(contracts(['check', '--format', 'sarif', file]).stdout) as Log
    const checked = (JSON.parse(contracts(['check', '--json', file]).stdout) as { diagnostics: Diagnostic[] }).diagnostics
    expect(validate(sarif), JSON.stringify(validate.errors)).toBe(true)
    const missing = checked.find((d) => d.code === 'BENZENE_REF_MISSING')!
    const lineText = text.split('\n')[missing.line - 1]!
    expect(missing.column).toBe(lineText.indexOf('"#/components') + 1)
    expect(missing.column).toBe(17 + '"description": "\u{1F600}", '.length)
    const result = sarif.runs[0]!.results!.find((r) => r.ruleId === 'BENZENE_REF_MISSING')!
    expect(result.locations![0]!.physicalLocation).toEqual({
      artifactLocation: { uri: pathToFileURL(file).href },
      region: { startLine: missing.line, startColumn: missing.column },
    })
  })

  it('a check without problems is a valid log with no results (exit 0)', () => {
    const ok = contracts(['check', '--format', 'sarif', 'fixtures/benzene/valid/payments.spec.json', 'fixtures/nats/valid/ledger.asyncapi.yaml'])
    expect(ok.status).toBe(0)
    const clean = JSON.parse(ok.stdout) as Log
    expect(validate(clean), JSON.stringify(validate.errors)).toBe(true)
    expect(clean.runs[0]!.results).toEqual([])
    expect(clean.runs[0]!.tool.driver.rules).toEqual([])
  })
})

describe('documentation links', () => {
  it("a repository in package.json links to its docs/diagnostics.md; else the package's own file; else none", () => {
    for (const repository of [
      'github:acme/contracts',
      'acme/contracts',
      'git+https://github.com/acme/contracts.git',
      'git@github.com:acme/contracts.git',
      { type: 'git', url: 'https://github.com/acme/contracts' },
    ])
      expect(repositoryWebUrl({ repository }), JSON.stringify(repository)).toBe('https://github.com/acme/contracts')
    expect(repositoryWebUrl({ homepage: 'https://github.com/acme/contracts#readme' })).toBe('https://github.com/acme/contracts')
    expect(repositoryWebUrl({ homepage: 'https://contracts.example' })).toBeUndefined()
    expect(diagnosticsDocUrl({ repository: { url: 'git+https://github.com/acme/tools.git', directory: 'packages/contracts' } })).toBe(
      'https://github.com/acme/tools/blob/HEAD/packages/contracts/docs/diagnostics.md',
    )
    expect(diagnosticsDocUrl({}, root)).toBe(pathToFileURL(join(root, 'docs/diagnostics.md')).href)
    expect(diagnosticsDocUrl({}, tmp)).toBeUndefined()
    expect(informationUrl({ name: 'unplugin-contracts' })).toBe('https://www.npmjs.com/package/unplugin-contracts')
    expect(informationUrl({ repository: 'acme/contracts' })).toBe('https://github.com/acme/contracts')
  })
})
