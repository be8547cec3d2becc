import { decodedText } from '../../../../core/input-host.js'
import type { Diagnostic } from '../../../../core/diagnostics.js'
import { declaredDiagnostics } from '../../../../core/diagnostics.js'
import { NATS_TARGET_CODES } from '../../codes.js'
import { parseByExtension } from '../../load.js'
import type { RustUnsupported } from './payloads.js'

const diagnostic = declaredDiagnostics(NATS_TARGET_CODES)

/**
 * A Rust-target refusal as a diagnostic (NATS_RUST_UNSUPPORTED) at the schema or channel whose type
 * it is, positioned in the application's document (read again: the refusal is rare, and the
 * compile's source is not kept for the target). A document that cannot be read again (changed or
 * gone since) is positioned at its start.
 */
export function rustUnsupported(error: RustUnsupported, read: (file: string) => Buffer): Diagnostic {
  const file = error.file ?? ''
  let locate: ((pointer: string) => { line: number; column: number }) | undefined
  try {
    const text = decodedText(read(file), file)
    if (text !== undefined) locate = parseByExtension(file, text).source.locate
  } catch {
    locate = undefined
  }
  return diagnostic({ file, locate }, 'NATS_RUST_UNSUPPORTED', error.pointer, error.message)
}
