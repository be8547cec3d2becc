import { isBaseToken, isEmptyLanguage, type TokenType } from '../../runtime/nats/tokens.js'
import { isObject } from './document.js'

/**
 * Why a token type definition is not one of the two forms NATS contract profile v0.2 defines (Token domains and channels), or undefined:
 * `{kind: token, alphabet, first, minLength, maxLength, prefix}` with inclusive byte bounds in
 * 1..128, minimum no greater than maximum and a base-ASCII prefix; or `{kind: enum, values}` with
 * distinct valid tokens.
 */
export function tokenTypeProblem(def: unknown): string | undefined {
  if (!isObject(def)) return 'is not an object'
  if (def.kind === 'enum') {
    for (const key of Object.keys(def)) if (key !== 'kind' && key !== 'values') return `has ${key}, which an enum type does not take`
    if (!Array.isArray(def.values) || def.values.length === 0) return 'needs a non-empty list of values'
    const seen = new Set<string>()
    for (const value of def.values) {
      if (typeof value !== 'string' || !isBaseToken(value)) return `has value ${JSON.stringify(value)}, which is not a token of [A-Za-z0-9_-]`
      if (value.length > 128) return `has value ${JSON.stringify(value)}, longer than 128 bytes`
      if (seen.has(value)) return `lists ${JSON.stringify(value)} twice`
      seen.add(value)
    }
    return undefined
  }
  if (def.kind !== 'token') return 'needs kind: token or kind: enum'
  if ('values' in def) return 'has values, which a token type does not take'
  if (!(def.alphabet === 'lower' || def.alphabet === 'ascii' || def.alphabet === 'hex')) return 'needs alphabet: lower, ascii or hex'
  if (def.first !== 'letter' && def.first !== 'any') return 'needs first: letter or any'
  for (const bound of ['minLength', 'maxLength'] as const) {
    const n = def[bound]
    if (!Number.isInteger(n) || (n as number) < 1 || (n as number) > 128) return `needs ${bound} as an integer in 1..128`
  }
  if ((def.minLength as number) > (def.maxLength as number)) return 'has minLength greater than maxLength'
  if (!('prefix' in def)) return 'needs prefix (it may be "")'
  const prefix = def.prefix
  if (typeof prefix !== 'string' || (prefix !== '' && !isBaseToken(prefix))) return 'needs a prefix of [A-Za-z0-9_-] characters'
  return undefined
}

/**
 * A token type definition as the compiler reads it: one of the profile's two forms (above), with
 * only the members the form defines, in a fixed order; undefined for a definition of neither form
 * or one whose language is empty (no token meets it). The checked model and the differ's reading
 * of another application's raw document (diff/impact.ts) both read definitions here.
 */
export function readTokenType(def: unknown): TokenType | undefined {
  if (tokenTypeProblem(def) !== undefined || isEmptyLanguage(def as TokenType)) return undefined
  const type = def as TokenType
  if (type.kind === 'enum') return { kind: 'enum', values: [...type.values] }
  const { alphabet, first, minLength, maxLength, prefix } = type
  return { kind: 'token', alphabet, first, minLength, maxLength, prefix }
}
