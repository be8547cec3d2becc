/**
 * `compute` with its results kept per string key, at most `limit` of them (all dropped when full).
 * For what contracts supply, such as patterns: few per document, but a long-lived dev server
 * compiling edit after edit should not keep every one it ever saw.
 */
export function memoized<T>(compute: (key: string) => T, limit = 4096): (key: string) => T {
  const kept = new Map<string, T>()
  return (key) => {
    let value = kept.get(key)
    if (value === undefined && !kept.has(key)) {
      value = compute(key)
      if (kept.size >= limit) kept.clear()
      kept.set(key, value)
    }
    return value as T
  }
}
