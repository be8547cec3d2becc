// `npm run demo:nats`: start nats-server with JetStream on a free loopback port and a temporary
// store, run the publisher (it provisions the stream and consumer, then places orders), then the
// fulfilment service (a durable consumer: it gets the orders placed before it started), then stop.
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const server = ['nats-server', '/usr/sbin/nats-server'].find((bin) => {
  try {
    execFileSync(bin, ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})
if (!server) {
  console.error('nats-server is not installed (Debian: apt-get install nats-server)')
  process.exit(1)
}
const port = await new Promise((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address()
    s.close(() => resolve(port))
  })
})
const store = mkdtempSync(join(tmpdir(), 'nats-demo-'))
const nats = spawn(server, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', store], { stdio: 'ignore' })
// Bounded wait for the port.
for (let i = 0; i < 200; i++) {
  const up = await new Promise((resolve) =>
    connect(port, '127.0.0.1')
      .once('connect', function () {
        this.destroy()
        resolve(true)
      })
      .once('error', () => resolve(false)),
  )
  if (up) break
  await new Promise((r) => setTimeout(r, 50))
}
console.log(`nats-server ${execFileSync(server, ['--version'], { encoding: 'utf8' }).trim()} on 127.0.0.1:${port}\n`)
const env = { ...process.env, NATS_URL: `nats://127.0.0.1:${port}`, NATS_ALLOW_OLDER_SERVER: '1', EXPECTED: '2' }
const run = async (name) => {
  const child = spawn(process.execPath, [fileURLToPath(new URL(`./dist/${name}.js`, import.meta.url))], { stdio: 'inherit', env })
  const [code] = await once(child, 'exit')
  if (code !== 0) throw new Error(`${name} exited with ${code}`)
}
try {
  await run('publisher')
  console.log('')
  await run('fulfilment')
} catch (error) {
  console.error(error.message)
  process.exitCode = 1
} finally {
  nats.kill('SIGTERM')
  await once(nats, 'exit')
  rmSync(store, { recursive: true, force: true })
}
