import { isEmptyLanguage, type TokenType } from '../../../runtime/nats/tokens.js'
import { tokenTypeProblem } from '../token-type-form.js'
import { natsRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): O(values) per token type (enum values through a set). */

export const tokenTypeForm = natsRule({
  code: 'NATS_TOKEN_TYPE',
  description: 'A token type is not exactly one of the two forms (bounds 1..128, min <= max, base-ASCII prefix; distinct valid enum values).',
  check(ctx, report) {
    for (const [name, def] of Object.entries(ctx.section('tokenTypes'))) {
      const problem = tokenTypeProblem(def)
      if (problem) report(ctx.pointer('x-nats-contract', 'tokenTypes', name), `Token type ${JSON.stringify(name)} ${problem}.`, { tokenType: name })
    }
  },
})

export const tokenTypeNonEmpty = natsRule({
  code: 'NATS_TOKEN_TYPE_EMPTY',
  description: 'A token type whose language is empty (no token satisfies its prefix, first rule and bounds).',
  check(ctx, report) {
    for (const [name, def] of Object.entries(ctx.section('tokenTypes'))) {
      if (tokenTypeProblem(def) === undefined && isEmptyLanguage(def as TokenType)) {
        report(
          ctx.pointer('x-nats-contract', 'tokenTypes', name),
          `No token belongs to ${JSON.stringify(name)}: its prefix and first-character rule need more bytes than maxLength allows.`,
          { tokenType: name },
        )
      }
    }
  },
})
