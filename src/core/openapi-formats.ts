/**
 * The OpenAPI 3.0 formats this project's generated validators check (the Benzene converter turns
 * each into a pattern or a range), in one place for the converter and for the schema diff, which
 * must read a payload as those validators do to be sure of a witness. Any other format documents.
 */

/**
 * RFC 3339 §5.6 `full-date`, calendar-exact (§5.7): months 01-12, each month's own last day, and
 * 29 February only in leap years (divisible by 4, and centuries only when divisible by 400).
 * Bounded quantifiers and alternation only, so it runs as a native `RegExp` (core/pattern-safety).
 */
const MONTH_DAY = '(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))'
const LEAP_YEAR = '(?:\\d{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)'
const FULL_DATE = `(?:\\d{4}-${MONTH_DAY}|${LEAP_YEAR}-02-29)`
/** RFC 3339 §5.6 `full-time`: hours 00-23, minutes 00-59, seconds up to a leap second 60, a numeric offset or Z. */
const FULL_TIME = '(?:[01]\\d|2[0-3]):[0-5]\\d:(?:[0-5]\\d|60)(?:\\.\\d+)?(?:[Zz]|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)'

/** The pattern each checked string format is (on a `type: string` schema only). */
export const OPENAPI_FORMAT_PATTERNS: Readonly<Record<string, string>> = {
  'date-time': `^${FULL_DATE}[Tt]${FULL_TIME}$`,
  date: `^${FULL_DATE}$`,
  uuid: '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$',
  byte: '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$',
}

/** A value each checked string format accepts (and every other one refuses). */
export const OPENAPI_FORMAT_EXAMPLES: Readonly<Record<string, string>> = {
  date: '2024-02-29',
  'date-time': '2024-02-29T12:00:00Z',
  uuid: '123e4567-e89b-12d3-a456-426614174000',
  byte: 'AAAA',
}

/** `format: int32` on an `integer` or `number` schema. */
export const INT32_RANGE = { minimum: -2147483648, maximum: 2147483647 } as const
/**
 * `format: int64` read as a JavaScript number: [-2^63, 2^63]. The upper end is 2^63 rather than
 * 2^63 - 1 because the largest int64, 9223372036854775807, is not a double: JSON.parse reads it as
 * 2^63, so that value must pass; 1e19 and everything past 2^63 are refused.
 */
export const INT64_RANGE = { minimum: -9223372036854775808, maximum: 9223372036854775808 } as const
