// `npm run demo:dasp`: start the DASP host, run the built client against it, stop the host.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { startHost } from './host.mjs'

const host = await startHost()
console.log(`DASP host listening on ${host.url}\n`)
try {
  const client = spawn(process.execPath, [fileURLToPath(new URL('./dist/main.js', import.meta.url))], {
    stdio: 'inherit',
    env: { ...process.env, DASP_HOST: host.url },
  })
  const [code] = await once(client, 'exit')
  process.exitCode = code ?? 1
} finally {
  await host.close()
}
