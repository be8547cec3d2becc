import { ALPHABETS, inDomain, type TokenType } from '../../runtime/nats/tokens.js'

const isLetter = (c: string) => /[A-Za-z]/.test(c)

/**
 * Is every token of `a` a token of `b`? Used to prove that an input's token type fits a subject
 * parameter's domain. Exact for enums; for two token types it checks the prefix, the alphabet, the
 * first-character rule and the bounds, which is exact whenever `a` has at least one token.
 */
export function tokenTypeContains(b: TokenType, a: TokenType): boolean {
  if (a.kind === 'enum') return a.values.every((v) => inDomain(b, v))
  if (b.kind === 'enum') return false
  if (a.minLength < b.minLength || a.maxLength > b.maxLength) return false
  if (!a.prefix.startsWith(b.prefix)) return false
  const bChars = ALPHABETS[b.alphabet]
  const extra = a.prefix.slice(b.prefix.length)
  if ([...extra].some((c) => !bChars.includes(c))) return false
  // The suffix of `a` lies in b's suffix alphabet only if a's alphabet does (or `a` has no suffix at all).
  const suffixPossible = a.maxLength > a.prefix.length
  if (suffixPossible && [...ALPHABETS[a.alphabet]].some((c) => !bChars.includes(c))) return false
  if (b.first === 'letter') {
    if (extra.length > 0) return isLetter(extra[0]!)
    // b needs a letter right after its prefix, which is where a's suffix starts.
    return a.first === 'letter' && a.minLength > a.prefix.length
  }
  return true
}
