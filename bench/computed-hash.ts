/**
 * What a Benzene module would weigh if it computed each topic's contract hash from the topic's
 * projection instead of storing it (docs/performance.md, Targets not met, "Module size"): the
 * module with its stored hashes and its written component lists taken out, and the component
 * schemas added in their OpenAPI form as data, once each (schemas that differ only in their
 * literals as one factory, `shareShapes`, as the validators share theirs), from which the runtime
 * would derive the closures and the hashes. `interpreted`: the same without the validators
 * (`validate: false`), as if they were read from those schemas at run time. `runtime_bytes`: what
 * the computation adds to a bundle, minified and gzipped: a synchronous SHA-256 (below, checked
 * against node:crypto) and a JCS writer for data the compiler has already canonicalized.
 */
import { createHash } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import { transform } from 'esbuild'
import { jsLiteral } from '../dist/src/core/emit.js'
import { shareShapes } from '../dist/src/formats/benzene/code-shapes.js'
import { moduleSize } from '../test/helpers/module-size.js'

/** A stored topic hash (a 43-character base64 string literal) or a written component list, as the generator writes them. */
const STORED_HASH = /"[A-Za-z0-9+/]{43}"/g
const COMPONENT_LIST = /, \[("[A-Za-z0-9]+"(, )?)*\]/g

export async function computedHashEstimate(
  documentText: string,
  modules: { code: string; data: string; none: string },
): Promise<{ code: number; data: number; interpreted: number; runtime_bytes: number }> {
  const schemas = (JSON.parse(documentText) as { components: { schemas: Record<string, unknown> } }).components.schemas
  const names = Object.keys(schemas)
  const texts = new Map(names.map((name, i) => [`s${i}`, jsLiteral(schemas[name])]))
  const shapes = shareShapes(texts, '$o')
  const data = [
    ...[...shapes.factories].map(([name, text]) => `const ${name} = ${text};`),
    ...names.map((_, i) => `const $s${i} = ${shapes.members.get(`s${i}`) ?? texts.get(`s${i}`)};`),
    `export const $schemas = [${names.map((_, i) => `$s${i}`).join(', ')}];`,
  ].join('\n')
  const without = (code: string) => code.replace(STORED_HASH, '0').replace(COMPONENT_LIST, '') + '\n' + data
  const ratio = async (code: string) => (await moduleSize(without(code), documentText)).ratio
  return {
    code: await ratio(modules.code),
    data: await ratio(modules.data),
    interpreted: await ratio(modules.none),
    runtime_bytes: await runtimeBytes(),
  }
}

/** The SHA-256 and JCS writer below, minified and gzipped (their source as esbuild sees it). */
async function runtimeBytes(): Promise<number> {
  for (const text of ['', 'abc', 'x'.repeat(55), 'x'.repeat(64), 'é€😀'.repeat(100)])
    if (sha256Hex(text) !== createHash('sha256').update(text).digest('hex')) throw new Error('the compact SHA-256 is wrong')
  const source = `${sha256Hex.toString()}\n${jcs.toString()}\nexport const hash = (v) => 'sha256:' + sha256Hex(jcs(v));`
  return gzipSync((await transform(source, { minify: true, format: 'esm' })).code).length
}

/** A compact synchronous SHA-256 (FIPS 180-4) of a string's UTF-8 bytes, lowercase hex: its size is what is measured. */
function sha256Hex(text: string): string {
  const K: number[] = []
  const H: number[] = []
  const frac = (x: number) => ((x - Math.floor(x)) * 4294967296) | 0
  for (let n = 2, found = 0; found < 64; n++) {
    let prime = true
    for (let d = 2; d * d <= n; d++) if (n % d === 0) prime = false
    if (!prime) continue
    if (found < 8) H.push(frac(Math.sqrt(n)))
    K.push(frac(Math.cbrt(n)))
    found++
  }
  const bytes = new TextEncoder().encode(text)
  const length = ((bytes.length + 9 + 63) >> 6) << 6
  const m = new Uint8Array(length)
  m.set(bytes)
  m[bytes.length] = 0x80
  const view = new DataView(m.buffer)
  view.setUint32(length - 4, bytes.length * 8)
  view.setUint32(length - 8, Math.floor(bytes.length / 536870912))
  const w = new Int32Array(64)
  const rotr = (x: number, r: number) => (x >>> r) | (x << (32 - r))
  for (let off = 0; off < length; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getInt32(off + i * 4)
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15]!
      const b = w[i - 2]!
      w[i] = ((rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3)) + w[i - 7]! + (rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10)) + w[i - 16]!) | 0
    }
    const s = H.slice()
    for (let i = 0; i < 64; i++) {
      const [a, b, c, d, e, f, g, h] = s as [number, number, number, number, number, number, number, number]
      const t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i]! + w[i]!) | 0
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0
      s.splice(0, 8, (t1 + t2) | 0, a, b, c, (d + t1) | 0, e, f, g)
    }
    for (let i = 0; i < 8; i++) H[i] = (H[i]! + s[i]!) | 0
  }
  return H.map((x) => (x >>> 0).toString(16).padStart(8, '0')).join('')
}

/** RFC 8785 text of contract data the compiler has already canonicalized (no lone surrogates, finite numbers). */
function jcs(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(jcs).join(',')}]`
  const record = value as Record<string, unknown>
  const keys = Object.keys(record)
    .sort()
    .filter((k) => record[k] !== undefined)
  return `{${keys.map((k) => `${JSON.stringify(k)}:${jcs(record[k])}`).join(',')}}`
}
