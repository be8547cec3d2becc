import { CORE_CODES } from './codes.js'
import type { Diagnostic } from './diagnostics.js'
import type { WriteRefusal } from './safe-write.js'

/**
 * A refused write as a diagnostic (`CONTRACTS_WRITE_REFUSED`): an error, because a build must
 * neither overwrite what it does not own nor silently go on without declarations the project relies
 * on. The file is the refused path (a link, a foreign file), not the contract: the contract is fine.
 */
export function writeRefusedDiagnostic(refusal: WriteRefusal): Diagnostic {
  return {
    code: 'CONTRACTS_WRITE_REFUSED',
    severity: CORE_CODES.CONTRACTS_WRITE_REFUSED.severity,
    message: refusal.message,
    file: refusal.path,
    pointer: '',
    line: 1,
    column: 1,
    data: { reason: refusal.reason },
  }
}
