import type { Diagnostic } from '../../core/diagnostics.js'
import type { ImportQuery } from '../../core/format.js'
import { declaredDiagnostics } from '../../core/diagnostics.js'
import { BENZENE_MODEL_CODES, type BenzeneModelCode } from './codes.js'

/** Which payloads generated clients check at run time. */
export type ValidateOption = 'request' | 'response' | 'both' | false

/** How a module's validators check payloads (option `validators`). */
export type ValidatorForm = 'code' | 'data'

/** Options for Benzene `*.spec.json` contracts (plugin option `benzene`, CLI flags, import query). */
export interface BenzeneOptions {
  /**
   * The topic include-list (Benzene Contract Document §5.2). When given and non-empty, exactly these request topics are in
   * scope, reserved ones included. A topic the document does not have fails the build
   * (`BENZENE_UNKNOWN_TOPIC`). Overridden by the import query `?topics=a,b`.
   * @default undefined (every domain topic)
   */
  topics?: readonly string[]
  /**
   * Also admit reserved topics (`benzene:*` or `reserved: true`) when there is no include-list. Query: `?includeReserved`.
   * @default false
   */
  includeReserved?: boolean
  /**
   * Export names chosen by hand, keyed by topic id (`"payments:get-all": "listPayments"`) or, for
   * one version of a topic, by `topic@version` (`"payments:capture@v2": "capture"`).
   * @default {}
   */
  names?: Readonly<Record<string, string>>
  /**
   * Payloads checked at run time by validators generated at build time: requests and event
   * messages before they are sent, responses when they arrive. Query: `?validate=request`.
   * @default 'both'
   */
  validate?: ValidateOption
  /**
   * `format: int64` integers: `'number'` (default) types them as `number`, which loses precision
   * past 2^53; `'string'` types and validates them as decimal strings, for services that send them so.
   * @default 'number'
   */
  int64?: 'number' | 'string'
  /**
   * How the validators check payloads, with the same verdicts and errors either way: `'code'`
   * compiles each payload schema to JavaScript at build time (about ajv's speed); `'data'` writes
   * the schemas into the module for the runtime's schema interpreter: on real documents a module
   * about a third smaller (minified and gzipped), for validation 3.5-4.5x slower.
   * @default 'code'
   */
  validators?: ValidatorForm
}

/** The import query's keys a Benzene contract reads (`./x.spec.json?topics=a,b&includeReserved&validate=request`). */
export const BENZENE_QUERY_KEYS: readonly string[] = ['topics', 'includeReserved', 'validate']

const VALIDATE_VALUES = new Map<string, ValidateOption>([
  ['request', 'request'],
  ['response', 'response'],
  ['both', 'both'],
  ['false', false],
  ['none', false],
])

/** `?includeReserved` (no value), `=true`, `=false`; `1` and `0` as they always were. Anything else is refused, not read as yes. */
const INCLUDE_RESERVED_VALUES = new Map<string, boolean>([
  ['', true],
  ['true', true],
  ['1', true],
  ['false', false],
  ['0', false],
])

/**
 * `?topics=`'s ids: split at each comma, the spaces and tabs around an id (`a, b`) dropped. Only
 * those: an id may end in other white space (U+2028, U+00A0), which `trim()` took away, so such a
 * topic could not be named in a query at all.
 */
function queryTopics(value: string): string[] {
  return value
    .split(',')
    .map((id) => id.replace(/^[ \t]+|[ \t]+$/g, ''))
    .filter(Boolean)
}

/** The options' diagnostics, at their code's declared severity. */
const optionDiagnostic = declaredDiagnostics(BENZENE_MODEL_CODES)

/**
 * The options a Benzene compile uses: the caller's (`benzene` plugin option, CLI flags), with the
 * import query winning (`?topics=a,b&includeReserved&validate=request`). Values out of range are
 * `BENZENE_INVALID_OPTION`.
 */
export function resolveBenzeneOptions(raw: unknown, query: ImportQuery, file: string): { options: BenzeneOptions; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = []
  const code: BenzeneModelCode = 'BENZENE_INVALID_OPTION'
  const report = (message: string, data: Record<string, unknown>) => diagnostics.push(optionDiagnostic({ file }, code, '', message, data))
  if (raw !== undefined && (typeof raw !== 'object' || raw === null || Array.isArray(raw)))
    report(`The benzene options must be an object, not ${JSON.stringify(raw)}.`, { option: 'benzene', value: raw })
  const options = (typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? raw : {}) as BenzeneOptions
  const topics = query.has('topics') ? queryTopics(query.get('topics')!) : options.topics
  const flag = query.get('includeReserved')
  let includeReserved = options.includeReserved
  if (flag !== undefined) {
    if (INCLUDE_RESERVED_VALUES.has(flag)) includeReserved = INCLUDE_RESERVED_VALUES.get(flag)
    else report(`?includeReserved=${flag} is not one of true, false (or no value: ?includeReserved).`, { option: 'includeReserved', value: flag })
  }
  let validate = options.validate
  const asked = query.get('validate')
  if (asked !== undefined) {
    if (VALIDATE_VALUES.has(asked)) validate = VALIDATE_VALUES.get(asked)
    else report(`?validate=${asked} is not one of request, response, both, false.`, { option: 'validate', value: asked })
  }
  if (validate !== undefined && validate !== false && !['request', 'response', 'both'].includes(validate)) {
    report(`Option validate: ${JSON.stringify(validate)} is not one of 'request', 'response', 'both', false.`, { option: 'validate', value: validate })
  }
  if (options.int64 !== undefined && options.int64 !== 'number' && options.int64 !== 'string') {
    report(`Option int64: ${JSON.stringify(options.int64)} is not 'number' or 'string'.`, { option: 'int64', value: options.int64 })
  }
  if (options.validators !== undefined && options.validators !== 'code' && options.validators !== 'data') {
    report(`Option validators: ${JSON.stringify(options.validators)} is not 'code' or 'data'.`, { option: 'validators', value: options.validators })
  }
  let names = options.names
  if (names !== undefined) {
    const entries = typeof names === 'object' && names !== null && !Array.isArray(names) ? Object.entries(names) : undefined
    const wrong = entries ? entries.find(([, name]) => typeof name !== 'string') : [undefined, names]
    if (wrong) {
      report(
        `Option names: ${entries ? `the name for ${JSON.stringify(wrong[0])} is ${JSON.stringify(wrong[1])}, not a string` : 'not an object of export names'}.`,
        {
          option: 'names',
          value: wrong[1],
        },
      )
      names = undefined
    }
  }
  return { options: { ...options, topics, includeReserved, validate, names }, diagnostics }
}
