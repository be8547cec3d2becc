/**
 * `contracts nats provision <documents...> --server <url>`: the contract's JetStream streams and
 * consumers against a running server (runtime/nats/client/provision.ts). The plan is printed first,
 * then what was done. Every server answer ends as one sentence on stderr (the server's description
 * and error code), never a stack. Exit status: 0 in sync, 1 the server still differs (a difference
 * not applied, a change refused by provisioning or by the server), 2 usage, 3 no answer from the
 * server. Server URL and credentials are inputs (flags or NATS_URL / NATS_CREDS), never read from a
 * contract.
 */
import { readFile } from 'node:fs/promises'
import type { ContractModule } from '../runtime/nats/client/index.js'
import type { NativeDescriptor } from '../runtime/nats/index.js'
import type { PlannedResource, ProvisionResult } from '../runtime/nats/client/provision.js'
import { markText } from '../runtime/nats/client/provision-mark.js'
import { terminalSafe } from '../core/terminal-text.js'
import type { NatsModel } from '../formats/nats/model.js'
import { jsonText } from './json-text.js'

export interface ProvisionFlags {
  server?: string
  creds?: string
  'dry-run'?: boolean
  update?: boolean
  'allow-older-server'?: boolean
  'allow-data-loss'?: boolean
  adopt?: boolean
  json?: boolean
}

type Output = { out: (text: string) => void; err: (text: string) => void }
/** The NATS model of a document (`ContractCompiler.model`); `failed` when it has errors (already printed). */
type ModelOf = (file: string) => Promise<{ model?: NatsModel; failed: boolean }>

/** The parts of a NATS model provisioning reads, as a module would give them. */
export function moduleOfModel(model: NatsModel): ContractModule {
  const keyed = (list: readonly NativeDescriptor[]) => Object.fromEntries(list.map((r) => [r.key, r]))
  return {
    contract: { ...model.contract, deployment: model.deployment },
    channels: {},
    operations: {},
    streams: keyed(model.streams),
    consumers: keyed(model.consumers),
  }
}

/**
 * A value from a document or a server inside one line of the terminal's text: its control and
 * direction characters escaped (terminal-text.ts), and a line break or tab written as `\n`/`\t`,
 * so that no stream name, mark, server sentence or contract id can colour, move or start a line.
 */
const shown = (text: string) => terminalSafe(text).replace(/[\n\t]/g, (c) => (c === '\n' ? '\\n' : '\\t'))
const json = (value: unknown) => (value === undefined ? 'none' : shown(JSON.stringify(value) ?? String(value)))
const LABEL: Partial<Record<PlannedResource['action'], string>> = { failed: 'failed', missing: 'missing', refused: 'refused' }

/** One planned resource: its action, each differing field (with what it loses), the mark on the server and why it is refused. */
export function describePlanned(p: PlannedResource): string {
  const lines = [`${p.kind} ${shown(p.name)} (${p.authority}): ${p.action}`]
  for (const d of p.differences)
    lines.push(`    ${shown(d.field)}: contract ${json(d.contract)}, server ${json(d.server)}${d.loss ? ` - LOSES DATA: ${shown(d.loss)}` : ' - no data lost'}`)
  if (p.owner !== undefined) lines.push(`    owner: ${shown(markText(p.owner))}`)
  if (p.reason) lines.push(`    ${LABEL[p.action] ?? 'note'}: ${shown(p.reason)}`)
  return lines.join('\n')
}

const DONE: Partial<Record<PlannedResource['action'], string>> = { create: 'created', update: 'updated', adopt: "marked as this contract's" }

/** A server URL as printed: a password or a token in it is not repeated on the terminal. */
const shownUrl = (url: string) =>
  shown(url.replace(/\/\/([^@/]*)@/g, (_, credentials: string) => `//${credentials.includes(':') ? `${credentials.split(':')[0]}:***` : '***'}@`))

/**
 * The `--server` value as nats.js is to get it: the URL, and a token given as its user alone
 * (`nats://<token>@host`, as the NATS CLI reads it), which nats.js does not take from a URL itself.
 * Undefined when it is no URL (a usage error, not an unreachable server).
 */
function serverOf(server: string): { servers: string; token?: string; tls?: true } | undefined {
  let url: URL
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(server) ? server : `nats://${server}`)
  } catch {
    return undefined
  }
  // nats.js reads the host and port of any URL and ignores its scheme: `tls://` went in plain text,
  // a token in it too. TLS is asked for by the option; any scheme but these two is no NATS server URL.
  if (url.protocol !== 'nats:' && url.protocol !== 'tls:') return undefined
  const tls = url.protocol === 'tls:' ? ({ tls: true } as const) : {}
  if (url.username === '' || url.password !== '') return { servers: server, ...tls }
  const token = decodeURIComponent(url.username)
  url.username = ''
  return { servers: url.toString().replace(/\/$/, ''), token, ...tls }
}

/** Why the client stopped without a server answer, as one sentence, with its exit status (3: no answer). */
function stopped(error: unknown, url: string, contract: string): { sentence: string; status: number } {
  const { name, message, code } = error as { name?: string; message?: string; code?: unknown }
  if (code === 'SERVER_TOO_OLD') return { sentence: shown(String(message).replace('Pass { allowOlderServer: true }', 'Pass --allow-older-server')), status: 1 }
  if (name === 'JetStreamNotEnabled') return { sentence: `the server at ${url} has no JetStream for this account (${shown(String(message))}).`, status: 1 }
  return {
    sentence: `provisioning ${contract} stopped: the server at ${url} did not answer (${shown(`${name ?? 'Error'}: ${message ?? String(error)}`)}).`,
    status: 3,
  }
}

export async function provisionCommand(files: readonly string[], flags: ProvisionFlags, modelOf: ModelOf, io: Output): Promise<number | string> {
  const server = flags.server ?? process.env.NATS_URL
  if (files.length === 0) return '`contracts nats provision` needs at least one document.'
  if (!server) return '`contracts nats provision` needs --server <url> (or NATS_URL).'
  if (flags['allow-data-loss'] && !flags.update) return '--allow-data-loss goes with --update (it lets an update lose data).'
  const modules: ContractModule[] = []
  for (const file of files) {
    const result = await modelOf(file)
    if (result.failed || result.model === undefined) {
      if (!result.failed) io.err(`contracts: ${shown(file)} is not a NATS contract.`)
      return 1
    }
    modules.push(moduleOfModel(result.model))
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
  let creds: Uint8Array | undefined
  try {
    creds = credsFile ? await readFile(credsFile) : undefined
  } catch (error) {
    return `--creds ${json(credsFile)}: ${(error as Error).message}`
  }
  if (creds) {
    // Read as the connection would read it (nats.js parses a creds file only when the server asks):
    // a file that is no creds file is the flag's problem, not a server that does not answer.
    try {
      transport.credsAuthenticator(creds)('0')
    } catch (error) {
      return `--creds ${json(credsFile)} is not a NATS credentials file (${shown((error as Error).message)}).`
    }
  }
  const url = shownUrl(server)
  const target = serverOf(server)
  if (target === undefined) return `--server ${url} is not a server URL (nats://host:port, or tls://host:port for TLS).`
  let nc: import('@nats-io/nats-core').NatsConnection
  try {
    nc = await transport.connect({
      servers: target.servers,
      ...(target.token !== undefined ? { token: target.token } : {}),
      ...(target.tls ? { tls: {} } : {}),
      ...(creds ? { authenticator: transport.credsAuthenticator(creds) } : {}),
    })
  } catch (error) {
    const { name, message } = error as { name?: string; message?: string }
    io.err(`contracts: cannot reach the NATS server at ${url} (${shown(`${name ?? 'Error'}: ${message ?? String(error)}`)}).`)
    return 3
  }
  let status = 0
  const report: unknown[] = []
  try {
    for (const module of modules) {
      const options = {
        dryRun: flags['dry-run'] === true,
        update: flags.update === true,
        allowDataLoss: flags['allow-data-loss'] === true,
        adopt: flags.adopt === true,
        allowOlderServer: flags['allow-older-server'] === true,
      }
      let plan: ProvisionResult
      let done: ProvisionResult
      try {
        // The plan first (a dry run), then, unless only planning, what was done.
        plan = await client.provision(module, nc, { ...options, dryRun: true })
        if (!flags.json) {
          io.out(`plan for ${shown(module.contract.id)} ${shown(module.contract.version)}:`)
          for (const p of plan.plan) io.out(`  ${describePlanned(p)}`)
        }
        // A plan cut short changes nothing: the server stopped answering before it was made.
        done = options.dryRun || plan.interrupted !== undefined ? plan : await client.provision(module, nc, options)
      } catch (error) {
        const why = stopped(error, url, shown(module.contract.id))
        io.err(`contracts: ${why.sentence}`)
        return why.status
      }
      if (!options.dryRun && plan.interrupted === undefined && !flags.json) {
        io.out(`done for ${shown(module.contract.id)}:`)
        for (const p of done.plan) io.out(`  ${p.kind} ${shown(p.name)}: ${DONE[p.action] ?? p.action}`)
      }
      // The server stopped answering: what was done is printed (above, and in --json), then why, exit 3.
      const interrupted = plan.interrupted ?? done.interrupted
      if (interrupted !== undefined) {
        report.push({
          contract: module.contract.id,
          version: module.contract.version,
          plan: plan.plan,
          done: options.dryRun || plan.interrupted !== undefined ? undefined : done.plan,
          inSync: false,
        })
        if (flags.json) io.out(jsonText(report))
        io.err(`contracts: provisioning ${shown(module.contract.id)} stopped: the server at ${url} did not answer (${shown(interrupted)}).`)
        return 3
      }
      // Every refusal, the server's or provisioning's own, once more as a sentence on stderr.
      for (const p of done.plan)
        if (p.action === 'failed' || (p.action === 'refused' && !options.dryRun))
          io.err(`contracts: ${shown(module.contract.id)}: ${p.kind} ${shown(p.name)}: ${shown(p.reason ?? '')}`)
      if (!done.inSync) status = 1
      report.push({
        contract: module.contract.id,
        version: module.contract.version,
        plan: plan.plan,
        done: options.dryRun ? undefined : done.plan,
        inSync: done.inSync,
      })
    }
  } finally {
    await nc.close().catch(() => undefined)
  }
  if (flags.json) io.out(jsonText(report))
  return status
}
