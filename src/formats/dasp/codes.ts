import { declareCodes } from '../../core/codes.js'
import type { DaspRuleCode } from './rules/index.js'

/** DASP codes outside the rules (rules/): reading definitions and pins (load.ts). */
export const DASP_LOAD_CODES = declareCodes({
  DASP_DEFINITION_SOURCE: {
    severity: 'error',
    meaning: 'A definitions entry that is a URL, an absolute path, outside the selection folder, a link, not a regular file, or missing.',
  },
  DASP_PIN_MISMATCH: {
    severity: 'error',
    meaning:
      'A manifest whose bytes do not hash to the pin, one that lists no file or a digest that is not 64 hex digits, or a listed local file that does not hash to its digest or is not a regular file.',
  },
})

export type DaspLoadCode = keyof typeof DASP_LOAD_CODES

/** Every code DASP reports: reading's and its rules' (rules/index.ts). */
export type DaspCode = DaspLoadCode | DaspRuleCode

declare module '../../core/codes.js' {
  interface DeclaredCodes {
    dasp: DaspCode
  }
}
