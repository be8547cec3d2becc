/**
 * The executor's two byte writers that avoid an ArrayBuffer per call: the operation id's
 * length-prefixed input written into one reused buffer, and publications encoded into a shared
 * slab. Each gives exactly the bytes of the allocating form, and a slab region handed out is never
 * written again by a later call.
 */
import { describe, expect, it } from 'vitest'
import { lengthPrefixed, lengthPrefixedScratch } from '../src/runtime/nats/executor/dispatch/length-prefixed.js'
import { encodeText } from '../src/runtime/nats/executor/dispatch/slab-encode.js'

const encoder = new TextEncoder()
const bytes = (a: Uint8Array) => Array.from(a)

/** Texts of every width UTF-8 has, lone surrogates, empty, and lengths around the thresholds. */
const texts = [
  '',
  'a',
  JSON.stringify({ operationId: 'op' + 'ab'.repeat(32), branchId: 'ann', attempt: 1, fence: 0 }),
  'zoë ﬁ 𝄞 日本',
  '\ud800',
  'x\udc00y',
  '𝄞'.repeat(1365),
  'a'.repeat(1365),
  'a'.repeat(1366),
  'é'.repeat(5000),
]

describe('lengthPrefixedScratch', () => {
  it('gives the bytes lengthPrefixed gives, for short, long (past the reused buffer), multi-byte and empty parts', () => {
    const cases: string[][] = [
      [],
      [''],
      ['alice', 'ab'.repeat(32), 'k1'],
      ['p'.repeat(300), 'é'.repeat(200), '𝄞'],
      ['a'.repeat(1364), 'b'],
      ['a'.repeat(1365), 'b'],
      texts,
    ]
    for (const parts of cases) expect(bytes(lengthPrefixedScratch(parts))).toEqual(bytes(lengthPrefixed(parts)))
  })

  it('writes lengths big-endian in four bytes (a part of 0x01_02 bytes)', () => {
    const out = lengthPrefixedScratch(['z'.repeat(0x0102)])
    expect(bytes(out.subarray(0, 4))).toEqual([0, 0, 1, 2])
    expect(out.length).toBe(4 + 0x0102)
  })
})

describe('encodeText', () => {
  it('gives the bytes TextEncoder gives', () => {
    for (const text of texts) expect(bytes(encodeText(text))).toEqual(bytes(encoder.encode(text)))
  })

  it('never writes again a region it handed out: earlier results are intact after many more calls (several slabs)', () => {
    const kept = Array.from({ length: 2000 }, (_, i) => {
      const text = `${'é'.repeat(i % 97)}${i}${'𝄞'.repeat(i % 13)}`
      return { text, encoded: encodeText(text) }
    })
    for (const { text, encoded } of kept) expect(bytes(encoded)).toEqual(bytes(encoder.encode(text)))
    // Two results made one after the other do not overlap.
    const a = encodeText('first')
    const b = encodeText('second')
    if (a.buffer === b.buffer) expect(a.byteOffset + a.length <= b.byteOffset).toBe(true)
  })
})
