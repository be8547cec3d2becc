/** Timing helpers for bench/: ratios measured in one process, back to back. */
/**
 * Several functions measured in alternation (a, b, a, b, ...): the median time of each, and the
 * median over rounds of each one's time divided by the first one's in the same round. A shared
 * machine's slow spells fall on both sides of a ratio alike, so the ratio holds where the times
 * themselves wander by half.
 */
export async function paired<K extends string>(
  fns: Record<K, () => unknown>,
  runs: number,
  warmup = Math.max(3, Math.ceil(runs / 2)),
): Promise<{ ms: Record<K, number>; ratio: Record<K, number>; spread: Record<K, [number, number]> }> {
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
  const med = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  const first = times[names[0]!]
  return {
    ms: Object.fromEntries(names.map((n) => [n, med(times[n])])) as Record<K, number>,
    ratio: Object.fromEntries(names.map((n) => [n, med(times[n].map((t, i) => t / first[i]!))])) as Record<K, number>,
    // The lowest and highest per-round ratio: how far one round can stray from the median.
    spread: Object.fromEntries(
      names.map((n) => {
        const ratios = times[n].map((t, i) => t / first[i]!)
        return [n, [Math.min(...ratios), Math.max(...ratios)]]
      }),
    ) as Record<K, [number, number]>,
  }
}

/** Per-round ratios `ours[i] / baseline[i]` of separately timed sides: their median and spread (lowest, highest). */
export function roundRatios(ours: readonly number[], baseline: readonly number[]): { ratio: number; spread: [number, number] } {
  const ratios = ours.map((t, i) => t / baseline[i]!).sort((a, b) => a - b)
  return { ratio: ratios[Math.floor(ratios.length / 2)]!, spread: [ratios[0]!, ratios.at(-1)!] }
}
