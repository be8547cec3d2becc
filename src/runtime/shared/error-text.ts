/**
 * What a caught value says, as text, without throwing: what user code throws (a sender, a getter, a
 * Proxy's trap) may be anything, and `String(value)` of an object whose `toString` throws, or an
 * `Error` whose `message` is a throwing getter, throws again inside the catch that was to turn it
 * into a result.
 */
export function errorText(error: unknown): string {
  try {
    if (error instanceof Error) return String(error.message)
    return String(error)
  } catch {
    return 'a value that cannot be shown as text'
  }
}
