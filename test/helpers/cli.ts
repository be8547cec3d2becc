import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { tscInProcess } from './tsc-in-process.js'

const root = join(import.meta.dirname, '../..')
/** The `contracts` command as the package's `bin` runs it: one bundled module (scripts/bundle-cli.mjs). */
export const CLI = join(root, 'dist/cli.js')
export const TSC = join(root, 'node_modules/typescript/bin/tsc')
/** TypeScript 7 (the native compiler), installed as `typescript7` beside TypeScript 6: sidecars must satisfy both. */
export const TSC7 = join(root, 'node_modules/typescript7/bin/tsc')

/** Runs the built `contracts` binary in a child process, as a user would. */
export function contracts(args: string[], cwd = root, env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

/**
 * The same command in this process: the CLI's `run` with `cwd` as the working folder and `env` as
 * the environment, its output collected as the binary writes it (each line ending in a newline).
 * Loading the compiler once per file instead of once per call is what makes it cheap. It changes
 * the process's working folder and environment while it runs, so only a file with a process of its
 * own (the `isolated` vitest project) may use it, and only one call at a time (await each).
 * What is about the process itself (exit status as a shell sees it, real pipes, signals) stays with
 * `contracts()`.
 */
export async function contractsInProcess(args: string[], cwd = root, env?: NodeJS.ProcessEnv): Promise<{ status: number; stdout: string; stderr: string }> {
  const { run } = await import('../../src/cli/index.js')
  const previous = { cwd: process.cwd(), env: process.env }
  let stdout = ''
  let stderr = ''
  process.chdir(cwd)
  if (env) process.env = env
  try {
    const status = await run(args, { out: (text) => (stdout += text + '\n'), err: (text) => (stderr += text + '\n') })
    return { status, stdout, stderr }
  } finally {
    process.env = previous.env
    process.chdir(previous.cwd)
  }
}

/**
 * `tsc <args>` in `cwd`, with `--skipDefaultLibCheck`: TypeScript's own `lib.*.d.ts` are the same in
 * every program and never what a test checks, and checking them was most of a small program's cost
 * (about 3 of 5 CPU seconds). Everything else is still checked: the generated declarations, the
 * package's, `@types/*` and the app (`skipLibCheck` stays off). TypeScript 6 runs in this process
 * (tsc-in-process.ts, the same compiler and output as its binary); TypeScript 7 is a native binary.
 */
export function tsc(args: string[], cwd: string, compiler = TSC) {
  return compiler === TSC ? tscInProcess(['--skipDefaultLibCheck', ...args], cwd) : tscProcess(['--skipDefaultLibCheck', ...args], cwd, compiler)
}

/** The `tsc` binary of `compiler` in a child process, exactly as a user runs it. */
export function tscProcess(args: string[], cwd: string, compiler = TSC) {
  const r = spawnSync(process.execPath, [compiler, ...args], { cwd, encoding: 'utf8' })
  return { status: r.status, output: r.stdout + r.stderr }
}
