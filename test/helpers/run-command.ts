/**
 * A command run as a user runs it from a shell, for the tests that install and build whole projects
 * (a fresh clone, apps installed from the packed tarball): asynchronous, so that the test worker
 * waits without blocking, bounded by a timeout that kills the command's whole process group, and
 * with an environment without the variables `npm test` sets for its own scripts (`npm_*`), which
 * would otherwise reach the child npm as if the user had set them.
 */
import { spawn } from 'node:child_process'

export interface CommandResult {
  readonly status: number | null
  /** stdout and stderr interleaved as written. */
  readonly output: string
  readonly stdout: string
}

/** The environment of a shell the user opened: this process's, less npm's lifecycle variables. */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) || /^npm_config_(cache|registry|userconfig)$/i.test(k)) env[k] = v
  // vitest's own: a child vitest or vite would read them as its parent's configuration.
  delete env.VITEST
  delete env.VITEST_MODE
  delete env.VITEST_POOL_ID
  delete env.VITEST_WORKER_ID
  delete env.NODE_ENV
  delete env.TEST
  return { ...env, ...extra }
}

export function runCommand(
  command: string,
  args: readonly string[],
  options: { cwd: string; timeoutMs: number; env?: NodeJS.ProcessEnv },
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? userEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    let output = ''
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      output += s
      stdout += s
    })
    child.stderr.setEncoding('utf8').on('data', (s: string) => (output += s))
    const timer = setTimeout(() => {
      output += `\n[killed after ${options.timeoutMs} ms]\n`
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // already gone
      }
    }, options.timeoutMs)
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on('close', (status) => {
      clearTimeout(timer)
      resolve({ status, output, stdout })
    })
  })
}
