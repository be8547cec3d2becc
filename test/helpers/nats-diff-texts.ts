/**
 * Two versions of a NATS document, as text, written to a test's own folder (removed when the test
 * finishes) and diffed as `contracts diff` diffs them; both versions must be valid.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import { diffContracts } from '../../src/core/diff/runner.js'
import type { DiffFinding } from '../../src/core/diff/types.js'
import { loadDiffer } from '../../src/formats/diffs.js'
import { formats } from '../../src/formats/index.js'
import { testFolder } from './temp-folder.js'

/** The findings of diffing `old` against `next` (old.asyncapi.yaml and new.asyncapi.yaml in `folder`). */
export async function diffNatsTexts(prefix: string, old: string, next: string): Promise<{ findings: DiffFinding[]; folder: string }> {
  const folder = testFolder(prefix)
  writeFileSync(join(folder, 'old.asyncapi.yaml'), old)
  writeFileSync(join(folder, 'new.asyncapi.yaml'), next)
  const result = await diffContracts({ file: join(folder, 'old.asyncapi.yaml') }, { file: join(folder, 'new.asyncapi.yaml') }, { formats, loadDiffer })
  expect(result.valid, JSON.stringify([result.old.diagnostics, result.new.diagnostics])).toBe(true)
  return { findings: result.findings, folder }
}
