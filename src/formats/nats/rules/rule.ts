import type { Rule } from '../../../core/rule.js'
import type { NatsContext } from '../context.js'

/** A NATS profile rule: it reads the facts the context derived once. */
export type NatsRule = Rule<NatsContext>
