/**
 * A real HTTP server speaking the Benzene wire, for tests: POST /benzene/invoke takes envelopes,
 * GET /benzene/spec serves a document, GET /benzene/health a health answer. Each topic is
 * answered by a function the test sets; what the server received is recorded.
 */
import type { IncomingMessage } from 'node:http'
import { LoopbackServer } from './loopback-server.js'

export interface Answer {
  /** HTTP status (default 200). */
  http?: number
  /** A Benzene envelope to send as JSON. */
  envelope?: { statusCode: string | number; isSuccessful: boolean; headers?: Record<string, string>; body?: string }
  /** Raw text instead of an envelope. */
  raw?: string
  /** Wait this long before answering. */
  delayMs?: number
}

export interface Received {
  topic: string
  headers: Record<string, string>
  body: unknown
  httpHeaders: IncomingMessage['headers']
}

export class BenzeneHttpServer {
  readonly received: Received[] = []
  /** Invocations answered so far (an answer to a client that has gone away is not written and not counted). */
  answered = 0
  handlers: Record<string, (body: unknown, headers: Record<string, string>) => Answer> = {}
  document: unknown = undefined
  health: unknown = undefined
  private readonly server = new LoopbackServer()

  get url(): string {
    return this.server.url
  }

  async start(): Promise<this> {
    this.server.handle = (req, res, text) => {
      const url = new URL(req.url ?? '/', 'http://x')
      const send = (status: number, text: string) => res.writeHead(status, { 'content-type': 'application/json' }).end(text)
      if (req.method === 'GET' && url.pathname === '/benzene/spec')
        return this.document === undefined ? send(404, '') : send(200, JSON.stringify(this.document))
      if (req.method === 'GET' && url.pathname === '/benzene/health') return send(200, JSON.stringify(this.health))
      if (req.method !== 'POST' || url.pathname !== '/benzene/invoke') return send(404, '')
      const envelope = JSON.parse(text)
      const body = envelope.body === '' ? undefined : JSON.parse(envelope.body)
      this.received.push({ topic: envelope.topic, headers: envelope.headers, body, httpHeaders: req.headers })
      const handler = this.handlers[envelope.topic]
      const answer = handler ? handler(body, envelope.headers) : { http: 404, envelope: { statusCode: 'not-found', isSuccessful: false, body: '' } }
      const reply = () => {
        if (res.destroyed) return
        this.answered++
        const status = answer.http ?? 200
        if (status === 204) return res.writeHead(204).end()
        send(status, answer.raw ?? JSON.stringify(answer.envelope))
      }
      if (answer.delayMs) setTimeout(reply, answer.delayMs)
      else reply()
    }
    await this.server.start()
    return this
  }

  stop(): Promise<void> {
    return this.server.stop()
  }
}

/** A successful envelope carrying `payload` as its string body. */
export function success(payload: unknown, statusCode: string | number = 'ok'): Answer {
  return { envelope: { statusCode, isSuccessful: true, headers: {}, body: payload === undefined ? '' : JSON.stringify(payload) } }
}

/** A failed envelope whose body is an RFC 9457 problem document. */
export function problem(status: string, http: number, errors: unknown[], detail = `${status} detail`): Answer {
  return {
    http,
    envelope: {
      statusCode: status,
      isSuccessful: false,
      body: JSON.stringify({ type: `https://benzene.dev/problems/${status}`, title: status, detail, benzeneStatus: status, errors }),
    },
  }
}
