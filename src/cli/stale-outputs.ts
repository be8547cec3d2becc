/**
 * `contracts generate`'s outputs that an earlier run wrote and this one did not: a document dropped
 * from the command (its `<name>.js` and `<name>.d.ts`), an application dropped from a Rust bundle
 * (its `src/<app>.rs`, which `lib.rs` no longer declares). Left in place, such a file keeps being
 * imported with the old contract's code while everything around it is regenerated.
 *
 * Only the places and shapes a target writes are looked at, never a walk of `--out` (a crate's
 * `target/` folder holds thousands of files, some of them copies of its sources): for the
 * TypeScript target the `.js` and `.d.ts` files directly in `--out`, for the Rust target the `.rs`
 * files directly in `--out/src`. A file is stale when it is a regular file (a link is never
 * followed or touched), carries the marker every generated file does in its first two lines, and
 * was not written by this run. `--clean` removes them through `removeOwnedFile` (which looks again,
 * through no link, before it unlinks); without it they are listed.
 *
 * Worst case: one directory listing, and for each entry of a matching name one `lstat` and one read
 * of at most 4 KB; at most MAX_LOOKED entries are looked at (a folder past that is said to be).
 */
import { lstatSync, readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { markedFile } from '../core/safe-write.js'

/** Entries of a folder looked at, at most. */
export const MAX_LOOKED = 10_000

export interface StaleOutputs {
  /** The folder looked in (absolute). */
  readonly folder: string
  /** Absolute paths of the stale files, sorted. */
  readonly files: readonly string[]
  /** The folder had more entries than MAX_LOOKED: files past them were not looked at. */
  readonly truncated: boolean
}

/** The stale outputs of `target` under `out`, given the absolute paths this run wrote. */
export function staleOutputs(out: string, target: 'typescript' | 'rust', written: ReadonlySet<string>): StaleOutputs {
  const folder = target === 'rust' ? join(resolve(out), 'src') : resolve(out)
  const shaped = target === 'rust' ? (name: string) => name.endsWith('.rs') : (name: string) => name.endsWith('.js') || name.endsWith('.d.ts')
  let names: string[]
  try {
    // The folder itself must be a real one (generate has just written into it, through no link).
    if (!lstatSync(folder).isDirectory()) return { folder, files: [], truncated: false }
    names = readdirSync(folder)
  } catch {
    return { folder, files: [], truncated: false }
  }
  const truncated = names.length > MAX_LOOKED
  const files: string[] = []
  for (const name of names.slice(0, MAX_LOOKED)) {
    if (!shaped(name)) continue
    const path = join(folder, name)
    if (written.has(path) || !markedFile(path)) continue
    files.push(path)
  }
  return { folder, files: files.sort(), truncated }
}
