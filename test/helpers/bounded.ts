/**
 * A wait with a bound and a name: a promise that has not settled within `ms` rejects with what was
 * awaited, so a stalled step fails where it stalled instead of at the test's own timeout.
 */
export async function bounded<T>(what: string, promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not settled within ${ms} ms`)), ms)))
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}
