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
