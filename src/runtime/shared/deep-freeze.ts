/**
 * Freezes a value and everything in it, and returns it. Meant for generated data, but it is exported
 * to applications, so it never throws: a loop over an explicit stack (any depth), each object
 * visited once (a cycle ends there), and a getter that throws or a proxy that refuses leaves that
 * object as it is. An object frozen already is still walked: one frozen alone (`Object.freeze`)
 * may hold objects that are not.
 */
export function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value]
  const seen = new WeakSet<object>()
  while (stack.length > 0) {
    const next = stack.pop()
    if (typeof next !== 'object' || next === null || seen.has(next)) continue
    seen.add(next)
    try {
      Object.freeze(next)
      const keys = Object.keys(next)
      for (let i = 0; i < keys.length; i++) stack.push((next as Record<string, unknown>)[keys[i]!])
    } catch {
      // An exotic object (a proxy, a throwing getter): nothing more of it can be frozen.
    }
  }
  return value
}
