import { isBaseToken, literal, type TokenType } from '../../runtime/nats/tokens.js'
import type { TemplateToken } from '../../runtime/nats/subjects.js'

/** A subject template split into tokens, or the reason it is not one. */
export type ParsedTemplate = { tokens: TemplateToken[] } | { problem: string; code: 'NATS_ADDRESS_TOKEN' | 'NATS_RESERVED_SUBJECT' | 'NATS_FILTER_SYNTAX' }

/** The name of a whole-token `{placeholder}`, or undefined (no regular expression: every token of every address and filter passes here, bench/). */
function placeholderName(part: string): string | undefined {
  const n = part.length
  if (n < 3 || part.charCodeAt(0) !== 123 /* { */ || part.charCodeAt(n - 1) !== 125 /* } */) return undefined
  const name = part.slice(1, -1)
  return name.includes('{') || name.includes('}') ? undefined : name
}

/** A channel address: literal base-ASCII tokens and whole-token `{placeholders}`; no wildcards, no empty tokens. */
export function parseAddress(address: string): ParsedTemplate {
  const parts = address.split('.')
  if (parts[0]!.startsWith('$') || parts[0] === '_INBOX') {
    return {
      code: 'NATS_RESERVED_SUBJECT',
      problem: `${JSON.stringify(address)} is a reserved or system subject ($-prefixed or _INBOX), which profile v0.2 does not support`,
    }
  }
  const tokens: TemplateToken[] = []
  for (const part of parts) {
    const placeholder = placeholderName(part)
    if (placeholder !== undefined) tokens.push({ param: placeholder })
    else if (part === '') return { code: 'NATS_ADDRESS_TOKEN', problem: `${JSON.stringify(address)} has an empty token` }
    else if (part === '*' || part === '>')
      return { code: 'NATS_ADDRESS_TOKEN', problem: `${JSON.stringify(address)} has a wildcard; addresses are concrete subject templates` }
    else if (part.includes('{') || part.includes('}'))
      return { code: 'NATS_ADDRESS_TOKEN', problem: `${JSON.stringify(part)} mixes a placeholder with literal text; a placeholder is a whole token` }
    else if (!isBaseToken(part)) return { code: 'NATS_ADDRESS_TOKEN', problem: `${JSON.stringify(part)} is not a token of [A-Za-z0-9_-]` }
    else tokens.push(part)
  }
  return { tokens }
}

/** A filter: literals, placeholders, `*`, and `>` only as the last token. */
export function parseFilter(filter: string): ParsedTemplate {
  const parts = filter.split('.')
  const tokens: TemplateToken[] = []
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!
    const placeholder = placeholderName(part)
    if (placeholder !== undefined) tokens.push({ param: placeholder })
    else if (part === '*') tokens.push('*')
    else if (part === '>') {
      if (i !== parts.length - 1) return { code: 'NATS_FILTER_SYNTAX', problem: `${JSON.stringify(filter)} has ">" before its last token` }
      tokens.push('>')
    } else if (!isBaseToken(part))
      return { code: 'NATS_FILTER_SYNTAX', problem: `${JSON.stringify(part)} is not a literal token, a placeholder, "*" or a final ">"` }
    else tokens.push(part)
  }
  return { tokens }
}

export const placeholders = (tokens: readonly TemplateToken[]) => tokens.filter((t): t is { param: string } => typeof t !== 'string').map((t) => t.param)

/** Each position of a template as a language: a literal is a language of one token. */
export function positions(tokens: readonly TemplateToken[], types: Readonly<Record<string, TokenType>>): Array<TokenType | '*' | '>'> {
  return tokens.map((t) => (t === '*' || t === '>' ? t : typeof t === 'string' ? literal(t) : types[t.param]!))
}
