/**
 * What the credential scan recognizes, and what it leaves alone (NATS_BUNDLED_CREDENTIAL,
 * BENZENE_BUNDLED_CREDENTIAL, DASP_BUNDLED_CREDENTIAL). The scan reads decoded strings (escapes and
 * folding undone, keys included) and the raw text (comments): a seed written with a YAML escape or
 * broken over lines is found, at the value that carries it (issue 29).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createAccount, createUser } from '@nats-io/nkeys'
import { describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { credentialPointer, findCredential } from '../src/formats/nats/credentials.js'
import { ShopBundle } from './helpers/nats-bundle.js'

const seed = (type: string, length = 58) => ('S' + type + 'ABCDEFGHIJKLMNOP234567'.repeat(3)).slice(0, length)
/** Real nkey seeds (valid checksum), made fresh: nothing secret is committed. */
const realSeed = () => new TextDecoder().decode(createUser().getSeed())

describe('findCredential', () => {
  it.each([
    ['a user seed', `seed: ${seed('U')}`, 'an nkey seed', 6],
    ['an account seed at the start', seed('A'), 'an nkey seed', 0],
    ['a creds file', 'x\n-----BEGIN NATS USER JWT-----\n', 'a NATS credentials file (user JWT)', 2],
    ['an nkey seed armour', '-----BEGIN USER NKEY SEED-----', 'a NATS credentials file (nkey seed)', 16],
    ['a PEM private key', '-----BEGIN EC PRIVATE KEY-----', 'a PEM private key', 14],
    ['a NATS JWT', 'token: eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.eyJq.sig', 'a NATS JWT', 7],
    ['a JWT header folded over two lines (marker found without the whitespace)', 'eyJ0eXAiOiJKV1QiLCJhbGci\n  OiJlZDI1NTE5LW5rZXkifQ.x', 'a NATS JWT', 0],
  ])('finds %s', (_name, text, kind, offset) => {
    expect(findCredential(text)).toEqual({ kind, offset })
  })

  it('finds a real seed broken by a line break and indentation, a folded space, or a double-quoted continuation', () => {
    const s = realSeed()
    for (const [name, text] of [
      ['plain multi-line', `description: ${s.slice(0, 20)}\n    ${s.slice(20)}\n`],
      ['folded into a space', `Connect with ${s.slice(0, 30)} ${s.slice(30)} now`],
      ['literal', `${s.slice(0, 1)}\n${s.slice(1, 40)}\n${s.slice(40)}`],
      ['double-quoted continuation', `"${s.slice(0, 29)}\\\n   ${s.slice(29)}"`],
    ])
      expect(findCredential(text), name).toMatchObject({ kind: 'an nkey seed' })
  })

  it.each([
    ['prose about keys', 'Rotate the private key and the nkey seed monthly.'],
    ['a run one short', seed('U', 57)],
    ['a run one long', seed('U', 59)],
    ['a public user key (U..., not S...)', 'U' + seed('U').slice(1)],
    ['a seed-like run of an unknown key type', seed('Z')],
    ['lower case', seed('U').toLowerCase()],
    ['a public certificate', '-----BEGIN CERTIFICATE-----'],
    // Joined across whitespace only with a valid nkey checksum: capital prose is not a seed.
    ['a seed look-alike broken over two lines (no valid checksum)', `${seed('U').slice(0, 30)}\n  ${seed('U').slice(30)}`],
    ['capital words that add up to 58 letters', 'SUBSCRIBE THE ORDERS STREAM AND THE PAYMENTS STREAM FOR EACH ACCOUNT ZONE'],
    [
      'a real seed with one character changed, broken over lines',
      (() => {
        const s = realSeed()
        return `${s.slice(0, 30)}\n  ${s[30] === 'A' ? 'B' : 'A'}${s.slice(31)}`
      })(),
    ],
  ])('leaves alone %s', (_name, text) => {
    expect(findCredential(text)).toBeUndefined()
  })

  it('is linear on a long run of S, and on S broken by spaces (a seed broken over lines is looked for in a window of at most 58 letters)', () => {
    expect(findCredential('S'.repeat(1_000_000))).toBeUndefined()
    expect(findCredential('S '.repeat(200_000))).toBeUndefined()
    expect(findCredential('S U '.repeat(100_000))).toBeUndefined()
    expect(findCredential(('S' + ' '.repeat(200) + '\n').repeat(2_000))).toBeUndefined()
  })

  it('points at the first decoded string, or key, that holds one', () => {
    expect(credentialPointer({ info: { title: 'x', 'a/b': ['ok', `seed ${seed('U')}`] } })).toBe('/info/a~1b/1')
    expect(credentialPointer({ info: { [`k ${seed('U')}`]: 1 } })).toBe(`/info/k ${seed('U')}`)
    expect(credentialPointer({ info: 'nothing' })).toBe('')
  })
})

const tmp = join(import.meta.dirname, '.tmp/credentials')
const ledger = readFileSync(join(import.meta.dirname, '../fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8')
/** The valid ledger document with `lines` inserted under `info:` (line 3 on). */
function ledgerWith(name: string, lines: string): string {
  mkdirSync(tmp, { recursive: true })
  const file = join(tmp, `${name}.asyncapi.yaml`)
  writeFileSync(file, ledger.replace('info:\n', `info:\n${lines}`))
  return file
}
const credentialDiagnostics = async (file: string) =>
  (await compile(file)).diagnostics
    .filter((d) => d.code.endsWith('_BUNDLED_CREDENTIAL'))
    .map(({ code, pointer, line, column }) => ({ code, pointer, line, column }))

describe('a NATS document: every encoding of a seed is found at the value that carries it', () => {
  const fake = seed('U')
  const real = realSeed()
  const cases: Array<[name: string, lines: string, pointer: string, line: number, column: number]> = [
    ['YAML \\x escape', `  description: "\\x53${fake.slice(1)}"\n`, '/info/description', 3, 16],
    ['YAML \\u escape', `  description: "Seed \\u0053${fake.slice(1)} here"\n`, '/info/description', 3, 16],
    ['YAML \\U escape', `  description: "\\U00000053\\U00000055${fake.slice(2)}"\n`, '/info/description', 3, 16],
    ['double-quoted line continuation', `  description: "Seed ${fake.slice(0, 25)}\\\n    ${fake.slice(25)} here"\n`, '/info/description', 3, 16],
    ['double-quoted folded over two lines', `  description: "Seed ${real.slice(0, 25)}\n    ${real.slice(25)} here"\n`, '/info/description', 3, 16],
    ['single-quoted folded over two lines', `  description: 'Seed ${real.slice(0, 25)}\n    ${real.slice(25)} here'\n`, '/info/description', 3, 16],
    ['folded block scalar', `  description: >\n    Seed ${real.slice(0, 33)}\n    ${real.slice(33)} here\n`, '/info/description', 3, 16],
    ['literal block scalar', `  description: |\n    Seed ${real.slice(0, 33)}\n    ${real.slice(33)}\n`, '/info/description', 3, 16],
    ['plain multi-line scalar', `  description: Seed ${real.slice(0, 10)}\n    ${real.slice(10)} here\n`, '/info/description', 3, 16],
    ['an escaped key', `  x-notes:\n    "\\x53${fake.slice(1)}": kept\n`, `/info/x-notes/${fake}`, 4, 70],
    ['a comment (only the text has it): its line and column', `  # ${fake}\n`, '', 3, 5],
  ]
  it.each(cases)('%s', async (name, lines, pointer, line, column) => {
    const file = ledgerWith(name.replace(/\W+/g, '-'), lines)
    expect(await credentialDiagnostics(file)).toEqual([{ code: 'NATS_BUNDLED_CREDENTIAL', pointer, line, column }])
  })

  it('harmless look-alikes pass: an escaped public key, an escaped run one short, a look-alike folded over lines', async () => {
    for (const [name, lines] of [
      ['public key', `  description: "\\x55${fake.slice(1)}"\n`],
      ['one short', `  description: "\\x53${fake.slice(1, 57)}"\n`],
      ['folded look-alike', `  description: >\n    ${fake.slice(0, 30)}\n    ${fake.slice(30)}\n`],
      ['account public key folded', `  description: >\n    ${createAccount().getPublicKey().slice(0, 20)}\n    rest\n`],
    ]) {
      const file = ledgerWith(`pass-${name.replace(/\W+/g, '-')}`, lines)
      expect((await compile(file)).diagnostics, name).toEqual([])
    }
  })
})

describe('a locked JSON or YAML file of a bundle is scanned decoded too', () => {
  it('a seed behind a \\u0053 escape in a locked JSON file is reported at its lock entry, with the pointer inside the file', async () => {
    const bundle = ShopBundle.copy('credential-escaped')
    bundle.write('native/notes.json', `{ "note": "\\u0053${seed('U').slice(1)}" }\n`).relock(['native/notes.json'])
    const result = await compile(bundle.doc('payments'))
    const found = result.diagnostics.filter((d) => d.code === 'NATS_BUNDLED_CREDENTIAL')
    expect(found).toHaveLength(1)
    expect(found[0]).toMatchObject({ file: bundle.path('bundle.lock.json'), data: { path: 'native/notes.json', pointer: '/note' } })
    expect(found[0]!.pointer).toMatch(/^\/entries\/\d+\/path$/)
  })
})

describe('Benzene and DASP documents are scanned (their strings reach the module)', () => {
  it('a Benzene document with a \\u0053-escaped seed in a description, and one in a key', async () => {
    mkdirSync(tmp, { recursive: true })
    const doc = JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/benzene/valid/payments.spec.json'), 'utf8'))
    const file = join(tmp, 'key.spec.json')
    doc.info['x-notes'] = { [seed('A')]: 'x' }
    writeFileSync(file, JSON.stringify(doc, null, 2).replace(seed('A'), `\\u0053${seed('A').slice(1)}`))
    const found = await credentialDiagnostics(file)
    expect(found).toMatchObject([{ code: 'BENZENE_BUNDLED_CREDENTIAL', pointer: `/info/x-notes/${seed('A')}` }])
  })

  it('the valid Benzene and DASP fixtures carry none', async () => {
    rmSync(join(tmp, 'none'), { recursive: true, force: true })
    for (const file of ['../fixtures/benzene/valid/payments.spec.json', '../fixtures/dasp/counter.dasp.json'])
      expect(await credentialDiagnostics(join(import.meta.dirname, file)), file).toEqual([])
  })
})
