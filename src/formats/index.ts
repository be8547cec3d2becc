/**
 * The built-in formats, in the order they are tried. Core knows none of them: the plugin, the CLI
 * and the package root hand this list to a `ContractCompiler` (docs/architecture.md).
 */
import type { ContractFormat } from '../core/format.js'
import { benzeneFormat } from './benzene/index.js'
import { daspFormat } from './dasp/index.js'
import { natsFormat } from './nats/index.js'

export const formats: readonly ContractFormat<any, any, any, any>[] = [benzeneFormat, natsFormat, daspFormat]
