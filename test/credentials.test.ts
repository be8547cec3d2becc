/** What the bundled-credential scan recognizes, and what it leaves alone (NATS_BUNDLED_CREDENTIAL). */
import { describe, expect, it } from 'vitest'
import { credentialPointer, findCredential } from '../src/formats/nats/credentials.js'

const seed = (type: string, length = 58) => ('S' + type + 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.repeat(2)).slice(0, length)

describe('findCredential', () => {
  it.each([
    ['a user seed', `seed: ${seed('U')}`, 'an nkey seed', 6],
    ['an account seed at the start', seed('A'), 'an nkey seed', 0],
    ['a creds file', 'x\n-----BEGIN NATS USER JWT-----\n', 'a NATS credentials file (user JWT)', 2],
    ['an nkey seed armour', '-----BEGIN USER NKEY SEED-----', 'a NATS credentials file (nkey seed)', 16],
    ['a PEM private key', '-----BEGIN EC PRIVATE KEY-----', 'a PEM private key', 14],
    ['a NATS JWT', 'token: eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.eyJq.sig', 'a NATS JWT', 7],
  ])('finds %s', (_name, text, kind, offset) => {
    expect(findCredential(text)).toEqual({ kind, offset })
  })

  it.each([
    ['prose about keys', 'Rotate the private key and the nkey seed monthly.'],
    ['a run one short', seed('U', 57)],
    ['a run one long', seed('U', 59)],
    ['a public user key (U..., not S...)', 'U' + seed('U').slice(1)],
    ['a seed-like run of an unknown key type', seed('Z')],
    ['lower case', seed('U').toLowerCase()],
    ['a public certificate', '-----BEGIN CERTIFICATE-----'],
  ])('leaves alone %s', (_name, text) => {
    expect(findCredential(text)).toBeUndefined()
  })

  it('is linear on a long run of S (each base32 run is walked once)', () => {
    expect(findCredential('S'.repeat(1_000_000))).toBeUndefined()
  })

  it('points at the first string value that holds one', () => {
    expect(credentialPointer({ info: { title: 'x', 'a/b': ['ok', `seed ${seed('U')}`] } })).toBe('/info/a~1b/1')
    expect(credentialPointer({ [seed('U')]: 1 })).toBe('')
  })
})
