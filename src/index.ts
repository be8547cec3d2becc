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
import type { TopologyResult } from './formats/nats/topology/index.js'
import type { Topology, ViewOptions } from './formats/nats/topology/index.js'
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
export type { ContractFormat, FormatOptions, HashSelector, Inspection, LazyFormat, RegisteredFormat } from './core/format.js'
export { lazyFormat } from './core/format.js'
export type { Diagnostic, Severity } from './core/diagnostics.js'
export type { DiagnosticCode } from './core/codes.js'
export { formatDiagnostic } from './core/report.js'
// Each built-in format as registered (its code is loaded on the first file it claims), for
// `ContractCompiler.model(file, format)`: its model typed by the format.
export { formats, benzeneFormat, natsFormat, daspFormat } from './formats/index.js'
export type { BenzeneModel } from './formats/benzene/model.js'
export type { NatsModel } from './formats/nats/model.js'
export type { DaspModel } from './formats/dasp/model.js'
export type { BenzeneOptions } from './formats/benzene/options.js'
export type { PluginOptions } from './plugin/options.js'
// The pictures drawn synchronously and the parser are small modules of their own; the projection
// (which compiles NATS documents) and the SVG layout are loaded when first called.
export { toDot } from './formats/nats/topology/dot.js'
export { toMermaid } from './formats/nats/topology/mermaid.js'
export { globalSubjectParser } from './formats/nats/topology/parser.js'

/**
 * The topology of NATS bundles or documents (`inputs`), compiled by `compiler` (default: a new
 * compiler of the built-in formats, so that a document of another format is named as such).
 */
export async function topology(inputs: string | readonly string[], compiler: CoreCompiler = new ContractCompiler()): Promise<TopologyResult> {
  return (await import('./formats/nats/topology/projection.js')).topology(inputs, compiler)
}

/** The topology as an SVG picture (laid out by ELK, or by the built-in layered layout past its budget). */
export async function toSvg(topology: Topology, options: ViewOptions = {}): Promise<string> {
  return (await import('./formats/nats/topology/svg.js')).toSvg(topology, options)
}

/** The topology as a self-contained HTML page around its SVG picture. */
export async function toHtml(topology: Topology, options: ViewOptions = {}): Promise<string> {
  return (await import('./formats/nats/topology/svg.js')).toHtml(topology, options)
}
export type { ChannelIdentity, GlobalSubjectParser, Topology, TopologyEdge, TopologyNode, TopologyResult, ViewOptions } from './formats/nats/topology/index.js'
