import { escapeToken } from '../runtime/shared/json-pointer.js'
import { stringEnd } from './json-scan.js'

/**
 * What a contract file may be. Contracts come from other teams; these bounds keep a hostile one
 * from exhausting memory or the stack. They are far above what real contracts use (the largest
 * fixture is under 50 KB and 12 levels deep).
 */
export const LIMITS = {
  /** Bytes of any one file read while compiling. */
  fileBytes: 16 * 1024 * 1024,
  /** Nesting of objects and arrays in a JSON or YAML value. */
  depth: 64,
} as const

/**
 * The offset of the first `{`/`[` nested deeper than the limit in a JSON text, or -1. Strings are
 * skipped whole. Linear and iterative: safe on any input.
 */
export function tooDeepJson(text: string, limit: number = LIMITS.depth): number {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 34) i = stringEnd(text, i)
    else if (c === 123 || c === 91) {
      if (++depth > limit) return i
    } else if (c === 125 || c === 93) depth--
  }
  return -1
}

/** The JSON Pointer of the first value nested deeper than the limit, or undefined. Iterative. */
export function tooDeepValue(value: unknown, limit: number = LIMITS.depth): string | undefined {
  const stack: Array<[unknown, string, number]> = [[value, '', 0]]
  while (stack.length > 0) {
    const [v, pointer, depth] = stack.pop()!
    if (typeof v !== 'object' || v === null) continue
    if (depth >= limit) return pointer
    for (const [k, child] of Array.isArray(v) ? v.map((c, i) => [String(i), c] as const) : Object.entries(v)) {
      stack.push([child, `${pointer}/${escapeToken(k)}`, depth + 1])
    }
  }
  return undefined
}

const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** The pointer of the first string (key or value) with an unpaired surrogate, or undefined. Iterative. */
export function loneSurrogate(value: unknown): string | undefined {
  const stack: Array<[unknown, string]> = [[value, '']]
  while (stack.length > 0) {
    const [v, pointer] = stack.pop()!
    if (typeof v === 'string') {
      if (LONE.test(v)) return pointer
    } else if (Array.isArray(v)) v.forEach((c, i) => stack.push([c, `${pointer}/${i}`]))
    else if (v && typeof v === 'object') {
      for (const [k, c] of Object.entries(v)) {
        const child = `${pointer}/${escapeToken(k)}`
        if (LONE.test(k)) return child
        stack.push([c, child])
      }
    }
  }
  return undefined
}

/**
 * Can the text hold a number beyond a double's range (an exponent of three digits, or 309 digits
 * in a row)? Only then is the value walked by `nonFiniteNumber`. Two searches rather than one
 * pattern with both: the alternation tried both branches at every character of the text, where the
 * exponent's pattern alone is found by its `e`, and a run of digits is looked for at every 309th
 * character only (bench/: about a sixth of the time on the 300 KB bench contract).
 */
export const mayOverflowNumber = (text: string): boolean => /[0-9.][eE][+]?[0-9]{3}/.test(text) || hasDigitRun(text, 309)

const isDigit = (c: number): boolean => c >= 48 && c <= 57

/**
 * Whether `text` holds `length` (at least 1) ASCII digits in a row. A run that long covers one of
 * the offsets `length - 1`, `2 * length - 1`, ...: only a digit there is measured, backward and
 * forward; past a run ending at `end`, the next run can end no sooner than `end + length`.
 */
export function hasDigitRun(text: string, length: number): boolean {
  for (let probe = length - 1; probe < text.length;) {
    if (!isDigit(text.charCodeAt(probe))) {
      probe += length
      continue
    }
    let start = probe
    while (start > 0 && isDigit(text.charCodeAt(start - 1))) start--
    let end = probe + 1
    while (end < text.length && isDigit(text.charCodeAt(end))) end++
    if (end - start >= length) return true
    probe = end + length
  }
  return false
}

/** The pointer of the first number that is not finite (`1e400` parses to Infinity), or undefined. Iterative. */
export function nonFiniteNumber(value: unknown): string | undefined {
  const stack: Array<[unknown, string]> = [[value, '']]
  while (stack.length > 0) {
    const [v, pointer] = stack.pop()!
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return pointer
    } else if (Array.isArray(v)) v.forEach((c, i) => stack.push([c, `${pointer}/${i}`]))
    else if (v && typeof v === 'object') for (const [k, c] of Object.entries(v)) stack.push([c, `${pointer}/${escapeToken(k)}`])
  }
  return undefined
}
