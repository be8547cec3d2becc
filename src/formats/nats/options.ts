import { declaredDiagnostics, type Diagnostic } from '../../core/diagnostics.js'
import type { ImportQuery } from '../../core/format.js'
import { NATS_MODEL_CODES } from './codes.js'

/** Options for NATS application documents (plugin option `nats`, CLI `--names`). */
export interface NatsOptions {
  /**
   * Export names chosen by hand, keyed by standard channel id (`"note-log": "noteLog"`). A given
   * name wins over a derived one, which then yields; derived names never fail the build (docs/nats.md).
   * @default {}
   */
  names?: Readonly<Record<string, string>>
  /**
   * How the module's payload validators check payloads, with the same verdicts and errors either
   * way: `'data'` writes the schemas for the runtime's schema interpreter (a module about the size
   * of the schemas, and the faster compile); `'code'` writes a JavaScript function per payload
   * schema (validation about three times faster, and a module larger than its document once a
   * contract has many payloads). Schemas beyond the keywords both take are compiled by ajv either way.
   * @default 'data'
   */
  validators?: ValidatorForm
}

/** The import query's keys a NATS document reads: none. */
export const NATS_QUERY_KEYS: readonly string[] = []

/** How a module's payload validators check payloads (option `validators`). */
export type ValidatorForm = 'code' | 'data'

/** The options' diagnostics, at their code's declared severity. */
const optionDiagnostic = declaredDiagnostics(NATS_MODEL_CODES)

/**
 * The NATS options, checked: `names`, an object of strings, and `validators`, `'code'` or
 * `'data'` (anything else is NATS_INVALID_OPTION, never silently ignored). The import query
 * carries no NATS option.
 */
export function resolveNatsOptions(raw: unknown, _query: ImportQuery, file: string): { options: NatsOptions; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = []
  const report = (message: string, data: Record<string, unknown>) => diagnostics.push(optionDiagnostic({ file }, 'NATS_INVALID_OPTION', '', message, data))
  if (raw === undefined) return { options: {}, diagnostics }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    report(`NATS options are an object ({ names, validators }), not ${JSON.stringify(raw)}.`, { value: raw })
    return { options: {}, diagnostics }
  }
  const given = raw as Record<string, unknown>
  const unknown = Object.keys(given).find((key) => key !== 'names' && key !== 'validators')
  if (unknown !== undefined) report(`Option ${JSON.stringify(unknown)} is not a NATS option (names, validators).`, { option: unknown })
  const form = given.validators
  if (form !== undefined && form !== 'code' && form !== 'data') {
    report(`Option validators: ${JSON.stringify(form)} is not 'code' or 'data'.`, { option: 'validators', value: form })
    return { options: {}, diagnostics }
  }
  const validators: NatsOptions = form === 'code' ? { validators: 'code' } : {}
  const names = given.names
  if (names === undefined) return { options: validators, diagnostics }
  const entries = typeof names === 'object' && names !== null && !Array.isArray(names) ? Object.entries(names) : undefined
  const wrong = entries ? entries.find(([, name]) => typeof name !== 'string') : [undefined, names]
  if (wrong) {
    report(
      `Option names: ${entries ? `the name for ${JSON.stringify(wrong[0])} is ${JSON.stringify(wrong[1])}, not a string` : 'not an object of export names'}.`,
      { option: 'names', value: wrong[1] },
    )
    return { options: {}, diagnostics }
  }
  // Own properties only: a channel id `__proto__` is a key like any other.
  const own: Record<string, string> = {}
  for (const [id, name] of entries!) Object.defineProperty(own, id, { value: name, enumerable: true, writable: true, configurable: true })
  return { options: { names: own, ...validators }, diagnostics }
}
