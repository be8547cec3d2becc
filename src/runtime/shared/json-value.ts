/** A JSON object (not null, not an array): the one check every format and the runtime helpers share. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
