/**
 * A folder of its own in the system's temporary folder for one test, removed when the test finishes
 * (passed or failed): a suite run leaves nothing behind in /tmp. Call it inside a test; a file that
 * makes one folder for all its tests removes it in its own `afterAll`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onTestFinished } from 'vitest'

export function testFolder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}
