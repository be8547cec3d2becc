/**
 * Sorts keys in place, in code unit order as `sort()` does: insertion sort for the few keys most
 * objects have, whose cost is a handful of compares where `sort()` allocated a work area each call
 * (bench/: tens of megabytes on a 1,000-topic contract).
 */
export function sortKeys(keys: string[]): string[] {
  if (keys.length > 16) return keys.sort()
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!
    let j = i - 1
    for (; j >= 0 && keys[j]! > key; j--) keys[j + 1] = keys[j]!
    keys[j + 1] = key
  }
  return keys
}
