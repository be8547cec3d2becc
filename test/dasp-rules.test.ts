/**
 * The DASP rules: a failing fixture per rule (fixtures/dasp/invalid, the shared runner of
 * helpers/rule-fixtures.ts), and the closed shapes: a malformed member is reported at its pointer
 * and hides no other verdict.
 */
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { daspLoadCodes, daspRules, shapeRules } from '../src/formats/dasp/rules/index.js'
import { pinProblem } from '../src/formats/dasp/rules/pins.js'
import { compileItemSchema } from '../src/formats/dasp/item-schemas.js'
import { copyDaspSelection } from './helpers/dasp-selection.js'
import { describeFixtureTable, expectEveryCodeCovered, type FixtureRow } from './helpers/rule-fixtures.js'

const fixtures = join(import.meta.dirname, '../fixtures/dasp')

/** A fresh copy of the valid selection with what it reads in `work`: the tests edit the copy. */
function copySelection(work: string): void {
  rmSync(work, { recursive: true, force: true })
  copyDaspSelection(work)
}
const selectionFile = join(fixtures, 'counter.dasp.json')
const ENC = 'https://dasp-protocol.github.io/dasp/contracts/encrypted-delivery'
const POA = 'https://dasp-protocol.github.io/dasp/contracts/proof-of-authority'

/**
 * fixtures/dasp/invalid/<name>.dasp.json (make-fixtures.py): the code, its pointer and position,
 * and the file it points into (the selection, or a definition it reads).
 */
const failing: FixtureRow[] = [
  ['shape', 'DASP_SHAPE', '/extensions/1/settings', 48, 19, 'invalid/shape.dasp.json'],
  ['definition-shape', 'DASP_DEFINITION_SHAPE', '/dependencies/0', 48, 5, 'invalid/extensions/poa-loose.dasp-ext.json'],
  ['attribute-duplicate', 'DASP_ATTRIBUTE_CONFLICT', '/attributes/1', 118, 5, 'invalid/extensions/poa-twice.dasp-ext.json'],
  ['draft-identity', 'DASP_DRAFT_IDENTITY', '/dependencies/0', 48, 5, 'invalid/extensions/enc-needs-poa.dasp-ext.json'],
  ['unsupported-version', 'DASP_UNSUPPORTED_VERSION', '/dasp', 2, 11, 'invalid/unsupported-version.dasp.json'],
  ['bundled-credential', 'DASP_BUNDLED_CREDENTIAL', '/profile/uri', 13, 12, 'invalid/bundled-credential.dasp.json'],
  ['identity', 'DASP_IDENTITY', '/extensions/0', 35, 5, 'invalid/identity.dasp.json'],
  ['unknown-extension', 'DASP_UNKNOWN_EXTENSION', '/extensions/1', 44, 5, 'invalid/unknown-extension.dasp.json'],
  ['unsupported-contract', 'DASP_UNSUPPORTED_CONTRACT', '/extensions/0', 35, 5, 'invalid/unsupported-contract.dasp.json'],
  ['duplicate-uri', 'DASP_DUPLICATE_URI', '/extensions/2/version', 64, 18, 'invalid/duplicate-uri.dasp.json'],
  ['scope', 'DASP_SCOPE', '/extensions/0/scope', 38, 16, 'invalid/scope.dasp.json'],
  ['settings', 'DASP_SETTINGS', '/extensions/1/settings/grant_bytes', 59, 24, 'invalid/settings.dasp.json'],
  ['module-limit', 'DASP_MODULE_LIMIT', '/extensions/1/settings', 48, 19, 'invalid/module-limit.dasp.json'],
  ['settings-unknown', 'DASP_SETTINGS', '/extensions/1/settings/grant_kb', 60, 21, 'invalid/settings-unknown.dasp.json'],
  ['settings-conflict', 'DASP_SETTINGS_CONFLICT', '/extensions/2/settings/grant_bytes', 77, 24, 'invalid/settings-conflict.dasp.json'],
  ['policy', 'DASP_POLICY', '/policy/requires/0', 56, 7, 'invalid/policy.dasp.json'],
  ['definition-source', 'DASP_DEFINITION_SOURCE', '/definitions/2', 33, 5, 'invalid/definition-source.dasp.json'],
  ['pin-insufficient', 'DASP_PIN_INSUFFICIENT', '/core/content', 6, 16, 'invalid/pin-insufficient.dasp.json'],
  ['definition-incomplete', 'DASP_DEFINITION_INCOMPLETE', '', 1, 1, 'invalid/extensions/poa-incomplete.dasp-ext.json'],
  ['pin-mismatch', 'DASP_PIN_MISMATCH', '/content/sha256', 10, 15, 'invalid/extensions/poa-repinned.dasp-ext.json'],
  ['attribute-name', 'DASP_ATTRIBUTE_NAME', '/attributes/0/name', 110, 15, 'invalid/extensions/poa-requestid.dasp-ext.json'],
  ['attribute-type', 'DASP_ATTRIBUTE_TYPE', '/attributes/0/type', 111, 15, 'invalid/extensions/poa-object.dasp-ext.json'],
  ['attribute-placement', 'DASP_ATTRIBUTE_PLACEMENT', '/attributes/0/on', 112, 13, 'invalid/extensions/poa-on-read.dasp-ext.json'],
  ['attribute-conflict', 'DASP_ATTRIBUTE_CONFLICT', '/attributes/0', 109, 5, 'invalid/extensions/proof-of-authority.dasp-ext.json'],
  ['dependency-missing', 'DASP_DEPENDENCY_MISSING', '/extensions/1', 45, 5, 'invalid/dependency-missing.dasp.json'],
  ['dependency-unsupported', 'DASP_DEPENDENCY_UNSUPPORTED', '/dependencies/0', 48, 5, 'invalid/extensions/audit-ledger.dasp-ext.json'],
  ['dependency-cycle', 'DASP_DEPENDENCY_CYCLE', '/extensions/1', 45, 5, 'invalid/dependency-cycle.dasp.json'],
  ['setting-persistence', 'DASP_DEFINITION_INCOMPLETE', '/settings/grant_bytes', 74, 20, 'invalid/extensions/poa-unstated.dasp-ext.json'],
  [
    'settings-conflict-same-scope',
    'DASP_SETTINGS_CONFLICT',
    '/extensions/2/settings/rekey_interval_s',
    68,
    29,
    'invalid/settings-conflict-same-scope.dasp.json',
  ],
  ['version-conflict', 'DASP_VERSION_CONFLICT', '/identity', 2, 15, 'invalid/extensions/poa-changed.dasp-ext.json'],
  ['setting-definition', 'DASP_SETTING_DEFINITION', '/settings/grant_bytes/minimum', 77, 18, 'invalid/extensions/poa-bounds.dasp-ext.json'],
  ['carrier-attribute', 'DASP_CARRIER_ATTRIBUTE', '/attributes/0/on/0', 94, 9, 'invalid/extensions/enc-carrier.dasp-ext.json'],
  ['definition-forms', 'DASP_DEFINITION_SHAPE', '/supports/profiles', 24, 17, 'invalid/extensions/poa-profiles.dasp-ext.json'],
  // A shape problem and an independent violation: both are reported (the second is asserted below).
  ['shape-and-rule', 'DASP_SHAPE', '/extensions/0/comment', 43, 18, 'invalid/shape-and-rule.dasp.json'],
  ['definition-shape-and-rule', 'DASP_DEFINITION_SHAPE', '/examples/valid', 57, 14, 'invalid/extensions/poa-no-valid.dasp-ext.json'],
]

/** SHOULD-level problems: a warning at its pointer, and the module is still generated. */
const warned: FixtureRow[] = [
  ['dependency-duplicate', 'DASP_DEPENDENCY_DUPLICATE', '/dependencies/1', 53, 5, 'invalid/extensions/audit-twice.dasp-ext.json'],
  ['attribute-name-length', 'DASP_ATTRIBUTE_NAME_LENGTH', '/attributes/1/name', 119, 15, 'invalid/extensions/poa-long-name.dasp-ext.json'],
  [
    'pattern-dialect',
    'DASP_PATTERN_DIALECT',
    '/settings/commands/items/properties/name/pattern',
    97,
    24,
    'invalid/extensions/poa-inline-options.dasp-ext.json',
  ],
]

// A fixture may break other rules besides its row's (an identity that is no URI is no supported
// contract either): the row's diagnostic is one of them.
describeFixtureTable({
  contract: ([name, , , , , file]) => ({ compile: join(fixtures, 'invalid', `${name}.dasp.json`), file: join(fixtures, file) }),
  failing,
  warned,
  match: 'among',
})

describe('build-time checks', () => {
  it('every rule has a failing fixture, and every fixture is in the table', () => {
    expectEveryCodeCovered([...[...shapeRules, ...daspRules].map((r) => r.code), ...daspLoadCodes], failing, warned)
    expect(
      readdirSync(join(fixtures, 'invalid'))
        .filter((f) => f.endsWith('.dasp.json'))
        .map((f) => f.replace('.dasp.json', ''))
        .sort(),
    ).toEqual([...failing, ...warned].map(([n]) => n).sort())
  })

  it('a near miss names the closest definition', async () => {
    const result = await compile(join(fixtures, 'invalid', 'unknown-extension.dasp.json'))
    const diagnostic = result.diagnostics.find((d) => d.code === 'DASP_UNKNOWN_EXTENSION')!
    expect(diagnostic.data).toEqual({ closest: { uri: POA, version: 'draft-01' } })
    expect(diagnostic.message).toContain('did you mean')
  })

  it('a pinned local file that changed breaks its manifest pin', async () => {
    const work = join(import.meta.dirname, '.tmp/dasp-pin')
    copySelection(work)
    writeFileSync(join(work, 'pins/proof-of-authority/spec.md'), '# Proof of authority, edited\n')
    const result = await compile(join(work, 'counter.dasp.json'))
    expect(result.diagnostics.map((d) => [d.code, d.pointer, d.file])).toEqual([
      ['DASP_PIN_MISMATCH', '/files/proof-of-authority~1spec.md', join(work, 'pins/proof-of-authority.manifest.json')],
    ])
  })

  it('manifest pins: hex digests in either case match, an empty or malformed manifest pins nothing', async () => {
    const { createHash } = await import('node:crypto')
    const { readFileSync } = await import('node:fs')
    const work = join(import.meta.dirname, '.tmp/dasp-pin-shapes')
    const manifestFile = join(work, 'pins/proof-of-authority.manifest.json')
    const definitionFile = join(work, 'extensions/proof-of-authority.dasp-ext.json')
    /** Writes the manifest, and pins it (digest in `pinCase`) in the definition. */
    const withManifest = async (manifest: unknown, pinCase: 'lower' | 'upper' = 'lower') => {
      copySelection(work)
      const text = JSON.stringify(manifest, null, 2)
      writeFileSync(manifestFile, text)
      const digest = createHash('sha256').update(text).digest('hex')
      const definition = JSON.parse(readFileSync(definitionFile, 'utf8'))
      definition.content.sha256 = pinCase === 'upper' ? digest.toUpperCase() : digest
      writeFileSync(definitionFile, JSON.stringify(definition, null, 2))
      return (await compile(join(work, 'counter.dasp.json'))).diagnostics.map((d) => [d.code, d.pointer])
    }
    const original = JSON.parse(readFileSync(join(fixtures, 'pins/proof-of-authority.manifest.json'), 'utf8'))
    const upper = Object.fromEntries(Object.entries(original.files as Record<string, string>).map(([k, v]) => [k, v.toUpperCase()]))
    expect(await withManifest({ algorithm: 'sha256', files: upper }, 'upper')).toEqual([])
    expect(await withManifest({ algorithm: 'sha256', files: {} })).toEqual([
      ['DASP_PIN_MISMATCH', '/content/manifest'],
      ['DASP_PIN_MISMATCH', '/files'],
    ])
    expect(await withManifest({ algorithm: 'sha256', files: original.files, signedBy: 'x' })).toEqual([
      ['DASP_PIN_MISMATCH', '/content/manifest'],
      ['DASP_PIN_MISMATCH', '/signedBy'],
    ])
    const malformed = { ...original.files, 'proof-of-authority/spec.md': 'sha256:not-hex' }
    const entry = ['DASP_PIN_MISMATCH', '/files/proof-of-authority~1spec.md']
    expect(await withManifest({ algorithm: 'sha256', files: malformed })).toEqual([['DASP_PIN_MISMATCH', '/content/manifest'], entry])
    expect(await withManifest({ algorithm: 'sha256', files: { ...original.files, 'proof-of-authority/spec.md': 7 } })).toEqual([
      ['DASP_PIN_MISMATCH', '/content/manifest'],
      entry,
    ])
  })

  it('a selected contract pinned in the other hex case is the supported one (DASP_UNSUPPORTED_CONTRACT compares pins as the differ and runtime do)', async () => {
    const { readFileSync } = await import('node:fs')
    const work = join(import.meta.dirname, '.tmp/dasp-pin-case')
    copySelection(work)
    const file = join(work, 'counter.dasp.json')
    const selection = JSON.parse(readFileSync(file, 'utf8'))
    selection.binding.content.commit = String(selection.binding.content.commit).toUpperCase()
    writeFileSync(file, JSON.stringify(selection, null, 2))
    expect((await compile(file)).diagnostics.map((d) => d.code)).toEqual([])
    // The near case: another commit is still unsupported.
    selection.binding.content.commit = 'F'.repeat(40)
    writeFileSync(file, JSON.stringify(selection, null, 2))
    expect((await compile(file)).diagnostics.map((d) => d.code)).toContain('DASP_UNSUPPORTED_CONTRACT')
  })

  it('one identity and version defined twice with the same content (keys reordered) is one definition, not a conflict', async () => {
    const { readFileSync } = await import('node:fs')
    const work = join(import.meta.dirname, '.tmp/dasp-same-version')
    copySelection(work)
    const definition = JSON.parse(readFileSync(join(work, 'extensions/proof-of-authority.dasp-ext.json'), 'utf8'))
    writeFileSync(join(work, 'extensions/poa-again.dasp-ext.json'), JSON.stringify(Object.fromEntries(Object.entries(definition).reverse()), null, 2))
    const selection = JSON.parse(readFileSync(join(work, 'counter.dasp.json'), 'utf8'))
    selection.definitions.push('extensions/poa-again.dasp-ext.json')
    writeFileSync(join(work, 'counter.dasp.json'), JSON.stringify(selection, null, 2))
    expect((await compile(join(work, 'counter.dasp.json'))).diagnostics).toEqual([])
  })

  it('settings conflicts: one scope compares every setting, several scopes only the session ones', async () => {
    const { readFileSync } = await import('node:fs')
    const work = join(import.meta.dirname, '.tmp/dasp-settings-scopes')
    copySelection(work)
    const codes = async (extra: Record<string, unknown>) => {
      const selection = JSON.parse(readFileSync(join(fixtures, 'counter.dasp.json'), 'utf8'))
      selection.extensions.push({ ...selection.extensions[0], ...extra, settings: { ...selection.extensions[0].settings, ...(extra.settings as object) } })
      writeFileSync(join(work, 'counter.dasp.json'), JSON.stringify(selection, null, 2))
      return (await compile(join(work, 'counter.dasp.json'))).diagnostics.filter((d) => d.code === 'DASP_SETTINGS_CONFLICT').map((d) => d.pointer)
    }
    expect(await codes({})).toEqual([])
    expect(await codes({ settings: { rekey_interval_s: 600 } })).toEqual(['/extensions/2/settings/rekey_interval_s'])
    // encrypted-delivery supports only the connection scope, so a second scope is judged by DASP_SCOPE,
    // and a connection setting differing across scopes is no conflict.
    expect(await codes({ scope: 'session', settings: { rekey_interval_s: 600 } })).toEqual([])
  })

  it('the valid selection passes', async () => {
    expect((await compile(selectionFile)).diagnostics).toEqual([])
  })
})

describe('closed shapes: a malformed member is reported at its pointer, and hides no other verdict', () => {
  const work = join(import.meta.dirname, '.tmp/dasp-shapes')
  const definitionPath = join(work, 'extensions/proof-of-authority.dasp-ext.json')
  /** Copies the valid fixtures, edits the proof-of-authority definition and the selection, and compiles. */
  const variant = async (editDefinition: (d: any) => void, editSelection: (s: any) => void = () => {}) => {
    const { readFileSync } = await import('node:fs')
    copySelection(work)
    const definition = JSON.parse(readFileSync(definitionPath, 'utf8'))
    editDefinition(definition)
    writeFileSync(definitionPath, JSON.stringify(definition, null, 2))
    const selection = JSON.parse(readFileSync(join(work, 'counter.dasp.json'), 'utf8'))
    editSelection(selection)
    writeFileSync(join(work, 'counter.dasp.json'), JSON.stringify(selection, null, 2))
    return (await compile(join(work, 'counter.dasp.json'))).diagnostics.map((d) => [d.code, d.pointer])
  }
  const definitionCases: Array<[what: string, edit: (d: any) => void, pointer: string, independent?: string[]]> = [
    ['dependencies as an object', (d) => (d.dependencies = { uri: ENC, version: 'draft-01', scope: 'session' }), '/dependencies'],
    ['a dependency as a bare URI', (d) => (d.dependencies = [ENC]), '/dependencies/0'],
    ['scopes as one string', (d) => (d.scopes = 'session'), '/scopes'],
    ['settings as an array', (d) => (d.settings = []), '/settings'],
    ['attributes as an object', (d) => (d.attributes = { daspauthority: d.attributes[0] }), '/attributes'],
    ['examples without any', (d) => (d.examples = {}), '/examples'],
    ['no negative example', (d) => (d.examples.invalid = []), '/examples/invalid'],
    ['an empty example selection', (d) => (d.examples.valid = [{}]), '/examples/valid/0'],
    ['an empty processing order', (d) => (d.processing = ''), '/processing'],
    ['evidence limits as null', (d) => (d.evidenceLimits = null), '/evidenceLimits'],
    ['an unknown member', (d) => (d.compatibilty = 'typo'), '/compatibilty'],
    ['a setting member of the wrong type', (d) => (d.settings.grant_bytes.maximum = '16384'), '/settings/grant_bytes/maximum'],
    ['profiles as a string other than "any"', (d) => (d.supports.profiles = 'all'), '/supports/profiles'],
    [
      'a dependency without its scope',
      (d) => (d.dependencies = [{ uri: 'https://example.com/dasp/contracts/audit-trail', version: 'draft-01' }]),
      '/dependencies/0',
      // Whether a dependency has a definition depends on its identity alone: that verdict is not a
      // consequence of the missing scope (the test below).
      ['DASP_DEPENDENCY_UNSUPPORTED'],
    ],
  ]
  it.each(definitionCases)(
    'definition: %s -> DASP_DEFINITION_SHAPE at the member, and no rule reports a consequence of it',
    async (_, edit, pointer, independent = []) => {
      const found = await variant(edit)
      expect(found).toContainEqual(['DASP_DEFINITION_SHAPE', pointer])
      expect(found.map(([code]) => code).filter((code) => code !== 'DASP_DEFINITION_SHAPE')).toEqual(independent)
    },
  )

  it.each(definitionCases)('definition: %s, and a setting out of range in the selection -> both reported', async (_, edit, pointer) => {
    const found = await variant(edit, (s) => (s.extensions[0].settings.rekey_interval_s = 1))
    expect(found).toContainEqual(['DASP_DEFINITION_SHAPE', pointer])
    expect(found).toContainEqual(['DASP_SETTINGS', '/extensions/0/settings/rekey_interval_s'])
  })

  it('an integer setting past 2^53 - 1 is refused, and the message says why (not "must be an integer")', async () => {
    const big = async (value: number) => {
      const dir = await variant(
        (d) => (d.settings.big = { type: 'integer', persistence: 'session' }),
        (sel) => (sel.extensions[1].settings.big = value),
      )
      return dir
    }
    expect(await big(2 ** 53 - 1)).toEqual([])
    expect(await big(2 ** 53)).toEqual([['DASP_SETTINGS', '/extensions/1/settings/big']])
    const { readFileSync } = await import('node:fs')
    const selection = readFileSync(join(work, 'counter.dasp.json'), 'utf8')
    expect(selection).toContain('9007199254740992')
    const message = (await compile(join(work, 'counter.dasp.json'))).diagnostics[0]!.message
    expect(message).toContain('at most 2^53 - 1 in magnitude')
  })

  it('annotations producers write ($comment, title, description, x-*) are accepted on the selection, its entries and a definition; another member and an x- setting are not (an outside pass)', async () => {
    const annotate = (o: any) => Object.assign(o, { $comment: 'c', title: 't', description: 'd', 'x-generator': { by: 'tool' } })
    expect(
      await variant(
        (d) => annotate(d),
        (sel) => {
          annotate(sel)
          annotate(sel.extensions[0])
        },
      ),
    ).toEqual([])
    expect(await variant((d) => (d.compatibilty = 'typo'))).toEqual([['DASP_DEFINITION_SHAPE', '/compatibilty']])
    expect(
      await variant(
        () => {},
        (sel) => (sel.extensions[1].settings['x-extra'] = 1),
      ),
    ).toEqual([['DASP_SETTINGS', '/extensions/1/settings/x-extra']])
    expect(await variant((d) => (d.description = 7))).toEqual([['DASP_DEFINITION_SHAPE', '/description']])
  })

  it('a dependency listed twice: the request (and the floor saved from it) lists it once; another scope is no repeat but a missing dependency', async () => {
    const result = await compile(join(fixtures, 'invalid', 'dependency-duplicate.dasp.json'))
    expect(result.diagnostics.map((d) => [d.code, d.severity])).toEqual([['DASP_DEPENDENCY_DUPLICATE', 'warning']])
    const listed = /"dependencies":\[(\{[^\]]*\})\]\}\]\}\);/.exec(result.code!)
    expect(JSON.parse(`[${listed![1]}]`)).toEqual([{ uri: POA, version: 'draft-01', scope: 'session' }])
    // The near change: the repeat in another scope is a requirement the request cannot also meet; listed once, nothing.
    const copy = join(import.meta.dirname, '.tmp/dasp-rules-duplicate')
    rmSync(copy, { recursive: true, force: true })
    cpSync(join(fixtures, 'invalid'), copy, { recursive: true })
    const audit = join(copy, 'extensions/audit-twice.dasp-ext.json')
    const definition = JSON.parse(readFileSync(audit, 'utf8'))
    const found = async (dependencies: unknown[]) => {
      writeFileSync(audit, JSON.stringify({ ...definition, dependencies }, null, 2))
      return (await compile(join(copy, 'dependency-duplicate.dasp.json'))).diagnostics.map((d) => [d.code, d.pointer])
    }
    const dep = definition.dependencies[0]
    expect(await found([dep, { ...dep, scope: 'connection' }])).toEqual([['DASP_DEPENDENCY_MISSING', '/extensions/2']])
    expect(await found([dep])).toEqual([])
    rmSync(copy, { recursive: true, force: true })
  })

  it('a dependency without its scope, on an identity nothing defines: DASP_DEPENDENCY_UNSUPPORTED beside the shape error', async () => {
    const found = await variant((d) => (d.dependencies = [{ uri: 'https://example.com/dasp/contracts/audit-trail', version: 'draft-01' }]))
    expect(found).toContainEqual(['DASP_DEFINITION_SHAPE', '/dependencies/0'])
    expect(found.filter(([code]) => code !== 'DASP_DEFINITION_SHAPE')).toEqual([['DASP_DEPENDENCY_UNSUPPORTED', '/dependencies/0']])
  })

  it('the shape-and-rule fixtures report the shape problem and the independent violation', async () => {
    const found = async (name: string) => (await compile(join(fixtures, 'invalid', `${name}.dasp.json`))).diagnostics.map((d) => [d.code, d.pointer])
    expect(await found('shape-and-rule')).toEqual([
      ['DASP_SHAPE', '/extensions/0/comment'],
      ['DASP_SETTINGS', '/extensions/1/settings/grant_bytes'],
    ])
    expect((await found('definition-shape-and-rule')).sort()).toEqual([
      ['DASP_DEFINITION_SHAPE', '/examples/valid'],
      ['DASP_SETTINGS', '/extensions/1/settings/grant_bytes'],
    ])
  })

  it('selection: policy entries that are not objects, an extension without settings, an unknown member -> DASP_SHAPE, and only that', async () => {
    expect(
      await variant(
        () => {},
        (s) => (s.policy.requires = ['https://dasp-protocol.github.io/dasp/contracts/encrypted-delivery']),
      ),
    ).toEqual([['DASP_SHAPE', '/policy/requires/0']])
    expect(
      await variant(
        () => {},
        (s) => delete s.extensions[0].settings,
      ),
    ).toEqual([['DASP_SHAPE', '/extensions/0']])
    expect(
      await variant(
        () => {},
        (s) => (s.comment = 'hi'),
      ),
    ).toEqual([['DASP_SHAPE', '/comment']])
  })

  it('selection: an unreadable part skips only the verdicts that depend on it', async () => {
    // An extension entry without a readable identity could be the one policy requires: no DASP_POLICY; the other entry is still judged.
    expect(
      await variant(
        () => {},
        (s) => {
          s.extensions[0].uri = 7
          s.extensions[1].settings.grant_bytes = 0
        },
      ),
    ).toEqual([
      ['DASP_SHAPE', '/extensions/0/uri'],
      ['DASP_SETTINGS', '/extensions/1/settings/grant_bytes'],
    ])
    // A scope of the wrong type: no DASP_SCOPE and no DASP_POLICY about it.
    expect(
      await variant(
        () => {},
        (s) => (s.extensions[0].scope = ['connection']),
      ),
    ).toEqual([['DASP_SHAPE', '/extensions/0/scope']])
    // A definitions entry that is not a string could be any definition: no DASP_UNKNOWN_EXTENSION.
    expect(
      await variant(
        () => {},
        (s) => (s.definitions[1] = { path: s.definitions[1] }),
      ),
    ).toEqual([['DASP_SHAPE', '/definitions/1']])
  })

  it('a definition that cannot be read (a missing file) hides no verdict on the others', async () => {
    expect(
      await variant(
        () => {},
        (s) => {
          s.definitions[1] = 'extensions/missing.dasp-ext.json'
          s.extensions[0].settings.rekey_interval_s = 1
        },
      ),
    ).toEqual([
      ['DASP_DEFINITION_SOURCE', '/definitions/1'],
      ['DASP_SETTINGS', '/extensions/0/settings/rekey_interval_s'],
    ])
  })

  it('the valid fixtures pass the shapes, and a missing part is still DASP_DEFINITION_INCOMPLETE (DASP-EXT-002 list)', async () => {
    expect(await variant(() => {})).toEqual([])
    expect(await variant((d) => delete d.evidenceLimits)).toEqual([['DASP_DEFINITION_INCOMPLETE', '']])
    // Malformed is not missing: one diagnostic, the shape's.
    expect(await variant((d) => (d.records.retry = 5))).toEqual([['DASP_DEFINITION_SHAPE', '/records/retry']])
    expect(await variant((d) => (d.settings.grant_bytes.persistence = 1))).toEqual([['DASP_DEFINITION_SHAPE', '/settings/grant_bytes/persistence']])
  })

  it('identities are RFC 3986 absolute URIs: no raw non-ASCII, valid %-escapes, no fragment, no space, a well-formed IP literal', async () => {
    const identity = (uri: string) => variant((d) => (d.identity.uri = uri))
    for (const bad of [
      'https://dasp.example/contracts/authorité',
      'https://dasp.example/a%zz',
      'https://dasp.example/a#v1',
      'https://dasp.example/a b',
      'dasp-authority',
      'https://[::1::2]/x',
      'https://user@name@host/x',
      'https://host:80a/x',
    ])
      expect(await identity(bad), bad).toContainEqual(['DASP_IDENTITY', '/identity'])
    for (const good of ['https://dasp.example/contracts/authorit%C3%A9', 'urn:example:dasp:authority', 'https://[::1]/x?y=1', 'https://[v7.a:b]/x'])
      expect(
        (await identity(good)).filter(([code]) => code === 'DASP_IDENTITY'),
        good,
      ).toEqual([])
  })

  it('DASP-EXT-007: daspauthority is a delivery String on commands; no attribute on dasp.encrypted; no authority/encryption dependency; no version setting', async () => {
    expect(await variant((d) => (d.attributes[0].type = 'Binary'))).toContainEqual(['DASP_DRAFT_IDENTITY', '/attributes/0/type'])
    const carrier = await variant((d) => {
      d.operations.push('dasp.encrypted')
      d.attributes[0].on.push('dasp.encrypted')
    })
    expect(carrier).toEqual([['DASP_CARRIER_ATTRIBUTE', '/attributes/0/on/1']])
    // Not among the operations either: still one diagnostic, the carrier's.
    expect(await variant((d) => d.attributes[0].on.push('dasp.encrypted'))).toEqual([['DASP_CARRIER_ATTRIBUTE', '/attributes/0/on/1']])
    const dependent = await variant((d) => (d.dependencies = [{ uri: ENC, version: 'draft-01', scope: 'connection' }]))
    expect(dependent).toEqual([['DASP_DRAFT_IDENTITY', '/dependencies/0']])
    expect(await variant((d) => (d.attributes[0].class = 'saved'))).toEqual([['DASP_DRAFT_IDENTITY', '/attributes/0/class']])
    expect(
      await variant(
        (d) => (d.settings.version = { type: 'string', persistence: 'session' }),
        (s) => (s.extensions[1].settings.version = 'draft-01'),
      ),
    ).toEqual([['DASP_DRAFT_IDENTITY', '/settings/version']])
    expect(
      await variant((d) => {
        d.operations.push('dasp.v1.read')
        d.attributes[0].on.push('dasp.v1.read')
      }),
    ).toEqual([['DASP_DRAFT_IDENTITY', '/attributes/0/on/1']])
  })

  it('DASP_CARRIER_ATTRIBUTE holds for any extension, and an attribute on the inner event is fine', async () => {
    const { readFileSync } = await import('node:fs')
    const withEncryptedAttribute = async (on: string[]) => {
      copySelection(work)
      const file = join(work, 'extensions/encrypted-delivery.dasp-ext.json')
      const d = JSON.parse(readFileSync(file, 'utf8'))
      d.operations = ['dasp.encrypted', 'dasp.v1.command']
      d.attributes = [{ name: 'daspkeyid', type: 'String', on, class: 'delivery' }]
      writeFileSync(file, JSON.stringify(d, null, 2))
      return (await compile(join(work, 'counter.dasp.json'))).diagnostics.map((x) => [x.code, x.pointer])
    }
    expect(await withEncryptedAttribute(['dasp.v1.command', 'dasp.encrypted'])).toEqual([['DASP_CARRIER_ATTRIBUTE', '/attributes/0/on/1']])
    expect(await withEncryptedAttribute(['dasp.v1.command'])).toEqual([])
  })

  it('DASP_SCOPE: every scope named anywhere is connection, session or command', async () => {
    expect(await variant((d) => d.scopes.push('global'))).toEqual([['DASP_SCOPE', '/scopes/2']])
    expect(
      (
        await variant(
          () => {},
          (s) => (s.policy.requires[0].scope = 'transport'),
        )
      ).sort(),
    ).toEqual([
      ['DASP_POLICY', '/policy/requires/0'],
      ['DASP_SCOPE', '/policy/requires/0/scope'],
    ])
    expect(await variant((d) => (d.dependencies = [{ uri: 'https://example.com/x', version: '1', scope: 'tenant' }]))).toContainEqual([
      'DASP_SCOPE',
      '/dependencies/0/scope',
    ])
  })

  it('DASP_SETTING_DEFINITION: a setting definition that cannot check a value, at its member; the value is then not judged', async () => {
    const setting = (spec: Record<string, unknown>, value: unknown = 16384) =>
      variant(
        (d) => (d.settings.grant_bytes = { persistence: 'session', ...spec }),
        (s) => (s.extensions[1].settings.grant_bytes = value),
      )
    expect(await setting({ type: 'number' })).toEqual([['DASP_SETTING_DEFINITION', '/settings/grant_bytes/type']])
    expect(await setting({ type: 'integer', values: [1, 2] })).toEqual([['DASP_SETTING_DEFINITION', '/settings/grant_bytes/values']])
    expect(await setting({ type: 'string', minimum: 1 }, 'x')).toEqual([['DASP_SETTING_DEFINITION', '/settings/grant_bytes/minimum']])
    expect(await setting({ type: 'enum' })).toEqual([['DASP_SETTING_DEFINITION', '/settings/grant_bytes']])
    expect(await setting({ type: 'array' }, [])).toEqual([['DASP_SETTING_DEFINITION', '/settings/grant_bytes']])
    expect(await setting({ type: 'array', items: { type: 'nothing' } }, [])).toEqual([['DASP_SETTING_DEFINITION', '/settings/grant_bytes/items']])
    expect(await setting({ type: 'array', items: { $ref: 'https://example.com/remote.json' } }, [])).toEqual([
      ['DASP_SETTING_DEFINITION', '/settings/grant_bytes/items'],
    ])
    expect(await setting({ type: 'array', items: true, minItems: 3, maxItems: 2 }, [])).toEqual([['DASP_SETTING_DEFINITION', '/settings/grant_bytes/minItems']])
    // Every documented form of a setting, and the value checks it gives.
    expect(await setting({ type: 'array', items: false, maxItems: 0, unit: 'grants', description: 'none' }, [])).toEqual([])
    expect(await setting({ type: 'array', items: false }, [1])).toEqual([['DASP_SETTINGS', '/extensions/1/settings/grant_bytes']])
    expect(await setting({ type: 'boolean', unit: 'flag' }, true)).toEqual([])
    expect(await setting({ type: 'enum', values: [{ a: 1 }, 'b'] }, { a: 1 })).toEqual([])
  })
})

describe('the rules run on whatever the shapes found', () => {
  it('property: a definition and the selection changed anywhere (a member replaced, removed or retyped) -> diagnostics with positions, never an internal error', async () => {
    const { readFileSync } = await import('node:fs')
    const work = join(import.meta.dirname, '.tmp/dasp-mutants')
    copySelection(work)
    const originals = {
      'counter.dasp.json': JSON.parse(readFileSync(join(fixtures, 'counter.dasp.json'), 'utf8')),
      'extensions/proof-of-authority.dasp-ext.json': JSON.parse(readFileSync(join(fixtures, 'extensions/proof-of-authority.dasp-ext.json'), 'utf8')),
      'extensions/encrypted-delivery.dasp-ext.json': JSON.parse(readFileSync(join(fixtures, 'extensions/encrypted-delivery.dasp-ext.json'), 'utf8')),
    }
    /** Every path to a value in a JSON document. */
    const paths = (value: unknown, at: Array<string | number> = []): Array<Array<string | number>> =>
      typeof value !== 'object' || value === null
        ? [at]
        : [at, ...Object.entries(value).flatMap(([k, v]) => paths(v, [...at, Array.isArray(value) ? Number(k) : k]))]
    const edit = fc.record({
      file: fc.constantFrom(...(Object.keys(originals) as Array<keyof typeof originals>)),
      pick: fc.nat(),
      replacement: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined), fc.constantFrom('any', 'dasp.encrypted', '', [], {}, null)),
    })
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 3 }), async (edits) => {
        const docs = JSON.parse(JSON.stringify(originals)) as Record<string, any>
        for (const { file, pick, replacement } of edits) {
          const all = paths(docs[file]).filter((p) => p.length > 0)
          const path = all[pick % all.length]!
          const parent = path.slice(0, -1).reduce((v: any, k) => v[k], docs[file])
          const key = path[path.length - 1]!
          if (replacement === undefined && !Array.isArray(parent)) delete parent[key]
          else parent[key] = replacement ?? null
        }
        for (const [file, doc] of Object.entries(docs)) writeFileSync(join(work, file), JSON.stringify(doc, null, 2))
        const result = await compile(join(work, 'counter.dasp.json'))
        expect(result.diagnostics.find((d) => d.code === 'CONTRACTS_INTERNAL')?.message).toBeUndefined()
        for (const d of result.diagnostics) expect(d.line >= 1 && d.column >= 1, `${d.code} at ${d.pointer}`).toBe(true)
      }),
      { numRuns: 300 },
    )
  })
})

describe("a git-commit pin's repository", () => {
  const commit = '3f2a9c0d1e4b5a6978c0d1e2f3a4b5c6d7e8f901'
  const problem = (repository: unknown) => pinProblem({ kind: 'git-commit', repository, commit })
  it('is an absolute URI or git’s scp-like address, as `git remote get-url` prints them', () => {
    for (const repository of [
      'https://github.com/DASP-Protocol/dasp',
      'ssh://git@github.com/DASP-Protocol/dasp.git',
      'git@github.com:DASP-Protocol/dasp.git',
      'github.com:DASP-Protocol/dasp',
      'deploy-bot@git.example.com:~team/dasp.git',
      'git@[2001:db8::1]:dasp.git',
    ])
      expect(problem(repository), repository).toBeUndefined()
  })
  it('is never a near miss of either: a slash before the colon, `//` after it, white space, a leading `-`, no path', () => {
    for (const repository of [
      'github.com/DASP-Protocol:dasp',
      'git@github.com://DASP-Protocol/dasp',
      'git@github.com:DASP Protocol/dasp',
      'git@github.com:DASP-Protocol/da\u202esp.git',
      'git@github.com:DASP-Protocol/da\u200bsp.git',
      'git@github.com:DASP-Protocol/da\u2028sp.git',
      '-oProxyCommand=touch@x:y',
      'git@-host:dasp',
      'git@github.com:',
      'DASP-Protocol/dasp',
      '',
      5,
    ])
      expect(problem(repository), String(repository)).toMatch(/names its repository/)
  })
})

describe('an array setting’s items schema in the dialect its $schema names', () => {
  // A tuple: its first element a string, nothing after it. 2020-12 says so with prefixItems and
  // items: false; 2019-09 and draft-07 with items as an array and additionalItems: false. Each is
  // checked as its own dialect: read as another, the same words mean something else.
  const verdicts = (schema: object) => {
    const validate = compileItemSchema(schema)
    if (typeof validate === 'string') return validate
    return [['a'], ['a', 1], [1], []].map((v) => validate(v))
  }
  it('2020-12, 2019-09, draft-07 (also without $schema) and draft-06 each checked as they say', () => {
    const tuple2020 = { prefixItems: [{ type: 'string' }], items: false }
    const tupleOld = { items: [{ type: 'string' }], additionalItems: false }
    expect(verdicts({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', ...tuple2020 })).toEqual([true, false, false, true])
    for (const $schema of [
      'https://json-schema.org/draft/2019-09/schema',
      'http://json-schema.org/draft-07/schema#',
      'http://json-schema.org/draft-06/schema#',
    ])
      expect(verdicts({ $schema, type: 'array', ...tupleOld }), $schema).toEqual([true, false, false, true])
    expect(verdicts({ type: 'array', ...tupleOld })).toEqual([true, false, false, true])
    // 2020-12's words read as draft-07: prefixItems is no keyword there, and `items: false` refuses any element.
    expect(verdicts({ type: 'array', ...tuple2020 })).toEqual([false, false, false, true])
  })
  it('a pattern led by .NET’s inline options, (?i), is read as the flag on the rest (DASP_PATTERN_DIALECT warns of it)', () => {
    const validate = compileItemSchema({ type: 'string', pattern: '(?i)^counter\\.[a-z]+$' })
    if (typeof validate === 'string') throw new Error(validate)
    expect(['counter.add', 'COUNTER.Add', 'counter_add', 'x.counter.add'].map((v) => validate(v))).toEqual([true, true, false, false])
  })
  it('a dialect the checker cannot check (draft-04, or no JSON Schema URI at all) is a reason, naming the supported ones', () => {
    for (const $schema of ['http://json-schema.org/draft-04/schema#', 'https://example.com/my-dialect', 5])
      expect(verdicts({ $schema, type: 'string' }), String($schema)).toMatch(/not support .*draft-06, draft-07, 2019-09 and 2020-12/)
  })
})
