/**
 * The generated operation id on the executor's hot path: the same bytes as `operationId` in
 * `../../interactions.ts` (`op` + lowercase SHA-256 of the length-prefixed principal id, contract
 * digest and invocation key), computed synchronously with Node's hash when the runtime has one.
 * Web Crypto's digest is a job on the thread pool: measured, about a tenth of a five-peer
 * interaction's time went to that round trip. Elsewhere (a browser) it is the Web Crypto one.
 */
import { operationId } from '../../interactions.js'
import { lengthPrefixed, lengthPrefixedScratch } from './length-prefixed.js'

interface NodeHash {
  update(data: Uint8Array): NodeHash
  digest(encoding: 'hex'): string
}
type OneShot = (algorithm: string, data: Uint8Array, encoding: 'hex') => string
type GetBuiltin = (id: string) => { readonly createHash?: (algorithm: string) => NodeHash; readonly hash?: OneShot } | undefined

const nodeCrypto = (() => {
  try {
    const get = (globalThis as { process?: { getBuiltinModule?: GetBuiltin } }).process?.getBuiltinModule
    return typeof get === 'function' ? get('node:crypto') : undefined
  } catch {
    return undefined
  }
})()
const createHash = nodeCrypto?.createHash
/** Node's one-shot digest (20.12 and later): no hash object per call, a few microseconds less than `createHash`. */
const oneShot = typeof nodeCrypto?.hash === 'function' ? nodeCrypto.hash : undefined

/** O(input length). Rejects (as `operationId` does) when a part is not a string. */
export function fastOperationId(principalId: string, contractDigest: string, invocationKey: string): Promise<string> | string {
  if (!createHash || typeof principalId !== 'string' || typeof contractDigest !== 'string' || typeof invocationKey !== 'string')
    return operationId(principalId, contractDigest, invocationKey)
  // Hashed at once: the reused buffer's view is not kept past this call.
  if (oneShot) return 'op' + oneShot('sha256', lengthPrefixedScratch([principalId, contractDigest, invocationKey]), 'hex')
  return (
    'op' +
    createHash('sha256')
      .update(lengthPrefixed([principalId, contractDigest, invocationKey]))
      .digest('hex')
  )
}

/** Lowercase SHA-256 of a string's UTF-8 bytes with Node's hash; undefined where the runtime has none. O(length). */
export function sha256Hex(text: string): string | undefined {
  if (oneShot) return oneShot('sha256', new TextEncoder().encode(text), 'hex')
  return createHash ? createHash('sha256').update(new TextEncoder().encode(text)).digest('hex') : undefined
}
