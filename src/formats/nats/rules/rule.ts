import { ruleFor, type Report, type Rule } from '../../../core/rule.js'
import type { NatsContext } from '../context.js'
import type { LoadedFile } from '../load.js'

/** A NATS profile rule: it reads the facts the context derived once, and may report in a locked file of the bundle too. */
export type NatsRule<Code extends string = string> = Rule<NatsContext, Code, LoadedFile>

/** How a NATS rule reports: `report(pointer, ...)` in the compiled document, `report.in(file, pointer, ...)` in another file it read. */
export type NatsReport = Report<LoadedFile>

/** A NATS rule: `natsRule({ code, severity?, description, check(ctx, report) })` (core/rule.ts). */
export const natsRule = ruleFor<NatsContext, LoadedFile>()
