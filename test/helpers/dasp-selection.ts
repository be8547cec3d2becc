/**
 * The DASP example selection (fixtures/dasp/counter.dasp.json) with what it reads, its extension
 * definitions and their content pins, copied into a folder of a test's own. The fixture folder's
 * corpus and invalid documents are left out: they are most of its files, and copying them per
 * variant was a test's main cost.
 */
import { cpSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'

const fixtures = join(import.meta.dirname, '../../fixtures/dasp')

/** Copies the selection (named `selectionName` in `dir`), `extensions/` and `pins/` into `dir`; returns the selection's path. */
export function copyDaspSelection(dir: string, selectionName = 'counter.dasp.json'): string {
  mkdirSync(dir, { recursive: true })
  for (const part of ['extensions', 'pins']) cpSync(join(fixtures, part), join(dir, part), { recursive: true })
  cpSync(join(fixtures, 'counter.dasp.json'), join(dir, selectionName))
  return join(dir, selectionName)
}
