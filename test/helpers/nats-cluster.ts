/**
 * A real JetStream cluster of Debian's `nats-server` for the cluster tests: N nodes (3 or 5) on free
 * loopback ports, each with its own store folder, client, cluster-route and monitoring port, routes
 * to every other node. Faults are real: a node is killed with SIGKILL (a crash, no goodbye to its
 * peers) and restarted on the same ports and store, or frozen with SIGSTOP (a live process that
 * answers nobody: a stalled machine, a partition that heals) and thawed with SIGCONT; with
 * `cuttableRoutes`, a node's cluster routes are cut while every process runs and its clients stay
 * connected (a network partition between servers, ./route-proxy.ts), then restored. Every process
 * is killed by its PID when the cluster stops and, as a last resort, when the test process exits.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect } from '@nats-io/transport-node'
import { jetstreamManager } from '@nats-io/jetstream'
import { freePort, NATS_SERVER } from './nats-server.js'
import { startRouteProxies, type RouteProxies } from './route-proxy.js'
import { until } from './until.js'

export { NATS_SERVER }

if (!NATS_SERVER) console.warn('\n*** nats-server is not installed: the JetStream CLUSTER tests are SKIPPED (apt-get install nats-server; .ci/run does) ***\n')

/** What a node's monitoring endpoint `/jsz` says about the meta group (the fields read here). */
/** What a node's monitoring endpoint `/routez` says (the field read here). */
interface Routez {
  num_routes?: number
}

interface Jsz {
  meta_cluster?: {
    leader?: string
    cluster_size?: number
    replicas?: Array<{ name: string; current: boolean; offline?: boolean }>
  }
}

export interface ClusterNode {
  readonly name: string
  readonly port: number
  readonly url: string
  readonly clusterPort: number
  readonly monitorPort: number
  /** Whether the process is running (not killed, not frozen). */
  readonly running: boolean
}

export interface NatsCluster {
  readonly nodes: readonly ClusterNode[]
  /** Every node's client URL, for `connect({ servers })`. */
  readonly servers: string[]
  /** The client URLs of the running nodes only (a node whose routes are cut is left out). */
  runningServers(): string[]
  node(name: string): ClusterNode
  /** The meta leader's name once every running node agrees on one, all running peers are current and JetStream answers. */
  ready(timeoutMs?: number): Promise<string>
  /** The server name of the given stream's leader (asked through the JetStream API). */
  streamLeader(stream: string, timeoutMs?: number): Promise<string>
  /** The server name of the given consumer's leader (other than `previous`, if given), once a majority of its group is current. */
  consumerLeader(stream: string, consumer: string, timeoutMs?: number, previous?: string): Promise<string>
  /**
   * Moves the consumer's leader until it is on a node `wanted` accepts: the leader is asked to step
   * down (the group elects another of its replicas) at most `tries` times. Answers where it is.
   */
  placeConsumerLeader(stream: string, consumer: string, wanted: (name: string) => boolean, tries?: number): Promise<string>
  /** Moves the stream's leader (step-down, as `placeConsumerLeader`) until it is on a node `wanted` accepts. Answers where it is. */
  placeStreamLeader(stream: string, wanted: (name: string) => boolean, tries?: number): Promise<string>
  /** The servers holding the stream's replicas: its leader first, then its followers. */
  streamPeers(stream: string): Promise<string[]>
  /** Waits until the stream has a leader other than `previous` and all its running replicas are current. */
  newStreamLeader(stream: string, previous: string, timeoutMs?: number): Promise<string>
  /** SIGKILL: a crash. The node's store stays for a restart. */
  kill(name: string): Promise<void>
  /** Kills the leader of the stream and returns its name. */
  killStreamLeader(stream: string): Promise<string>
  /**
   * SIGSTOP: the node keeps its sockets but answers nothing (peers and clients see it only by their
   * timeouts). It counts as not running until thawed.
   */
  freeze(name: string): Promise<void>
  /** SIGCONT: the frozen node goes on where it stopped (and learns of the elections it missed). */
  thaw(name: string): Promise<void>
  /** Starts a killed node again on the same ports and store, and waits for it to listen. */
  restart(name: string): Promise<void>
  /**
   * Cuts every cluster route of the node (both directions; `cuttableRoutes` only) while it and its
   * client connections keep running, and waits until it sees no route. Its peers elect without it.
   */
  cutRoutes(name: string): Promise<void>
  /**
   * A one-way partition (`cuttableRoutes` only): the node's peers hear it, it hears none of them (its
   * client connections stay up). The route connections stay open until the servers' pings find them
   * dead; new ones are accepted and fail their handshake. Counted out of the running nodes until
   * restored (`restoreRoutes`).
   */
  deafen(name: string): void
  /** Lets the node's routes form again (after a cut or a one-way partition) and waits until it is routed to every other running node. */
  restoreRoutes(name: string): Promise<void>
  /** Kills every node by PID and removes the stores. */
  stop(): Promise<void>
}

/**
 * The servers of a replicated group (a stream's or a consumer's) as a stream or consumer info names
 * them: its leader and its replicas, each once. A member that knows no leader yet (a consumer just
 * created, a group electing) answers the info itself and lists every member, itself included, under
 * `replicas` with no leader: counting `1 + replicas.length` then reads one server too many.
 */
export function groupPeers(cluster: { leader?: string; replicas?: ReadonlyArray<{ name: string }> } | undefined): string[] {
  return [...new Set([cluster?.leader ?? '', ...(cluster?.replicas ?? []).map((r) => r.name)].filter((n) => n !== ''))]
}

const live = new Set<ChildProcess>()
let exitHookInstalled = false
function installExitHook(): void {
  if (exitHookInstalled) return
  exitHookInstalled = true
  // A test file that crashes or is interrupted must not leave servers behind.
  process.once('exit', () => {
    for (const child of live) if (child.pid !== undefined && child.exitCode === null) child.kill('SIGKILL')
  })
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function monitor<T>(monitorPort: number, endpoint: 'jsz' | 'routez'): Promise<T | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${monitorPort}/${endpoint}`, { signal: AbortSignal.timeout(1000) })
    return response.ok ? ((await response.json()) as T) : undefined
  } catch {
    return undefined
  }
}
/**
 * How often the waits for a leader ask (each question is a JetStream API request, or a monitoring
 * request to every node): often enough to see an election end within a quarter second, seldom
 * enough that asking is not what keeps five servers busy.
 */
const POLL_MS = 250
const jsz = (monitorPort: number) => monitor<Jsz>(monitorPort, 'jsz')
const routez = (monitorPort: number) => monitor<Routez>(monitorPort, 'routez')

export interface ClusterOptions {
  /**
   * Routes through loopback proxies of this process (one per ordered pair of nodes), so `cutRoutes`
   * can partition a node without stopping it. Off by default: the other suites route directly.
   */
  readonly cuttableRoutes?: boolean
}

interface NodeState {
  name: string
  port: number
  clusterPort: number
  monitorPort: number
  config: string
  child?: ChildProcess
  frozen?: boolean
  /** Its routes are cut: it runs, its clients stay connected, but it is not part of the cluster. */
  cut?: boolean
}

/**
 * Every port handed to a node in this process: clusters started at the same moment (the suites of
 * one file) must not pick the same free port before either has bound it.
 */
const taken = new Set<number>()

/**
 * Starts `size` nodes and waits (bounded) for a meta leader that every node agrees on. JetStream
 * limits are small (the tests store a few hundred messages) so nodes start fast. A node that exits
 * while starting (a port another process bound meanwhile) fails the attempt, and the cluster is
 * started once more on other ports.
 */
export async function startNatsCluster(size: 3 | 5, label = 'c', options: ClusterOptions = {}): Promise<NatsCluster> {
  try {
    return await startCluster(size, label, options)
  } catch (error) {
    console.warn(`the ${size}-node cluster ${label} did not start (${error instanceof Error ? error.message : String(error)}): trying once more on other ports`)
    return startCluster(size, label, options)
  }
}

async function startCluster(size: 3 | 5, label: string, options: ClusterOptions): Promise<NatsCluster> {
  if (!NATS_SERVER) throw new Error('nats-server is not installed')
  installExitHook()
  const base = mkdtempSync(join(tmpdir(), `nats-cluster-${label}-`))
  // Three ports a node, all distinct (the system may hand out a port it just freed again; bounded).
  const port = async () => {
    for (let i = 0; i < 20; i++) {
      const p = await freePort()
      if (taken.has(p)) continue
      taken.add(p)
      return p
    }
    throw new Error('no distinct free loopback port in 20 tries')
  }
  const nodes: NodeState[] = []
  for (let i = 1; i <= size; i++) nodes.push({ name: `${label}${i}`, port: await port(), clusterPort: await port(), monitorPort: await port(), config: '' })
  const clusterName = `cl-${label}-${process.pid}`
  const proxies: RouteProxies | undefined = options.cuttableRoutes
    ? await startRouteProxies(
        nodes.map((n) => ({ name: n.name, clusterPort: n.clusterPort })),
        port,
      )
    : undefined
  for (const node of nodes) {
    const store = join(base, node.name)
    mkdirSync(store, { recursive: true })
    const routes = nodes.filter((n) => n !== node).map((n) => `"nats-route://127.0.0.1:${proxies ? proxies.port(node.name, n.name) : n.clusterPort}"`)
    node.config = join(base, `${node.name}.conf`)
    writeFileSync(
      node.config,
      [
        `server_name: "${node.name}"`,
        `listen: "127.0.0.1:${node.port}"`,
        `http: "127.0.0.1:${node.monitorPort}"`,
        // Clients notice a dead server within seconds instead of minutes.
        `ping_interval: "2s"`,
        `ping_max: 2`,
        `jetstream {`,
        `  store_dir: "${store}"`,
        `  max_memory_store: 64MB`,
        `  max_file_store: 256MB`,
        `}`,
        `cluster {`,
        `  name: "${clusterName}"`,
        `  listen: "127.0.0.1:${node.clusterPort}"`,
        `  routes: [${routes.join(', ')}]`,
        ...(proxies ? [`  advertise: "127.0.0.1:${proxies.advertisePort}"`] : []),
        `  connect_retries: 120`,
        `}`,
        '',
      ].join('\n'),
    )
  }

  const startNode = async (node: NodeState) => {
    const child = spawn(NATS_SERVER!, ['-c', node.config], { stdio: 'ignore' })
    live.add(child)
    child.once('exit', () => live.delete(child))
    node.child = child
    await until(
      `${node.name} to serve its monitoring port`,
      async () => {
        if (child.exitCode !== null) throw new Error(`${node.name} exited while starting (ports ${node.port}, ${node.clusterPort}, ${node.monitorPort})`)
        return (await jsz(node.monitorPort)) ? true : undefined
      },
      20_000,
      50,
    )
  }
  const killNode = async (node: NodeState, signal: NodeJS.Signals) => {
    const child = node.child
    node.child = undefined
    node.frozen = false
    if (!child || child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    child.kill(signal)
    // Bounded: SIGKILL cannot be refused, but a process can still be slow to be reaped.
    await Promise.race([exited, sleep(10_000)])
  }
  const byName = (name: string) => {
    const node = nodes.find((n) => n.name === name)
    if (!node) throw new Error(`no node ${name} in the cluster`)
    return node
  }
  /** The nodes that run and are routed: a cut node runs but takes no part in elections or questions here. */
  const running = () => nodes.filter((n) => n.child !== undefined && !n.frozen && !n.cut)
  const view = (node: NodeState): ClusterNode => ({
    name: node.name,
    port: node.port,
    url: `nats://127.0.0.1:${node.port}`,
    clusterPort: node.clusterPort,
    monitorPort: node.monitorPort,
    get running() {
      return node.child !== undefined && !node.frozen
    },
  })

  /**
   * One connection for the helper's questions, kept while its server runs (the waits poll every
   * 100 ms: a connection a question cost a CPU second a minute); made again once its server is
   * killed, frozen or cut off.
   */
  let asker: { nc: Awaited<ReturnType<typeof connect>>; jsm: Awaited<ReturnType<typeof jetstreamManager>> } | undefined
  const dropAsker = async () => {
    const old = asker
    asker = undefined
    await old?.nc.close().catch(() => undefined)
  }
  /** Asks a running node through the JetStream API. */
  const askStream = async <T>(question: (jsm: Awaited<ReturnType<typeof jetstreamManager>>) => Promise<T>): Promise<T | undefined> => {
    const up = running()
    if (asker && (asker.nc.isClosed() || !up.some((n) => n.name === asker!.nc.info?.server_name))) await dropAsker()
    if (!asker) {
      const nc = await connect({ servers: up.map((n) => `nats://127.0.0.1:${n.port}`), timeout: 2000, maxReconnectAttempts: 0 }).catch(() => undefined)
      if (!nc) return undefined
      try {
        asker = { nc, jsm: await jetstreamManager(nc, { timeout: 2000 }) }
      } catch {
        await nc.close().catch(() => undefined)
        return undefined
      }
    }
    try {
      return await question(asker.jsm)
    } catch {
      return undefined
    }
  }
  /**
   * The leader of a replicated group once it has one and every running replica is current; with
   * `quorum`, once the leader and enough current followers make a majority of the group (a consumer's
   * follower on a node restarted under load can stay behind until the consumer's next election,
   * which is what a test killing that leader then brings about).
   */
  const settledLeader = (
    info: { cluster?: { leader?: string; replicas?: Array<{ name: string; current: boolean; offline?: boolean }> } } | undefined,
    previous?: string,
    quorum = false,
  ): string | undefined => {
    const leader = info?.cluster?.leader
    if (!leader || leader === previous) return undefined
    const up = new Set(running().map((n) => n.name))
    const replicas = (info.cluster?.replicas ?? []).filter((r) => up.has(r.name))
    const current = replicas.filter((r) => r.current && !r.offline).length
    if (!quorum) return current === replicas.length ? leader : undefined
    const group = (info.cluster?.replicas ?? []).length + 1
    return current + 1 > group / 2 ? leader : undefined
  }

  /**
   * Moves a group's leader by the JetStream API's step-down (the group elects another replica; this
   * server version takes no placement with it) until `wanted` accepts it, at most `tries` times.
   */
  const placeLeader = async (
    what: string,
    stepDown: string,
    leaderOf: (previous?: string) => Promise<string>,
    wanted: (name: string) => boolean,
    tries: number,
  ): Promise<string> => {
    let leader = await leaderOf()
    for (let i = 0; i < tries && !wanted(leader); i++) {
      const nc = await connect({ servers: running().map((n) => `nats://127.0.0.1:${n.port}`), timeout: 2000, maxReconnectAttempts: 0 })
      try {
        await nc.request(stepDown, undefined, { timeout: 5000 }).catch(() => undefined)
      } finally {
        await nc.close().catch(() => undefined)
      }
      const before = leader
      leader = await leaderOf(before).catch(() => leaderOf())
    }
    if (!wanted(leader)) throw new Error(`the leader of ${what} stayed off the wanted nodes through ${tries} step-downs (on ${leader})`)
    return leader
  }

  /** What `agreed` last saw short of agreement (each running node's meta leader, the leader's view of its peers): said when `ready` times out. */
  let lastView = 'nothing asked yet'
  /** The meta leader every running node agrees on, with all running peers current and JetStream answering; else undefined. */
  const agreed = async (): Promise<string | undefined> => {
    const views = await Promise.all(running().map((n) => jsz(n.monitorPort)))
    const leaders = new Set(views.map((v) => v?.meta_cluster?.leader))
    lastView = `meta leaders ${running()
      .map((n, i) => `${n.name}: ${views[i]?.meta_cluster?.leader ?? '(none)'}`)
      .join(', ')}`
    if (leaders.size !== 1) return undefined
    const [leader] = leaders
    if (!leader) return undefined
    // The leader's own view lists the other peers and whether each is current.
    const leaderView = views[running().findIndex((n) => n.name === leader)]
    const up = new Set(running().map((n) => n.name))
    const peers = leaderView?.meta_cluster?.replicas ?? []
    lastView += `; the leader's peers ${peers.map((p) => `${p.name}${p.current ? ' current' : ''}${p.offline ? ' offline' : ''}`).join(', ') || '(none)'}`
    const current = peers.filter((p) => up.has(p.name) && p.current && !p.offline).length
    if (current !== up.size - 1) return undefined
    // And JetStream answers (a meta group just elected may say "temporarily unavailable" a while longer).
    const answers = await askStream((jsm) => jsm.getAccountInfo())
    if (!answers) lastView += '; JetStream did not answer'
    return answers ? leader : undefined
  }

  const cluster: NatsCluster = {
    nodes: nodes.map(view),
    servers: nodes.map((n) => `nats://127.0.0.1:${n.port}`),
    runningServers: () => running().map((n) => `nats://127.0.0.1:${n.port}`),
    node: (name) => view(byName(name)),
    ready: (timeoutMs = 60_000) => {
      // The same leader in three polls running: a meta group just formed often elects once more
      // within a second (a node that started later calls an election of its own), and a question asked
      // in between is answered "JetStream system temporarily unavailable", on a loaded machine above all.
      let seen: string | undefined
      let times = 0
      const stable = (leader: string | undefined) => {
        times = leader !== undefined && leader === seen ? times + 1 : leader === undefined ? 0 : 1
        seen = leader
        return times >= 3 ? leader : undefined
      }
      // A timeout says what was last seen (a flake on a loaded machine, not yet explained, left no trace).
      return until(
        'a meta leader every running node agrees on (the same in three polls), with all running peers current',
        async () => stable(await agreed()),
        timeoutMs,
        POLL_MS,
      ).catch((error: unknown) => {
        throw new Error(`${error instanceof Error ? error.message : String(error)} (last seen: ${lastView})`)
      })
    },
    streamLeader: (stream, timeoutMs = 60_000) =>
      until(`a leader for stream ${stream}`, async () => settledLeader(await askStream((jsm) => jsm.streams.info(stream))), timeoutMs, POLL_MS),
    consumerLeader: (stream, consumer, timeoutMs = 60_000, previous) =>
      until(
        `a leader for consumer ${stream}/${consumer}${previous ? ` (not ${previous})` : ''}`,
        async () => settledLeader(await askStream((jsm) => jsm.consumers.info(stream, consumer)), previous, true),
        timeoutMs,
        POLL_MS,
      ),
    placeConsumerLeader: (stream, consumer, wanted, tries = 12) =>
      placeLeader(
        `consumer ${stream}/${consumer}`,
        `$JS.API.CONSUMER.LEADER.STEPDOWN.${stream}.${consumer}`,
        (previous) => cluster.consumerLeader(stream, consumer, 30_000, previous),
        wanted,
        tries,
      ),
    placeStreamLeader: (stream, wanted, tries = 12) =>
      placeLeader(
        `stream ${stream}`,
        `$JS.API.STREAM.LEADER.STEPDOWN.${stream}`,
        (previous) => (previous ? cluster.newStreamLeader(stream, previous, 30_000) : cluster.streamLeader(stream)),
        wanted,
        tries,
      ),
    streamPeers: async (stream) => {
      const info = await until(`the peers of stream ${stream}`, () => askStream((jsm) => jsm.streams.info(stream)), 30_000, POLL_MS)
      return groupPeers(info.cluster)
    },
    newStreamLeader: (stream, previous, timeoutMs = 60_000) =>
      until(
        `a new leader for stream ${stream} (not ${previous})`,
        async () => settledLeader(await askStream((jsm) => jsm.streams.info(stream)), previous),
        timeoutMs,
        POLL_MS,
      ),
    kill: (name) => killNode(byName(name), 'SIGKILL'),
    freeze: async (name) => {
      const node = byName(name)
      if (!node.child || node.frozen) throw new Error(`${name} is not running: it cannot be frozen`)
      node.child.kill('SIGSTOP')
      node.frozen = true
    },
    thaw: async (name) => {
      const node = byName(name)
      if (!node.child || !node.frozen) return
      node.child.kill('SIGCONT')
      node.frozen = false
      await until(`${name} to serve its monitoring port again`, async () => ((await jsz(node.monitorPort)) ? true : undefined), 20_000, 50)
    },
    killStreamLeader: async (stream) => {
      const leader = await cluster.streamLeader(stream)
      await killNode(byName(leader), 'SIGKILL')
      return leader
    },
    restart: async (name) => {
      const node = byName(name)
      await killNode(node, 'SIGKILL')
      await startNode(node)
    },
    cutRoutes: async (name) => {
      if (!proxies) throw new Error('the cluster was started without cuttableRoutes')
      const node = byName(name)
      node.cut = true
      proxies.cut(name)
      await until(`${name} to see no route`, async () => ((await routez(node.monitorPort))?.num_routes === 0 ? true : undefined), 20_000, 100)
    },
    deafen: (name) => {
      if (!proxies) throw new Error('the cluster was started without cuttableRoutes')
      byName(name).cut = true
      proxies.deafen(name)
    },
    restoreRoutes: async (name) => {
      if (!proxies) throw new Error('the cluster was started without cuttableRoutes')
      const node = byName(name)
      proxies.restore(name)
      node.cut = false
      const others = running().filter((n) => n !== node).length
      // Routes are solicited again on the servers' retry timer (about a second).
      await until(
        `${name} routed to the ${others} other running nodes`,
        async () => (((await routez(node.monitorPort))?.num_routes ?? 0) >= others ? true : undefined),
        30_000,
        100,
      )
    },
    stop: async () => {
      await dropAsker()
      await Promise.all(nodes.map((n) => killNode(n, 'SIGKILL')))
      await proxies?.close()
      rmSync(base, { recursive: true, force: true })
    },
  }

  try {
    await Promise.all(nodes.map(startNode))
    await cluster.ready()
  } catch (error) {
    await cluster.stop()
    throw error
  }
  return cluster
}
