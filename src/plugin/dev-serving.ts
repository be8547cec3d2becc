/**
 * What a Vite dev server lets a request read (its `server.fs`: `allow`, `deny`, `strict`), as a test
 * of a contract file. Vite refuses a file outside those folders when it is asked for through
 * `/@fs/`; a request that names the file by its plain absolute path, or by a path through a link
 * that leads out of them, reached this plugin's compile all the same, which then served the
 * contract and listed it on the dev page. So a dev server compiles for a request only a file Vite
 * would serve: its path and, when it exists, its real path must both be allowed (a link is never a
 * way out of the tree). A build reads what its imports name, as before.
 */
import { lstatSync, realpathSync } from 'node:fs'
import type { Diagnostic } from '../core/diagnostics.js'
import { fileProblem } from '../core/input-host.js'

/** The test for a dev server's config, or undefined when this Vite has no such function (all allowed then, as before). */
export async function servingRule(config: unknown): Promise<((file: string) => boolean) | undefined> {
  let allowed: ((config: never, file: string) => boolean) | undefined
  try {
    allowed = ((await import('vite')) as { isFileLoadingAllowed?: (config: never, file: string) => boolean }).isFileLoadingAllowed
  } catch {
    return undefined
  }
  if (typeof allowed !== 'function') return undefined
  const test = allowed
  return (file) => {
    const slashed = file.replace(/\\/g, '/')
    if (!test(config as never, slashed)) return false
    let real: string
    try {
      // A contract that is itself a link is the compile's to refuse, by name (CONTRACTS_SYMLINK).
      if (lstatSync(file).isSymbolicLink()) return true
      real = realpathSync(file)
    } catch {
      // Not there (the compile says so): its path alone decides.
      return true
    }
    return real === file || test(config as never, real.replace(/\\/g, '/'))
  }
}

/** The failed compile a refused file gets: one diagnostic, no file read, no dependency watched. */
export function outsideServing(file: string): { file: string; diagnostics: Diagnostic[]; dependencies: string[] } {
  return {
    file,
    dependencies: [],
    diagnostics: [
      fileProblem(
        'CONTRACTS_READ_FAILED',
        file,
        `${file} is outside what this Vite dev server may serve (server.fs.allow, through any link on its way): it is not read. Import it from a module inside those folders, or add its folder to server.fs.allow.`,
      ),
    ],
  }
}
