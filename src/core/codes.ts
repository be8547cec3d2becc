import type { Severity } from './diagnostics.js'

/** A diagnostic code's declaration: its severity and what it means, in one line. */
export interface CodeInfo {
  severity: Severity
  meaning: string
}

/** Declares codes as data; the keys become the module's closed union of codes. */
export const declareCodes = <const T extends Record<string, CodeInfo>>(codes: T): T => codes

/** The codes core itself emits (reading, parsing, limits, the pipeline); `CoreCode` is their closed union. */
export const CORE_CODES = declareCodes({
  CONTRACTS_UNKNOWN_FORMAT: { severity: 'error', meaning: 'No format handles the file.' },
  CONTRACTS_UNKNOWN_QUERY: { severity: 'error', meaning: 'An import query parameter the format does not know.' },
  CONTRACTS_REPEATED_QUERY: {
    severity: 'error',
    meaning: 'An import query parameter given more than once (`topics=a&topics=b`): one would be dropped without a word; give it once (`topics=a,b`).',
  },
  CONTRACTS_QUERY_UNTYPED: {
    severity: 'warning',
    meaning:
      "An import query holding `*`, or a query import of a contract whose file name holds one: TypeScript's module patterns take one `*`, so the `-queries.d.ts` cannot declare this import and it stays untyped (write a query's `*` as `%2A`).",
  },
  CONTRACTS_UNKNOWN_OPTION: { severity: 'error', meaning: 'Options given to a format that takes none.' },
  CONTRACTS_READ_FAILED: { severity: 'error', meaning: 'The file cannot be read (missing, a folder, a FIFO or device, a NUL byte in the path).' },
  CONTRACTS_NOT_UTF8: { severity: 'error', meaning: 'The file is not UTF-8 (a YAML file may also be UTF-16 or UTF-32, told as YAML 1.2 tells them).' },
  CONTRACTS_TOO_LARGE: { severity: 'error', meaning: 'A file over 16 MiB.' },
  CONTRACTS_TOO_DEEP: { severity: 'error', meaning: 'Values nested more than 64 levels (JSON or YAML).' },
  CONTRACTS_SYMLINK: { severity: 'error', meaning: 'The contract, or a file it reads, is a symbolic link (never followed).' },
  CONTRACTS_OUTSIDE_TREE: { severity: 'error', meaning: 'A file the contract reads is outside its folder tree (the bundle root for NATS).' },
  CONTRACTS_WRITE_REFUSED: {
    severity: 'error',
    meaning:
      'A file the build or CLI writes (a sidecar, query declarations, `generate` or `topology --out` output) is a symbolic link, has one on its way, is not a regular file, or was not written by unplugin-contracts (no marker line): it is left as it is, `data: { reason }`.',
  },
  CONTRACTS_DIAGNOSTICS_CAPPED: {
    severity: 'error',
    meaning:
      'More than 100 diagnostics of one code (or 1,000 in all): the rest are counted here, `data: { code, count }` (a warning when all left out are warnings).',
  },
  CONTRACTS_INTERNAL: { severity: 'error', meaning: 'A bug in the compiler, reported instead of crashing the build.' },
  JSON_SYNTAX: { severity: 'error', meaning: 'The file is not strict JSON (comments, trailing commas, truncation).' },
  JSON_DUPLICATE_KEY: { severity: 'error', meaning: 'A key appears twice in one object (the rules still check the document as read with the later member).' },
  JSON_LONE_SURROGATE: { severity: 'error', meaning: 'A string with an unpaired UTF-16 surrogate, which canonical JSON (RFC 8785) cannot represent.' },
  JSON_NUMBER_RANGE: { severity: 'error', meaning: 'A number beyond the range of a double (`1e400` reads as Infinity; RFC 8785 has no form for it).' },
  YAML_SYNTAX: {
    severity: 'error',
    meaning:
      'The file is not YAML (or is empty, or holds a character a YAML stream may not: a raw NUL or other C0 control): the first syntax error, with a count of the ones it causes.',
  },
  YAML_DUPLICATE_KEY: { severity: 'error', meaning: 'A key appears twice in one mapping (the rules still check the document as read with the later member).' },
  YAML_NON_STRING_KEY: {
    severity: 'error',
    meaning:
      'A key that is not a string: tagged as another type (`!!int 7:`), an alias or a collection. A plain key is a string as written (`200:` is "200": YAML Failsafe schema, as AsyncAPI reads keys).',
  },
  YAML_ALIAS_LIMIT: {
    severity: 'error',
    meaning: 'Aliases that copy more than 65,536 nodes in all, more than 4,096 aliases, or aliases nested in aliases past 256.',
  },
  YAML_MERGE_KEY: {
    severity: 'warning',
    meaning:
      'A merge key (`<<: *base`), merged as YAML 1.1 and `@asyncapi/parser` read it; not YAML 1.2, which AsyncAPI recommends, where it is a member named `<<`.',
  },
  YAML_NON_JSON_VALUE: {
    severity: 'error',
    meaning: 'A value JSON cannot say: an explicit tag, `.inf`, `.nan`, a number beyond a double, or a `%YAML 1.1` directive.',
  },
})

export type CoreCode = keyof typeof CORE_CODES

/**
 * Reading errors about a key, after which the document still has one value (JSON's and yaml's
 * own: the later of two members named alike; a key tagged as another type, as its text): the rules
 * check that value, so that one key mistake does not hide every other verdict (an outside pass
 * fixed a duplicate key to learn only then of a stream's refused settings). The document is still
 * refused: nothing is modelled or generated from it.
 */
const READ_PAST: ReadonlySet<string> = new Set<CoreCode>(['JSON_DUPLICATE_KEY', 'YAML_DUPLICATE_KEY', 'YAML_NON_STRING_KEY'])

/** Whether every error of `diagnostics` is one the document's value is read past (see READ_PAST). */
export const readPast = (diagnostics: readonly { code: string; severity: string }[]): boolean =>
  diagnostics.every((d) => d.severity !== 'error' || READ_PAST.has(d.code))

/**
 * Every declared code, by who declares it: core's here; each format adds its own where it declares
 * them (its `codes.ts`, by declaration merging: `declare module '../../core/codes.js'`), so core
 * names no format. `Diagnostic.code` is the union of them all: a code nobody declared does not
 * compile.
 */
export interface DeclaredCodes {
  core: CoreCode
}

export type DiagnosticCode = DeclaredCodes[keyof DeclaredCodes]
