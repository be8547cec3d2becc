/** Programmatic API: compile a contract file to a module, its types and diagnostics. */
import {
  ContractCompiler as CoreCompiler,
  type CompileOptions as CoreCompileOptions,
  type CompileResult,
  type CompilerOptions,
  type HashResult,
  type InspectResult,
  type ModelResult,
} from './core/compile.js'
import type { HashSelector } from './core/format.js'
import { formats } from './formats/index.js'
import { topology as natsTopology, type TopologyResult } from './formats/nats/topology/index.js'
import type { BenzeneOptions } from './formats/benzene/options.js'

/** A compile's query and each format's options under its name; `benzene` is the one built-in format with options. */
export interface CompileOptions extends CoreCompileOptions {
  benzene?: BenzeneOptions
}

/** A compiler for the built-in formats (Benzene, NATS, DASP); pass `formats` for others. */
export class ContractCompiler extends CoreCompiler {
  constructor(options: Partial<CompilerOptions> = {}) {
    super({ formats, ...options })
  }
}

export const defaultCompiler = new ContractCompiler()

/** Compiles one contract file. Never throws: problems come back as `diagnostics`. */
export function compile(file: string, options?: CompileOptions): Promise<CompileResult> {
  return defaultCompiler.compile(file, options)
}

/** Loads, checks and models a contract without generating code (`contracts inspect`). */
export function inspect(file: string, options?: CompileOptions): Promise<InspectResult> {
  return defaultCompiler.inspect(file, options)
}

/** The hash `contracts hash` prints (`usage` says why there is none). */
export function hash(file: string, selector: HashSelector = {}, options?: CompileOptions): Promise<HashResult> {
  return defaultCompiler.hash(file, selector, options)
}

export type { CompileResult, CompilerOptions, HashResult, InspectResult, ModelResult }
// Compiled results kept on disk between processes (`new ContractCompiler({ cache: new PersistentCache({ dir, root }) })`).
export { PersistentCache, defaultCacheDir, DEFAULT_CACHE_MAX_BYTES } from './core/persistent-cache.js'
export type { PersistentCacheOptions } from './core/persistent-cache.js'
export type { ContractFormat, HashSelector, Inspection } from './core/format.js'
export type { Diagnostic, Severity } from './core/diagnostics.js'
export type { DiagnosticCode } from './core/codes.js'
export { formatDiagnostic } from './core/report.js'
export { formats } from './formats/index.js'
// Each built-in format, for `ContractCompiler.model(file, format)`: its model typed by the format.
export { benzeneFormat } from './formats/benzene/index.js'
export { natsFormat } from './formats/nats/index.js'
export { daspFormat } from './formats/dasp/index.js'
export type { BenzeneModel } from './formats/benzene/model.js'
export type { NatsModel } from './formats/nats/model.js'
export type { DaspModel } from './formats/dasp/model.js'
export type { BenzeneOptions } from './formats/benzene/options.js'
export type { PluginOptions } from './plugin/options.js'
export { globalSubjectParser, toDot, toHtml, toMermaid, toSvg } from './formats/nats/topology/index.js'

/**
 * The topology of NATS bundles or documents (`inputs`), compiled by `compiler` (default: a new
 * compiler of the built-in formats, so that a document of another format is named as such).
 */
export function topology(inputs: string | readonly string[], compiler: CoreCompiler = new ContractCompiler()): Promise<TopologyResult> {
  return natsTopology(inputs, compiler)
}
export type { ChannelIdentity, GlobalSubjectParser, Topology, TopologyEdge, TopologyNode, TopologyResult, ViewOptions } from './formats/nats/topology/index.js'
