import { isAbsolute, relative, sep } from 'node:path'

/** What webpack and Rspack keep of an error a loader threw: the thrown error, under `error`. */
interface ModuleBuildError {
  name?: string
  error?: { message?: unknown }
}

/**
 * webpack and Rspack head a failed module's error with the module's name, which for a contract is
 * the virtual path unplugin gives its module (`./_virtual_%2F...payments.spec.json.contract.js`,
 * `./node_modules/.virtual/%2F...`), and put the loader's path before the message ("Module build
 * failed (from .../unplugin/dist/webpack/loaders/load.mjs)"). The errors a contract failed with are
 * recorded here, and each module build error that carries one is replaced by the contract's own:
 * headed by the contract's path (relative to the project, as the bundler names modules), the
 * plugin's message alone, no stack.
 */
export class FailedContracts {
  /** The message of each error a contract's module failed with -> the contract's path. */
  readonly #files = new Map<string, string>()

  record(error: Error, file: string): void {
    this.#files.set(error.message, file)
  }

  /** A new compilation compiles again: what failed before is forgotten (a failed module is always built again). */
  clear(): void {
    this.#files.clear()
  }

  /**
   * `errors` with each recorded contract's module build error replaced by `make(message, name)`:
   * `name` is the contract's path from `context` (`./payments.spec.json`), or its absolute path
   * when it lies outside.
   */
  replace<E>(errors: readonly E[], context: string, make: (message: string, name: string) => E): E[] {
    return errors.map((error) => {
      const thrown = (error as ModuleBuildError | undefined)?.error?.message
      const file = typeof thrown === 'string' && (error as ModuleBuildError).name === 'ModuleBuildError' ? this.#files.get(thrown) : undefined
      return file === undefined ? error : make(thrown as string, displayName(file, context))
    })
  }
}

function displayName(file: string, context: string): string {
  const path = relative(context, file)
  return path.startsWith('..') || isAbsolute(path) ? file : `./${path.split(sep).join('/')}`
}
