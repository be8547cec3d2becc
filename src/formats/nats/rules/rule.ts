import type { NatsContext } from '../context.js'

/** A NATS profile rule: one check, one stable diagnostic code. */
export interface NatsRule {
  code: string
  description: string
  check(ctx: NatsContext): void
}
