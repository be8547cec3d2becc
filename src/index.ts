/** Programmatic API: compile a contract file to a module, its types and diagnostics. */
export { compile, inspect, ContractCompiler, type CompileOptions, type CompileResult, type InspectResult } from './core/compile.js'
export type { Diagnostic, Severity } from './core/diagnostics.js'
export { formatDiagnostic } from './core/report.js'
export type { BenzeneOptions } from './formats/benzene/options.js'
export type { PluginOptions } from './plugin/options.js'
