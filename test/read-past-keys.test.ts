/**
 * A key mistake does not hide the other rules' verdicts: a duplicate key (JSON, YAML) or a scalar key
 * tagged as another type (`!!int 42:`) is reported, and the document's value as JSON and yaml read
 * it (the later member; the key's text) is checked by every rule. The document is still refused:
 * no module is written. A key with no text (a collection, `? [a]`) leaves no value: that error alone.
 * One document of each kind: NATS YAML and JSON, a NATS bundle's other document, Benzene, a DASP
 * selection and one of its definitions.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { freshDir } from './helpers/bundlers.js'

const fixtures = join(import.meta.dirname, '../fixtures')
const work = freshDir(join(import.meta.dirname, '.tmp/read-past-keys'))
const ledger = readFileSync(join(fixtures, 'nats/valid/ledger.asyncapi.yaml'), 'utf8')

/** `text` with `from` replaced once (the edit must apply). */
function edited(text: string, from: string, to: string): string {
  expect(text).toContain(from)
  return text.replace(from, to)
}

function write(name: string, text: string): string {
  const file = join(work, name)
  mkdirSync(join(file, '..'), { recursive: true })
  writeFileSync(file, text)
  return file
}

/** The codes with their pointers and lines, in the order reported. */
async function verdicts(file: string) {
  const result = await compile(file)
  return { codes: result.diagnostics.map((d) => `${d.code} ${d.pointer} ${d.line}`), code: result.code }
}

// A stream setting the profile refuses (NATS_STREAM_CONFIG), with nothing else wrong.
const replicas = (text: string) => edited(text, 'num_replicas: 3', 'num_replicas: 2')

describe('NATS', () => {
  it('a YAML duplicate key and a refused stream setting: both reported, no module', async () => {
    const file = write('dup.asyncapi.yaml', replicas(edited(ledger, '  title: Ledger\n', '  title: Ledger\n  title: Ledger again\n')))
    const { codes, code } = await verdicts(file)
    expect(codes.filter((c) => c.startsWith('YAML_DUPLICATE_KEY'))).toEqual(['YAML_DUPLICATE_KEY /info/title 4'])
    expect(codes.some((c) => c.startsWith('NATS_STREAM_CONFIG /x-nats-contract/streams/'))).toBe(true)
    expect(code).toBeUndefined()
  })

  it('the later of two members is the one the rules read', async () => {
    // The first value is refused and the later accepted: read as JSON.parse and yaml read it, the stream is fine.
    const text = edited(ledger, 'num_replicas: 3', 'num_replicas: 2\n        num_replicas: 3')
    const { codes } = await verdicts(write('later.asyncapi.yaml', text))
    expect(codes.map((c) => c.split(' ')[0])).toEqual(['YAML_DUPLICATE_KEY'])
  })

  it('a tagged scalar key is read as its text; a collection key leaves nothing to check', async () => {
    const tagged = write('tagged.asyncapi.yaml', replicas(edited(ledger, '  title: Ledger\n', '  title: Ledger\n  x-notes:\n    !!int 42: answer\n')))
    const t = await verdicts(tagged)
    expect(t.codes[0]).toBe('YAML_NON_STRING_KEY /info/x-notes/42 5')
    expect(t.codes.some((c) => c.startsWith('NATS_STREAM_CONFIG'))).toBe(true)
    const collection = write(
      'collection.asyncapi.yaml',
      replicas(edited(ledger, '  title: Ledger\n', '  title: Ledger\n  x-notes:\n    ? [a, b]\n    : answer\n')),
    )
    const c = await verdicts(collection)
    expect(c.codes.map((x) => x.split(' ')[0])).toEqual(['YAML_NON_STRING_KEY'])
  })

  it('what is under a tagged key is placed at its own line, and a key of the same text is a duplicate (an outside pass)', async () => {
    // A channel under `!!int 42:` whose address has a wildcard (NATS_ADDRESS_TOKEN): reported at the address's line.
    const channel = '  balanceReply:\n'
    const tagged = write(
      'tagged-channel.asyncapi.yaml',
      edited(ledger, channel, `  !!int 42:\n    address: ledger.>.fortytwo\n    messages:\n      m: { payload: { type: object } }\n${channel}`),
    )
    const result = await compile(tagged)
    const lines = readFileSync(tagged, 'utf8').split('\n')
    const addressLine = lines.findIndex((l) => l.includes('ledger.>.fortytwo')) + 1
    const keyLine = lines.findIndex((l) => l.includes('!!int 42:')) + 1
    const byCode = new Map(result.diagnostics.map((d) => [d.code, d]))
    expect([byCode.get('YAML_NON_STRING_KEY')?.pointer, byCode.get('YAML_NON_STRING_KEY')?.line]).toEqual(['/channels/42', keyLine])
    const placed = result.diagnostics.filter((d) => d.pointer.startsWith('/channels/42/address'))
    expect(placed.length).toBeGreaterThan(0)
    for (const d of placed) expect([d.code, d.line]).toEqual([d.code, addressLine])
    // '42' and !!int 42 in one mapping: one key twice.
    const twice = write('tagged-twice.asyncapi.yaml', edited(ledger, '  title: Ledger\n', "  title: Ledger\n  x-notes:\n    '42': a\n    !!int 42: b\n"))
    const codes = (await verdicts(twice)).codes
    expect(codes).toContain('YAML_DUPLICATE_KEY /info/x-notes/42 6')
  })

  it('a syntax error still stops reading (no rule runs on a text that was not read)', async () => {
    const file = write('syntax.asyncapi.yaml', replicas(edited(ledger, '  title: Ledger\n', '  title: Ledger\n  title: [unclosed\n')))
    const { codes } = await verdicts(file)
    expect(codes.map((x) => x.split(' ')[0])).toEqual(['YAML_SYNTAX'])
  })

  it('a JSON document (*.asyncapi.json): a duplicate key beside a refused stream setting', async () => {
    const { parse } = await import('yaml')
    const doc = parse(replicas(ledger)) as Record<string, unknown>
    const json = JSON.stringify(doc, null, 2).replace('"asyncapi": "3.1.0",', '"asyncapi": "3.1.0",\n  "asyncapi": "3.1.0",')
    const { codes, code } = await verdicts(write('dup.asyncapi.json', json))
    expect(codes[0]).toBe('JSON_DUPLICATE_KEY /asyncapi 3')
    expect(codes.some((c) => c.startsWith('NATS_STREAM_CONFIG'))).toBe(true)
    expect(code).toBeUndefined()
  })
})

describe('Benzene', () => {
  it('a duplicate key beside a missing reference: both reported, no module', async () => {
    const text = readFileSync(join(fixtures, 'benzene/invalid/ref-missing.spec.json'), 'utf8')
    const withDup = edited(text, '"openapi"', '"openapi": "3.1.0",\n  "openapi"')
    const { codes, code } = await verdicts(write('dup.spec.json', withDup))
    expect(codes.map((c) => c.split(' ')[0])).toEqual(['JSON_DUPLICATE_KEY', 'BENZENE_REF_MISSING'])
    expect(codes[0]).toMatch(/^JSON_DUPLICATE_KEY \/openapi /)
    expect(code).toBeUndefined()
  })
})

describe('DASP', () => {
  it('duplicate keys in the selection and in a definition: each reported, and the definition’s rule still speaks', async () => {
    const dir = join(work, 'dasp')
    cpSync(join(fixtures, 'dasp/invalid'), dir, { recursive: true })
    const selection = join(dir, 'attribute-name-length.dasp.json')
    writeFileSync(selection, edited(readFileSync(selection, 'utf8'), '"dasp": "draft-01",', '"dasp": "draft-01",\n  "dasp": "draft-01",'))
    const definition = join(dir, 'extensions/poa-long-name.dasp-ext.json')
    writeFileSync(definition, edited(readFileSync(definition, 'utf8'), '"version": "draft-01"', '"version": "draft-01",\n    "version": "draft-01"'))
    const result = await compile(selection)
    const codes = result.diagnostics.map((d) => `${d.code} ${d.file.endsWith('.dasp.json') ? 'selection' : 'definition'}`)
    expect(codes.sort()).toEqual(['DASP_ATTRIBUTE_NAME_LENGTH definition', 'JSON_DUPLICATE_KEY definition', 'JSON_DUPLICATE_KEY selection'])
    expect(result.code).toBeUndefined()
  })
})
