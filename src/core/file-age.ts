/**
 * How long ago a file was last written or marked used, from its modification time, for the caches'
 * eviction and pruning. A time in the future (a clock set back, a cache restored from a machine
 * whose clock ran ahead, an archive's times) says nothing about use: read as older than anything,
 * so such a file is the first to go and is marked used again when it is read, rather than kept
 * until that date comes. A minute ahead is taken as now (two processes' clocks, a file system's
 * rounding).
 */
const SKEW_MS = 60_000

export function ageMs(mtimeMs: number, now = Date.now()): number {
  const age = now - mtimeMs
  return age >= -SKEW_MS ? Math.max(0, age) : Number.POSITIVE_INFINITY
}
