/**
 * The built-in formats, in the order they are tried. Core knows none of them: the plugin, the CLI
 * and the package root hand this list to a `ContractCompiler` (docs/architecture.md).
 */
import type { ContractFormat } from '../core/format.js'
import { benzeneFormat } from './benzene/index.js'
import { daspFormat } from './dasp/index.js'
import { natsFormat } from './nats/index.js'

export const formats: readonly ContractFormat<any, any, any, any>[] = [benzeneFormat, natsFormat, daspFormat]

// Each format's codes, which its `codes.ts` adds to core's `DeclaredCodes`: named here so that the
// declarations of the package root (which exports `formats`) load them, and `Diagnostic.code` is
// the union of every format's codes for an application type-checking against the package too.
export type { BenzeneCode } from './benzene/codes.js'
export type { DaspCode } from './dasp/codes.js'
export type { NatsCode } from './nats/codes.js'
