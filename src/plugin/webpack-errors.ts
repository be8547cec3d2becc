import { isAbsolute, relative, sep } from 'node:path'
import { terminalLine } from '../core/terminal-text.js'

/**
 * What webpack and Rspack keep of an error a loader threw (under `error`) or a warning it emitted
 * (webpack: under `warning`; Rspack: only as `details`, `Error: <text>` and the stack).
 */
interface ModuleProblem {
  name?: string
  error?: { message?: unknown }
  warning?: { message?: unknown }
  details?: unknown
}

const WRAPPERS = new Set(['ModuleBuildError', 'ModuleWarning'])
/** How many texts are kept (a few per contract with problems). */
const KEPT = 1000

/**
 * webpack and Rspack head a failed module's error with the module's name, which for a contract is
 * the virtual path unplugin gives its module (`./_virtual_%2F...payments.spec.json.contract.js`,
 * `./node_modules/.virtual/%2F...`), and put the loader's path before the message ("Module build
 * failed (from .../unplugin/dist/webpack/loaders/load.mjs)"; a warning also gets unplugin's stack,
 * a second copy of its text). The errors a contract failed with and the warnings it gave are
 * recorded here, and each module error or warning that carries one is replaced by the contract's
 * own: headed by the contract's path (relative to the project, as the bundler names modules), the
 * plugin's message alone, no stack.
 */
export class ContractProblems {
  /** The text of each error or warning a contract's module gave -> the contract's path. */
  readonly #files = new Map<string, string>()

  /**
   * Kept across compilations: in watch mode an unchanged module keeps its warnings without being
   * loaded again. An entry left from an older text is harmless (the text names its file); the
   * oldest go past a bound, so a long watch session does not grow this without end.
   */
  record(message: string, file: string): void {
    this.#files.delete(message)
    this.#files.set(message, file)
    if (this.#files.size > KEPT) this.#files.delete(this.#files.keys().next().value!)
  }

  /**
   * `problems` (errors or warnings) with each recorded one replaced by `make(message, name)`:
   * `name` is the contract's path from `context` (`./payments.spec.json`), or its absolute path
   * when it lies outside.
   */
  replace<E>(problems: readonly E[], context: string, make: (message: string, name: string) => E): E[] {
    return problems.map((problem) => {
      const wrapper = problem as ModuleProblem | undefined
      const text = WRAPPERS.has(wrapper?.name ?? '') ? this.#textOf(wrapper!) : undefined
      const file = text === undefined ? undefined : this.#files.get(text)
      return file === undefined ? problem : make(text!, displayName(file, context))
    })
  }

  #textOf(problem: ModuleProblem): string | undefined {
    const thrown = (problem.error ?? problem.warning)?.message
    if (typeof thrown === 'string') return thrown
    const { details } = problem
    if (typeof details !== 'string') return undefined
    for (const text of this.#files.keys()) if (details === `Error: ${text}` || details.startsWith(`Error: ${text}\n`)) return text
    return undefined
  }
}

/** The name heading a contract's problem, as one terminal line: Rspack prints it as it is (`ERROR in <name>`). */
function displayName(file: string, context: string): string {
  const path = relative(context, file)
  return terminalLine(path.startsWith('..') || isAbsolute(path) ? file : `./${path.split(sep).join('/')}`)
}
