import { declareCodes } from '../../core/codes.js'
import type { BenzeneRuleCode } from './rules/index.js'

/** Benzene codes outside the rules (rules/): options, scope, names and limits of the model. */
export const BENZENE_MODEL_CODES = declareCodes({
  BENZENE_INVALID_OPTION: {
    severity: 'error',
    meaning: 'An option or query value out of its range (`validate`, `int64`, `validators`), or options that are not an object.',
  },
  BENZENE_UNKNOWN_TOPIC: { severity: 'error', meaning: 'The include-list names topics the document lacks; `data: { unknownTopics, validTopics }`.' },
  BENZENE_EXPORT_COLLISION: {
    severity: 'error',
    meaning: 'The `names` option (`--names`) gives one export name to two in-scope topics; `data: { exportName, topics }`. Derived names never collide.',
  },
  BENZENE_INVALID_EXPORT_NAME: {
    severity: 'error',
    meaning: 'An export name the `names` option (`--names`) gives is not an identifier or is taken by the module. Derived names always are.',
  },
  BENZENE_CLOSURE_TOO_LARGE: {
    severity: 'error',
    meaning: "The topics' schema closures hold more than 1,000,000 schemas together (unsupported: each topic-scoped hash covers its closure).",
  },
})

export type BenzeneModelCode = keyof typeof BENZENE_MODEL_CODES

/** Every code Benzene reports: its rules' (rules/index.ts) and the model's. */
export type BenzeneCode = BenzeneRuleCode | BenzeneModelCode

declare module '../../core/codes.js' {
  interface DeclaredCodes {
    benzene: BenzeneCode
  }
}
