/**
 * The DASP corpus (fixtures/dasp/corpus/, written by make-fixtures.py): selection sets over seven
 * extensions (the two DASP-EXT-007 drafts, an audit trail depending on proof of authority, trace
 * context, compression, and one using every form the DASP layout shows with its dependency),
 * manifest and git-commit pins, one in upper-case hex. Each set is checked
 * with no diagnostic; its module's request, floor and attribute helpers agree with the selection it
 * came from; and its declarations type-check under `tsc --strict` with the literal types it says.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { loadModule } from './helpers/load-module.js'
import { typecheck } from './helpers/typecheck.js'

const corpus = join(import.meta.dirname, '../fixtures/dasp/corpus')
const work = join(import.meta.dirname, '.tmp/dasp-corpus')
const names = readdirSync(corpus)
  .filter((f) => f.endsWith('.dasp.json'))
  .map((f) => f.slice(0, -'.dasp.json'.length))
const read = (path: string) => JSON.parse(readFileSync(join(corpus, path), 'utf8'))
/** A value of each CloudEvents type, in the JSON format. */
const SAMPLE: Record<string, unknown> = {
  Boolean: true,
  Integer: 7,
  String: 'value',
  Binary: 'AAEC',
  URI: 'https://example.com/schema',
  'URI-reference': '/context',
  Timestamp: '2024-02-29T12:00:00Z',
}
const compiled = new Map<string, { mod: Record<string, any>; dts: string; selection: any; definitions: any[] }>()

beforeAll(async () => {
  for (const name of names) {
    const result = await compile(join(corpus, `${name}.dasp.json`))
    expect(result.diagnostics, name).toEqual([])
    const selection = read(`${name}.dasp.json`)
    compiled.set(name, {
      mod: await loadModule(result.code!, `dasp-corpus-${name}`),
      dts: result.dts!,
      selection,
      definitions: selection.definitions.map((path: string) => read(path)),
    })
  }
})

describe('the DASP corpus', () => {
  it('holds at least 8 selection sets', () => expect(names.length).toBeGreaterThanOrEqual(8))

  it.each(names)('%s: the request is the selection, exactly, with pins and dependencies from the definitions', (name) => {
    const { mod, selection, definitions } = compiled.get(name)!
    const definitionOf = (e: any) => definitions.find((d) => d.identity.uri === e.uri && d.identity.version === e.version)
    const expected = [...selection.extensions]
      .sort((a: any, b: any) => (`${a.uri}\0${a.version}\0${a.scope}` < `${b.uri}\0${b.version}\0${b.scope}` ? -1 : 1))
      .map((e: any) => {
        const content = definitionOf(e).content
        return {
          uri: e.uri,
          version: e.version,
          // Pins are canonical in the request: hex in lower case, whatever case the definition wrote.
          content: {
            ...content,
            ...(content.sha256 ? { sha256: content.sha256.toLowerCase() } : {}),
            ...(content.commit ? { commit: content.commit.toLowerCase() } : {}),
          },
          scope: e.scope,
          settings: e.settings,
          dependencies: definitionOf(e).dependencies,
        }
      })
    expect(JSON.parse(JSON.stringify(mod.selectionRequest.extensions))).toEqual(expected)
    expect(Object.isFrozen(mod.selectionRequest)).toBe(true)
    expect(mod.isExactSelection(JSON.parse(JSON.stringify(mod.selectionRequest)))).toBe(true)
  })

  it.each(names)('%s: the session floor keeps exactly the session settings, and holds against the request it came from', (name) => {
    const { mod, definitions } = compiled.get(name)!
    const offered = JSON.parse(JSON.stringify(mod.selectionRequest))
    const floor = JSON.parse(JSON.stringify(mod.sessionFloor))
    for (const [i, e] of floor.extensions.entries()) {
      const specs = definitions.find((d) => d.identity.uri === e.uri).settings
      const session = Object.keys(specs).filter((s) => specs[s].persistence === 'session')
      expect(Object.keys(e.settings).sort(), e.uri).toEqual(session.filter((s) => s in offered.extensions[i].settings).sort())
    }
    expect(mod.checkSessionFloor(floor, offered)).toEqual({ ok: true })
    for (const e of offered.extensions) {
      const without = { ...offered, extensions: offered.extensions.filter((x: any) => x !== e) }
      expect(mod.checkSessionFloor(floor, without), e.uri).toMatchObject({ ok: false, code: 'missing-extension', extension: e.uri })
    }
  })

  it.each(names)("%s: attribute helpers know exactly the selected definitions' attributes", (name) => {
    const { mod, definitions } = compiled.get(name)!
    const selected = new Set(compiled.get(name)!.selection.extensions.map((e: any) => e.uri))
    const attributes = definitions.filter((d) => selected.has(d.identity.uri)).flatMap((d) => d.attributes)
    expect([...mod.attributeNames].sort()).toEqual([...new Set(attributes.map((a: any) => a.name))].sort())
    const command: Record<string, unknown> = { specversion: '1.0', id: '1', source: 'urn:c', type: 'dasp.v1.command', requestid: 'r1' }
    for (const a of attributes) if (a.on.includes('dasp.v1.command')) command[a.name] = SAMPLE[a.type]
    expect(mod.checkPlacement(command)).toEqual({ ok: true })
    for (const a of attributes.filter((x: any) => x.required)) {
      const { [a.name]: _, ...without } = command
      expect(mod.checkPlacement(without), a.name).toMatchObject({ ok: false, code: 'missing', attribute: a.name })
    }
  })

  it('the declarations type-check and carry the literal identities (tsc --strict)', () => {
    const modules: Record<string, string> = {}
    const sources: Record<string, string> = {}
    for (const name of names) {
      const { dts, mod } = compiled.get(name)!
      const id = `dasp_${name.replace(/-/g, '_')}`
      modules[id] = dts
      const first = mod.selectionRequest.extensions[0]
      sources[`${id}.use.ts`] = [
        `import { selectionRequest, sessionFloor, checkSessionFloor, isExactSelection } from './${id}.js'`,
        `export const uri: (typeof selectionRequest)['extensions'][0]['uri'] = ${JSON.stringify(first.uri)}`,
        `export const scope: (typeof selectionRequest)['extensions'][0]['scope'] = ${JSON.stringify(first.scope)}`,
        '// @ts-expect-error the version is a literal type',
        `export const version: (typeof selectionRequest)['extensions'][0]['version'] = 'draft-99'`,
        'export const ok: boolean = isExactSelection(selectionRequest) && checkSessionFloor(sessionFloor, selectionRequest).ok',
      ].join('\n')
    }
    const r = typecheck(work, modules, sources)
    expect(r.output).toBe('')
    expect(r.status).toBe(0)
  })
})
