import type { LoadedFile } from './load.js'

/** The largest value of nats-server's int64 limits and nanosecond durations. */
export const INT64_MAX = 9223372036854775807n

/**
 * The integer a document writes at `pointer`, exactly, as the text says it: a number past 2^53
 * (a year is 3.2e16 ns) parses to the nearest double, so its digits are read again from the source
 * (a plain decimal literal: YAML 1.2 core and JSON agree on those). Undefined when the value is
 * not an integer or the literal is not plain digits. O(literal) past 2^53, O(1) below it.
 */
export function exactInteger(file: LoadedFile, pointer: string, value: unknown): bigint | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value)) return undefined
  if (Number.isSafeInteger(value)) return BigInt(value)
  const { offset } = file.source.locate(pointer)
  const literal = /^\+?([0-9]+)(?![0-9.eE_xXoObB])/.exec(file.source.text.slice(offset, offset + 32))
  return literal ? BigInt(literal[1]!) : undefined
}

/**
 * Why a positive int64 written at `pointer` is not usable, or undefined: it must be an integer
 * above 0 and at most 2^63 - 1 (nats-server's limit), and, past 2^53, one a JavaScript number
 * carries exactly (a year in nanoseconds does; 9007199254740993 does not, and a client would send
 * 9007199254740992 instead).
 */
export function positiveInt64Problem(file: LoadedFile, pointer: string, value: unknown): string | undefined {
  const exact = exactInteger(file, pointer, value)
  if (exact === undefined || exact <= 0n) return 'must be a positive integer'
  if (exact > INT64_MAX) return `must be at most ${INT64_MAX} (2^63 - 1, nats-server's int64)`
  if (BigInt(value as number) !== exact)
    return `is ${exact}, which a JavaScript number cannot carry exactly (it would be sent as ${BigInt(value as number)}; unsupported)`
  return undefined
}
