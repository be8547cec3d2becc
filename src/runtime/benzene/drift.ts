/**
 * `unplugin-contracts/runtime/drift`: does the service still serve the contract a client was
 * generated from? The served document is fetched, the hash of the same projection the client or
 * module embeds is recomputed from it, and the two are compared. Hashes of different projections
 * are never compared (Benzene Contract Document §6.4): they differ by construction, so such a comparison would report
 * drift that is not there, and miss drift that is.
 */
import { errorText } from '../shared/error-text.js'
import type { BenzeneDocument } from './document.js'
import { contractHashWeb } from './hash.js'
import { serviceLevel, topicScoped, wholeService, type Projection } from './projection.js'
import type { ContractInfo } from './contract.js'
import { bodyLimit, boundedExchange, sameOriginUrl, timerDelay, type Exchange, type ExchangeLimits } from '../shared/bounded-fetch.js'
import { isObject } from '../shared/json-value.js'
import type { MessageSender } from './sender.js'

/**
 * Where the served document comes from: a sender (its own `timeoutMs` applies), or the service's
 * origin, read with `fetch` within `maxBodyBytes` and `timeoutMs` (default 30 s; the whole exchange,
 * body included; a service that never finishes its answer otherwise keeps the check waiting).
 */
export type DriftTransport = { sender: MessageSender } | ({ baseUrl: string | URL; fetch?: typeof globalThis.fetch; timeoutMs?: number } & ExchangeLimits)

export interface DriftReport {
  isMatch: boolean
  clientHash: string
  /** The hash of the same projection of the served document; absent when it could not be computed. */
  serviceHash?: string
  projection: 'topic-scoped' | 'service-level' | 'whole-service'
  /** Why there is no `serviceHash` (the document could not be fetched, or lacks the topic). */
  error?: string
}

/** What `checkDrift` accepts: a topic client (topic-scoped hash) or a module's `contract` export. */
export type DriftTarget = ContractInfo | { readonly topic: string; readonly version?: string; readonly contractHash: string }

/**
 * Never rejects: a document that cannot be fetched, is not a Benzene document, or cannot be
 * hashed (hostile or broken: `requests: [null]`, `1e400`, nesting past any stack) resolves with
 * `isMatch: false` and `error` saying why.
 */
export async function checkDrift(target: DriftTarget, transport: DriftTransport): Promise<DriftReport> {
  const isClient = 'topic' in target
  const clientHash = isClient ? target.contractHash : target.hash
  const projectionKind = isClient ? 'topic-scoped' : target.projection.kind
  const report = (serviceHash: string | undefined, error?: string): DriftReport => ({
    isMatch: serviceHash === clientHash,
    clientHash,
    ...(serviceHash === undefined ? {} : { serviceHash }),
    projection: projectionKind,
    ...(error === undefined ? {} : { error }),
  })
  try {
    const doc = await fetchDocument(transport)
    let projection: Projection
    if (isClient) {
      const entry = doc.requests.find((e) => isObject(e) && e.topic === target.topic && e.version === target.version)
      if (!entry)
        return report(undefined, `The served document has no entry for ${target.topic}${target.version === undefined ? '' : ` version ${target.version}`}.`)
      projection = topicScoped(doc, entry)
    } else {
      projection = target.projection.kind === 'whole-service' ? wholeService(doc) : serviceLevel(doc, target.projection.topics)
    }
    return report(await hashOf(projection))
  } catch (error) {
    // A stack overflow on a hostile document is a RangeError like any other failure here.
    return report(undefined, `The served document cannot be checked: ${errorText(error)}`)
  }
}

/**
 * The whole-service variant that reads the service's own hash from its health check (the check of
 * `type: "schema"`, `data.hashCode`) instead of the document. Only a module covering the
 * whole-service projection may be compared with it.
 */
export async function checkHealthDrift(contract: ContractInfo, transport: DriftTransport): Promise<DriftReport> {
  if (contract.projection.kind !== 'whole-service') {
    throw new TypeError(
      `The health check's hashCode is a whole-service hash; this module covers the ${contract.projection.kind} projection, which is never comparable with it. Use checkDrift().`,
    )
  }
  const base = { clientHash: contract.hash, projection: 'whole-service' as const }
  let health: unknown
  try {
    health = 'sender' in transport ? payloadOf(await transport.sender.send('benzene:healthcheck', {})) : await getJson(transport, '/benzene/health')
  } catch (error) {
    return { ...base, isMatch: false, error: (error as Error).message }
  }
  // Producers write these members camelCase (the wire) or PascalCase (.NET models): read either.
  const healthChecks = member(health, 'healthChecks')
  const checks = isObject(healthChecks) ? Object.values(healthChecks) : []
  const schema = checks.find((c) => member(c, 'type') === 'schema')
  const serviceHash = member(member(schema, 'data'), 'hashCode')
  if (typeof serviceHash !== 'string') return { ...base, isMatch: false, error: 'The health answer has no check of type "schema" with data.hashCode.' }
  return { ...base, isMatch: serviceHash === contract.hash, serviceHash }
}

/** `"sha256:" + hex(sha256(JCS(normalize(projection))))`, with Web Crypto so it runs in browsers too (the compiler's hash input, `hash.ts`). */
export const hashOf = contractHashWeb

async function fetchDocument(transport: DriftTransport): Promise<BenzeneDocument> {
  const raw =
    'sender' in transport
      ? payloadOf(await transport.sender.send('benzene:spec', { type: 'benzene', format: 'json' }))
      : await getJson(transport, '/benzene/spec?type=benzene&format=json')
  // The topic answers with the raw document: as parsed JSON, a JSON string, or a RawStringMessage.
  const doc =
    typeof raw === 'string' ? JSON.parse(raw) : isObject(raw) && typeof raw.Content === 'string' && !('requests' in raw) ? JSON.parse(raw.Content) : raw
  if (!isObject(doc) || !Array.isArray(doc.requests) || !Array.isArray(doc.events) || !isObject(doc.components) || !isObject(doc.components.schemas)) {
    throw new Error('The served contract document is not a Benzene contract document.')
  }
  return doc as unknown as BenzeneDocument
}

function payloadOf(result: { isSuccessful: boolean; status: string; payload?: unknown }): unknown {
  if (!result.isSuccessful) throw new Error(`The service answered ${result.status}.`)
  return result.payload
}

async function getJson(
  transport: { baseUrl: string | URL; fetch?: typeof globalThis.fetch; timeoutMs?: number } & ExchangeLimits,
  path: string,
): Promise<unknown> {
  const url = sameOriginUrl(transport.baseUrl, path)!
  const delay = timerDelay(transport.timeoutMs)
  if (delay === null) throw new Error(`timeoutMs ${String(transport.timeoutMs)} is not a time limit (a number of milliseconds, at least 0).`)
  if (bodyLimit(transport.maxBodyBytes) === null)
    throw new Error(`maxBodyBytes ${String(transport.maxBodyBytes)} is not a limit (a number of bytes, at least 0).`)
  const signal = delay === undefined ? undefined : AbortSignal.timeout(delay)
  let exchange: Exchange
  try {
    exchange = await boundedExchange(transport.fetch ?? globalThis.fetch, url, { headers: { accept: 'application/json' }, signal }, transport)
  } catch (error) {
    if (signal?.aborted) throw new Error(`GET ${url.pathname} did not finish within ${delay} ms.`, { cause: error })
    throw error
  }
  if (!exchange.ok)
    throw new Error(
      exchange.reason === 'redirect'
        ? `GET ${url.pathname} answered HTTP ${exchange.status} (a redirect, not followed).`
        : exchange.reason === 'not-utf8'
          ? `GET ${url.pathname} answered text that is not UTF-8.`
          : `GET ${url.pathname} answered more than ${exchange.limit} bytes.`,
    )
  if (exchange.status < 200 || exchange.status > 299) throw new Error(`GET ${url.pathname} answered HTTP ${exchange.status}.`)
  return JSON.parse(exchange.text)
}

function member(value: unknown, name: string): unknown {
  if (!isObject(value)) return undefined
  return Object.hasOwn(value, name) ? value[name] : value[name[0]!.toUpperCase() + name.slice(1)]
}
