/**
 * Each test file's processor time, for the test-time work (bench/test-suite-cpu.txt): loaded only
 * when CPU_PROBE names a file (vitest.config.ts `setupFiles`), it appends one line per test file:
 * the path, the worker's own CPU seconds during the file, its reaped children's (tsc, cargo, npm,
 * nats-server...), the seconds on the clock and when it began (ms since the epoch), tab-separated. Linux only (/proc/self/stat).
 *
 *   CPU_PROBE=cpu-times.txt npm test
 */
import { appendFileSync, readFileSync } from 'node:fs'
import { afterAll, beforeAll, expect } from 'vitest'

/** The kernel's clock ticks a second (USER_HZ: 100 on every Linux this runs on). */
const TICKS = 100

function times(): { own: number; children: number } {
  const stat = readFileSync('/proc/self/stat', 'utf8')
  // Fields after the command name (which may hold spaces) in parentheses: utime, stime, cutime, cstime are 14-17.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return { own: (Number(fields[11]) + Number(fields[12])) / TICKS, children: (Number(fields[13]) + Number(fields[14])) / TICKS }
}

let start = { own: 0, children: 0 }
let started = 0
beforeAll(() => {
  start = times()
  started = Date.now()
})
afterAll(() => {
  const end = times()
  const line = [
    expect.getState().testPath,
    (end.own - start.own).toFixed(2),
    (end.children - start.children).toFixed(2),
    ((Date.now() - started) / 1000).toFixed(1),
    // When the file began (ms since the epoch), to lay the files out on the run's timeline.
    String(started),
  ]
  appendFileSync(process.env.CPU_PROBE!, `${line.join('\t')}\n`)
})
