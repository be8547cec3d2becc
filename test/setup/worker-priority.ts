/**
 * Runs before each test file (vitest.config.ts `setupFiles`): a file that only computes or waits on
 * tools that compute (compiles, bundlers, tsc, cargo, npm) lowers its worker's priority, and the
 * processes it starts inherit it; the TIMED files (leases, leader elections, file watchers, a language
 * server's publications: waits a busy core could stretch past their bounds) keep the normal one. So
 * the suite can run one worker more than the machine has cores: the timed files, which mostly wait,
 * get a core the moment they need it, and the computing ones take what is left.
 */
import { setPriority } from 'node:os'
import { join, relative } from 'node:path'
import { beforeAll, expect } from 'vitest'
import { COMPUTING_PRIORITY, TIMED } from '../file-groups.js'

const root = join(import.meta.dirname, '../..')

beforeAll(() => {
  const path = expect.getState().testPath
  if (path === undefined || TIMED.includes(relative(root, path))) return
  try {
    // Only ever lowered: a process cannot raise its own priority again without privileges, and a
    // shared worker that ran a computing file runs only computing files (no group holds a TIMED one).
    setPriority(COMPUTING_PRIORITY)
  } catch {
    // A system that refuses it runs every file at the same priority.
  }
})
