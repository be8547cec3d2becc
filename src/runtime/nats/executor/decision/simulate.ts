import type { Simulate } from '../events.js'
import { DecisionCore } from './machine.js'

/** Folds a log through one decision core: the executor's own rules on a simulated clock. */
export const simulate: Simulate = (policy, events) => {
  const core = new DecisionCore(policy)
  for (const event of events) core.apply(event)
  return core.state()
}
