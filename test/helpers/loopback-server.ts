/**
 * A real HTTP server on a free loopback port, for tests: each request's body is read whole, then
 * `handle` answers it. What it received is recorded.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Request {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: string
}

export class LoopbackServer {
  readonly requests: Request[] = []
  handle: (req: IncomingMessage, res: ServerResponse, body: string) => void = (_req, res) => void res.writeHead(404).end()
  private server?: Server

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8')
        this.requests.push({ method: req.method!, url: req.url!, headers: req.headers, body })
        this.handle(req, res, body)
      })
    })
    // Node closes an idle kept-alive connection after 5 s, measured on this process's clock; a test
    // process that stalls longer between two requests (a loaded machine, a collection of a large
    // heap) can send its next request on a socket the server is closing that moment, and read
    // ECONNRESET. The client is in the same process, so the server keeps its connections longer;
    // stop() still closes them all at once.
    this.server.keepAliveTimeout = 120_000
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
    return this
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections()
    await new Promise((resolve) => this.server?.close(resolve))
  }
}
