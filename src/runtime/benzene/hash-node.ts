/**
 * The Benzene contract hash with Node's digest, for the compiler: the same hash input as
 * `contractHashWeb` (`hash.ts` writes it for both), streamed into SHA-256 with each shared
 * component schema's UTF-8 bytes made once per schema object (a thousand topic-scoped projections
 * share their schemas; bench/).
 */
import { createHash } from 'node:crypto'
import { canonical, writeHashInput } from './hash.js'
import type { Projection } from './projection.js'

const schemaBytes = new WeakMap<object, Buffer>()

/** A component schema's hash input, `canonical(schema)` as UTF-8 (a caller may keep them longer: `contractHash`'s `bytesOf`). */
export function bytesOfSchema(schema: unknown): Buffer {
  if (typeof schema !== 'object' || schema === null) return Buffer.from(canonical(schema), 'utf8')
  let bytes = schemaBytes.get(schema)
  if (bytes === undefined) schemaBytes.set(schema, (bytes = Buffer.from(canonical(schema), 'utf8')))
  return bytes
}

/** Contract Document §6.2: `"sha256:" + lowercase-hex(sha256(JCS(normalize(projection))))`. */
export function contractHash(projection: Projection, bytesOf: (schema: unknown) => Buffer = bytesOfSchema): string {
  const hash = createHash('sha256')
  let pending = ''
  writeHashInput(projection, {
    text: (text) => void (pending += text),
    schema: (schema) => {
      if (pending !== '') hash.update(pending, 'utf8')
      pending = ''
      hash.update(bytesOf(schema))
    },
  })
  if (pending !== '') hash.update(pending, 'utf8')
  return 'sha256:' + hash.digest('hex')
}
