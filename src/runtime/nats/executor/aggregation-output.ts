/**
 * The aggregation adapter's answer checked against the adapter's declared `outputSchema` before it
 * is `outcome.output` (the profile validates an adapter call's application data against its
 * schemas, and `outcome.output` is typed by that schema): JSON data first (a cycle, a getter that
 * throws or a bigint never reaches the validator), then the interaction's `validateOutput`. Never
 * throws; O(size of the answer).
 */
import { jsonDataProblem } from '../../shared/wire-json.js'
import { check, type Validator } from '../../shared/validation.js'

/** Why the answer is not an output of the contract's, or undefined when it is (or nothing says what one is). */
export function outputRefusal(validateOutput: Validator | undefined, answer: unknown): string | undefined {
  if (validateOutput === undefined) return undefined
  const problem = jsonDataProblem(answer)
  if (problem) return `the aggregation answered what is not JSON data (${problem.path || '(root)'}: ${problem.message})`
  const errors = check(validateOutput, answer)
  if (!errors) return undefined
  const first = errors[0]!
  return `the aggregation answered an output its outputSchema refuses (${first.message}${errors.length > 1 ? `; ${errors.length - 1} more` : ''})`
}

/**
 * The key an admitted result's payload is kept under for the aggregation (branch, attempt, fence):
 * a decision's votes name results by these three, and the payloads are looked up by them.
 */
export function voteKey(vote: { readonly branchId: string; readonly attempt: number; readonly fence: number }): string {
  return `${vote.branchId}/${vote.attempt}/${vote.fence}`
}
