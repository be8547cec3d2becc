/**
 * Cluster routes through loopback TCP proxies of the test process, so a test can cut a node off its
 * peers while every process keeps running and its client connections stay up: a partition between
 * servers, not a crash (./nats-cluster.ts, `cuttableRoutes`). Each ordered pair of nodes has a proxy
 * port of its own (node A's route to B goes to A→B's port), so cutting a node closes exactly the
 * connections it is an end of and refuses new ones until it is restored; deafening a node drops what
 * its peers send it while what it sends passes (a one-way partition). `startTcpProxy` cuts one
 * client's connection to its server the same way.
 */
import { createServer, connect, type Server, type Socket } from 'node:net'

export interface RouteProxies {
  /** The port `from` lists as its route to `to`. */
  port(from: string, to: string): number
  /**
   * A port every node advertises as its route address: it accepts and drops every connection, so a
   * node that learns of a peer through another (gossip) cannot route to it around the proxies.
   */
  readonly advertisePort: number
  /** Closes every route connection the node is an end of and refuses new ones. */
  cut(name: string): void
  /**
   * A one-way partition: every byte a peer sends the node is dropped, every byte it sends its peers
   * passes; connections stay open (only the servers' own pings find out) and new ones are accepted.
   */
  deafen(name: string): void
  /** Undoes a cut or a one-way partition: the node's connections are closed (a half-dead one with them) and new ones accepted (the servers solicit them again on their own timer). */
  restore(name: string): void
  close(): Promise<void>
}

/** Starts a proxy per ordered pair of nodes; `allocate` hands out distinct free loopback ports. */
export async function startRouteProxies(
  nodes: ReadonlyArray<{ readonly name: string; readonly clusterPort: number }>,
  allocate: () => Promise<number>,
): Promise<RouteProxies> {
  const cutNodes = new Set<string>()
  const deafNodes = new Set<string>()
  const pairs: Array<{ from: string; to: string; pipe: Awaited<ReturnType<typeof forward>> }> = []
  for (const from of nodes)
    for (const to of nodes) {
      if (from === to) continue
      const severed = () => cutNodes.has(from.name) || cutNodes.has(to.name)
      // The proxy's inbound end is `from`'s, its outbound end `to`'s: bytes toward a deaf node are dropped.
      const dropped = (toward: 'outbound' | 'inbound') => deafNodes.has(toward === 'outbound' ? to.name : from.name)
      pairs.push({ from: from.name, to: to.name, pipe: await forward(to.clusterPort, await allocate(), severed, dropped) })
    }
  const byPair = new Map(pairs.map((p) => [`${p.from}>${p.to}`, p]))
  const nowhere = await forward(0, await allocate(), () => true)
  const closeAll = (name: string) => {
    for (const p of pairs) if (p.from === name || p.to === name) for (const socket of p.pipe.sockets) socket.destroy()
  }
  return {
    advertisePort: nowhere.port,
    port(from, to) {
      const pair = byPair.get(`${from}>${to}`)
      if (!pair) throw new Error(`no route proxy from ${from} to ${to}`)
      return pair.pipe.port
    },
    cut(name) {
      cutNodes.add(name)
      closeAll(name)
    },
    deafen(name) {
      deafNodes.add(name)
    },
    restore(name) {
      cutNodes.delete(name)
      if (deafNodes.delete(name)) closeAll(name)
    },
    async close() {
      await Promise.all([...pairs.map((p) => p.pipe.close()), nowhere.close()])
    },
  }
}

export interface TcpProxy {
  /** The loopback port that forwards to the target. */
  readonly port: number
  /** Closes every connection through it and refuses new ones (a network cut; both ends keep running). */
  cut(): void
  /** Accepts connections again. */
  restore(): void
  close(): Promise<void>
}

/** One cuttable loopback proxy to `targetPort` (a client's connection to its server, say). */
export async function startTcpProxy(targetPort: number, allocate: () => Promise<number>): Promise<TcpProxy> {
  let severed = false
  const pipe = await forward(targetPort, await allocate(), () => severed)
  return {
    port: pipe.port,
    cut() {
      severed = true
      for (const socket of pipe.sockets) socket.destroy()
    },
    restore() {
      severed = false
    },
    close: () => pipe.close(),
  }
}

/**
 * A listener on `port` piping each connection to `targetPort`, refusing connections while
 * `severed()`, dropping the bytes going one way while `dropped` says so (toward the outbound end:
 * the target; toward the inbound end: the connecting side).
 */
async function forward(targetPort: number, port: number, severed: () => boolean, dropped: (toward: 'outbound' | 'inbound') => boolean = () => false) {
  const sockets = new Set<Socket>()
  const server: Server = createServer((inbound) => {
    if (severed()) return void inbound.destroy()
    const outbound = connect(targetPort, '127.0.0.1')
    for (const [a, b, toward] of [
      [inbound, outbound, 'outbound'],
      [outbound, inbound, 'inbound'],
    ] as const) {
      sockets.add(a)
      // By hand rather than pipe(): a chunk is written on, or dropped (route traffic is small: no backpressure needed).
      a.on('data', (chunk: Buffer) => {
        if (!dropped(toward) && !b.destroyed) b.write(chunk)
      })
      // Either end gone (or reset): the other goes too, as with a cable pulled.
      a.once('error', () => b.destroy())
      a.once('close', () => {
        sockets.delete(a)
        b.destroy()
      })
    }
  })
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve))
  return {
    port,
    sockets,
    async close() {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
