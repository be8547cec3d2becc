// `npm run demo`: start the payments service, run the built client against it, stop the service.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { startPaymentsService } from '../payments-service/server.mjs'

const service = await startPaymentsService()
console.log(`payments service listening on ${service.url}\n`)
try {
  const client = spawn(process.execPath, [fileURLToPath(new URL('./dist/main.js', import.meta.url))], {
    stdio: 'inherit',
    env: { ...process.env, PAYMENTS_URL: service.url },
  })
  const [code] = await once(client, 'exit')
  process.exitCode = code ?? 1
} finally {
  await service.close()
}
