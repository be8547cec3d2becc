/**
 * Root channels, root operations, replies and channel parameters given as Reference Objects
 * (AsyncAPI 3.1.0: Channels Object, Operations Object, Operation Object `reply`, Parameters Object
 * each take "... | Reference Object"), as producers write them to share a definition from
 * `components`. The oracle is the same contract written inline: both compile with no diagnostic to
 * the same model (but the document digest) and the same module exports. Then the hostile forms: a
 * cycle of references, a reference to nothing or to a string, each reported, never a hang or a crash.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile, inspect } from '../src/index.js'
import { ContractCompiler } from '../src/core/compile.js'
import { formats, natsFormat } from '../src/formats/index.js'
import { natsDiffer } from '../src/formats/nats/diff/index.js'
import type { NatsModel } from '../src/formats/nats/model.js'
import { loadModule } from './helpers/load-module.js'

const work = join(import.meta.dirname, '.tmp/nats-standard-refs')
const ledger = readFileSync(join(import.meta.dirname, '../fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8')

/** `text` with `from` replaced by `to`, where `from` must occur exactly once. */
function edit(text: string, from: string, to: string): string {
  expect(text.split(from).length, from).toBe(2)
  return text.replace(from, to)
}

/** The ledger with every part the specification lets be a reference moved to `components` and referenced. */
const referenced = (() => {
  let text = ledger
  const entryPosted = text.slice(text.indexOf('  entryPosted:\n    address:'), text.indexOf('  balanceQuery:\n    address:'))
  text = edit(text, entryPosted, "  entryPosted:\n    $ref: '#/components/channels/entryPosted'\n")
  text = edit(text, '    parameters:\n      account: {}\n', "    parameters:\n      account: { $ref: '#/components/parameters/account' }\n")
  const postEntry = "  postEntry:\n    action: send\n    channel: { $ref: '#/channels/entryPosted' }\n"
  text = edit(text, postEntry, "  postEntry:\n    $ref: '#/components/operations/postEntry'\n")
  text = edit(text, "    reply:\n      channel: { $ref: '#/channels/balanceReply' }\n", "    reply: { $ref: '#/components/replies/balance' }\n")
  const components = [
    '  channels:',
    ...entryPosted
      .trimEnd()
      .split('\n')
      .map((line) => `  ${line}`),
    '  operations:',
    ...postEntry
      .trimEnd()
      .split('\n')
      .map((line) => `  ${line}`),
    '  replies:',
    '    balance:',
    "      channel: { $ref: '#/channels/balanceReply' }",
    '  parameters:',
    '    account: {}',
    '',
  ].join('\n')
  return edit(text, 'components:\n', `components:\n${components}`)
})()

async function compiled(name: string, text: string) {
  const file = join(work, `${name}.asyncapi.yaml`)
  writeFileSync(file, text)
  return { file, result: await compile(file), model: (await inspect(file)).data as Record<string, unknown> }
}

beforeAll(() => {
  rmSync(work, { recursive: true, force: true })
  mkdirSync(work, { recursive: true })
})

describe('standard parts given by reference', () => {
  it('compile to the model and module exports the inline contract compiles to', async () => {
    const inline = await compiled('inline', ledger)
    const refs = await compiled('refs', referenced)
    expect(referenced).not.toContain(
      "    address: ledger.{region}.{entryId}.posted\n    parameters:\n      region: {}\n      entryId: {}\n    messages:\n      posted:\n        $ref: '#/components/messages/EntryPosted'\n  balanceQuery",
    )
    expect(inline.result.diagnostics).toEqual([])
    expect(refs.result.diagnostics).toEqual([])
    // Where things are written (file, line, column) and the document's own digest differ; everything read from the document is the same.
    const placeless = new Set(['file', 'line', 'column', 'offset', 'digest', 'documentDigest'])
    const comparable = (model: Record<string, unknown>) => JSON.parse(JSON.stringify(model, (key, value) => (placeless.has(key) ? undefined : value)))
    expect(comparable(refs.model)).toEqual(comparable(inline.model))
    const [a, b] = [await loadModule(inline.result.code!, 'standard-refs-inline'), await loadModule(refs.result.code!, 'standard-refs-refs')]
    expect(Object.keys(b).sort()).toEqual(Object.keys(a).sort())
    // Every export: the data (descriptors, subjects, schemas) equal but for where it is written.
    for (const [name, value] of Object.entries(a as Record<string, unknown>)) {
      const other = (b as Record<string, unknown>)[name]
      if (value !== null && typeof value === 'object')
        expect(comparable(other as Record<string, unknown>), name).toEqual(comparable(value as Record<string, unknown>))
      else expect(typeof other, name).toBe(typeof value)
    }
  })

  it('a reference that names nothing, names a string, or is part of a cycle is reported where it is written, never followed forever', async () => {
    const cases: Array<[string, string]> = [
      ['missing', "  entryPosted:\n    $ref: '#/components/channels/nowhere'\n"],
      ['string', "  entryPosted:\n    $ref: '#/info/title'\n"],
      ['cycle', "  entryPosted:\n    $ref: '#/channels/entryPosted'\n"],
    ]
    const entryPosted = ledger.slice(ledger.indexOf('  entryPosted:\n    address:'), ledger.indexOf('  balanceQuery:\n    address:'))
    for (const [name, replacement] of cases) {
      const { result } = await compiled(`bad-${name}`, edit(ledger, entryPosted, replacement))
      expect(result.code, name).toBeUndefined()
      expect(result.diagnostics.length, name).toBeGreaterThan(0)
      expect(
        result.diagnostics.map((d) => d.code),
        name,
      ).not.toContain('CONTRACTS_INTERNAL')
      // Every diagnostic about the channel is located in the document (the reference's line or after it).
      for (const d of result.diagnostics) expect(d.line, `${name} ${d.code}`).toBeGreaterThan(0)
    }
  })

  it('contracts diff reads them the same way: inline and by reference, one contract, no finding either way; an edit behind a reference is found', async () => {
    const compiler = new ContractCompiler({ formats })
    const side = async (name: string, text: string) => {
      const file = join(work, `diff-${name}.asyncapi.yaml`)
      writeFileSync(file, text)
      const result = await compiler.model(file, natsFormat)
      expect(
        result.diagnostics.filter((d) => d.severity === 'error'),
        name,
      ).toEqual([])
      return { file, model: result.model! as NatsModel, read: (f: string) => readFile(f, 'utf8').catch(() => undefined) }
    }
    const [inline, refs] = [await side('inline', ledger), await side('refs', referenced)]
    expect(await natsDiffer.diff(inline, refs)).toEqual([])
    expect(await natsDiffer.diff(refs, inline)).toEqual([])
    // A model without the compile's parse (made by hand): the differ reads the text itself, the same way.
    const unparsed = { ...refs, model: { ...refs.model, parsed: undefined } as NatsModel }
    expect(await natsDiffer.diff(inline, unparsed)).toEqual([])
    // The referenced channel's message changed in components (its entryId now an integer): found.
    const narrowed = await side(
      'narrowed',
      referenced.replace(
        "      messages:\n        posted:\n          $ref: '#/components/messages/EntryPosted'\n",
        () =>
          '      messages:\n        posted:\n          payload: { type: object, required: [entryId, cents], properties: { entryId: { type: integer }, cents: { type: integer } } }\n',
      ),
    )
    const findings = await natsDiffer.diff(refs, narrowed)
    expect(findings.length).toBeGreaterThan(0)
    expect(findings.some((f) => f.level === 'breaking')).toBe(true)
  })
})
