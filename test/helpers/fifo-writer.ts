/**
 * A writer waiting on a FIFO, to tell whether the code under test opened it: `sh -c 'printf x >
 * fifo'` blocks in `open` until some process opens the FIFO for reading, even without blocking and
 * even for an instant, then writes and exits. So the writer still waiting after the code ran means
 * the code never opened the FIFO. (Polling for a reader instead misses an open shorter than the
 * poll, and catches one only on a slow machine.)
 */
import { spawn } from 'node:child_process'

export interface WaitingWriter {
  /** Whether the writer got a reader within `ms` (then it has exited); the wait is bounded. */
  released(ms?: number): Promise<boolean>
  /** Ends the writer if it is still waiting. */
  stop(): void
}

export function waitingWriter(fifo: string): WaitingWriter {
  const child = spawn('sh', ['-c', 'printf x > "$1"', 'sh', fifo], { stdio: 'ignore' })
  const exited = new Promise<true>((resolve) => child.on('exit', () => resolve(true)))
  return {
    released: (ms = 300) => Promise.race([exited, new Promise<false>((resolve) => setTimeout(() => resolve(false), ms))]),
    stop: () => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')),
  }
}
