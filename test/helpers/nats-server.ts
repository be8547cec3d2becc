/**
 * A real `nats-server` with JetStream for the client tests, on a free loopback port with a
 * temporary store (the way nats.js's own tests start one). `.ci/run` installs Debian's package
 * when it is missing; where it cannot be found the tests that need it say so loudly and skip.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, connect as tcpConnect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const NATS_SERVER = (() => {
  for (const candidate of ['nats-server', '/usr/sbin/nats-server', '/usr/bin/nats-server']) {
    try {
      execFileSync(candidate, ['--version'], { stdio: 'ignore' })
      return candidate
    } catch {
      // not this one
    }
  }
  return undefined
})()

if (!NATS_SERVER) console.warn('\n*** nats-server is not installed: the NATS client tests are SKIPPED (apt-get install nats-server; .ci/run does) ***\n')

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** Resolves once the port accepts connections; at most `attempts` tries 50 ms apart. */
async function listening(port: number, attempts = 200): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = tcpConnect(port, '127.0.0.1')
      socket.once('connect', () => {
        socket.destroy()
        resolve(true)
      })
      socket.once('error', () => resolve(false))
    })
    if (ok) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`nats-server did not listen on 127.0.0.1:${port}`)
}

export interface NatsServer {
  readonly url: string
  readonly port: number
  /** `ws://127.0.0.1:<port>` when started with `{ websocket: true }` (no TLS: loopback only). */
  readonly wsUrl?: string
  readonly version: string
  /**
   * Stops the process and starts it again on the same port and store (JetStream state survives);
   * `whileStopped` runs (and is awaited) while no server listens.
   */
  restart(whileStopped?: () => Promise<void>): Promise<void>
  stop(): Promise<void>
}

export async function startNatsServer(options: { websocket?: boolean } = {}): Promise<NatsServer> {
  if (!NATS_SERVER) throw new Error('nats-server is not installed')
  const port = await freePort()
  const store = mkdtempSync(join(tmpdir(), 'nats-store-'))
  const wsPort = options.websocket ? await freePort() : undefined
  // The WebSocket listener is configured in a file (there is no flag for it).
  const config = join(store, 'server.conf')
  if (wsPort !== undefined) writeFileSync(config, `websocket {\n  listen: "127.0.0.1:${wsPort}"\n  no_tls: true\n}\n`)
  const version = execFileSync(NATS_SERVER, ['--version'], { encoding: 'utf8' })
    .trim()
    .replace(/^nats-server: v?/, '')
  let child: ChildProcess | undefined
  const start = async () => {
    const args = ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', join(store, 'js'), ...(wsPort !== undefined ? ['-c', config] : [])]
    child = spawn(NATS_SERVER!, args, { stdio: 'ignore' })
    await listening(port)
    if (wsPort !== undefined) await listening(wsPort)
  }
  const stopProcess = async () => {
    const running = child
    child = undefined
    if (!running || running.exitCode !== null) return
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve())
      running.kill('SIGTERM')
    })
  }
  await start()
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    ...(wsPort !== undefined ? { wsUrl: `ws://127.0.0.1:${wsPort}` } : {}),
    version,
    restart: async (whileStopped?: () => Promise<void>) => {
      await stopProcess()
      try {
        await whileStopped?.()
      } finally {
        await start()
      }
    },
    stop: async () => {
      await stopProcess()
      rmSync(store, { recursive: true, force: true })
    },
  }
}
