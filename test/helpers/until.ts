/**
 * Polls `probe` until it gives a value, at most `timeoutMs`: a bound on the wait, not a claim about
 * speed (on a loaded 2-core machine a save has taken more than 15 s to reach a served module).
 */
export async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000, everyMs = 100): Promise<T> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}
