/** PLACEHOLDER: the benzene differ (its rules and `diff`) replaces this file. */
import type { FormatDiffer } from '../../../core/diff/types.js'
import type { BenzeneModel } from '../model.js'

export const benzeneDiffer: FormatDiffer<BenzeneModel> = {
  format: 'benzene',
  rules: [],
  diff: () => [],
}
