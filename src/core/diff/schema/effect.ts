/**
 * Effects and the polarity of a position: how a change to a subschema moves the set of values the
 * whole schema accepts. Keywords of one schema object are a conjunction, `anyOf`, `allOf`,
 * `properties`, `items` and `$ref` are monotone (a narrower member makes a narrower whole), `not`
 * reverses, and an overlapping `oneOf` or an `if` is neither: there a change's direction is unknown.
 */
import type { SchemaEffect } from '../schema-diff-types.js'

/** `pos`: the whole moves as the part does; `neg`: the opposite way; `mixed`: no direction can be proven. */
export type Polarity = 'pos' | 'neg' | 'mixed'

/** The effect of two changes made together (a conjunction of monotone steps keeps a shared direction). */
export function joinEffects(a: SchemaEffect, b: SchemaEffect): SchemaEffect {
  if (a === b || b === 'none') return a
  if (a === 'none') return b
  if (a === 'unknown' || b === 'unknown') return 'unknown'
  return 'both'
}

/** A local effect seen from the whole schema, through the positions between them. */
export function throughPolarity(effect: SchemaEffect, polarity: Polarity): SchemaEffect {
  if (effect === 'none' || polarity === 'pos') return effect
  if (polarity === 'mixed') return 'unknown'
  if (effect === 'widens') return 'narrows'
  if (effect === 'narrows') return 'widens'
  return effect
}

export function composePolarity(outer: Polarity, inner: Polarity): Polarity {
  if (outer === 'mixed' || inner === 'mixed') return 'mixed'
  return outer === inner ? 'pos' : 'neg'
}

/** How a change reads in a sentence, after the facts it describes. */
export function effectPhrase(effect: SchemaEffect): string {
  switch (effect) {
    case 'widens':
      return 'the new schema accepts values the old one refused'
    case 'narrows':
      return 'the new schema refuses values the old one accepted'
    case 'both':
      return 'each schema accepts values the other refuses'
    case 'none':
      return 'the accepted values are the same'
    case 'unknown':
      return 'whether the accepted values changed cannot be proven, and an unknown schema implication is not assumed safe'
  }
}
