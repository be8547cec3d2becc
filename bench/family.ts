/** One hostile input family for `bench/complexity.ts`: made at n and 10n, timed side by side. */
export interface Family {
  name: string
  n: number
  /** Writes the input of size `n` under `dir` and returns its path. */
  make: (n: number, dir: string) => string
  /**
   * What is timed on the input at `path`, when it is not a fresh compile of that file (a validator
   * run, a layout): set-up happens here, the returned function is the measured work.
   */
  run?: (path: string) => (() => unknown) | Promise<() => unknown>
  /** Units of inherent work at size n, when it is not n itself. */
  work?: (n: number) => number
  /** The file whose parse is the floor, when it is not the compiled one. */
  grows?: (compiled: string) => string
}
