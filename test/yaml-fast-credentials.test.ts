/**
 * The fast YAML path scans each string for credentials as the parser makes it, so that a compile
 * does not walk the parsed document a second time (`parsedWithoutCredential`). Held here to the
 * walk it replaces (`decodedCredential`): whenever the walk would find a credential in a decoded
 * string or key, the fast path must not have marked the value clean.
 */
import { createUser } from '@nats-io/nkeys'
import { describe, expect, it } from 'vitest'
import { decodedCredential, findCredential } from '../src/core/credential-scan.js'
import { loadFastYaml, parsedWithoutCredential, valuesMayHoldCredential } from '../src/core/yaml-fast.js'
import { natsDocument } from '../bench/generate.js'

const realSeed = () => new TextDecoder().decode(createUser().getSeed())
const fake = (type: string) => ('S' + type + 'ABCDEFGHIJKLMNOP234567'.repeat(3)).slice(0, 58)

/** The fast path's verdict and the walk's, for one text the fast path reads. */
function verdicts(text: string): { clean: boolean; walk: string | undefined } {
  const fast = loadFastYaml(text)
  if (fast === undefined) throw new Error(`not on the fast path: ${text.slice(0, 80)}`)
  return { clean: parsedWithoutCredential(fast.value), walk: decodedCredential(fast.value)?.pointer }
}

describe('credentials found while parsing (fast YAML path)', () => {
  const s = realSeed()
  it.each([
    ['a seed as a value', `a:\n  b: ${fake('U')}\n`],
    ['a seed inside a longer value', `a: "connect with ${fake('A')} please"\n`],
    ['a seed as a key', `a:\n  ${fake('U')}: 1\n`],
    ['a seed written with YAML escapes', `a: "\\x53${fake('U').slice(1)}"\n`],
    ['a seed in a sequence', `a:\n  - x\n  - ${fake('O')}\n`],
    ['a seed in a flow mapping', `a: { b: ${fake('U')} }\n`],
    ['a real seed folded over lines', `a: >\n  ${s.slice(0, 30)}\n  ${s.slice(30)}\n`],
    ['a real seed in a literal block', `a: |\n  ${s.slice(0, 1)}\n  ${s.slice(1)}\n`],
    ['an armoured creds marker', `a: "-----BEGIN NATS USER JWT-----"\n`],
    ['a PEM key marker in a key', `"-----BEGIN EC PRIVATE KEY-----": 1\n`],
    ['a real seed split by blank lines', `a: |\n  ${s.slice(0, 20)}\n\n\n  ${s.slice(20)}\n`],
    ['a seed folded right after its S', `a: >\n  x ${s.slice(0, 1)}\n  ${s.slice(1)}\n`],
    ['a marker folded over lines', `a: >\n  -----BEGIN NATS\n  USER JWT-----\n`],
    ['a JWT header folded over lines', `a: >\n  eyJ0\n  eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ\n`],
    ['a repeated long string that holds a seed', `a: "${'x'.repeat(60)} ${fake('U')}"\nb: "${'x'.repeat(60)} ${fake('U')}"\n`],
  ])('does not mark clean a value with %s', (_name, text) => {
    const { clean, walk } = verdicts(text)
    expect(walk).toBeDefined()
    expect(clean).toBe(false)
  })

  it.each([
    ['plain prose', `a:\n  b: Rotate the private key and the nkey seed monthly.\n`],
    ['a seed only in a comment (the raw text scan finds that one)', `# ${fake('U')}\na: 1\n`],
    ['a public key', `a: ${'U' + fake('U').slice(1)}\n`],
    ['repeated long strings', `a: "${'y'.repeat(80)}"\nb: "${'y'.repeat(80)}"\n`],
  ])('marks clean a value with %s, which the walk finds clean too', (_name, text) => {
    expect(verdicts(text)).toEqual({ clean: true, walk: undefined })
  })

  it('skips the string-by-string scan only for texts without the characters of any credential', () => {
    // The bench documents: nothing that could be a marker or a seed, so no string is scanned.
    expect(valuesMayHoldCredential(natsDocument(20))).toBe(false)
    expect(valuesMayHoldCredential(natsDocument(20, { payloads: true }))).toBe(false)
    expect(valuesMayHoldCredential('a: SUBSCRIBE to SUCH AS THESE')).toBe(false)
    // A seed in a comment: the raw text scan must still run (and finds it).
    const inComment = `# ${realSeed()}\na: 1\n`
    expect(findCredential(inComment)).toBeDefined()
    expect(valuesMayHoldCredential(inComment)).toBe(true)
    for (const text of [`a: ${fake('U')}`, 'a: "\\x53"', 'a: - - - - -', 'a: -----', 'a: J 0eXA', `a: |\n  S\n  C${fake('U').slice(2)}`])
      expect(valuesMayHoldCredential(text)).toBe(true)
  })

  it('reads the prefilter as its patterns say (random texts over the characters that matter)', () => {
    const patterns = [/\\/, /-\s*-\s*-\s*-\s*-/, /J\s*0\s*e\s*X\s*A/, /S\s*[UAONCX](?:\s*[A-Z2-7]){56}/]
    const alphabet = ['-', ' ', '\n', '\u00a0', 'J', '0', 'e', 'X', 'A', 'S', 'U', 'C', '2', '7', 'a', '8', '\\']
    let seed = 7
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n)
    for (let round = 0; round < 3000; round++) {
      const weights = round % 3 === 0 ? alphabet.length - 1 : alphabet.length - 3
      const text = Array.from({ length: 20 + random(140) }, () => (round % 2 === 0 && random(3) > 0 ? 'A' : alphabet[random(weights)]!)).join('')
      expect(valuesMayHoldCredential(text), JSON.stringify(text)).toBe(patterns.some((p) => p.test(text)))
      // What it rules out, the raw text scan never finds either (the loader then skips both scans).
      if (!valuesMayHoldCredential(text)) expect(findCredential(text), JSON.stringify(text)).toBeUndefined()
    }
  })

  it('agrees with the walk on the bench documents, and on them with a credential put in one place', () => {
    for (const text of [natsDocument(20), natsDocument(20, { payloads: true })]) {
      expect(verdicts(text)).toEqual({ clean: true, walk: undefined })
      // One description, one title and one key at a time carry a seed.
      const lines = text.split('\n')
      const places = lines.flatMap((line, i) => (/^\s+(description|title): /.test(line) ? [i] : []))
      expect(places.length).toBeGreaterThan(3)
      for (const i of [places[0]!, places[Math.floor(places.length / 2)]!, places.at(-1)!]) {
        const edited = [...lines]
        edited[i] = edited[i]!.replace(/: .*$/, `: "${fake('U')}"`)
        const { clean, walk } = verdicts(edited.join('\n'))
        expect(walk).toBeDefined()
        expect(clean).toBe(false)
      }
    }
  })
})
