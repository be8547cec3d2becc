/** Timing helpers: medians of repeated runs after warm-up, in one process. */
export async function median(fn: () => unknown, runs: number, warmup = Math.max(1, Math.ceil(runs / 4))): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn()
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    await fn()
    times.push(performance.now() - start)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]!
}

/** Time of `iterations` calls of a hot function, as a median over `runs` batches. */
export function hot(fn: (i: number) => unknown, iterations: number, runs: number): Promise<number> {
  return median(() => {
    let sink: unknown
    for (let i = 0; i < iterations; i++) sink = fn(i)
    return sink
  }, runs)
}

/**
 * Medians of several functions measured in alternation (a, b, a, b, ...), so that a slow spell of a
 * shared machine falls on every side of a ratio alike.
 */
export async function paired<K extends string>(fns: Record<K, () => unknown>, runs: number, warmup = Math.max(3, Math.ceil(runs / 2))): Promise<Record<K, number>> {
  const names = Object.keys(fns) as K[]
  for (let i = 0; i < warmup; i++) for (const name of names) await fns[name]()
  const times = Object.fromEntries(names.map((n) => [n, [] as number[]])) as unknown as Record<K, number[]>
  for (let i = 0; i < runs; i++) {
    for (const name of names) {
      const start = performance.now()
      await fns[name]()
      times[name].push(performance.now() - start)
    }
  }
  return Object.fromEntries(names.map((n) => [n, times[n].sort((a, b) => a - b)[Math.floor(runs / 2)]!])) as Record<K, number>
}
