/** PLACEHOLDER: the nats differ (its rules and `diff`) replaces this file. */
import type { FormatDiffer } from '../../../core/diff/types.js'
import type { NatsModel } from '../model.js'

export const natsDiffer: FormatDiffer<NatsModel> = {
  format: 'nats',
  rules: [],
  diff: () => [],
}
