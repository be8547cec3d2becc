import type { Diagnostic } from './diagnostics.js'
import type { ContractFormat } from './format.js'
import { fileProblem } from './input-host.js'

/**
 * `resolveOptions` for a format that takes none: nothing (or `{}`) is accepted; anything else is
 * `CONTRACTS_UNKNOWN_OPTION`, never silently ignored.
 */
export function withoutOptions(name: string): ContractFormat<unknown, unknown, unknown, undefined>['resolveOptions'] {
  return (raw, _query, file) => {
    const empty = raw === undefined || (typeof raw === 'object' && raw !== null && !Array.isArray(raw) && Object.keys(raw).length === 0)
    const diagnostics: Diagnostic[] = empty
      ? []
      : [{ ...fileProblem('CONTRACTS_UNKNOWN_OPTION', file, `${name} contracts take no options (given ${JSON.stringify(raw)}).`), data: { format: name } }]
    return { options: undefined, diagnostics }
  }
}
