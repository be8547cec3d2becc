/**
 * "Credentials and live state are deployment inputs and never bundled" (NATS profile v0.2, bundle
 * paragraph). Every file of the bundle is scanned when it is read (load.ts; a locked file once per
 * bundle version, its finding reported on every compile), so a secret anywhere in the distribution
 * fails every build that uses it: the document and every locked JSON or YAML file in both readings
 * (decoded strings and raw text), any other locked file as text. The scan itself is format-neutral
 * (core/credential-scan.ts: what it finds, and its O(n) bound).
 */
export { credentialIn, decodedCredential, findCredential, lineOf, type CredentialSite, type FoundCredential } from '../../core/credential-scan.js'
import { decodedCredential } from '../../core/credential-scan.js'

/** The JSON Pointer of the first decoded string of a parsed document (a value, or a key: its member) that holds a credential; '' when none does. */
export function credentialPointer(value: unknown): string {
  return decodedCredential(value)?.pointer ?? ''
}
