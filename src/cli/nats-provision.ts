/**
 * `contracts nats provision <documents...> --server <url>`: the contract's JetStream streams and
 * consumers against a running server (runtime/nats/client/provision.ts). The plan is printed first,
 * then what was done; exit status 1 when the server still differs from a contract. Server URL and
 * credentials are inputs (flags or NATS_URL / NATS_CREDS), never read from a contract.
 */
import { readFile } from 'node:fs/promises'
import type { ContractModule } from '../runtime/nats/client/index.js'
import type { NativeDescriptor } from '../runtime/nats/index.js'
import type { PlannedResource } from '../runtime/nats/client/provision.js'

export interface ProvisionFlags {
  server?: string
  creds?: string
  'dry-run'?: boolean
  update?: boolean
  'allow-older-server'?: boolean
  json?: boolean
}

type Output = { out: (text: string) => void; err: (text: string) => void }
type Inspect = (file: string) => Promise<{ data?: unknown; failed: boolean }>

/** The parts of an inspected NATS model provisioning reads, as a module would give them. */
export function moduleOfModel(data: Record<string, unknown>): ContractModule {
  const keyed = (list: unknown) => Object.fromEntries((Array.isArray(list) ? list : []).map((r: NativeDescriptor) => [r.key, r]))
  const contract = data.contract as { id: string; version: string }
  return {
    contract: { ...contract, deployment: data.deployment as { minimumServerVersion: string } },
    channels: {},
    operations: {},
    streams: keyed(data.streams),
    consumers: keyed(data.consumers),
  }
}

const describe = (p: PlannedResource) =>
  `${p.kind} ${p.name} (${p.authority}): ${p.action}${p.differences.map((d) => `\n    ${d.field}: contract ${JSON.stringify(d.contract)}, server ${JSON.stringify(d.server)}`).join('')}`

export async function provisionCommand(files: readonly string[], flags: ProvisionFlags, inspect: Inspect, io: Output): Promise<number | string> {
  const server = flags.server ?? process.env.NATS_URL
  if (files.length === 0) return '`contracts nats provision` needs at least one document.'
  if (!server) return '`contracts nats provision` needs --server <url> (or NATS_URL).'
  const modules: ContractModule[] = []
  for (const file of files) {
    const result = await inspect(file)
    if (result.failed || !result.data || (result.data as { format?: string }).format !== 'nats') {
      if (!result.failed) io.err(`contracts: ${file} is not a NATS contract.`)
      return 1
    }
    modules.push(moduleOfModel(result.data as Record<string, unknown>))
  }
  let transport: typeof import('@nats-io/transport-node')
  let client: typeof import('../runtime/nats/client/index.js')
  try {
    transport = await import('@nats-io/transport-node')
    client = await import('../runtime/nats/client/index.js')
  } catch {
    io.err('contracts: provisioning needs the nats.js v3 packages: npm install @nats-io/transport-node @nats-io/jetstream @nats-io/nats-core')
    return 1
  }
  const credsFile = flags.creds ?? process.env.NATS_CREDS
  const nc = await transport.connect({
    servers: server,
    ...(credsFile ? { authenticator: transport.credsAuthenticator(await readFile(credsFile)) } : {}),
  })
  let inSync = true
  const report: unknown[] = []
  try {
    for (const module of modules) {
      const options = { dryRun: flags['dry-run'] === true, update: flags.update === true, allowOlderServer: flags['allow-older-server'] === true }
      // The plan first (a dry run), then, unless only planning, what was done.
      const plan = await client.provision(module, nc, { ...options, dryRun: true })
      if (!flags.json) {
        io.out(`plan for ${module.contract.id} ${module.contract.version}:`)
        for (const p of plan.plan) io.out(`  ${describe(p)}`)
      }
      const done = options.dryRun ? plan : await client.provision(module, nc, options)
      if (!options.dryRun && !flags.json) {
        io.out(`done for ${module.contract.id}:`)
        for (const p of done.plan) io.out(`  ${p.kind} ${p.name}: ${p.action === 'create' ? 'created' : p.action === 'update' ? 'updated' : p.action}`)
      }
      inSync &&= done.inSync
      report.push({
        contract: module.contract.id,
        version: module.contract.version,
        plan: plan.plan,
        done: options.dryRun ? undefined : done.plan,
        inSync: done.inSync,
      })
    }
  } catch (error) {
    if ((error as { code?: string }).code === 'SERVER_TOO_OLD') {
      io.err(`contracts: ${(error as Error).message.replace('Pass { allowOlderServer: true }', 'Pass --allow-older-server')}`)
      return 1
    }
    throw error
  } finally {
    await nc.close()
  }
  if (flags.json) io.out(JSON.stringify(report, null, 2))
  return inSync ? 0 : 1
}
