/**
 * The CloudEvents 1.0.2 type system ("Type System"), as the CloudEvents JSON format represents each
 * type ("Type System Mapping"). DASP extension attribute values use it (DASP extension contracts,
 * DASP-EXT-006). Each check is exact: a value either is one of the type's values in its JSON form
 * or it is not; nothing is coerced, trimmed or normalized.
 *
 * Complexity: each check is one pass over the value (a string's length); none throws, whatever it
 * is given (a non-string, a boxed string, a proxy: `typeof` reads no property).
 */
import { isAbsoluteUri, isUriReference } from './uri.js'

export type CloudEventsType = 'Boolean' | 'Integer' | 'String' | 'Binary' | 'URI' | 'URI-reference' | 'Timestamp'

export const CLOUDEVENTS_TYPES: readonly CloudEventsType[] = Object.freeze(['Boolean', 'Integer', 'String', 'Binary', 'URI', 'URI-reference', 'Timestamp'])

/** Boolean: a JSON boolean. */
export const isCloudEventsBoolean = (value: unknown): value is boolean => typeof value === 'boolean'

/** Integer: a JSON number with only an integer component, in the signed 32-bit range. */
export const isCloudEventsInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= -2147483648 && value <= 2147483647

/**
 * String: Unicode text without the control characters U+0000-U+001F and U+007F-U+009F, without
 * noncharacters (U+FDD0-U+FDEF and the last two code points of every plane) and without a
 * surrogate that is not half of a pair.
 */
export function isCloudEventsString(value: unknown): value is string {
  if (typeof value !== 'string') return false
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i)
    if (unit <= 0x1f || (unit >= 0x7f && unit <= 0x9f) || (unit >= 0xfdd0 && unit <= 0xfdef)) return false
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const low = value.charCodeAt(i + 1)
      if (!(low >= 0xdc00 && low <= 0xdfff)) return false
      const codePoint = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00)
      if ((codePoint & 0xfffe) === 0xfffe) return false
      i++
    } else if (unit >= 0xdc00 && unit <= 0xdfff) return false
    else if ((unit & 0xfffe) === 0xfffe) return false
  }
  return true
}

const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'

/**
 * Binary: RFC 4648 section 4 base64, padded to a multiple of four characters, with the pad bits
 * zero (section 3.5: conforming encoders set them so). One byte sequence has one spelling, which
 * matters for saved attributes, compared for duplicates (DASP-EXT-006).
 */
export function isCloudEventsBinary(value: unknown): value is string {
  if (typeof value !== 'string' || value.length % 4 !== 0) return false
  const padding = value.endsWith('==') ? 2 : value.endsWith('=') ? 1 : 0
  const end = value.length - padding
  for (let i = 0; i < end; i++) if (BASE64_ALPHABET.indexOf(value.charAt(i)) === -1) return false
  if (padding === 2) return BASE64_ALPHABET.indexOf(value.charAt(end - 1)) % 16 === 0
  if (padding === 1) return BASE64_ALPHABET.indexOf(value.charAt(end - 1)) % 4 === 0
  return true
}

/** URI: an absolute URI (RFC 3986 section 4.3, no fragment). */
export const isCloudEventsUri = (value: unknown): value is string => isAbsoluteUri(value)

/** URI-reference: a URI or a relative reference (RFC 3986 section 4.1). */
export const isCloudEventsUriReference = (value: unknown): value is string => isUriReference(value)

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/

const isLeapYear = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
/** Days in a month of the proleptic Gregorian calendar (RFC 3339 section 5.7). */
export const daysInMonth = (year: number, month: number) => (month === 2 ? (isLeapYear(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31)

/**
 * Timestamp: an RFC 3339 `date-time` (section 5.6), calendar-exact (section 5.7): months 01-12,
 * the days each month has (29 February only in leap years), hours 00-23, minutes 00-59, seconds
 * 00-59, and second 60 only where a leap second can fall: 23:59:60 UTC on the last day of a month,
 * shifted by the offset. `T` and `Z` may be lower case; offsets are at most 23:59.
 */
export function isCloudEventsTimestamp(value: unknown): value is string {
  if (typeof value !== 'string') return false
  const m = TIMESTAMP.exec(value)
  if (!m) return false
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number, number]
  const sign = m[7] === '-' ? -1 : 1
  const offset = m[7] === undefined ? 0 : Number(m[8]) * 60 + Number(m[9])
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false
  if (hour > 23 || minute > 59 || second > 60) return false
  if (m[7] !== undefined && (Number(m[8]) > 23 || Number(m[9]) > 59)) return false
  if (second < 60) return true
  // The same instant in UTC must be 23:59:60 on the last day of a month; the offset moves it at most one day.
  const utcMinutes = hour * 60 + minute - sign * offset
  const dayShift = Math.floor(utcMinutes / 1440)
  if (utcMinutes - dayShift * 1440 !== 23 * 60 + 59) return false
  const last = daysInMonth(year, month)
  return dayShift === 0 ? day === last : dayShift === 1 ? day + 1 === last : day === 1
}

const VALIDATORS: Readonly<Record<CloudEventsType, (value: unknown) => boolean>> = Object.freeze({
  Boolean: isCloudEventsBoolean,
  Integer: isCloudEventsInteger,
  String: isCloudEventsString,
  Binary: isCloudEventsBinary,
  URI: isCloudEventsUri,
  'URI-reference': isCloudEventsUriReference,
  Timestamp: isCloudEventsTimestamp,
})

const never = () => false

/** The check for a CloudEvents type; for anything that is not one of the seven, a check nothing passes. */
export function cloudEventsValidator(type: unknown): (value: unknown) => boolean {
  return typeof type === 'string' && Object.hasOwn(VALIDATORS, type) ? VALIDATORS[type as CloudEventsType] : never
}
