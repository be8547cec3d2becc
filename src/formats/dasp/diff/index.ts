/** PLACEHOLDER: the dasp differ (its rules and `diff`) replaces this file. */
import type { FormatDiffer } from '../../../core/diff/types.js'
import type { DaspModel } from '../model.js'

export const daspDiffer: FormatDiffer<DaspModel> = {
  format: 'dasp',
  rules: [],
  diff: () => [],
}
