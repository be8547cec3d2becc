import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import type { Diagnostic } from './diagnostics.js'
import type { InputHost } from './format.js'

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
  return {
    digests,
    texts,
    async readText(path) {
      const abs = resolve(path)
      let bytes: Buffer
      try {
        bytes = await readFile(abs)
      } catch (error) {
        throw new InputError(fileProblem('CONTRACTS_READ_FAILED', abs, `Cannot read ${abs}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`))
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
}
