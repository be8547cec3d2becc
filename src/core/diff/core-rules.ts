/**
 * The rules core itself reports, whatever the format: a whole contract added or removed between two
 * versions (`contracts diff --against`, where a file may exist in one version only). Every format's
 * differ reports what changed inside a contract; these say the contract itself came or went.
 */
import type { DiffRule } from './types.js'

/** The audience kind of a finding that breaks every party of the contract, whatever the format names them. */
export const EVERYONE = 'everyone'

export const CORE_DIFF_RULES: readonly DiffRule[] = [
  {
    id: 'contract-added',
    levels: ['info'],
    audiences: [],
    summary: 'A contract file exists in the new version and not in the old: nobody used it before, so nobody breaks.',
    example: { old: '(no orders/asyncapi.yaml)', new: 'orders/asyncapi.yaml' },
    mirror: { rule: 'contract-removed' },
  },
  {
    id: 'contract-removed',
    levels: ['breaking'],
    audiences: [EVERYONE],
    summary: 'A contract file exists in the old version and not in the new: every party that used it breaks.',
    example: { old: 'orders/asyncapi.yaml', new: '(no orders/asyncapi.yaml)' },
    mirror: { rule: 'contract-added' },
  },
]
