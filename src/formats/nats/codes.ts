import { declareCodes } from '../../core/codes.js'
import type { NatsRuleCode } from './rules/index.js'

/** NATS codes found while reading the bundle (load.ts), outside the rules (rules/). */
export const NATS_LOAD_CODES = declareCodes({
  NATS_BUNDLE_REQUIRED: { severity: 'error', meaning: 'The document reads other files (imports, artifacts, `$ref`s) but no `bundle.lock.json` is above it.' },
  NATS_UNLOCKED_FILE: { severity: 'error', meaning: 'A file read for validation is not in the lock (or a `$ref` leaves the bundle).' },
  NATS_LOCK_MISMATCH: { severity: 'error', meaning: "An import or artifact names a digest other than the lock's." },
  NATS_IMPORT_CYCLE: {
    severity: 'error',
    meaning:
      'The contract imports the document reaches form a cycle (named in the message); reported instead of the digest mismatches a cycle makes unavoidable.',
  },
  NATS_LOCK_PATH: { severity: 'error', meaning: 'A lock path is not a plain relative POSIX path inside the bundle (`..`, absolute, backslash, symlink, NUL).' },
  NATS_LOCKED_FILE_MISSING: { severity: 'error', meaning: 'A locked file needed for validation is not in the bundle.' },
  NATS_LOCK_DIGEST: { severity: 'error', meaning: "A locked file's bytes (any entry, the compiled document's included) do not have the digest the lock pins." },
  NATS_LOCK_INVALID: {
    severity: 'error',
    meaning: 'The lock is not `{ entries: [{ path, sha256 }] }` (an entry with any other member included), or lists a path twice.',
  },
  NATS_LOCK_SELF: { severity: 'error', meaning: 'The lock lists itself.' },
  NATS_LOCK_DIGEST_FORM: { severity: 'error', meaning: 'A lock digest is not 64 lowercase hex digits.' },
  NATS_BUNDLED_CREDENTIAL: {
    severity: 'error',
    meaning: 'A bundled file (the document or any lock entry) carries a credential: a NATS `.creds` armour, an nkey seed, a NATS JWT or a PEM private key.',
  },
  NATS_REMOTE_REF: { severity: 'error', meaning: 'A `$ref` names a URL: nothing is fetched.' },
})

/** NATS codes of the model (normalize.ts). */
export const NATS_MODEL_CODES = declareCodes({
  NATS_EXPORT_NAME: {
    severity: 'error',
    meaning:
      'A channel export name given by hand (option `names`, `--names`) is not a usable identifier, or is given for two channels (derived names never fail).',
  },
  NATS_INVALID_OPTION: { severity: 'error', meaning: 'The NATS options are not `{ names: { <channel id>: <export name> } }`.' },
  NATS_TOPOLOGY_INPUT: {
    severity: 'error',
    meaning:
      "A file given to the topology projection is not a NATS application document, or a bundle's lock lists one it will not read: not in the bundle, through a symbolic link or not a regular file, or none at all.",
  },
})

/** NATS codes of `contracts lock` (lock/), which fills in the digests a bundle pins. */
export const NATS_LOCK_CODES = declareCodes({
  NATS_LOCK_STALE: {
    severity: 'error',
    meaning:
      "`contracts lock --check`: a digest the bundle pins (an import's or an artifact's `sha256`, a lock entry) is not the digest of the bytes it names, the lock leaves out a file the documents read, or the lock is not in the form `contracts lock` writes; `data: { path, old, new }`.",
  },
  NATS_LOCK_PIN_FORM: {
    severity: 'error',
    meaning:
      '`contracts lock` cannot fill in this digest in place: the `sha256` member is missing, or its value is not a plain or quoted scalar (a collection, a block scalar, an alias, or one with an anchor or a tag).',
  },
})

/** NATS codes of a target `contracts generate` writes from the model (targets/). */
export const NATS_TARGET_CODES = declareCodes({
  NATS_RUST_UNSUPPORTED: {
    severity: 'error',
    meaning:
      "The Rust target cannot write a payload type the document asks for (unsupported): a schema nested more than 256 component types deep, a chain of structs each holding the next deeper than rustc's drop check takes (E0320), or more than 120 lists, maps or options one inside another (E0275); nothing is written.",
  },
})

export type NatsLoadCode = keyof typeof NATS_LOAD_CODES
export type NatsLockCode = keyof typeof NATS_LOCK_CODES
export type NatsModelCode = keyof typeof NATS_MODEL_CODES
export type NatsTargetCode = keyof typeof NATS_TARGET_CODES

/** Every code NATS reports: reading the bundle, locking it, its rules' (rules/index.ts), the model's and its targets'. */
export type NatsCode = NatsLoadCode | NatsLockCode | NatsRuleCode | NatsModelCode | NatsTargetCode

declare module '../../core/codes.js' {
  interface DeclaredCodes {
    nats: NatsCode
  }
}
