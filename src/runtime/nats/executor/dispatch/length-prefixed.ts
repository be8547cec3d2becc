/** Each part as UTF-8 bytes preceded by its byte length as a 4-byte unsigned big-endian integer (the profile's digest input). */
const encoder = new TextEncoder()

export function lengthPrefixed(parts: readonly string[]): Uint8Array {
  const encoded = parts.map((p) => encoder.encode(p))
  const out = new Uint8Array(encoded.reduce((n, e) => n + 4 + e.length, 0))
  const view = new DataView(out.buffer)
  let offset = 0
  for (const bytes of encoded) {
    view.setUint32(offset, bytes.length, false)
    out.set(bytes, offset + 4)
    offset += 4 + bytes.length
  }
  return out
}
