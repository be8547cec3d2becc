/** Paired rounds timed in wall and in CPU time, for benches whose rounds are a few ms each. */
import { roundRatios } from './measure.js'

/** This process's CPU time in ms: unlike wall time, not stretched while other processes hold the cores. */
const cpuNow = (): number => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/**
 * Two functions measured in alternation after a warm-up, each call timed in wall and in this
 * process's CPU time: per round, ours over the baseline. A round of a few ms on a shared machine
 * can lose a slice of its core to another process, which moves its wall time by half; its CPU
 * time is not moved by that (`cpu_ratio`).
 */
export async function pairedRounds(
  baseline: () => unknown,
  ours: () => unknown,
  runs: number,
): Promise<{ ours_ms: number; baseline_ms: number; ratio: number; spread: [number, number]; cpu_ratio: number }> {
  const warmup = Math.max(3, Math.ceil(runs / 2))
  for (let i = 0; i < warmup; i++) {
    await baseline()
    await ours()
  }
  const wall = { ours: [] as number[], baseline: [] as number[] }
  const cpu = { ours: [] as number[], baseline: [] as number[] }
  for (let i = 0; i < runs; i++)
    for (const [side, fn] of [
      ['baseline', baseline],
      ['ours', ours],
    ] as const) {
      const [w, c] = [performance.now(), cpuNow()]
      await fn()
      cpu[side].push(cpuNow() - c)
      wall[side].push(performance.now() - w)
    }
  const { ratio, spread } = roundRatios(wall.ours, wall.baseline)
  return { ours_ms: median(wall.ours), baseline_ms: median(wall.baseline), ratio, spread, cpu_ratio: roundRatios(cpu.ours, cpu.baseline).ratio }
}
