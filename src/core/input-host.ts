import { isUtf8 } from 'node:buffer'
import { createHash } from 'node:crypto'
import { lstat, readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import type { Diagnostic } from './diagnostics.js'
import type { InputHost } from './format.js'
import { LIMITS } from './limits.js'

export const sha256 = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex')

/** Thrown by the host when a file cannot be read; the pipeline turns it into its diagnostic. */
export class InputError extends Error {
  constructor(readonly diagnostic: Diagnostic) {
    super(diagnostic.message)
  }
}

export function fileProblem(code: string, file: string, message: string): Diagnostic {
  return { code, severity: 'error', message, file, pointer: '', line: 1, column: 1 }
}


/** A host that records the digest and text of every file a format reads. */
export function recordingHost(): InputHost & { digests: Map<string, string>; texts: Map<string, string> } {
  const digests = new Map<string, string>()
  const texts = new Map<string, string>()
  const host = {
    digests,
    texts,
    async read(path: string) {
      const text = await host.readText(path)
      return { text, sha256: digests.get(resolve(path))! }
    },
    async kind(path: string) {
      try {
        const stat = await lstat(path)
        return stat.isSymbolicLink() ? ('symlink' as const) : stat.isFile() ? ('file' as const) : stat.isDirectory() ? ('directory' as const) : ('other' as const)
      } catch {
        return 'missing' as const
      }
    },
    async readText(path: string) {
      const abs = resolve(path)
      let bytes: Buffer
      try {
        bytes = await readFile(abs)
      } catch (error) {
        throw new InputError(fileProblem('CONTRACTS_READ_FAILED', abs, `Cannot read ${abs}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`))
      }
      if (bytes.length > LIMITS.fileBytes) {
        throw new InputError(fileProblem('CONTRACTS_TOO_LARGE', abs, `${abs} has ${bytes.length} bytes; contract files are limited to ${LIMITS.fileBytes} bytes.`))
      }
      digests.set(abs, sha256(bytes))
      // Validate, then decode: both native, and together faster than a fatal TextDecoder (bench/).
      if (!isUtf8(bytes)) throw new InputError(fileProblem('CONTRACTS_NOT_UTF8', abs, `${abs} is not valid UTF-8.`))
      let text = bytes.toString('utf8')
      // As a TextDecoder does, a leading byte order mark is not part of the text.
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
      texts.set(abs, text)
      return text
    },
  }
  return host
}
