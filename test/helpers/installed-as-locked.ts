/**
 * Whether a folder's `node_modules` is the tree a lockfile pins, by npm's own record of what it
 * installed there (`node_modules/.package-lock.json`, the "hidden lockfile" npm writes after an
 * install and trusts on the next): every installed package is in the lockfile at the same path,
 * version and integrity (and address, where npm recorded one), and every package of the lockfile that is not installed is an
 * optional one (another platform's binary). Read-only; false on anything missing or unreadable.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

interface LockedPackage {
  readonly version?: string
  readonly resolved?: string
  readonly integrity?: string
  readonly link?: boolean
  readonly optional?: boolean
}

function packages(file: string): Record<string, LockedPackage> | undefined {
  try {
    const lock = JSON.parse(readFileSync(file, 'utf8')) as { packages?: Record<string, LockedPackage> }
    return lock.packages && typeof lock.packages === 'object' ? lock.packages : undefined
  } catch {
    return undefined
  }
}

/** `installDir/node_modules` holds exactly what `lockDir/package-lock.json` pins. */
export function installedAsLocked(installDir: string, lockDir: string): boolean {
  const installed = packages(join(installDir, 'node_modules', '.package-lock.json'))
  const locked = packages(join(lockDir, 'package-lock.json'))
  if (!installed || !locked) return false
  // npm leaves the registry address out of its record where it is the default registry's: the
  // integrity (the tarball's digest) is what names the files, the address is compared where recorded.
  const same = (a: LockedPackage, b: LockedPackage) =>
    a.version === b.version && a.integrity === b.integrity && a.link === b.link && (a.resolved === undefined || a.resolved === b.resolved)
  for (const [path, entry] of Object.entries(installed)) {
    const pinned = locked[path]
    if (path === '' || !pinned || !same(entry, pinned)) return false
  }
  for (const [path, pinned] of Object.entries(locked)) if (path !== '' && !installed[path] && !pinned.optional) return false
  return Object.keys(installed).length > 0
}
