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

const utf8 = new TextDecoder('utf-8', { fatal: true })

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
      try {
        const text = utf8.decode(bytes)
        texts.set(abs, text)
        return text
      } catch {
        throw new InputError(fileProblem('CONTRACTS_NOT_UTF8', abs, `${abs} is not valid UTF-8.`))
      }
    },
  }
  return host
}
