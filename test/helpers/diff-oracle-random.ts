import { random } from './seeded-random.js'

/**
 * A seeded pseudo-random source for the diff oracle's generators (mulberry32): the same seed gives
 * the same schemas, documents and edits on every machine, so a failure names a seed that reproduces
 * it (`DIFF_ORACLE_SEED=<n>`).
 */
export class Random {
  /** A float in [0, 1). */
  readonly next: () => number

  constructor(readonly seed: number) {
    this.next = random(seed)
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  chance(p: number): boolean {
    return this.next() < p
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list')
    return items[Math.floor(this.next() * items.length)] as T
  }

  /** `count` distinct items of `items` (all of them when there are fewer), in a random order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = [...items]
    const out: T[] = []
    while (out.length < count && pool.length > 0) out.push(pool.splice(Math.floor(this.next() * pool.length), 1)[0] as T)
    return out
  }
}

/** The seed of a run: `DIFF_ORACLE_SEED` when set (to reproduce a failure), else the fixed default. */
export function oracleSeed(fallback: number): number {
  const raw = process.env.DIFF_ORACLE_SEED
  const n = raw === undefined ? NaN : Number(raw)
  return Number.isInteger(n) ? n : fallback
}
