/**
 * Is every subject of one channel language a subject of another? Decided exactly over the
 * profile's finite token domains ("These finite languages permit exact intersection tests"), with
 * a witness subject when not.
 *
 * A channel's subjects are not always a product of its positions: a placeholder written twice
 * (`a.{x}.{x}`) ties those positions to one token. So a language here is a set of classes (the
 * positions one value fills: a placeholder's positions, or one literal position) each with its
 * token language. Parameter names vanish (inclusion is "after parameter renaming"), and token types
 * are compared as languages (`tokenTypeContains`), never as definitions.
 *
 * `A ⊆ B` holds exactly when, for every class K of B, every subject of A puts one token of K's
 * language on all of K's positions. The classes of A are independent, so that is checked per K:
 * K's positions lie in one class of A whose language is within K's, or in several classes of A
 * that each have one and the same token, within K's language.
 *
 * Cost: O(positions x tokenTypeContains), i.e. O(positions x maxLength x (prefix + alphabet));
 * a witness adds O(positions + lengths x positions x alphabet) only when inclusion fails.
 */
import { ALPHABETS, enumerate, inDomain, literal, type TokenType } from '../../../runtime/nats/tokens.js'
import type { TemplateToken } from '../../../runtime/nats/subjects.js'
import { tokenTypeContains } from '../containment.js'

export interface SubjectClass {
  positions: number[]
  domain: TokenType
}

export interface SubjectShape {
  length: number
  classes: SubjectClass[]
  /** The class index at each position. */
  classAt: number[]
}

/** The shape of a typed address (undefined when a placeholder has no type). */
export function shapeOf(tokens: readonly TemplateToken[], types: Readonly<Record<string, TokenType | undefined>>): SubjectShape | undefined {
  const classes: SubjectClass[] = []
  const classAt: number[] = []
  const byParam = new Map<string, number>()
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!
    if (typeof token === 'string') {
      classAt.push(classes.length)
      classes.push({ positions: [i], domain: literal(token) })
      continue
    }
    const known = byParam.get(token.param)
    if (known !== undefined) {
      classes[known]!.positions.push(i)
      classAt.push(known)
      continue
    }
    const domain = types[token.param]
    if (!domain) return undefined
    byParam.set(token.param, classes.length)
    classAt.push(classes.length)
    classes.push({ positions: [i], domain })
  }
  return { length: tokens.length, classes, classAt }
}

export type Inclusion = { included: true } | { included: false; witness: string }

/** Is the subject one of the shape's (its length, each class's token in its language and equal on all its positions)? */
export function inShape(shape: SubjectShape, subject: string): boolean {
  const tokens = subject.split('.')
  if (tokens.length !== shape.length) return false
  return shape.classes.every((c) => {
    const token = tokens[c.positions[0]!]!
    return inDomain(c.domain, token) && c.positions.every((p) => tokens[p] === token)
  })
}

/**
 * Every subject of `a` is a subject of `b`; otherwise a subject of `a` that `b` lacks. The witness
 * is checked against both shapes before it is given (empty when none could be built: the answer
 * stands, decided by the languages, not by the witness).
 */
export function subjectsIncluded(a: SubjectShape, b: SubjectShape): Inclusion {
  const answer = decide(a, b)
  if (answer.included || (inShape(a, answer.witness) && !inShape(b, answer.witness))) return answer
  return { included: false, witness: '' }
}

/**
 * `b` contains `a`: at once when the two are written alike (an unchanged parameter's type, a
 * literal kept), which is what most positions of most channels of an edit are; containment is
 * reflexive, so the answer is `tokenTypeContains`'s. Only types that differ pay for its walk over
 * their lengths and positions.
 */
function contains(b: TokenType, a: TokenType): boolean {
  return sameDefinition(a, b) || tokenTypeContains(b, a)
}

function sameDefinition(a: TokenType, b: TokenType): boolean {
  if (a === b) return true
  if (a.kind === 'enum' || b.kind === 'enum') {
    if (a.kind !== 'enum' || b.kind !== 'enum' || a.values.length !== b.values.length) return false
    for (let i = 0; i < a.values.length; i++) if (a.values[i] !== b.values[i]) return false
    return true
  }
  return a.alphabet === b.alphabet && a.first === b.first && a.minLength === b.minLength && a.maxLength === b.maxLength && a.prefix === b.prefix
}

function decide(a: SubjectShape, b: SubjectShape): Inclusion {
  if (a.length !== b.length) return { included: false, witness: render(a, new Map()) }
  for (const k of b.classes) {
    const involved = [...new Set(k.positions.map((p) => a.classAt[p]!))]
    if (involved.length === 1) {
      const own = a.classes[involved[0]!]!
      if (contains(k.domain, own.domain)) continue
      const token = tokenOutside(own.domain, k.domain)
      return { included: false, witness: render(a, token === undefined ? new Map() : new Map([[involved[0]!, token]])) }
    }
    // Several classes of `a` on positions `b` ties together: each must have one and the same token.
    const singles = involved.map((c) => enumerate(a.classes[c]!.domain, 1))
    const value = singles[0]?.[0]
    if (value !== undefined && singles.every((s) => s?.length === 1 && s[0] === value)) {
      if (inDomain(k.domain, value)) continue
      return { included: false, witness: render(a, new Map()) }
    }
    return { included: false, witness: render(a, differing(a, involved)) }
  }
  return { included: true }
}

/** Choices that put two different tokens on two of the classes (one of them has two tokens, or their single tokens differ). */
function differing(a: SubjectShape, involved: number[]): Map<number, string> {
  const [x, y] = involved as [number, number]
  const vy = sampleToken(a.classes[y]!.domain)
  const two = enumerateSome(a.classes[x]!.domain, 2)
  const vx = two.find((t) => t !== vy) ?? two[0]!
  if (vx !== vy)
    return new Map([
      [x, vx],
      [y, vy],
    ])
  const others = enumerateSome(a.classes[y]!.domain, 2)
  return new Map([
    [x, vx],
    [y, others.find((t) => t !== vx) ?? vy],
  ])
}

/** A subject of the shape: each class its chosen token, or its first. */
function render(a: SubjectShape, chosen: Map<number, string>): string {
  const values = a.classes.map((c, i) => chosen.get(i) ?? sampleToken(c.domain))
  return a.classAt.map((c) => values[c]).join('.')
}

/** The shortest token of a language, built directly (the languages are never empty once checked). */
export function sampleToken(type: TokenType): string {
  if (type.kind === 'enum') return type.values[0] ?? ''
  const chars = ALPHABETS[type.alphabet]
  const letters = [...chars].filter((c) => /[A-Za-z]/.test(c)).join('')
  const needed = type.prefix.length + (type.first === 'letter' ? 1 : 0)
  const n = Math.max(type.minLength, needed)
  let out = type.prefix
  if (out.length < n && type.first === 'letter') out += letters[0] ?? ''
  while (out.length < n) out += chars[0]
  return out
}

/** Up to `limit` tokens of a language, in the order `enumerate` walks (bounded: never more than `limit`). */
export function enumerateSome(type: TokenType, limit: number): string[] {
  if (type.kind === 'enum') return type.values.slice(0, limit)
  const out: string[] = []
  const chars = ALPHABETS[type.alphabet]
  const letters = [...chars].filter((c) => /[A-Za-z]/.test(c)).join('')
  const grow = (current: string): boolean => {
    if (current.length >= type.minLength && inDomain(type, current)) {
      out.push(current)
      if (out.length >= limit) return false
    }
    if (current.length >= type.maxLength) return true
    const next = type.first === 'letter' && current.length === type.prefix.length ? letters : chars
    for (const c of next) if (!grow(current + c)) return false
    return true
  }
  grow(type.prefix)
  return out
}

/**
 * A token of `a` that `b` lacks, or undefined when there is none. A `token` type's tokens of one
 * length are a product of per-position character sets, so one character outside `b`'s set at one
 * position is enough: the candidates are the critical lengths (bounds and prefix ends of both)
 * and, at each position up to past both prefixes, each character of `a`'s alphabet.
 */
export function tokenOutside(a: TokenType, b: TokenType): string | undefined {
  if (a.kind === 'enum') return a.values.find((v) => !inDomain(b, v))
  if (b.kind === 'enum') return enumerateSome(a, b.values.length + 1).find((v) => !inDomain(b, v))
  const lengths = new Set<number>()
  for (const n of [
    a.minLength,
    a.maxLength,
    b.minLength - 1,
    b.maxLength + 1,
    a.prefix.length,
    a.prefix.length + 1,
    b.prefix.length,
    b.prefix.length + 1,
    b.prefix.length + 2,
  ]) {
    if (n >= a.minLength && n <= a.maxLength && n > 0) lengths.add(n)
  }
  const chars = ALPHABETS[a.alphabet]
  const reach = Math.max(a.prefix.length, b.prefix.length) + 2
  for (const n of lengths) {
    const base = fill(a, n)
    if (base === undefined) continue
    if (!inDomain(b, base)) return base
    for (let i = a.prefix.length; i < Math.min(n, reach); i++) {
      for (const c of chars) {
        const candidate = base.slice(0, i) + c + base.slice(i + 1)
        if (inDomain(a, candidate) && !inDomain(b, candidate)) return candidate
      }
    }
  }
  return undefined
}

/** A token of `a` of length `n`, or undefined when `a` has none. */
function fill(a: Extract<TokenType, { kind: 'token' }>, n: number): string | undefined {
  const chars = ALPHABETS[a.alphabet]
  const letters = [...chars].filter((c) => /[A-Za-z]/.test(c))
  if (n < a.prefix.length) return undefined
  let out = a.prefix
  if (out.length < n && a.first === 'letter') {
    if (letters.length === 0) return undefined
    out += letters[0]
  }
  while (out.length < n) out += chars[0]
  return inDomain(a, out) ? out : undefined
}
