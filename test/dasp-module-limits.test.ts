/**
 * DASP_MODULE_LIMIT (src/formats/dasp/rules/module-limits.ts): the runtime takes at most
 * MAX_MODULE_LIST entries a list from a generated module. An outside pass found a selection past
 * that (1,025 extensions, or one extension with 1,025 persistent settings; the floor now holds each
 * extension's affected operations and dependency requirements too) built without a word,
 * its `sessionFloor` `{}`, which every later reopening is refused against. Now the build fails,
 * as unsupported; at the limit the module is made and its floor holds every setting.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { MAX_MODULE_LIST, checkSessionFloor } from '../src/runtime/dasp/index.js'
import { freshDir } from './helpers/bundlers.js'
import { loadModule } from './helpers/load-module.js'

const fixtures = join(import.meta.dirname, '../fixtures/dasp')

/** The counter selection with `extra` more persistent settings on proof-of-authority (extension 1), each given a value, its definition then edited. */
function selection(name: string, extra: number, edit?: (definition: Record<string, unknown>) => void): string {
  const dir = freshDir(join(import.meta.dirname, `.tmp/dasp-module-limits/${name}`))
  cpSync(join(fixtures, 'extensions'), join(dir, 'extensions'), { recursive: true })
  cpSync(join(fixtures, 'pins'), join(dir, 'pins'), { recursive: true })
  const definitionFile = join(dir, 'extensions/proof-of-authority.dasp-ext.json')
  const definition = JSON.parse(readFileSync(definitionFile, 'utf8'))
  const selected = JSON.parse(readFileSync(join(fixtures, 'counter.dasp.json'), 'utf8'))
  const authority = selected.extensions[1]
  expect(authority.uri).toBe(definition.identity.uri)
  for (let i = 0; i < extra; i++) {
    definition.settings[`level_${i}`] = { type: 'integer', minimum: 0, maximum: 9, persistence: 'session' }
    authority.settings[`level_${i}`] = i % 10
  }
  edit?.(definition)
  writeFileSync(definitionFile, JSON.stringify(definition, null, 2))
  const file = join(dir, 'counter.dasp.json')
  writeFileSync(file, JSON.stringify(selected, null, 2))
  return file
}

describe('DASP_MODULE_LIMIT', () => {
  it(`fires on an extension with more than ${MAX_MODULE_LIST} persistent settings, at its settings`, async () => {
    // grant_bytes and commands are persistent already: MAX_MODULE_LIST - 1 more make one too many.
    const result = await compile(selection('over', MAX_MODULE_LIST - 1))
    expect(result.diagnostics.map((d) => [d.code, d.pointer])).toEqual([['DASP_MODULE_LIMIT', '/extensions/1/settings']])
    expect(result.code).toBeUndefined()
  })

  it('does not fire at the limit, and the module’s floor holds every persistent setting', async () => {
    const result = await compile(selection('at', MAX_MODULE_LIST - 2))
    expect(result.diagnostics).toEqual([])
    const module = await loadModule(result.code!, 'dasp-module-limits-at')
    const floor = module.sessionFloor as { extensions: Array<{ settings: Record<string, unknown> }> }
    expect(Object.keys(floor.extensions[1]!.settings)).toHaveLength(MAX_MODULE_LIST)
    expect(checkSessionFloor(floor, module.selectionRequest)).toEqual({ ok: true })
  })

  it(`fires on a definition listing more than ${MAX_MODULE_LIST} affected operations or dependencies (the floor holds both), at the extension`, async () => {
    const operations = ['dasp.v1.command', ...Array.from({ length: MAX_MODULE_LIST }, (_, i) => `dasp.v1.op${i}`)]
    const over = await compile(selection('operations-over', 0, (d) => (d.operations = operations)))
    expect(over.diagnostics.map((d) => [d.code, d.pointer])).toEqual([['DASP_MODULE_LIMIT', '/extensions/1']])
    // The same dependency listed past the limit (a duplicate list is not refused elsewhere).
    const dependency = { uri: 'https://dasp-protocol.github.io/dasp/contracts/encrypted-delivery', version: 'draft-01', scope: 'connection' }
    const deps = await compile(selection('dependencies-over', 0, (d) => (d.dependencies = Array.from({ length: MAX_MODULE_LIST + 1 }, () => dependency))))
    expect(deps.diagnostics.map((d) => [d.code, d.pointer])).toContainEqual(['DASP_MODULE_LIMIT', '/extensions/1'])
    expect(deps.code).toBeUndefined()
    const at = await compile(selection('operations-at', 0, (d) => (d.operations = operations.slice(0, -1))))
    expect(at.diagnostics).toEqual([])
    const module = await loadModule(at.code!, 'dasp-module-limits-operations-at')
    const floor = module.sessionFloor as { extensions: Array<{ operations: string[] }> }
    expect(floor.extensions[1]!.operations).toEqual(operations.slice(0, -1))
    expect(checkSessionFloor(floor, module.selectionRequest)).toEqual({ ok: true })
  })

  it('does not fire on the fixture as shipped', async () => {
    const result = await compile(join(fixtures, 'counter.dasp.json'))
    expect(result.diagnostics).toEqual([])
  })
})
