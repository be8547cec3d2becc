/**
 * `tsc -p <project>` of TypeScript 6 run inside the test's process: what the `tsc` binary does for a
 * project (the same compiler package, options parsed from the same tsconfig, the same diagnostics in
 * the same order and form, the same exit status), except that the parsed default library and
 * `@types` files are kept for the next program. A small program spent about 2 of its CPU seconds
 * starting Node, loading TypeScript and parsing those files again; a test file that type-checks
 * several programs (or a worker that runs several such files) now parses them once.
 * `test/tsc-in-process.test.ts` pins the result to the binary's on passing and failing programs.
 *
 * It follows `executeCommandLineWorker` and `performCompilation` of TypeScript's `tsc` (6.0.3, which
 * package.json pins), through functions the package exports but does not declare.
 */
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'

const ts = createRequire(import.meta.url)('typescript') as any

/** Files that cannot change during a run: TypeScript's own lib and the installed type packages. */
const SHAREABLE = /[\\/]node_modules[\\/](?:typescript[\\/]lib|@types|undici-types)[\\/]/
const parsed = new Map<string, unknown>()

export function tscInProcess(args: readonly string[], cwd: string): { status: number; output: string } {
  let output = ''
  let exited: number | undefined
  // tsc's own system, seen from `cwd` (diagnostics name files relative to it), writing to `output`.
  const system = {
    ...ts.sys,
    getCurrentDirectory: () => cwd,
    write: (text: string) => void (output += text),
    writeOutputIsTTY: () => false,
    exit: (code: number) => void (exited ??= code),
  }
  const report = ts.createDiagnosticReporter(system, false)
  const commandLine = ts.parseCommandLine(args)
  const options = commandLine.options
  if (commandLine.errors.length || !options.project || commandLine.fileNames.length || options.pretty || options.watch || options.build)
    throw new Error(`tscInProcess runs \`tsc -p <project>\` only, not \`tsc ${args.join(' ')}\``)
  const project = resolve(cwd, options.project)
  const configFile = ts.sys.directoryExists(project) ? join(project, 'tsconfig.json') : project
  const config = ts.parseConfigFileWithSystem(
    configFile,
    ts.convertToOptionsWithAbsolutePaths(options, (f: string) => ts.getNormalizedAbsolutePath(f, cwd)),
    new Map(),
    commandLine.watchOptions,
    system,
    report,
  )
  if (!config) return { status: exited ?? 1, output }
  if (ts.isIncrementalCompilation(config.options) || config.options.pretty) throw new Error('tscInProcess: an incremental or pretty project is not supported')

  const host = ts.createCompilerHostWorker(config.options, undefined, system)
  host.jsDocParsingMode = ts.JSDocParsingMode.ParseForTypeErrors
  shareLibParses(host, config.options.moduleDetection)
  const getCanonicalFileName = ts.createGetCanonicalFileName(host.useCaseSensitiveFileNames())
  ts.changeCompilerHostLikeToUseCache(host, (f: string) => ts.toPath(f, host.getCurrentDirectory(), getCanonicalFileName))
  const program = ts.createProgram({
    rootNames: config.fileNames,
    options: config.options,
    projectReferences: config.projectReferences,
    host,
    configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(config),
  })
  const status = ts.emitFilesAndReportErrorsAndGetExitStatus(program, report, (s: string) => system.write(s + system.newLine), undefined)
  return { status, output }
}

/**
 * A compiler host for `ts.createProgram(files, options, host)` that keeps TypeScript's own lib and
 * the installed type packages parsed for the next program, as `tscInProcess` does: a test that
 * type-checks many small programs (a declaration file and the import that uses it) parsed
 * lib.es2022's files again for each, about half a CPU second a program.
 */
export function sharedLibHost(options: Record<string, unknown>): unknown {
  const host = ts.createCompilerHost(options)
  shareLibParses(host, options.moduleDetection)
  return host
}

/** Has `host` answer TypeScript's lib and the type packages (SHAREABLE) from `parsed`, parsing each once. */
function shareLibParses(host: any, moduleDetection: unknown): void {
  const read = host.getSourceFile
  host.getSourceFile = (fileName: string, languageVersionOrOptions: unknown, onError: unknown, shouldCreateNew: boolean) => {
    if (!SHAREABLE.test(fileName)) return read(fileName, languageVersionOrOptions, onError, shouldCreateNew)
    const key = `${fileName}\0${JSON.stringify(languageVersionOrOptions)}\0${moduleDetection}`
    if (!parsed.has(key)) parsed.set(key, read(fileName, languageVersionOrOptions, onError, shouldCreateNew))
    return parsed.get(key)
  }
}
