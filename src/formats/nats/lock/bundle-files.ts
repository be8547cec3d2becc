import { lstatSync } from 'node:fs'
import { join } from 'node:path'
import { readRegularFile } from '../../../core/input-host.js'
import { LIMITS } from '../../../core/limits.js'

/** What reading one bundle file found: its bytes, or why there are none. */
export type BundleRead =
  | { bytes: Buffer }
  | { problem: 'missing' }
  /** A symbolic link at the file or at a folder on its way (`link`), or something other than a regular file. */
  | { problem: 'not-plain'; link: boolean }
  | { problem: 'too-large'; size: number }
  | { problem: 'unreadable'; message: string }

/**
 * The bytes of the file at bundle path `rel` (checked by the caller to be a plain relative path):
 * every folder on the way and the file itself are `lstat`ed, so a link anywhere is refused, never
 * followed; the file is opened without blocking and read only up to the file limit.
 */
export function readBundleFile(root: string, rel: string): BundleRead {
  const parts = rel.split('/')
  let current = root
  for (let i = 0; i < parts.length; i++) {
    current = join(current, parts[i]!)
    let stat: ReturnType<typeof lstatSync>
    try {
      stat = lstatSync(current, { throwIfNoEntry: false })
    } catch {
      // A component that is a file (ENOTDIR), a name too long: nothing can be there.
      return { problem: 'missing' }
    }
    if (stat === undefined) return { problem: 'missing' }
    const last = i === parts.length - 1
    if (stat.isSymbolicLink() || (last ? !stat.isFile() : !stat.isDirectory())) return { problem: 'not-plain', link: stat.isSymbolicLink() }
  }
  try {
    const read = readRegularFile(current, LIMITS.fileBytes)
    return Buffer.isBuffer(read) ? { bytes: read } : { problem: 'too-large', size: read.size }
  } catch (error) {
    // Swapped for something else since the lstat (a FIFO, a folder): still not a plain file.
    if ((error as { code?: string }).code === 'not a regular file') return { problem: 'not-plain', link: false }
    return { problem: 'unreadable', message: (error as NodeJS.ErrnoException).code ?? (error as Error).message }
  }
}
