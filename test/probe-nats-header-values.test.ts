/**
 * Message headers from outside the client, against a real nats-server: a hostile peer writing the
 * protocol itself (HPUB over a raw socket) can send header names and values nats.js would never
 * write, and the client's own sends must not put on the wire other headers than those its validator
 * accepted. A copy of the orders-client contract whose `noted` message has a headers schema with a
 * required pattern, an optional enum and an optional bounded string.
 */
import { headers as natsHeaders, type NatsConnection } from '@nats-io/nats-core'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { connect as tcpConnect } from 'node:net'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { bindContract, ContractClientError, type ContractModule } from '../src/runtime/nats/client/index.js'
import { loadModule } from './helpers/load-module.js'
import { NATS_SERVER } from './helpers/nats-server.js'
import { connectedNatsServer, reached } from './helpers/nats-connected.js'

const root = join(import.meta.dirname, '..')
const tmp = join(import.meta.dirname, '.tmp/probe-nats-header-values', String(process.pid))
const NOTED = '      noted:\n        payload:'
const WITH_HEADERS = `      noted:
        headers:
          type: object
          required: [traceId]
          properties:
            traceId: { type: string, pattern: "^[0-9a-f]{8}$" }
            x-tier: { type: string, enum: [gold, silver] }
            note: { type: string, minLength: 1, maxLength: 8 }
        payload:`
const SUBJECT = 'shop.eu.notes.0a1b2c3d'
const PAYLOAD = JSON.stringify({ text: 'hi' })

async function headersContract(): Promise<ContractModule> {
  const text = readFileSync(join(root, 'fixtures/nats/client/orders.asyncapi.yaml'), 'utf8')
  if (!text.includes(NOTED)) throw new Error('fixture changed: no noted message')
  mkdirSync(tmp, { recursive: true })
  const file = join(tmp, 'header-values.asyncapi.yaml')
  writeFileSync(file, text.replace(NOTED, WITH_HEADERS))
  const result = await compile(file)
  expect(result.diagnostics).toEqual([])
  return (await loadModule(result.code!, 'probe-header-values')) as unknown as ContractModule
}

/** Publishes `headerLines` (raw, as the peer writes them) with a valid payload over the NATS protocol itself, and waits for the server's PONG. */
function rawPublish(url: string, headerLines: string | Buffer): Promise<void> {
  const { hostname, port } = new URL(url)
  const block = Buffer.concat([
    Buffer.from('NATS/1.0\r\n'),
    typeof headerLines === 'string' ? Buffer.from(headerLines, 'utf8') : headerLines,
    Buffer.from('\r\n'),
  ])
  const body = Buffer.from(PAYLOAD)
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(Number(port), hostname)
    const timer = setTimeout(() => (socket.destroy(), reject(new Error('no PONG from the server'))), 5_000)
    let seen = ''
    socket.on('error', (e) => (clearTimeout(timer), reject(e)))
    socket.on('data', (chunk) => {
      seen += chunk.toString('latin1')
      if (seen.startsWith('INFO') && !seen.includes('\u0000sent')) {
        seen += '\u0000sent'
        socket.write('CONNECT {"verbose":false,"pedantic":false,"headers":true,"protocol":1}\r\n')
        socket.write(
          Buffer.concat([Buffer.from(`HPUB ${SUBJECT} ${block.length} ${block.length + body.length}\r\n`), block, body, Buffer.from('\r\nPING\r\n')]),
        )
      }
      if (seen.includes('PONG')) {
        clearTimeout(timer)
        socket.end()
        resolve()
      }
      if (seen.includes('-ERR')) {
        clearTimeout(timer)
        socket.destroy()
        reject(new Error(seen))
      }
    })
  })
}

/** `nc.flush()`, given up after 5 s (a connection the peer broke never answers). */
const flushed = (nc: NatsConnection): Promise<unknown> => Promise.race([nc.flush(), new Promise((resolve) => setTimeout(resolve, 5_000))])

/**
 * A responder writing the protocol itself: subscribes to `subject` and answers each request with
 * `headerLines` and `payload`. Returns a function that closes it.
 */
async function rawResponder(url: string, subject: string, headerLines: string, payload: string): Promise<() => void> {
  const { hostname, port } = new URL(url)
  const socket = tcpConnect(Number(port), hostname)
  let buffer = ''
  let ready: () => void = () => {}
  const subscribed = new Promise<void>((resolve) => (ready = resolve))
  socket.on('data', (chunk) => {
    buffer += chunk.toString('latin1')
    if (buffer.startsWith('INFO') && !buffer.includes('\u0000sent')) {
      buffer += '\u0000sent'
      socket.write(`CONNECT {"verbose":false,"pedantic":false,"headers":true,"protocol":1}\r\nSUB ${subject} 1\r\nPING\r\n`)
    }
    if (buffer.includes('PONG')) ready()
    for (const match of buffer.matchAll(/MSG \S+ 1 (\S+) \d+\r\n/g)) {
      const block = Buffer.from(`NATS/1.0\r\n${headerLines}\r\n`, 'utf8')
      const body = Buffer.from(payload)
      socket.write(Buffer.concat([Buffer.from(`HPUB ${match[1]} ${block.length} ${block.length + body.length}\r\n`), block, body, Buffer.from('\r\n')]))
    }
    buffer = buffer.replace(/MSG \S+ 1 \S+ \d+\r\n/g, '')
  })
  await Promise.race([subscribed, new Promise((resolve) => setTimeout(resolve, 5_000))])
  return () => socket.destroy()
}

describe.skipIf(!NATS_SERVER)('headers from a hostile peer, and the client’s own sends (real nats-server)', () => {
  const nats = connectedNatsServer()
  let nc: NatsConnection
  let module: ContractModule

  beforeAll(async () => {
    nc = nats.nc
    module = await headersContract()
  }, 60_000)

  /** What a subscriber of `onNote` makes of each raw header block: 'handled' (with its headerValues) or the onError code. */
  async function receive(blocks: Array<string | Buffer>): Promise<string[]> {
    const client = bindContract(module, nc, { allowOlderServer: true })
    const outcomes: string[] = []
    const sub = client.subscribe('onNote' as never, (m: { headerValues?: unknown }) => void outcomes.push(`handled ${JSON.stringify(m.headerValues)}`), {
      onError: (e) => void outcomes.push(e.code),
    })
    await flushed(nc)
    for (const block of blocks) await rawPublish(nats.server.url, block)
    await flushed(nc)
    await reached(() => outcomes.length, blocks.length, 3_000)
    sub.unsubscribe()
    return outcomes
  }

  it('a header name nats.js cannot read (a space, a non-ASCII letter) is refused as INVALID_HEADERS, not thrown out of the connection', async () => {
    const outcomes = await receive([
      'traceId: 0a1b2c3d\r\nbad name: x\r\n',
      'traceId: 0a1b2c3d\r\ncafé: x\r\n',
      // A bare line feed inside a value: nats.js splits lines on CRLF only, then refuses the value.
      'traceId: 0a1b2c3d\r\nnote: a\nb\r\n',
      'traceId: 0a1b2c3d\r\n',
    ])
    expect(outcomes).toEqual(['INVALID_HEADERS', 'INVALID_HEADERS', 'INVALID_HEADERS', 'handled {"traceId":"0a1b2c3d"}'])
    // The connection still works.
    expect(nc.isClosed()).toBe(false)
  })

  it('header bytes that are not UTF-8 are refused as INVALID_HEADERS, as a payload’s are (an outside pass: they were read as U+FFFD and accepted); U+FFFD written as UTF-8 is a character like another', async () => {
    const line = (value: Buffer) => Buffer.concat([Buffer.from('traceId: 0a1b2c3d\r\nnote: '), value, Buffer.from('\r\n')])
    const outcomes = await receive([line(Buffer.from([0x61, 0xff, 0x62])), line(Buffer.from([0xc3])), line(Buffer.from('a\ufffdb', 'utf8'))])
    expect(outcomes).toEqual(['INVALID_HEADERS', 'INVALID_HEADERS', 'handled {"traceId":"0a1b2c3d","note":"a\ufffdb"}'])
    expect(nc.isClosed()).toBe(false)
  })

  it('repeated names, case variants and values off the schema from the wire: refused, and what is handled is what the validator checked', async () => {
    const outcomes = await receive([
      'traceId: 0a1b2c3d\r\ntraceId: 0a1b2c3d\r\n',
      'TraceId: 0a1b2c3d\r\n',
      'traceId: 0a1b2c3d\r\nx-tier: platinum\r\n',
      'traceId: 0a1b2c3d\r\nnote: 123456789\r\n',
      'traceId: 0a1b2c3d\r\nx-tier: gold\r\nnote:   spaced   \r\n',
    ])
    expect(outcomes).toEqual([
      'INVALID_HEADERS',
      'INVALID_HEADERS',
      'INVALID_HEADERS',
      'INVALID_HEADERS',
      'handled {"traceId":"0a1b2c3d","x-tier":"gold","note":"spaced"}',
    ])
  })

  it('publish refuses, as INVALID_HEADERS, a header nats.js would not send as given (a value it trims or cannot carry, a name it refuses), never a nats.js throw or another value on the wire', () => {
    const client = bindContract(module, nc, { allowOlderServer: true })
    const outcomes = [
      // minLength 1 holds for ' ', but nats.js trims it to '': the receiver's validator refuses what this one accepted.
      { traceId: '0a1b2c3d', note: ' ' },
      { traceId: '0a1b2c3d', note: 'a\r\nb: c' },
      { traceId: '0a1b2c3d', 'bad name': 'x' },
    ].map((headers) => {
      try {
        client.publish('noteOrder' as never, { region: 'eu', orderId: '0a1b2c3d' } as never, { text: 'hi' } as never, { headers } as never)
        return 'sent'
      } catch (error) {
        return error instanceof ContractClientError ? error.code : `${(error as Error).name}: ${(error as Error).message}`
      }
    })
    expect(outcomes).toEqual(['INVALID_HEADERS', 'INVALID_HEADERS', 'INVALID_HEADERS'])
  })

  // nats.js's own request reads the headers of a reply with an empty payload to tell a 503
  // no-responders status, and decoding such headers threw out of its parser (the connection's reader
  // closed, the request timed out): the client requests on an inbox of its own and reads them guarded.
  it('request: a first response whose headers nats.js cannot read is an answer (invalid-response), and the connection goes on', async () => {
    const client = bindContract(module, nc, { allowOlderServer: true })
    const outcomes: string[] = []
    for (const payload of [JSON.stringify({ sku: 'a', cents: 5 }), '']) {
      const close = await rawResponder(nats.server.url, 'shop.prices.eu', 'bad name: x\r\n', payload)
      const answer = await client.request('askPrice' as never, { region: 'eu' } as never, { sku: 'a' } as never)
      close()
      outcomes.push(answer.ok ? 'ok' : answer.reason)
    }
    // Without a reply headers schema the first is the contract's answer (its headers are not read);
    // the empty one is not JSON. Neither is a timeout: nats.js read the reply.
    expect(outcomes).toEqual(['ok', 'invalid-response'])
    expect(nc.isClosed()).toBe(false)
  })

  it('a MsgHdrs given to publish is checked as it will be sent', () => {
    const client = bindContract(module, nc, { allowOlderServer: true })
    const h = natsHeaders()
    h.set('traceId', '0a1b2c3d')
    expect(() =>
      client.publish('noteOrder' as never, { region: 'eu', orderId: '0a1b2c3d' } as never, { text: 'hi' } as never, { headers: h } as never),
    ).not.toThrow()
  })
})
