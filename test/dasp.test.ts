/** DASP extension selections: a failing fixture per rule, the generated module and its runtime helpers. */
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { daspLoadCodes, daspRules, shapeRules } from '../src/formats/dasp/rules.js'
import { bundlers } from './helpers/bundlers.js'
import { tsc } from './helpers/cli.js'
import { loadModule } from './helpers/load-module.js'

const fixtures = join(import.meta.dirname, '../fixtures/dasp')
const selectionFile = join(fixtures, 'counter.dasp.json')
const ENC = 'https://dasp-protocol.github.io/dasp/contracts/encrypted-delivery'
const POA = 'https://dasp-protocol.github.io/dasp/contracts/proof-of-authority'

/** fixtures/dasp/invalid/<name>.dasp.json (make-fixtures.py): the code, its pointer, and the file it points into. */
const failing: Array<[name: string, code: string, pointer: string, file: string]> = [
  ['shape', 'DASP_SHAPE', '/extensions/1/settings', 'invalid/shape.dasp.json'],
  ['definition-shape', 'DASP_DEFINITION_SHAPE', '/dependencies/0', 'invalid/extensions/poa-loose.dasp-ext.json'],
  ['attribute-duplicate', 'DASP_ATTRIBUTE_CONFLICT', '/attributes/1', 'invalid/extensions/poa-twice.dasp-ext.json'],
  ['draft-identity', 'DASP_DRAFT_IDENTITY', '/dependencies/0', 'invalid/extensions/enc-needs-poa.dasp-ext.json'],
  ['unsupported-version', 'DASP_UNSUPPORTED_VERSION', '/dasp', 'invalid/unsupported-version.dasp.json'],
  ['bundled-credential', 'DASP_BUNDLED_CREDENTIAL', '/profile/uri', 'invalid/bundled-credential.dasp.json'],
  ['identity', 'DASP_IDENTITY', '/extensions/0', 'invalid/identity.dasp.json'],
  ['unknown-extension', 'DASP_UNKNOWN_EXTENSION', '/extensions/1', 'invalid/unknown-extension.dasp.json'],
  ['unsupported-contract', 'DASP_UNSUPPORTED_CONTRACT', '/extensions/0', 'invalid/unsupported-contract.dasp.json'],
  ['duplicate-uri', 'DASP_DUPLICATE_URI', '/extensions/2/version', 'invalid/duplicate-uri.dasp.json'],
  ['scope', 'DASP_SCOPE', '/extensions/0/scope', 'invalid/scope.dasp.json'],
  ['settings', 'DASP_SETTINGS', '/extensions/1/settings/grant_bytes', 'invalid/settings.dasp.json'],
  ['settings-unknown', 'DASP_SETTINGS', '/extensions/1/settings/grant_kb', 'invalid/settings-unknown.dasp.json'],
  ['settings-conflict', 'DASP_SETTINGS_CONFLICT', '/extensions/2/settings/grant_bytes', 'invalid/settings-conflict.dasp.json'],
  ['policy', 'DASP_POLICY', '/policy/requires/0', 'invalid/policy.dasp.json'],
  ['definition-source', 'DASP_DEFINITION_SOURCE', '/definitions/2', 'invalid/definition-source.dasp.json'],
  ['pin-insufficient', 'DASP_PIN_INSUFFICIENT', '/core/content', 'invalid/pin-insufficient.dasp.json'],
  ['definition-incomplete', 'DASP_DEFINITION_INCOMPLETE', '', 'invalid/extensions/poa-incomplete.dasp-ext.json'],
  ['pin-mismatch', 'DASP_PIN_MISMATCH', '/content/sha256', 'invalid/extensions/poa-repinned.dasp-ext.json'],
  ['attribute-name', 'DASP_ATTRIBUTE_NAME', '/attributes/0/name', 'invalid/extensions/poa-requestid.dasp-ext.json'],
  ['attribute-type', 'DASP_ATTRIBUTE_TYPE', '/attributes/0/type', 'invalid/extensions/poa-object.dasp-ext.json'],
  ['attribute-placement', 'DASP_ATTRIBUTE_PLACEMENT', '/attributes/0/on', 'invalid/extensions/poa-on-read.dasp-ext.json'],
  ['attribute-conflict', 'DASP_ATTRIBUTE_CONFLICT', '/attributes/0', 'invalid/extensions/proof-of-authority.dasp-ext.json'],
  ['dependency-missing', 'DASP_DEPENDENCY_MISSING', '/extensions/1', 'invalid/dependency-missing.dasp.json'],
  ['dependency-unsupported', 'DASP_DEPENDENCY_UNSUPPORTED', '/dependencies', 'invalid/extensions/audit-ledger.dasp-ext.json'],
  ['dependency-cycle', 'DASP_DEPENDENCY_CYCLE', '/extensions/1', 'invalid/dependency-cycle.dasp.json'],
  ['setting-persistence', 'DASP_DEFINITION_INCOMPLETE', '/settings/grant_bytes', 'invalid/extensions/poa-unstated.dasp-ext.json'],
  ['settings-conflict-same-scope', 'DASP_SETTINGS_CONFLICT', '/extensions/2/settings/rekey_interval_s', 'invalid/settings-conflict-same-scope.dasp.json'],
  ['version-conflict', 'DASP_VERSION_CONFLICT', '/identity', 'invalid/extensions/poa-changed.dasp-ext.json'],
]

describe('build-time checks', () => {
  it.each(failing)('%s -> %s', async (name, code, pointer, file) => {
    const result = await compile(join(fixtures, 'invalid', `${name}.dasp.json`))
    expect(result.code).toBeUndefined()
    expect(result.diagnostics.map((d) => ({ code: d.code, pointer: d.pointer, file: d.file }))).toContainEqual({ code, pointer, file: join(fixtures, file) })
    for (const d of result.diagnostics) expect(d.line).toBeGreaterThan(0)
  })

  it('every rule has a failing fixture, and every fixture is in the table', () => {
    const covered = new Set(failing.map(([, code]) => code))
    for (const code of [...shapeRules, ...daspRules].map((r) => r.code).concat(daspLoadCodes)) expect(covered, code).toContain(code)
    expect(
      readdirSync(join(fixtures, 'invalid'))
        .filter((f) => f.endsWith('.dasp.json'))
        .map((f) => f.replace('.dasp.json', ''))
        .sort(),
    ).toEqual(failing.map(([n]) => n).sort())
  })

  it('a near miss names the closest definition', async () => {
    const result = await compile(join(fixtures, 'invalid', 'unknown-extension.dasp.json'))
    const diagnostic = result.diagnostics.find((d) => d.code === 'DASP_UNKNOWN_EXTENSION')!
    expect(diagnostic.data).toEqual({ closest: { uri: POA, version: 'draft-01' } })
    expect(diagnostic.message).toContain('did you mean')
  })

  it('a pinned local file that changed breaks its manifest pin', async () => {
    const work = join(import.meta.dirname, '.tmp/dasp-pin')
    rmSync(work, { recursive: true, force: true })
    mkdirSync(work, { recursive: true })
    cpSync(fixtures, work, { recursive: true })
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
      rmSync(work, { recursive: true, force: true })
      cpSync(fixtures, work, { recursive: true })
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

  it('one identity and version defined twice with the same content (keys reordered) is one definition, not a conflict', async () => {
    const { readFileSync } = await import('node:fs')
    const work = join(import.meta.dirname, '.tmp/dasp-same-version')
    rmSync(work, { recursive: true, force: true })
    cpSync(fixtures, work, { recursive: true })
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
    rmSync(work, { recursive: true, force: true })
    cpSync(fixtures, work, { recursive: true })
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

describe('the generated module', () => {
  let mod: Record<string, any>
  beforeAll(async () => {
    mod = await loadModule((await compile(selectionFile)).code!, 'dasp')
  })

  it('selectionRequest is exact, complete, deep-frozen and ordered', () => {
    const r = mod.selectionRequest
    expect(Object.isFrozen(r.extensions[1].settings.commands[0])).toBe(true)
    expect(r.extensions.map((e: any) => [e.uri, e.scope])).toEqual([
      [ENC, 'connection'],
      [POA, 'session'],
    ])
    expect(r.extensions[0]).toEqual({
      uri: ENC,
      version: 'draft-01',
      content: { kind: 'sha256-manifest', manifest: '../pins/encrypted-delivery.manifest.json', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
      scope: 'connection',
      settings: { cipher: 'xchacha20poly1305', rekey_interval_s: 3600 },
      dependencies: [],
    })
    expect(r.core).toMatchObject({ uri: 'https://dasp-protocol.github.io/dasp/contracts/core', version: 'draft-01', content: { kind: 'git-commit' } })
  })

  it('isExactSelection is true only for exactly the request', () => {
    const copy = JSON.parse(JSON.stringify(mod.selectionRequest))
    expect(mod.isExactSelection(copy)).toBe(true)
    expect(mod.isExactSelection({ ...copy, extensions: [...copy.extensions].reverse() })).toBe(false)
    copy.extensions[1].settings.grant_bytes = 8192
    expect(mod.isExactSelection(copy)).toBe(false)
    expect(mod.isExactSelection(undefined)).toBe(false)
  })

  it('checkSessionFloor: the recovery cases of the seed', () => {
    const offered = JSON.parse(JSON.stringify(mod.selectionRequest))
    const saved = JSON.parse(JSON.stringify(mod.sessionFloor))
    expect(saved.extensions[0].settings).toEqual({ cipher: 'xchacha20poly1305' })
    expect(mod.checkSessionFloor(saved, offered)).toEqual({ ok: true })
    // Restart with a missing or unreadable requirement record: never an empty floor.
    for (const record of [undefined, null, 'corrupt', {}]) expect(mod.checkSessionFloor(record, offered)).toMatchObject({ ok: false, code: 'missing-record' })
    // Reconnect without protection.
    expect(mod.checkSessionFloor(saved, { ...offered, extensions: offered.extensions.filter((e: any) => e.uri !== ENC) })).toMatchObject({
      ok: false,
      code: 'missing-extension',
      extension: ENC,
    })
    // Changed confirmation: another content pin.
    const repinned = JSON.parse(JSON.stringify(offered))
    repinned.extensions[1].content.sha256 = 'e'.repeat(64)
    expect(mod.checkSessionFloor(saved, repinned)).toMatchObject({ ok: false, code: 'changed-pin', extension: POA })
    // Another version.
    const upgraded = JSON.parse(JSON.stringify(offered))
    upgraded.extensions[1].version = 'draft-02'
    expect(mod.checkSessionFloor(saved, upgraded)).toMatchObject({ ok: false, code: 'other-version' })
    // Weaker settings.
    const weaker = JSON.parse(JSON.stringify(offered))
    weaker.extensions[1].settings.commands = [{ name: 'counter.add', kind: 'standing' }]
    expect(mod.checkSessionFloor(saved, weaker)).toMatchObject({ ok: false, code: 'weaker-settings' })
    // A fresh connection setting may change; stronger current policy (one more extension) is accepted.
    const fresher = JSON.parse(JSON.stringify(offered))
    fresher.extensions[0].settings.rekey_interval_s = 600
    fresher.extensions.push({
      uri: 'https://example.com/dasp/contracts/audit-trail',
      version: 'draft-01',
      scope: 'session',
      settings: {},
      content: {},
      dependencies: [],
    })
    expect(mod.checkSessionFloor(saved, fresher)).toEqual({ ok: true })
  })

  it('attribute helpers: names, validators and placement', () => {
    expect(mod.attributeNames).toEqual(['daspauthority'])
    expect(mod.attributeValidators.daspauthority('grant-token')).toBe(true)
    expect(mod.attributeValidators.daspauthority(42)).toBe(false)
    const command = { specversion: '1.0', id: '1', source: 'urn:c', type: 'dasp.v1.command', requestid: 'r1', daspauthority: 'grant-token' }
    expect(mod.checkPlacement(command)).toEqual({ ok: true })
    expect(mod.checkPlacement({ ...command, type: 'dasp.v1.read' })).toMatchObject({ ok: false, code: 'not-allowed', attribute: 'daspauthority' })
    const { daspauthority: _, ...bare } = command
    expect(mod.checkPlacement(bare)).toMatchObject({ ok: false, code: 'missing' })
    expect(mod.checkPlacement({ ...command, daspauthority: { nested: true } })).toMatchObject({ ok: false, code: 'invalid' })
  })

  it('conformanceReport gives the DASP-EXT-008 skeleton for this exact selection', () => {
    const report = mod.conformanceReport({
      implementationVersions: { client: '0.1.0' },
      durabilityBoundary: 'session store fsync',
      cases: [
        { id: 'failed-selection', executed: true, passed: true },
        { id: 'concurrent-clients', executed: false, note: 'needs a complete binding' },
      ],
    })
    expect(report).toMatchObject({
      core: mod.selectionRequest.core,
      extensions: [
        { uri: ENC, version: 'draft-01', scope: 'connection' },
        { uri: POA, version: 'draft-01', scope: 'session' },
      ],
      pins: [{ uri: ENC, content: mod.selectionRequest.extensions[0].content }, { uri: POA }],
      executedCases: [{ id: 'failed-selection', passed: true }],
      skippedCases: [{ id: 'concurrent-clients', note: 'needs a complete binding' }],
      durabilityBoundary: 'session store fsync',
    })
  })
})

describe('in a bundler', () => {
  it('the selection is imported in an esbuild build and used from Node; its types compile', async () => {
    const work = join(import.meta.dirname, '.tmp/dasp-app')
    rmSync(work, { recursive: true, force: true })
    mkdirSync(work, { recursive: true })
    cpSync(fixtures, work, { recursive: true })
    writeFileSync(
      join(work, 'app.ts'),
      [
        "import { selectionRequest, isExactSelection, checkSessionFloor, sessionFloor } from './counter.dasp.json'",
        "const version: 'draft-01' = selectionRequest.extensions[1].version",
        'const grant: 16384 = selectionRequest.extensions[1].settings.grant_bytes',
        'export function run() { return { exact: isExactSelection(JSON.parse(JSON.stringify(selectionRequest))), floor: checkSessionFloor(sessionFloor, selectionRequest), version, grant } }',
      ].join('\n'),
    )
    const file = await bundlers.esbuild!(join(work, 'app.ts'), join(work, 'out'))
    const script = `const { run } = await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(JSON.stringify(run()))`
    expect(JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }))).toEqual({
      exact: true,
      floor: { ok: true },
      version: 'draft-01',
      grant: 16384,
    })
    writeFileSync(
      join(work, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, module: 'ESNext', moduleResolution: 'bundler', allowArbitraryExtensions: true, types: [] },
        files: ['app.ts'],
      }),
    )
    const r = tsc(['-p', '.'], work)
    expect(r.output).toBe('')
  })
})

describe('closed shapes come first: a malformed member is reported, never skipped by a rule', () => {
  const work = join(import.meta.dirname, '.tmp/dasp-shapes')
  const definitionPath = join(work, 'extensions/proof-of-authority.dasp-ext.json')
  /** Copies the valid fixtures, edits the proof-of-authority definition and the selection, and compiles. */
  const variant = async (editDefinition: (d: any) => void, editSelection: (s: any) => void = () => {}) => {
    const { readFileSync } = await import('node:fs')
    rmSync(work, { recursive: true, force: true })
    cpSync(fixtures, work, { recursive: true })
    const definition = JSON.parse(readFileSync(definitionPath, 'utf8'))
    editDefinition(definition)
    writeFileSync(definitionPath, JSON.stringify(definition, null, 2))
    const selection = JSON.parse(readFileSync(join(work, 'counter.dasp.json'), 'utf8'))
    editSelection(selection)
    writeFileSync(join(work, 'counter.dasp.json'), JSON.stringify(selection, null, 2))
    return (await compile(join(work, 'counter.dasp.json'))).diagnostics.map((d) => [d.code, d.pointer])
  }
  const definitionCases: Array<[what: string, edit: (d: any) => void, pointer: string]> = [
    ['dependencies as an object', (d) => (d.dependencies = { uri: ENC, version: 'draft-01', scope: 'session' }), '/dependencies'],
    ['a dependency as a bare URI', (d) => (d.dependencies = [ENC]), '/dependencies/0'],
    ['scopes as one string', (d) => (d.scopes = 'session'), '/scopes'],
    ['settings as an array', (d) => (d.settings = []), '/settings'],
    ['attributes as an object', (d) => (d.attributes = { daspauthority: d.attributes[0] }), '/attributes'],
    ['examples without any', (d) => (d.examples = {}), '/examples'],
    ['no negative example', (d) => (d.examples.invalid = []), '/examples/invalid'],
    ['an empty processing order', (d) => (d.processing = ''), '/processing'],
    ['evidence limits as null', (d) => (d.evidenceLimits = null), '/evidenceLimits'],
    ['an unknown member', (d) => (d.compatibilty = 'typo'), '/compatibilty'],
    ['a setting member of the wrong type', (d) => (d.settings.grant_bytes.maximum = '16384'), '/settings/grant_bytes/maximum'],
  ]
  it.each(definitionCases)('definition: %s -> DASP_DEFINITION_SHAPE at the member, and no other rule runs', async (_, edit, pointer) => {
    const found = await variant(edit)
    expect(found).toContainEqual(['DASP_DEFINITION_SHAPE', pointer])
    expect(found.every(([code]) => code === 'DASP_DEFINITION_SHAPE')).toBe(true)
  })

  it('selection: policy entries that are not objects, an extension without settings, an unknown member -> DASP_SHAPE', async () => {
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

  it('the valid fixtures pass the shapes, and a missing part is still DASP_DEFINITION_INCOMPLETE (DASP-EXT-002 list)', async () => {
    expect(await variant(() => {})).toEqual([])
    expect(await variant((d) => delete d.evidenceLimits)).toEqual([['DASP_DEFINITION_INCOMPLETE', '']])
  })

  it('identities are RFC 3986 absolute URIs: no raw non-ASCII, valid %-escapes, no fragment, no space', async () => {
    const identity = (uri: string) => variant((d) => (d.identity.uri = uri))
    for (const bad of [
      'https://dasp.example/contracts/authorité',
      'https://dasp.example/a%zz',
      'https://dasp.example/a#v1',
      'https://dasp.example/a b',
      'dasp-authority',
    ])
      expect(await identity(bad), bad).toContainEqual(['DASP_IDENTITY', '/identity'])
    for (const good of ['https://dasp.example/contracts/authorit%C3%A9', 'urn:example:dasp:authority', 'https://[::1]/x?y=1'])
      expect(
        (await identity(good)).filter(([code]) => code === 'DASP_IDENTITY'),
        good,
      ).toEqual([])
  })

  it('DASP-EXT-007: daspauthority is a String on commands, never on dasp.encrypted; proof of authority has no encrypted-delivery dependency', async () => {
    expect(await variant((d) => (d.attributes[0].type = 'Binary'))).toContainEqual(['DASP_DRAFT_IDENTITY', '/attributes/0/type'])
    const carrier = await variant((d) => {
      d.operations.push('dasp.encrypted')
      d.attributes[0].on.push('dasp.encrypted')
    })
    expect(carrier).toEqual([['DASP_DRAFT_IDENTITY', '/attributes/0/on/1']])
    const dependent = await variant((d) => (d.dependencies = [{ uri: ENC, version: 'draft-01', scope: 'connection' }]))
    expect(dependent).toEqual([['DASP_DRAFT_IDENTITY', '/dependencies/0']])
  })
})
