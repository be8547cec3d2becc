/** JSON Pointer (RFC 6901) helpers. */

export function escapeToken(token: string | number): string {
  if (typeof token === 'number') return String(token)
  return token.includes('~') || token.includes('/') ? token.replace(/~/g, '~0').replace(/\//g, '~1') : token
}

export function unescapeToken(token: string): string {
  if (!token.includes('~')) return token
  return token.replace(/~1/g, '/').replace(/~0/g, '~')
}

export function joinPointer(base: string, ...tokens: Array<string | number>): string {
  // A loop, not map + join: pointers are made for every backlink and member found (bench/).
  let out = base
  for (let i = 0; i < tokens.length; i++) out += '/' + escapeToken(tokens[i]!)
  return out
}

/** Splits a pointer into unescaped tokens. `''` is the whole document. */
export function splitPointer(pointer: string): string[] {
  if (pointer === '') return []
  return pointer.slice(1).split('/').map(unescapeToken)
}
