/**
 * An authorization adapter that takes `ms` to allow each result, counting the calls and the most
 * running at once (how many results' adapters an executor asks side by side); every other stage is
 * allowed at once.
 */
export function countedAuthorization(ms: number): {
  authorization: (input: { data: { stage: string } }) => Promise<{ allowed: boolean }>
  counts: { asked: number; most: number }
} {
  const counts = { asked: 0, most: 0 }
  let running = 0
  return {
    counts,
    authorization: async ({ data }) => {
      if (data.stage !== 'result') return { allowed: true }
      counts.asked++
      counts.most = Math.max(counts.most, ++running)
      await new Promise((resolve) => setTimeout(resolve, ms))
      running--
      return { allowed: true }
    },
  }
}
