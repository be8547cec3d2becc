/** DASP extension selections: the generated module and its runtime helpers (the rules: dasp-rules.test.ts). */
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { bundlers } from './helpers/bundlers.js'
import { tsc } from './helpers/cli.js'
import { loadModule } from './helpers/load-module.js'

const fixtures = join(import.meta.dirname, '../fixtures/dasp')
const selectionFile = join(fixtures, 'counter.dasp.json')
const ENC = 'https://dasp-protocol.github.io/dasp/contracts/encrypted-delivery'
const POA = 'https://dasp-protocol.github.io/dasp/contracts/proof-of-authority'

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

describe('every form the DASP layout shows', () => {
  const corpus = join(fixtures, 'corpus')
  const read = async (path: string) => JSON.parse((await import('node:fs')).readFileSync(join(corpus, path), 'utf8'))

  it('the every-form selection and its definitions use each optional form', async () => {
    const selection = await read('every-form.dasp.json')
    const definition = await read('extensions/every-form.dasp-ext.json')
    const base = await read('extensions/every-form-base.dasp-ext.json')
    expect(definition.supports.profiles).toBe('any')
    expect(selection.binding.content.kind).toBe('sha256-manifest')
    expect(selection.core.content.kind).toBe('git-commit')
    expect(definition.content.kind).toBe('sha256-manifest')
    expect(base.content.kind).toBe('git-commit')
    expect(definition.dependencies).toEqual([{ uri: base.identity.uri, version: '2', scope: 'session' }])
    expect(base.dependencies).toEqual([])
    expect(definition.scopes.length).toBeGreaterThan(1)
    expect(typeof definition.scopeRelations).toBe('string')
    const settings = Object.values(definition.settings) as Array<Record<string, unknown>>
    expect(new Set(settings.map((x) => x.type))).toEqual(new Set(['integer', 'string', 'boolean', 'enum', 'array']))
    expect(new Set(settings.map((x) => x.persistence))).toEqual(new Set(['session', 'connection']))
    for (const member of ['unit', 'minimum', 'maximum', 'values', 'items', 'minItems', 'maxItems', 'uniqueBy', 'description'])
      expect(
        settings.some((x) => member in x),
        member,
      ).toBe(true)
    expect(settings.some((x) => typeof x.items === 'boolean')).toBe(true)
    expect(new Set(definition.attributes.map((a: any) => a.type))).toEqual(
      new Set(['Boolean', 'Integer', 'String', 'Binary', 'URI', 'URI-reference', 'Timestamp']),
    )
    expect(new Set(definition.attributes.map((a: any) => a.class))).toEqual(new Set(['saved', 'delivery']))
    expect(new Set(definition.attributes.map((a: any) => a.required))).toEqual(new Set([true, false, undefined]))
    for (const kind of ['valid', 'invalid']) expect(new Set(definition.examples[kind].map((x: unknown) => typeof x))).toEqual(new Set(['string', 'object']))
    expect(Object.keys(definition.records).sort()).toEqual(['reconnect', 'replay', 'retry', 'saved', 'upgrade'])
    expect(selection.policy.requires.map((r: any) => 'scope' in r)).toEqual([true, false])
  })

  it('they check clean, and the module carries the profile-independent request', async () => {
    const result = await compile(join(corpus, 'every-form.dasp.json'))
    expect(result.diagnostics).toEqual([])
    const mod = await loadModule(result.code!, 'dasp-every-form')
    expect(mod.selectionRequest.binding.content.kind).toBe('sha256-manifest')
    expect([...mod.attributeNames].sort()).toEqual(['daspaudit', 'daspcontext', 'daspdeadline', 'daspdigest', 'daspsampled', 'daspschema', 'daspseq'])
    // Only the session settings are in the floor; both scopes are kept.
    expect(mod.sessionFloor.extensions.map((e: any) => [e.scope, Object.keys(e.settings).sort()])).toEqual([
      ['command', ['mode', 'region', 'retention_days', 'streams']],
      ['session', ['mode', 'region', 'retention_days', 'streams']],
      ['session', []],
    ])
  })
})
