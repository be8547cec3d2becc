import { createHash } from 'node:crypto'
import canonicalize from 'canonicalize'
import { normalize, type Projection } from './projection.js'

/** Seed 6.2: `"sha256:" + lowercase-hex(sha256(JCS(normalize(projection))))`. */
export function contractHash(projection: Projection): string {
  const canonical = canonicalize(normalize(projection))
  if (canonical === undefined) throw new Error('canonicalize returned nothing for a contract document')
  return 'sha256:' + createHash('sha256').update(canonical, 'utf8').digest('hex')
}
