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

/** Parts up to this many bytes in all are written into one reused buffer (`lengthPrefixedScratch`). */
const SCRATCH_BYTES = 4096
const scratch = /* @__PURE__ */ new Uint8Array(SCRATCH_BYTES)

/**
 * `lengthPrefixed(parts)` written into one buffer reused call after call: the view returned is
 * valid only until the next call, for a caller that hashes it at once (the operation id, on every
 * invocation). Encoding each part and the whole into buffers of their own cost four off-heap
 * allocations per call (measured: several microseconds, more than the digest). Parts that could
 * take more than the buffer holds get `lengthPrefixed`'s own buffer. O(total length).
 */
export function lengthPrefixedScratch(parts: readonly string[]): Uint8Array {
  let most = 0
  for (const p of parts) most += 4 + 3 * p.length
  if (most > SCRATCH_BYTES) return lengthPrefixed(parts)
  let offset = 0
  for (const p of parts) {
    const { written } = encoder.encodeInto(p, scratch.subarray(offset + 4))
    scratch[offset] = written >>> 24
    scratch[offset + 1] = (written >>> 16) & 0xff
    scratch[offset + 2] = (written >>> 8) & 0xff
    scratch[offset + 3] = written & 0xff
    offset += 4 + written
  }
  return scratch.subarray(0, offset)
}
