/**
 * The UTF-8 bytes of a message's JSON text for a core publication, cut from a shared slab rather
 * than each in an ArrayBuffer of its own. `TextEncoder.encode` allocates a new off-heap buffer for
 * every message (measured: about 1 us each for a few hundred bytes, against about 0.3 us to encode
 * into memory already there), and an interaction publishes one per request and one per result.
 * Each call gets a region of the slab no later call writes: nats.js keeps the bytes it is given
 * until its next flush (and across a reconnect), so a region is never reused; a full slab is left
 * to the views still holding it and a fresh one started. Texts longer than a sixteenth of a slab
 * get a buffer of their own.
 */
const SLAB_BYTES = 64 * 1024
/** UTF-8 takes at most three bytes per UTF-16 code unit. */
const MAX_BYTES_PER_UNIT = 3

const encoder = /* @__PURE__ */ new TextEncoder()
let slab = /* @__PURE__ */ new Uint8Array(SLAB_BYTES)
let used = 0

/** `new TextEncoder().encode(text)`, its bytes in a slab region of their own. O(text length). */
export function encodeText(text: string): Uint8Array {
  const most = text.length * MAX_BYTES_PER_UNIT
  if (most > SLAB_BYTES / 16) return encoder.encode(text)
  if (used + most > SLAB_BYTES) {
    slab = new Uint8Array(SLAB_BYTES)
    used = 0
  }
  const { written } = encoder.encodeInto(text, slab.subarray(used, used + most))
  const bytes = slab.subarray(used, used + written)
  used += written
  return bytes
}
