import { ruleFor, type Report, type Rule } from '../../../core/rule.js'
import type { DaspContext } from '../context.js'
import type { LoadedJson } from '../load.js'

/** A DASP rule: it reads the selection and its definitions (context.ts), and reports in either file. */
export type DaspRule<Code extends string = string> = Rule<DaspContext, Code, LoadedJson>

/** How a DASP rule reports: `report(pointer, ...)` in the selection, `report.in(file, pointer, ...)` in a definition (or a pinned file) it read. */
export type DaspReport = Report<LoadedJson>

/** A DASP rule: `daspRule({ code, description, check(ctx, report) })` (core/rule.ts). */
export const daspRule = ruleFor<DaspContext, LoadedJson>()
