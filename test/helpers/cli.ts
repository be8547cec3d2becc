import { spawnSync } from 'node:child_process'
import { join } from 'node:path'

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

export function tsc(args: string[], cwd: string, compiler = TSC) {
  const r = spawnSync(process.execPath, [compiler, ...args], { cwd, encoding: 'utf8' })
  return { status: r.status, output: r.stdout + r.stderr }
}
