/**
 * Cluster routes through loopback TCP proxies of the test process, so a test can cut a node off its
 * peers while every process keeps running and its client connections stay up: a partition between
 * servers, not a crash (./nats-cluster.ts, `cuttableRoutes`). Each ordered pair of nodes has a proxy
 * port of its own (node A's route to B goes to A→B's port), so cutting a node closes exactly the
 * connections it is an end of and refuses new ones until it is restored.
 */
import { createServer, connect, type Server, type Socket } from 'node:net'

export interface RouteProxies {
  /** The port `from` lists as its route to `to`. */
  port(from: string, to: string): number
  /** Closes every route connection the node is an end of and refuses new ones. */
  cut(name: string): void
  /** Accepts the node's route connections again (the servers solicit them again on their own timer). */
  restore(name: string): void
  close(): Promise<void>
}

interface Pair {
  readonly from: string
  readonly to: string
  readonly port: number
  readonly server: Server
  readonly sockets: Set<Socket>
}

/** Starts a proxy per ordered pair of nodes; `allocate` hands out distinct free loopback ports. */
export async function startRouteProxies(
  nodes: ReadonlyArray<{ readonly name: string; readonly clusterPort: number }>,
  allocate: () => Promise<number>,
): Promise<RouteProxies> {
  const cutNodes = new Set<string>()
  const pairs: Pair[] = []
  const severed = (pair: Pair) => cutNodes.has(pair.from) || cutNodes.has(pair.to)
  for (const from of nodes)
    for (const to of nodes) {
      if (from === to) continue
      const sockets = new Set<Socket>()
      const pair: Pair = {
        from: from.name,
        to: to.name,
        port: await allocate(),
        sockets,
        server: createServer((inbound) => {
          if (severed(pair)) return void inbound.destroy()
          const outbound = connect(to.clusterPort, '127.0.0.1')
          for (const [a, b] of [
            [inbound, outbound],
            [outbound, inbound],
          ] as const) {
            sockets.add(a)
            a.pipe(b)
            // Either end gone (or reset): the other goes too, as with a cable pulled.
            a.once('error', () => b.destroy())
            a.once('close', () => {
              sockets.delete(a)
              b.destroy()
            })
          }
        }),
      }
      pairs.push(pair)
    }
  await Promise.all(pairs.map((p) => new Promise<void>((resolve, reject) => p.server.once('error', reject).listen(p.port, '127.0.0.1', resolve))))
  const byPair = new Map(pairs.map((p) => [`${p.from}>${p.to}`, p]))
  return {
    port(from, to) {
      const pair = byPair.get(`${from}>${to}`)
      if (!pair) throw new Error(`no route proxy from ${from} to ${to}`)
      return pair.port
    },
    cut(name) {
      cutNodes.add(name)
      for (const pair of pairs) if (severed(pair)) for (const socket of pair.sockets) socket.destroy()
    },
    restore(name) {
      cutNodes.delete(name)
    },
    async close() {
      for (const pair of pairs) for (const socket of pair.sockets) socket.destroy()
      await Promise.all(pairs.map((p) => new Promise<void>((resolve) => p.server.close(() => resolve()))))
    },
  }
}
