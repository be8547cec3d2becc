/**
 * What JSON Schema's keywords compare values by, shared by the schema interpreter
 * (`schema-check.ts`) and the validator code the compiler generates (`src/core/schema-code.ts`).
 */

/** A value's JSON Schema type name (`null` and `array` apart from `object`). */
export function typeOf(data: unknown): string {
  if (data === null) return 'null'
  if (Array.isArray(data)) return 'array'
  return typeof data
}

/**
 * Whether `data` is an integer multiple of `divisor`, decided on the decimal numbers the JSON text
 * wrote (a number's shortest round-trip form), not on a float quotient: `19.99 / 0.01` is
 * 1998.9999999999998 in binary floating point, yet 19.99 is a multiple of 0.01 as the document
 * means it. Exact with BigInt; exponents of finite doubles are within ±400, so the scaled integers
 * stay under ~1,400 digits: O(digits²) at worst, a few microseconds.
 */
export function isMultipleOf(data: number, divisor: number): boolean {
  if (!Number.isFinite(data) || !Number.isFinite(divisor) || divisor <= 0) return false
  if (Number.isInteger(data) && Number.isInteger(divisor) && Number.isSafeInteger(data) && Number.isSafeInteger(divisor)) return data % divisor === 0
  const [a, ea] = decimal(data)
  const [b, eb] = decimal(divisor)
  const e = Math.min(ea, eb)
  // data = a·10^ea, divisor = b·10^eb; scale both to 10^e and compare as integers.
  return (a * 10n ** BigInt(ea - e)) % (b * 10n ** BigInt(eb - e)) === 0n
}

/** A finite number as `[digits, exponent]` with value digits·10^exponent, read from its shortest decimal form. */
function decimal(value: number): [bigint, number] {
  const [mantissa = '0', exponent = '0'] = Math.abs(value).toString().split('e')
  const [whole = '0', fraction = ''] = mantissa.split('.')
  return [BigInt(whole + fraction), Number(exponent) - fraction.length]
}

/** Length in Unicode code points, as JSON Schema counts `minLength`/`maxLength`. */
export function codePoints(text: string): number {
  let length = 0
  for (let i = 0; i < text.length; i++, length++) {
    const code = text.charCodeAt(i)
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) i++
    }
  }
  return length
}

/** Deep equality of JSON values, as JSON Schema compares `enum`, `const` and `uniqueItems`. */
export function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a !== a && b !== b
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((v, i) => equal(v, (b as unknown[])[i]))
  const ka = Object.keys(a)
  if (ka.length !== Object.keys(b).length) return false
  return ka.every((k) => Object.hasOwn(b, k) && equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
}

/** Punctuation pushed between values while `canonicalKey` walks; never confused with data. */
class Raw {
  constructor(readonly text: string) {}
}
const CLOSE_ARRAY = new Raw(']')
const CLOSE_OBJECT = new Raw('}')

/**
 * A string that two JSON values share exactly when they are deeply equal (object keys sorted;
 * numbers by value, so `0` and `-0` are one key, as `equal` has it). Iterative: any depth.
 */
export function canonicalKey(value: unknown): string {
  let out = ''
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const v = stack.pop()
    if (v instanceof Raw) out += v.text
    else if (typeof v === 'string') out += JSON.stringify(v)
    else if (typeof v === 'number') out += v === 0 ? '0' : String(v)
    else if (v === null || typeof v !== 'object') out += String(v)
    else if (Array.isArray(v)) {
      stack.push(CLOSE_ARRAY)
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i], new Raw(i === 0 ? '[' : ','))
      if (v.length === 0) out += '['
    } else {
      const keys = Object.keys(v).sort()
      stack.push(CLOSE_OBJECT)
      for (let i = keys.length - 1; i >= 0; i--)
        stack.push((v as Record<string, unknown>)[keys[i]!], new Raw((i === 0 ? '{' : ',') + JSON.stringify(keys[i]) + ':'))
      if (keys.length === 0) out += '{'
    }
  }
  return out
}
