/**
 * Outside hostile pass on the runtime generated modules and apps use: the HTTP sender, the local
 * sender, the drift checks and the payload validators of generated topic clients. Every service is
 * a real node:http (or raw TCP) server on 127.0.0.1, one per test, that misbehaves on purpose.
 * Everything is imported as a user imports it (the package by name); generated modules, the probe
 * contract and child scripts are written under test/.tmp/probe-http-runtime/.
 *
 * Each test is either "Holds (pinned)": the behaviour as it is, kept; or "Was a defect (fixed)": written to fail
 * while the defect is there. No timing assertions: every wait is bounded (`bounded`, the test's own
 * timeout), and a hang is a failure.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { createServer as createTcpServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { Readable, type Transform } from 'node:stream'
import { pathToFileURL } from 'node:url'
import zlib from 'node:zlib'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile } from 'unplugin-contracts'
import { createLocalSender, type MessageSender } from 'unplugin-contracts/runtime'
import { checkDrift, checkHealthDrift } from 'unplugin-contracts/runtime/drift'
import { createHttpSender } from 'unplugin-contracts/runtime/http'
import { bounded } from './helpers/bounded.js'
import { DEFAULT_TIMEOUT_MS, timerDelay } from '../src/runtime/shared/bounded-fetch.js'

const dir = join(import.meta.dirname, '.tmp/probe-http-runtime')
const paymentsPath = join(import.meta.dirname, '../fixtures/benzene/valid/payments.spec.json')
const paymentsText = readFileSync(paymentsPath, 'utf8')
const MiB = 1024 * 1024

/** A contract whose topics exercise the validators: a recursive object, a map, a pattern, an int32 list, anything. */
const PROBE_SPEC = {
  openapi: '3.0.1',
  info: { title: 'probe-api', description: '', version: '' },
  messageEndpoint: '/benzene/invoke',
  requests: [
    { topic: 'probe:node', request: { $ref: '#/components/schemas/Node' }, response: { $ref: '#/components/schemas/Node' } },
    { topic: 'probe:map', request: { $ref: '#/components/schemas/Map' }, response: { $ref: '#/components/schemas/Map' } },
    { topic: 'probe:text', request: { $ref: '#/components/schemas/Text' }, response: { $ref: '#/components/schemas/Text' } },
    { topic: 'probe:list', request: { $ref: '#/components/schemas/List' }, response: { $ref: '#/components/schemas/List' } },
    { topic: 'probe:any', request: { $ref: '#/components/schemas/Anything' }, response: { $ref: '#/components/schemas/Anything' } },
  ],
  events: [],
  components: {
    schemas: {
      Node: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string' },
          n: { type: 'number', nullable: true },
          tags: { type: 'array', items: { type: 'string' }, nullable: true },
          child: { $ref: '#/components/schemas/Node' },
        },
        additionalProperties: false,
      },
      Map: { type: 'object', additionalProperties: { type: 'string' } },
      Text: {
        type: 'object',
        required: ['s'],
        properties: { s: { type: 'string', pattern: '^(a|aa)+$' }, free: { type: 'string' } },
        additionalProperties: false,
      },
      List: { type: 'array', items: { type: 'integer', format: 'int32' } },
      Anything: {},
    },
  },
}

let count = 0
async function loadCompiled(path: string, name: string): Promise<{ file: string; module: Record<string, any> }> {
  const result = await compile(path)
  expect(result.diagnostics.filter((d: { severity?: string }) => d.severity === 'error')).toEqual([])
  const file = join(dir, `${name}-${process.pid}-${count++}.mjs`)
  writeFileSync(file, result.code!)
  return { file, module: await import(pathToFileURL(file).href) }
}

let payments: Record<string, any>
let probe: Record<string, any>
let probeFile: string

beforeAll(async () => {
  mkdirSync(dir, { recursive: true })
  const specPath = join(dir, 'probe.spec.json')
  writeFileSync(specPath, JSON.stringify(PROBE_SPEC, null, 2))
  payments = (await loadCompiled(paymentsPath, 'payments')).module
  const loaded = await loadCompiled(specPath, 'probe')
  probe = loaded.module
  probeFile = loaded.file
})

// ---------------------------------------------------------------------------------------------
// Servers: one per test, closed with every connection it holds.

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void
interface Served {
  url: string
  requests: Array<{ method: string; url: string; body: string; headers: IncomingMessage['headers'] }>
}

async function withServer<T>(handler: Handler, run: (served: Served) => Promise<T>): Promise<T> {
  const requests: Served['requests'] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      requests.push({ method: req.method!, url: req.url!, body, headers: req.headers })
      handler(req, res, body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    return await run({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests })
  } finally {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
}

/** A TCP server that answers the first bytes of a request with whatever the test writes on the socket. */
async function withRawServer<T>(answer: (socket: Socket) => void, run: (url: string) => Promise<T>): Promise<T> {
  const sockets = new Set<Socket>()
  const server = createTcpServer((socket) => {
    sockets.add(socket)
    socket.on('error', () => {})
    socket.on('close', () => sockets.delete(socket))
    socket.once('data', () => answer(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    return await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
  } finally {
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => server.close(resolve))
  }
}

const envelope = (payload: unknown, statusCode: string | number = 'ok') =>
  JSON.stringify({ statusCode, isSuccessful: true, headers: {}, body: JSON.stringify(payload) })
const json =
  (text: string | Buffer, headers: Record<string, string> = { 'content-type': 'application/json' }): Handler =>
  (_req, res) =>
    void res.writeHead(200, headers).end(text)
const sender = (url: string, options: Partial<Parameters<typeof createHttpSender>[0]> = {}) =>
  createHttpSender({ baseUrl: url, endpoint: '/benzene/invoke', timeoutMs: 3000, ...options })
const send = (s: MessageSender, request: unknown = { a: 1 }) => bounded('send', s.send('t:x', request), 5000)

/** Writes `total` bytes of `byte` with backpressure, stopping when the client goes away; `written()` says how far it got. */
function pump(res: ServerResponse, total: number, byte = 0x20) {
  let written = 0
  let closed = false
  const chunk = Buffer.alloc(64 * 1024, byte)
  res.on('close', () => (closed = true))
  const step = () => {
    while (!closed && written < total) {
      written += chunk.length
      if (!res.write(chunk)) return void res.once('drain', step)
    }
    if (!closed) res.end()
  }
  step()
  return () => written
}

/** `total` zero bytes, produced only as fast as they are read. */
function zeros(total: number) {
  let produced = 0
  const chunk = Buffer.alloc(64 * 1024)
  const stream = new Readable({
    read() {
      if (produced >= total) return void this.push(null)
      produced += chunk.length
      this.push(chunk)
    },
  })
  return { stream, produced: () => produced }
}

// ---------------------------------------------------------------------------------------------

describe('bodies the service never ends, or ends too late', () => {
  it('an endless chunked body is cut at maxBodyBytes (default 4 MiB) and the rest never read', async () => {
    // Holds (pinned): an `unexpected-error` naming the limit; the server was stopped long before 256 MiB.
    let written = () => 0
    const result = await withServer(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' })
        written = pump(res, 256 * MiB)
      },
      (s) => send(sender(s.url)),
    )
    expect(result).toMatchObject({ status: 'unexpected-error', isSuccessful: false, isTransient: false })
    expect(result.errors[0]!.message).toContain('larger than 4194304 bytes')
    expect(written()).toBeLessThan(64 * MiB)
  })

  it('a declared Content-Length of 200 MB is refused without waiting for the body', async () => {
    // Holds (pinned): the server sends the header and one byte, then nothing; the answer is refused at once.
    const result = await withServer(
      (_req, res) => {
        res.writeHead(200, { 'content-length': String(200_000_000) })
        res.write('{')
      },
      (s) => send(sender(s.url, { timeoutMs: 4000 })),
    )
    expect(result).toMatchObject({ status: 'unexpected-error', isSuccessful: false })
    expect(result.errors[0]!.message).toContain('larger than 4194304 bytes')
  })

  it('a body dripping one byte a second: timeoutMs covers the body, not only the headers', async () => {
    // Holds (pinned): headers at once, then a byte a second; at timeoutMs the call is a transient `timeout`.
    const result = await withServer(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.write('{')
        const timer = setInterval(() => res.write(' '), 1000)
        res.on('close', () => clearInterval(timer))
      },
      (s) => send(sender(s.url, { timeoutMs: 300 })),
    )
    expect(result).toMatchObject({ status: 'timeout', isSuccessful: false, isTransient: true })
    expect(result.errors[0]!.message).toContain('within 300 ms')
  })

  it('without timeoutMs the sender waits 30 s at most; `Infinity` asks for no limit, and a dripping answer then keeps the call waiting', async () => {
    // Was a defect (fixed): a sender built without timeoutMs had no limit at all (against "every wait
    // bounded"); now DEFAULT_TIMEOUT_MS, for drift checks too (docs/runtime.md). With `Infinity`:
    // still pending after 600 ms; closing the connection ends it as a result.
    expect(timerDelay(undefined)).toBe(DEFAULT_TIMEOUT_MS)
    expect(DEFAULT_TIMEOUT_MS).toBe(30_000)
    expect(timerDelay(Infinity)).toBeUndefined()
    await withServer(
      (_req, res) => {
        res.writeHead(200)
        res.write('{')
        const timer = setInterval(() => res.write(' '), 100)
        res.on('close', () => clearInterval(timer))
      },
      async (s) => {
        const pending = createHttpSender({ baseUrl: s.url, endpoint: '/benzene/invoke', timeoutMs: Infinity }).send('t:x', {})
        const state = await Promise.race([pending.then(() => 'settled'), new Promise((resolve) => setTimeout(() => resolve('pending'), 600))])
        expect(state).toBe('pending')
        // The connection is closed by withServer's cleanup; the call then resolves to a failure.
        void pending.then((r) => expect(r.isSuccessful).toBe(false))
      },
    )
  })

  it('an answer that arrives after the timeout fired changes nothing and rejects nothing', async () => {
    // Holds (pinned): `timeout` at 100 ms; the service answers at 400 ms to a request that is gone.
    await withServer(
      (_req, res) => void setTimeout(() => !res.destroyed && res.writeHead(200).end(envelope({ late: true })), 400),
      async (s) => {
        const result = await send(sender(s.url, { timeoutMs: 100 }))
        expect(result).toMatchObject({ status: 'timeout', isTransient: true })
        await new Promise((resolve) => setTimeout(resolve, 500))
        expect(result).toMatchObject({ status: 'timeout' })
      },
    )
  })
})

describe('compression bombs (fetch decompresses on its own)', () => {
  const encoders: Array<[string, () => Transform]> = [
    ['gzip', () => zlib.createGzip({ level: 1 })],
    ['deflate', () => zlib.createDeflate({ level: 1 })],
    ['br', () => zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } })],
  ]

  it.each(encoders)('Content-Encoding %s of 1 GiB of zeros: the decoded bytes count against maxBodyBytes', async (encoding, encoder) => {
    // Holds (pinned): `unexpected-error` past 4 MiB of decoded text; the zeros source was read only
    // as far as the client pulled (far less than its 1 GiB), so memory stayed bounded.
    let produced = () => 0
    const result = await withServer(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding })
        const source = zeros(1024 * MiB)
        produced = source.produced
        const compressed = source.stream.pipe(encoder())
        compressed.pipe(res)
        res.on('close', () => {
          source.stream.destroy()
          compressed.destroy()
        })
      },
      (s) => send(sender(s.url, { timeoutMs: 8000 })),
    )
    expect(result).toMatchObject({ status: 'unexpected-error', isSuccessful: false })
    expect(result.errors[0]!.message).toContain('larger than 4194304 bytes')
    expect(produced()).toBeLessThan(256 * MiB)
  })

  it('a small gzip answer is read; a corrupt one is a transient failure, not a throw', async () => {
    // Holds (pinned): decoded and read like any answer; corrupt data is `service-unavailable` (Z_DATA_ERROR).
    const good = await withServer(json(zlib.gzipSync(envelope({ fine: 1 })), { 'content-encoding': 'gzip' }), (s) => send(sender(s.url)))
    expect(good).toMatchObject({ status: 'ok', payload: { fine: 1 } })
    const corrupt = await withServer(json('definitely not gzip', { 'content-encoding': 'gzip' }), (s) => send(sender(s.url)))
    expect(corrupt).toMatchObject({ status: 'service-unavailable', isSuccessful: false, isTransient: true })
  })
})

describe('what the body says', () => {
  it('a missing or wrong Content-Type does not matter: the envelope is read', async () => {
    // Holds (pinned): no header, text/html and application/octet-stream all read as the envelope.
    for (const headers of [{}, { 'content-type': 'text/html' }, { 'content-type': 'application/octet-stream' }])
      expect(await withServer(json(envelope({ a: 1 }), headers), (s) => send(sender(s.url))), JSON.stringify(headers)).toMatchObject({
        status: 'ok',
        payload: { a: 1 },
      })
  })

  it('invalid UTF-8 and a leading BOM are refused, never read as U+FFFD or skipped', async () => {
    // Was pinned as decoded with U+FFFD replacement and a BOM skipped; a later outside pass found the
    // replacement hands on text the service never sent (RFC 8259, section 8.1: JSON between systems
    // MUST be UTF-8, and senders MUST NOT add a BOM). Now a failure saying so.
    const bytes = Buffer.concat([Buffer.from('{"statusCode":"ok","isSuccessful":true,"body":"\\"a'), Buffer.from([0xff, 0xfe]), Buffer.from('\\""}')])
    const broken = await withServer(json(bytes), (s) => send(sender(s.url)))
    expect(broken).toMatchObject({ status: 'unexpected-error' })
    expect(broken.errors[0].message).toContain('not UTF-8')
    expect(await withServer(json('\ufeff' + envelope({ a: 1 })), (s) => send(sender(s.url)))).toMatchObject({ isSuccessful: false })
  })

  it('__proto__ and constructor in an answer are own members: no pollution, and a closed schema refuses them', async () => {
    // Holds (pinned): the raw sender keeps them as own data; payments.capture (additionalProperties:
    // false) answers `unexpected-error` with `response:additionalProperties`; Object.prototype unchanged.
    const hostile = '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}},"Amount":1}'
    const text = JSON.stringify({ statusCode: 'ok', isSuccessful: true, body: hostile })
    await withServer(json(text), async (s) => {
      const raw = await send(sender(s.url))
      expect(raw).toMatchObject({ status: 'ok' })
      expect(Object.hasOwn(raw.payload as object, '__proto__')).toBe(true)
      const typed = await bounded('capture', payments.capture.send(sender(s.url), { OrderId: 'o', Amount: 1 }), 5000)
      expect(typed).toMatchObject({ status: 'unexpected-error', isSuccessful: false })
      expect(typed.errors.map((e: { code: string }) => e.code)).toContain('response:additionalProperties')
    })
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('duplicate keys: the last one wins, as JSON.parse reads them', async () => {
    // Holds (pinned): `isSuccessful` false then true reads as true; `isSuccessful decides` (docs/runtime.md).
    const text = '{"statusCode":"not-found","isSuccessful":false,"isSuccessful":true,"body":"{\\"Amount\\":1,\\"Amount\\":\\"x\\"}"}'
    await withServer(json(text), async (s) => {
      expect(await send(sender(s.url))).toMatchObject({ status: 'ok', isSuccessful: true, payload: { Amount: 'x' } })
      // Through the client the value last written is the one validated.
      const typed = await bounded('capture', payments.capture.send(sender(s.url), { Amount: 1 }), 5000)
      expect(typed).toMatchObject({ status: 'unexpected-error', errors: [{ path: '/Amount', code: 'response:type' }] })
    })
  })

  it('1e400 and -0: the Infinity JSON.parse makes of 1e400 is refused as no JSON data (`response:json`), typed or untyped; -0 passes', async () => {
    // Holds (pinned): payments.capture's Amount 1e400 is `response:json`; -0 passes. The probe's
    // untyped (`{}`) response refuses it too, as a request carrying Infinity is a `json`
    // validation-error (docs/benzene.md): a response is checked to be JSON data before its validator.
    // (It took the Infinity before responses were checked so.)
    const amount = (text: string) => JSON.stringify({ statusCode: 'ok', isSuccessful: true, body: `{"Amount":${text}}` })
    expect(await withServer(json(amount('1e400')), (s) => bounded('c', payments.capture.send(sender(s.url), { Amount: 1 }), 5000))).toMatchObject({
      status: 'unexpected-error',
      errors: [{ path: '/Amount', code: 'response:json' }],
    })
    const negativeZero = await withServer(json(amount('-0')), (s) => bounded('c', payments.capture.send(sender(s.url), { Amount: 1 }), 5000))
    expect(negativeZero).toMatchObject({ status: 'ok' })
    expect(Object.is(negativeZero.payload.Amount, -0)).toBe(true)
    const untyped = await withServer(json(JSON.stringify({ statusCode: 'ok', isSuccessful: true, body: '1e400' })), (s) =>
      bounded('any', probe.any.send(sender(s.url), 1), 5000),
    )
    expect(untyped).toMatchObject({ status: 'unexpected-error', isSuccessful: false, payload: Infinity, errors: [{ path: '', code: 'response:json' }] })
  })

  it('100,000 levels of nesting: as the envelope, inside the body, unclosed', async () => {
    // Holds (pinned): no stack overflow anywhere; an over-deep envelope is "without a Benzene
    // envelope", an over-deep body (past 1,000 levels) a `response:json` failure: no JSON data a
    // message carries (the validators stop at 256 levels with `response:depth`).
    const deep = '['.repeat(100_000) + ']'.repeat(100_000)
    expect(await withServer(json(deep), (s) => send(sender(s.url)))).toMatchObject({ status: 'unexpected-error', isSuccessful: false })
    expect(await withServer(json('['.repeat(100_000)), (s) => send(sender(s.url)))).toMatchObject({ status: 'unexpected-error' })
    const inBody = JSON.stringify({ statusCode: 'ok', isSuccessful: true, body: deep })
    const typed = await withServer(json(inBody), (s) => bounded('getAll', payments.getAll.send(sender(s.url), {}), 5000))
    expect(typed).toMatchObject({ status: 'unexpected-error', isSuccessful: false, errors: [{ code: 'response:json' }] })
    const chain = '{"name":"n","child":'.repeat(100_000) + '{"name":"leaf"}' + '}'.repeat(100_000)
    const node = await withServer(json(JSON.stringify({ statusCode: 'ok', isSuccessful: true, body: chain })), (s) =>
      bounded('node', probe.node.send(sender(s.url), { name: 'x' }), 5000),
    )
    expect(node).toMatchObject({ status: 'unexpected-error', isSuccessful: false })
    expect(node.errors.map((e: { code: string }) => e.code)).toContain('response:json')
  })

  it('a top-level string, array, null, number or boolean is no envelope', async () => {
    // Holds (pinned): `unexpected-error`, "The service answered without a Benzene envelope.", the text kept as payload.
    for (const text of ['"str"', '[]', 'null', '42', 'true']) {
      const result = await withServer(json(text), (s) => send(sender(s.url)))
      expect(result, text).toMatchObject({ status: 'unexpected-error', isSuccessful: false, payload: text })
      expect(result.errors[0]!.message).toContain('without a Benzene envelope')
    }
  })

  it('an empty or all-whitespace 200 is a success without payload, which a topic client does not check', async () => {
    // Holds (pinned), as documented: "a 204 (no body) takes its status from HTTP", "an answer without
    // an envelope maps its HTTP status" and "A response without a body is not checked". Note: so a
    // 200 with no body reaches payments.capture's caller as `ok` with payload undefined, where the
    // success type says PaymentDto.
    for (const text of ['', '   \n '])
      expect(await withServer(json(text), (s) => bounded('c', payments.capture.send(sender(s.url), { Amount: 1 }), 5000)), JSON.stringify(text)).toEqual({
        status: 'ok',
        isSuccessful: true,
        payload: undefined,
        errors: [],
      })
  })

  it('a statusCode outside the vocabulary does not matter when isSuccessful is a boolean: isSuccessful decides', async () => {
    // Holds (pinned), as documented ("`isSuccessful` decides"): 1e400, 999, "bogus", "__proto__" read
    // as `ok` with true and `unexpected-error` with false; a non-boolean isSuccessful is no envelope.
    for (const statusCode of ['1e400', '999', '"bogus"', '"__proto__"']) {
      for (const [flag, status] of [
        ['true', 'ok'],
        ['false', 'unexpected-error'],
        ['"true"', 'unexpected-error'],
      ] as const) {
        const text = `{"statusCode":${statusCode},"isSuccessful":${flag},"body":"1"}`
        expect((await withServer(json(text), (s) => send(sender(s.url)))).status, text).toBe(status)
      }
    }
  })
})

describe('redirects', () => {
  it.each([301, 302, 303, 307, 308])('%i to another port is a failure naming the status; the other origin receives nothing', async (code) => {
    // Holds (pinned): with redirects 'none' and 'same-origin' alike; the attacker's server gets no request.
    await withServer(json(envelope({ stolen: true })), async (attacker) => {
      for (const redirects of ['none', 'same-origin'] as const) {
        const result = await withServer(
          (_req, res) => void res.writeHead(code, { location: `${attacker.url}/steal` }).end(),
          (s) => send(sender(s.url, { redirects, headers: { 'x-api-key': 'secret' } })),
        )
        expect(result, redirects).toMatchObject({ status: 'unexpected-error', isSuccessful: false })
        expect(result.errors[0]!.message).toContain(`HTTP ${code}`)
      }
      expect(attacker.requests).toEqual([])
    })
  })

  it('to a non-loopback host name, to https on the same host, protocol-relative, backslash and tab spellings: refused', async () => {
    // Holds (pinned): each is another origin (or read as one by some parser); nothing follows, nothing reaches the attacker.
    await withServer(json(envelope({ stolen: true })), async (attacker) => {
      const host = new URL(attacker.url).host
      await withServer(
        (req, res) => {
          const targets: Record<string, string> = {
            '/1': 'http://attacker.invalid/x',
            '/2': `https://${host}/x`,
            '/3': `//${host}/x`,
            '/4': `/\\${host}/x`,
            '/5': `/\t/${host}/x`,
          }
          res.writeHead(307, { location: targets[req.url!] ?? '/' }).end()
        },
        async (s) => {
          for (const endpoint of ['/1', '/2', '/3', '/4', '/5']) {
            const result = await send(createHttpSender({ baseUrl: s.url, endpoint, redirects: 'same-origin', timeoutMs: 3000 }))
            expect(result, endpoint).toMatchObject({ isSuccessful: false })
          }
        },
      )
      expect(attacker.requests).toEqual([])
    })
  })

  it('a same-origin 307 loop ends after a few hops as a failure; 301/302 are never followed', async () => {
    // Holds (pinned): the loop (to itself, and ping-pong) stops after a bounded number of requests (6 here).
    await withServer(
      (req, res) => void res.writeHead(307, { location: req.url === '/a' ? '/b' : '/a' }).end(),
      async (s) => {
        const result = await send(sender(s.url, { redirects: 'same-origin' }))
        expect(result).toMatchObject({ status: 'unexpected-error', isSuccessful: false })
        expect(s.requests.length).toBeLessThanOrEqual(25)
      },
    )
    for (const code of [301, 302]) {
      await withServer(
        (req, res) => (req.url === '/v2' ? void res.writeHead(200).end(envelope({ moved: 1 })) : void res.writeHead(code, { location: '/v2' }).end()),
        async (s) => {
          expect(await send(sender(s.url, { redirects: 'same-origin' }))).toMatchObject({ status: 'unexpected-error' })
          expect(s.requests.map((r) => r.url)).toEqual(['/benzene/invoke'])
        },
      )
    }
  })

  it('a same-origin redirect carrying user:password, without Location or with a broken one is a failure result', async () => {
    // Holds (pinned): the credentials URL is a transient failure from fetch, the others `unexpected-error`.
    await withServer(
      (req, res) => {
        const host = req.headers.host!
        if (req.url === '/userinfo') return void res.writeHead(307, { location: `http://u:p@${host}/v2` }).end()
        if (req.url === '/none') return void res.writeHead(307).end()
        if (req.url === '/broken') return void res.writeHead(307, { location: 'http://[::1' }).end()
        res.writeHead(200).end(envelope({ moved: 1 }))
      },
      async (s) => {
        for (const endpoint of ['/userinfo', '/none', '/broken']) {
          const result = await send(createHttpSender({ baseUrl: s.url, endpoint, redirects: 'same-origin', timeoutMs: 3000 }))
          expect(result, endpoint).toMatchObject({ isSuccessful: false })
        }
        expect(s.requests.map((r) => r.url)).toEqual(['/userinfo', '/none', '/broken'])
      },
    )
  })
})

describe('the connection itself misbehaves (raw TCP)', () => {
  const len = (text: string) => Buffer.byteLength(text)
  const ok = envelope({ a: 1 })

  it('a 101 upgrade nobody asked for, and an unsolicited 100 Continue, are transient failures', async () => {
    // Holds (pinned): `service-unavailable` (UND_ERR_SOCKET), never a hang or a throw.
    for (const answer of [
      'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\ngarbage',
      `HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: ${len(ok)}\r\n\r\n${ok}`,
    ])
      expect(
        await withRawServer(
          (socket) => socket.write(answer),
          (url) => send(sender(url)),
        ),
        answer.slice(0, 12),
      ).toMatchObject({
        status: 'service-unavailable',
        isTransient: true,
      })
  })

  it('a 103 Early Hints before the answer is skipped', async () => {
    // Holds (pinned).
    const answer = `HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: ${len(ok)}\r\n\r\n${ok}`
    expect(
      await withRawServer(
        (socket) => socket.end(answer),
        (url) => send(sender(url)),
      ),
    ).toMatchObject({ status: 'ok', payload: { a: 1 } })
  })

  it('statuses outside 100-599: 600 and 999 are read, 000 and 099 are transient failures', async () => {
    // Holds (pinned): HTTP 600 without envelope is `unexpected-error` naming it; 999 with a success
    // envelope is `ok` (the envelope decides); 000 and 099 fail in the HTTP client (ERR_ASSERTION).
    const at = (code: string, body: string) => `HTTP/1.1 ${code} Weird\r\ncontent-length: ${len(body)}\r\n\r\n${body}`
    const r600 = await withRawServer(
      (socket) => socket.end(at('600', '{}')),
      (url) => send(sender(url)),
    )
    expect(r600).toMatchObject({ status: 'unexpected-error', isSuccessful: false })
    expect(r600.errors[0]!.message).toContain('HTTP 600')
    expect(
      await withRawServer(
        (socket) => socket.end(at('999', ok)),
        (url) => send(sender(url)),
      ),
    ).toMatchObject({ status: 'ok' })
    for (const code of ['000', '099'])
      expect(
        await withRawServer(
          (socket) => socket.end(at(code, '{}')),
          (url) => send(sender(url)),
        ),
        code,
      ).toMatchObject({
        status: 'service-unavailable',
        isSuccessful: false,
      })
  })

  it('a connection reset or closed mid-body is a transient failure', async () => {
    // Holds (pinned): `service-unavailable` (ECONNRESET, UND_ERR_SOCKET).
    for (const end of [(s: Socket) => s.resetAndDestroy(), (s: Socket) => s.end()]) {
      const result = await withRawServer(
        (socket) => {
          socket.write('HTTP/1.1 200 OK\r\ncontent-length: 1000\r\n\r\n{"statusCode"')
          setTimeout(() => end(socket), 30)
        },
        (url) => send(sender(url)),
      )
      expect(result).toMatchObject({ status: 'service-unavailable', isSuccessful: false, isTransient: true })
    }
  })

  it('a 1 MB header, and a header that never ends, are refused by size', async () => {
    // Holds (pinned): `service-unavailable` (UND_ERR_HEADERS_OVERFLOW), not a hang or a memory climb.
    const big = await withRawServer(
      (socket) => socket.end(`HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(MiB)}\r\ncontent-length: 2\r\n\r\n{}`),
      (url) => send(sender(url)),
    )
    expect(big).toMatchObject({ status: 'service-unavailable', isSuccessful: false })
    const endless = await withRawServer(
      (socket) => {
        socket.write('HTTP/1.1 200 OK\r\nx-big: ')
        const timer = setInterval(() => !socket.destroyed && socket.write('a'.repeat(4096)), 5)
        socket.on('close', () => clearInterval(timer))
      },
      (url) => send(sender(url, { timeoutMs: 2000 })),
    )
    expect(endless).toMatchObject({ isSuccessful: false })
  })

  it('a Content-Length shorter than the body: the truncated text is no envelope', async () => {
    // Holds (pinned).
    expect(
      await withRawServer(
        (socket) => socket.end(`HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n${ok}`),
        (url) => send(sender(url)),
      ),
    ).toMatchObject({
      status: 'unexpected-error',
    })
  })
})

describe('the sender called directly, with what an application may pass', () => {
  it('Was a defect (fixed): a request JSON cannot carry (a BigInt, a cycle) makes send() reject instead of resolving to a failure', async () => {
    // Was a defect (fixed): `createHttpSender(...).send('t:x', 1n)` and `send('t:x', cycle)` reject with a TypeError
    // from JSON.stringify ("Do not know how to serialize a BigInt", "Converting circular structure to
    // JSON"). Expected: a failure result (nothing sent), as for every other bad input. Promised by
    // dist/src/runtime/benzene/http.d.ts: "Never throws: timeouts, refused connections and malformed
    // answers are failures." (the `request` parameter is `unknown`), and by the project's rule that a
    // runtime helper answers bad input with a result. A topic client checks requests first, so this
    // reaches applications (and the drift check) that call the sender directly.
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    await withServer(json(envelope(1)), async (s) => {
      for (const request of [1n, cycle]) {
        const outcome = await bounded(
          'send',
          sender(s.url)
            .send('t:x', request)
            .then(
              (result) => ({ resolved: result }),
              (error: unknown) => ({ rejected: String(error) }),
            ),
          5000,
        )
        expect(outcome).toMatchObject({ resolved: { isSuccessful: false } })
      }
      expect(s.requests).toEqual([])
    })
  })

  it('Was a defect (fixed): maxBodyBytes NaN removes the limit: a 24 MiB answer is read whole', async () => {
    // Was a defect (fixed): with `maxBodyBytes: NaN` (a limit parsed from a bad setting) the answer is read to its
    // end: 24 MiB here (256 MiB in a manual run: 621 MB of RSS), and 24 MiB of spaces even come back
    // as `ok`. Expected: the read stays bounded (NaN refused like timeoutMs's NaN, "a negative or NaN
    // value makes every call a bad-request failure that sends nothing", or the default kept). Promised
    // by docs/runtime.md "An answer larger than `maxBodyBytes` is an `unexpected-error` failure; the
    // rest of it is never read." and docs/reliability.md "read answers as a stream up to
    // `maxBodyBytes` (default 4 MiB)". (`maxBodyBytes: -1` fails closed: every answer refused.)
    let written = () => 0
    const result = await withServer(
      (_req, res) => {
        res.writeHead(200)
        written = pump(res, 24 * MiB)
      },
      (s) => send(sender(s.url, { maxBodyBytes: Number.NaN, timeoutMs: 8000 })),
    )
    expect(result.isSuccessful).toBe(false)
    expect(written()).toBeLessThan(12 * MiB)
  })

  it('maxBodyBytes 0 refuses every answer with a body (after sending the request); -1, like a bad timeoutMs, is a bad-request failure and nothing is sent', async () => {
    // Holds (pinned): fails closed.
    await withServer(json(envelope(1)), async (s) => {
      expect(await send(sender(s.url, { maxBodyBytes: 0 }))).toMatchObject({ status: 'unexpected-error' })
      expect(s.requests).toHaveLength(1)
    })
    await withServer(json(envelope(1)), async (s) => {
      expect(await send(sender(s.url, { maxBodyBytes: -1 }))).toMatchObject({ status: 'bad-request' })
      expect(s.requests).toHaveLength(0)
    })
  })

  it('HTTP headers that throw, reject or carry CR/LF are transient failures with no request', async () => {
    // Holds (pinned): `service-unavailable`, nothing sent, no header injected.
    await withServer(json(envelope(1)), async (s) => {
      for (const headers of [
        () => {
          throw new Error('token store down')
        },
        () => Promise.reject(new Error('token store down')),
        { 'x-a': 'a\r\nx-injected: 1' },
        { 'bad name': 'a' },
      ])
        expect(await send(sender(s.url, { headers: headers as never }))).toMatchObject({ isSuccessful: false })
      expect(s.requests).toEqual([])
    })
  })

  it('an unparseable baseUrl or endpoint throws from createHttpSender (outside the documented promise)', () => {
    // Pinned as it is: a TypeError (Invalid URL) at construction, while an endpoint that resolves to
    // another origin makes every call a bad-request failure (docs/runtime.md). No sentence promises
    // either way for a URL that does not parse; noted, not claimed as a defect.
    expect(() => createHttpSender({ baseUrl: 'not a url', endpoint: '/x' })).toThrow(TypeError)
    expect(() => createHttpSender({ baseUrl: 'http://127.0.0.1:9', endpoint: 'http://[::1' })).toThrow(TypeError)
  })
})

// ---------------------------------------------------------------------------------------------

describe('drift checks against a hostile served document', () => {
  const spec = (text: string | Buffer, headers: Record<string, string> = { 'content-type': 'application/json' }): Handler => json(text, headers)
  const drift = (handler: Handler, target: any, options: Record<string, unknown> = {}) =>
    withServer(handler, (s) => bounded('checkDrift', checkDrift(target, { baseUrl: s.url, timeoutMs: 3000, ...options }), 6000))

  it('the real document matches (baseline)', async () => {
    // Holds (pinned).
    expect(await drift(spec(paymentsText), payments.capture)).toMatchObject({ isMatch: true, projection: 'topic-scoped' })
    expect(await drift(spec(paymentsText), payments.contract)).toMatchObject({ isMatch: true, projection: 'whole-service' })
  })

  it('huge (endless, or 200 MB declared) and a gzip bomb: resolves with error at maxBodyBytes', async () => {
    // Holds (pinned): "answered more than 4194304 bytes".
    const endless: Handler = (_req, res) => {
      res.writeHead(200)
      pump(res, 256 * MiB)
    }
    const declared: Handler = (_req, res) => {
      res.writeHead(200, { 'content-length': '200000000' })
      res.write('{')
    }
    const bomb: Handler = (_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' })
      const source = zeros(1024 * MiB)
      const compressed = source.stream.pipe(zlib.createGzip({ level: 1 }))
      compressed.pipe(res)
      res.on('close', () => (source.stream.destroy(), compressed.destroy()))
    }
    for (const handler of [endless, declared, bomb]) {
      const report = await drift(handler, payments.capture, { timeoutMs: 8000 })
      expect(report).toMatchObject({ isMatch: false, clientHash: payments.capture.contractHash })
      expect(report.error).toContain('more than 4194304 bytes')
    }
  })

  it('invalid, empty, not an object, nested 100,000 levels, or an HTTP error: isMatch false with the reason', async () => {
    // Holds (pinned): each resolves, none throws, error filled, no serviceHash.
    const nested = paymentsText.replace('"Void": {', `"Void": {"x":${'['.repeat(100_000)}${']'.repeat(100_000)},`)
    for (const text of ['{"requests": [}', '', 'null', '"x"', '[]', '['.repeat(100_000) + ']'.repeat(100_000), nested]) {
      const report = await drift(spec(text), payments.contract)
      expect(report, text.slice(0, 20)).toMatchObject({ isMatch: false })
      expect(report.error).toBeTypeOf('string')
      expect(report.serviceHash).toBeUndefined()
    }
    for (const code of [404, 500]) {
      const report = await drift((_req, res) => void res.writeHead(code).end(paymentsText), payments.contract)
      expect(report.error).toContain(`HTTP ${code}`)
    }
  })

  it('a different contract is drift with both hashes; __proto__ keys hash as data and pollute nothing', async () => {
    // Holds (pinned).
    const other = JSON.parse(paymentsText)
    other.components.schemas.PaymentDto.properties.Amount.type = 'string'
    const report = await drift(spec(JSON.stringify(other)), payments.capture)
    expect(report).toMatchObject({ isMatch: false, clientHash: payments.capture.contractHash, serviceHash: expect.stringMatching(/^sha256:/) })
    expect(report.serviceHash).not.toBe(payments.capture.contractHash)
    const polluting = paymentsText.replace('"schemas": {', '"schemas": {"__proto__": {"type":"string"},')
    expect(await drift(spec(polluting), payments.contract)).toMatchObject({ isMatch: false, serviceHash: expect.stringMatching(/^sha256:/) })
    expect(({} as Record<string, unknown>).type).toBeUndefined()
  })

  it('duplicate keys in the served document: the last one counts', async () => {
    // Holds (pinned): a second "requests": [] after the real one empties the service (drift); before it, no effect.
    expect(await drift(spec(paymentsText.replace('"components": {', '"requests": [], "components": {')), payments.contract)).toMatchObject({ isMatch: false })
    expect(await drift(spec(paymentsText.replace('"openapi": "3.0.1",', '"requests": [], "openapi": "3.0.1",')), payments.contract)).toMatchObject({
      isMatch: true,
    })
  })

  it('slow: with timeoutMs it resolves with the reason; a redirect to another port is not followed', async () => {
    // Holds (pinned).
    const slow = await drift((_req, res) => void setTimeout(() => !res.destroyed && res.writeHead(200).end(paymentsText), 1500), payments.capture, {
      timeoutMs: 200,
    })
    expect(slow.error).toContain('did not finish within 200 ms')
    await withServer(spec(paymentsText), async (attacker) => {
      for (const redirects of ['none', 'same-origin']) {
        const report = await drift((_req, res) => void res.writeHead(307, { location: `${attacker.url}/benzene/spec` }).end(), payments.contract, { redirects })
        expect(report, redirects).toMatchObject({ isMatch: false })
      }
      expect(attacker.requests).toEqual([])
    })
  })

  it('checkHealthDrift on hostile health answers resolves with error; a __proto__ check is read as data', async () => {
    // Holds (pinned). Note: two checks of type "schema" with different hashes: the first one listed wins.
    const health = (value: unknown) => spec(typeof value === 'string' ? value : JSON.stringify(value))
    const run = (handler: Handler) =>
      withServer(handler, (s) => bounded('health', checkHealthDrift(payments.contract, { baseUrl: s.url, timeoutMs: 3000 }), 6000))
    for (const value of [null, [], { healthChecks: [] }, { healthChecks: { c: { type: 'schema', data: { hashCode: 5 } } } }, '{', 'x'.repeat(100)]) {
      const report = await run(health(value))
      expect(report, JSON.stringify(value).slice(0, 40)).toMatchObject({ isMatch: false })
      expect(report.error).toBeTypeOf('string')
    }
    const big = await run((_req, res) => void res.writeHead(200).end(' '.repeat(5 * MiB)))
    expect(big.error).toContain('more than 4194304 bytes')
    const proto = `{"healthChecks":{"__proto__":{"type":"schema","data":{"hashCode":"${payments.contractHash}"}}}}`
    expect(await run(health(proto))).toMatchObject({ isMatch: true })
    const check = (hashCode: string) => ({ type: 'schema', data: { hashCode } })
    const other = `sha256:${'0'.repeat(64)}`
    expect(await run(health({ healthChecks: { a: check(other), b: check(payments.contractHash) } }))).toMatchObject({ isMatch: false, serviceHash: other })
    expect(await run(health({ healthChecks: { b: check(payments.contractHash), a: check(other) } }))).toMatchObject({ isMatch: true })
  })

  it('over a sender (benzene:spec): a throwing sender, a non-result and non-documents resolve with error', async () => {
    // Holds (pinned): the document as object or JSON string, or {Content: text}, matches; the rest is an error.
    const through = (sender: MessageSender) => bounded('checkDrift', checkDrift(payments.contract, { sender }), 5000)
    for (const bad of [
      {
        send: async () => {
          throw new Error('down')
        },
      },
      {
        send: () => {
          throw new Error('sync')
        },
      },
      { send: async () => null },
    ])
      expect((await through(bad as unknown as MessageSender)).error).toBeTypeOf('string')
    for (const payload of ['not json', 42, null, []])
      expect(await through(createLocalSender({ 'benzene:spec': () => payload })), String(payload)).toMatchObject({ isMatch: false })
    for (const payload of [JSON.parse(paymentsText), paymentsText, { Content: paymentsText }])
      expect(await through(createLocalSender({ 'benzene:spec': () => payload }))).toMatchObject({ isMatch: true })
  })

  it('a target outside the declared type (null, {}) rejects with a TypeError (outside the documented promise)', async () => {
    // Pinned as it is. "checkDrift never rejects" (docs/runtime.md) is stated for served documents;
    // a null target is outside DriftTarget's type, so this is noted, not claimed as a defect. A bad
    // transport (null, {}, an unparseable baseUrl) does resolve with error.
    await expect(checkDrift(null as never, { baseUrl: 'http://127.0.0.1:9' })).rejects.toThrow(TypeError)
    await expect(checkDrift({} as never, { baseUrl: 'http://127.0.0.1:9' })).rejects.toThrow(TypeError)
    for (const transport of [null, {}, { baseUrl: 'not a url' }])
      expect((await bounded('t', checkDrift(payments.contract, transport as never), 5000)).error).toBeTypeOf('string')
  })
})

// ---------------------------------------------------------------------------------------------

describe('payload validators through generated topic clients', () => {
  /** A sender that records what it is given and answers `payload` (a value, or a function of nothing). */
  const stub = (payload: unknown = { name: 'ok' }) => {
    const sent: unknown[] = []
    const s: MessageSender = {
      send: async (_topic, request) => {
        sent.push(request)
        return { status: 'ok', isSuccessful: true, payload, errors: [] } as never
      },
    }
    return { s, sent }
  }
  /** A client call, settled within a bound, as what it was: a resolved result or a rejection. */
  const settle = (promise: Promise<unknown>) =>
    bounded(
      'client.send',
      promise.then(
        (resolved) => ({ resolved }) as { resolved?: any; rejected?: string },
        (error: unknown) => ({ rejected: String(error) }) as { resolved?: any; rejected?: string },
      ),
      5000,
    )

  it('cycles: a request is a `json` validation-error, a response a `response:json` failure', async () => {
    // Holds (pinned): "/child refers back to itself", nothing sent; the response the same, checked before its validator.
    const cycle: Record<string, unknown> = { name: 'c' }
    cycle.child = cycle
    const { s, sent } = stub(cycle)
    expect((await settle(probe.node.send(s, cycle))).resolved).toMatchObject({ status: 'validation-error', errors: [{ code: 'json' }] })
    expect(sent).toEqual([])
    const response = (await settle(probe.node.send(s, { name: 'x' }))).resolved
    expect(response).toMatchObject({ status: 'unexpected-error', isSuccessful: false })
    expect(response.errors[0].code).toBe('response:json')
  })

  const throwingGetter = () => ({
    name: 'x',
    get child(): never {
      throw new Error('getter boom')
    },
  })
  const throwingProxy = () =>
    new Proxy(
      {},
      {
        get: () => {
          throw new Error('trap')
        },
        ownKeys: () => {
          throw new Error('trap')
        },
        getOwnPropertyDescriptor: () => {
          throw new Error('trap')
        },
        getPrototypeOf: () => {
          throw new Error('trap')
        },
        has: () => {
          throw new Error('trap')
        },
      },
    )
  const revokedProxy = () => {
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    return proxy
  }
  const hostileObjects: Array<[string, () => unknown]> = [
    ['a getter that throws', throwingGetter],
    ['a Proxy whose traps throw', throwingProxy],
    ['a revoked Proxy', revokedProxy],
  ]

  it.each(hostileObjects)('Was a defect (fixed): a request holding %s made client.send() reject', async (_name, make) => {
    // Was a defect (fixed): `probe.node.send(sender, value)` rejects with the getter's or trap's error ("getter
    // boom", "trap", "Cannot perform 'getPrototypeOf' on a proxy that has been revoked"). Expected: a
    // `validation-error` (code `json`) and nothing sent. Promised by the TopicClient.send doc
    // (dist/src/runtime/benzene/client.d.ts): "An invalid request is never sent: it resolves to a
    // `validation-error` failure ... Never rejects", and docs/benzene.md "The request is serialized
    // once and the value that JSON text parses back to is what is validated".
    const { s, sent } = stub()
    const outcome = await settle(probe.node.send(s, make()))
    expect(outcome).toMatchObject({ resolved: { status: 'validation-error', isSuccessful: false } })
    expect(sent).toEqual([])
  })

  it.each(hostileObjects)('Was a defect (fixed): a sender answering a payload holding %s made client.send() reject', async (_name, make) => {
    // Was a defect (fixed): when a MessageSender (an in-process transport) answers a success whose payload has a
    // throwing getter or is a throwing or revoked Proxy, the response validator's read throws and
    // `send()` rejects. Expected: an `unexpected-error` failure. Promised by TopicClient.send
    // (client.d.ts): "Never rejects: a sender that throws or returns something that is not a result
    // gives `unexpected-error`", and docs/runtime.md "Both answer any value in time bounded by ...".
    const { s } = stub(make())
    const outcome = await settle(probe.node.send(s, { name: 'x' }))
    expect(outcome).toMatchObject({ resolved: { isSuccessful: false } })
  })

  it('frozen objects pass; class instances, Maps and Sets are refused as `json`; a null-prototype object passes', async () => {
    // Holds (pinned): "(payload) is not a plain object or array".
    const { s } = stub(Object.freeze({ name: 'y' }))
    expect((await settle(probe.node.send(s, Object.freeze({ name: 'x', tags: Object.freeze(['a']) })))).resolved).toMatchObject({ status: 'ok' })
    class Named {
      name = 'x'
    }
    for (const value of [new Named(), new Map([['name', 'x']])])
      expect((await settle(probe.node.send(s, value))).resolved).toMatchObject({ status: 'validation-error', errors: [{ code: 'json' }] })
    expect((await settle(probe.list.send(stub([1]).s, new Set([1])))).resolved).toMatchObject({ status: 'validation-error', errors: [{ code: 'json' }] })
    expect((await settle(probe.node.send(s, Object.assign(Object.create(null), { name: 'x' })))).resolved).toMatchObject({ status: 'ok' })
  })

  it('Symbols, BigInt, functions and undefined in arrays: refused in requests and in responses as no JSON data', async () => {
    // Holds (pinned): a request with a Symbol, BigInt, function or undefined where JSON cannot carry it
    // is `json` (never rewritten to null); a Symbol key is dropped (JSON has none). Responses are
    // `response:json` the same way; a Symbol key of a response is not looked at.
    const { s, sent } = stub()
    for (const request of [
      { name: Symbol('s') },
      { name: 'x', n: 1n },
      { name: 'x', tags: [Symbol('s')] },
      { name: 'x', tags: [undefined] },
      { name: 'x', tags: [() => 1] },
    ])
      expect((await settle(probe.node.send(s, request))).resolved).toMatchObject({ status: 'validation-error', errors: [{ code: 'json' }] })
    expect(sent).toEqual([])
    expect((await settle(probe.node.send(s, { name: 'x', [Symbol('k')]: 1 }))).resolved).toMatchObject({ status: 'ok' })
    expect(sent).toEqual([{ name: 'x' }])
    for (const payload of [{ name: Symbol('s') }, { name: 'x', n: 1n }])
      expect((await settle(probe.node.send(stub(payload).s, { name: 'x' }))).resolved).toMatchObject({
        status: 'unexpected-error',
        errors: [{ code: 'response:json' }],
      })
    expect((await settle(probe.list.send(stub([1n]).s, [1]))).resolved).toMatchObject({ status: 'unexpected-error', errors: [{ code: 'response:json' }] })
  })

  it('a response sharing one member at every level of a 40-level chain (2^40 paths) is refused past its value bound, not walked path by path', async () => {
    // Was a defect (fixed) with the sparse array below: the validator followed every path. Now a
    // response is walked as JSON data first, to at most 16,000,000 values (docs/benzene.md).
    let wide: unknown = 1
    for (let i = 0; i < 40; i++) wide = [wide, wide]
    const result = (await settle(probe.any.send(stub(wide).s, 1))).resolved
    expect(result).toMatchObject({
      status: 'unexpected-error',
      errors: [{ code: 'response:json', message: expect.stringContaining('is past 16000000 values') }],
    })
  })

  it('sparse arrays: a request hole (even at 2^32 - 2) is `json`; a small response hole is `response:json`', async () => {
    // Holds (pinned).
    const huge: unknown[] = []
    huge.length = 2 ** 32 - 1
    const holey = (): unknown[] => {
      const a: unknown[] = [1]
      a[2] = 3
      return a
    }
    const { s, sent } = stub(holey())
    expect((await settle(probe.list.send(s, holey()))).resolved).toMatchObject({ status: 'validation-error', errors: [{ code: 'json' }] })
    expect((await settle(probe.list.send(s, huge))).resolved).toMatchObject({ status: 'validation-error', errors: [{ code: 'json' }] })
    expect(sent).toEqual([])
    expect((await settle(probe.list.send(s, [1]))).resolved).toMatchObject({ status: 'unexpected-error', errors: [{ path: '/1', code: 'response:json' }] })
  })

  it('Was a defect (fixed): a response that is a sparse array of 2^32 - 1 slots crashes the process (heap out of memory)', async () => {
    // Was a defect (fixed): a MessageSender answering `payload: a` with `a.length = 2 ** 32 - 1` (no elements) to
    // probe:list (int32 items): the response validator walks every slot and its memory grows with the
    // slots (measured: 2^20 slots 1.0 s and +123 MB of heap, 2^22 3.6 s and +523 MB, 2^24 11.3 s and
    // +2 GB), so the process dies with "JavaScript heap out of memory" (a 4 GB heap died the same way).
    // Run in a child with a 160 MB heap and an 8 s bound so the test process survives. Expected: a
    // failure result (the request direction refuses the same array at once). Promised by
    // docs/reliability.md "**Validators cannot be crashed by data.**" and docs/runtime.md "Both answer
    // any value in time bounded by schema size x data size"; the DASP helpers refuse "a sparse array of
    // 2^32 - 1 slots" (docs/reliability.md).
    const child = join(dir, `sparse-child-${process.pid}.mjs`)
    writeFileSync(
      child,
      `const m = await import(${JSON.stringify(pathToFileURL(probeFile).href)})
const a = []; a.length = 2 ** 32 - 1
const result = await m.list.send({ send: async () => ({ status: 'ok', isSuccessful: true, payload: a, errors: [] }) }, [1])
process.stdout.write(JSON.stringify({ status: result.status, isSuccessful: result.isSuccessful }))
`,
    )
    const outcome = await new Promise<{ code: number | null; signal: string | null; stdout: string }>((resolve) => {
      const proc = spawn(process.execPath, ['--max-old-space-size=160', child], { stdio: ['ignore', 'pipe', 'pipe'] })
      let stdout = ''
      proc.stdout.on('data', (c: Buffer) => (stdout += c))
      proc.stderr.resume()
      const timer = setTimeout(() => proc.kill('SIGKILL'), 8000)
      proc.on('close', (code, signal) => {
        clearTimeout(timer)
        resolve({ code, signal, stdout })
      })
    })
    expect(outcome).toMatchObject({ code: 0, signal: null })
    expect(JSON.parse(outcome.stdout || 'null')).toEqual({ status: 'unexpected-error', isSuccessful: false })
  }, 15_000)

  it('lone surrogates: refused before anything is sent, as JSON data no UTF-8 text carries', async () => {
    // Was pinned as accepted by `type: string` and sent escaped (\\ud800); a later outside pass found the
    // targets disagree on it (the Rust target refuses it), and RFC 8259 (section 8.2) leaves its reading
    // unpredictable: the sender now refuses it (code json), whatever the schema says.
    const { s, sent } = stub({ name: 'x' })
    const result = (await settle(probe.node.send(s, { name: 'a\ud800b' }))).resolved
    expect(result).toMatchObject({ status: 'validation-error', errors: [{ code: 'json', path: '/name' }] })
    expect(sent).toEqual([])
    expect((await settle(probe.text.send(stub().s, { s: 'a\ud800' }))).resolved).toMatchObject({ status: 'validation-error' })
  })

  it('10 MB strings: accepted by `type: string`, undecided (not frozen) on the linear-engine pattern', async () => {
    // Holds (pinned): the pattern error carries "could not be evaluated on this value within its step
    // budget" both ways (docs/runtime.md: past about a million steps a value is not matched).
    const ten = 'a'.repeat(10 * MiB)
    const { s, sent } = stub({ name: ten })
    expect((await settle(probe.node.send(s, { name: ten }))).resolved).toMatchObject({ status: 'ok' })
    expect((sent[0] as { name: string }).name).toHaveLength(10 * MiB)
    const request = (await settle(probe.text.send(s, { s: ten }))).resolved
    expect(request).toMatchObject({ status: 'validation-error', errors: [{ code: 'pattern' }] })
    expect(request.errors[0].message).toContain('step budget')
    const response = (await settle(probe.text.send(stub({ s: ten }).s, { s: 'a' }))).resolved
    expect(response).toMatchObject({ status: 'unexpected-error', errors: [{ code: 'response:pattern' }] })
  })

  it('100,000 keys: at most 100 errors (MAX_ERRORS), both directions', async () => {
    // Holds (pinned): 100,000 additional members give exactly 100 errors, both directions.
    // Cost, n = 10,000 keys against 10n = 100,000, measured once by the outside pass (median of 5
    // standalone runs; timings belong in bench/, not in a test): request direction (serialize, parse
    // back, validate) map 15.6x, node 18.1x, where JSON.parse(JSON.stringify(v)) alone on the same
    // values is 14.7-23.8x (the floor it scales with: V8's large dictionary objects and GC); response
    // direction (the validator alone, no JSON) map 7.6x, node (every key refused, 100 errors kept)
    // 13.4x: no superlinear step.
    const keys = (n: number, extra: Record<string, unknown> = {}) => ({ ...extra, ...Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v'])) })
    const { s } = stub({})
    const node = (await settle(probe.node.send(s, keys(100_000, { name: 'x' })))).resolved
    expect(node.status).toBe('validation-error')
    expect(node.errors).toHaveLength(100)
    const response = (await settle(probe.node.send(stub(keys(100_000, { name: 'x' })).s, { name: 'x' }))).resolved
    expect(response.errors).toHaveLength(100)
  })
})

describe('the local sender', () => {
  it('topics without a handler (including __proto__, constructor, toString) are not-implemented', async () => {
    // Holds (pinned), as documented.
    const local = createLocalSender({ 'a:b': () => 1 })
    for (const topic of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'a:c'])
      expect(await bounded('local', local.send(topic, {}), 2000), topic).toMatchObject({ status: 'not-implemented', isSuccessful: false })
  })

  it('a handler that throws or answers what JSON cannot carry: a failure through a topic client', async () => {
    // Holds (pinned) through the client: `unexpected-error` naming the local handler. The local
    // sender's own send() resolves too (it rejected on these, and on a cyclic or BigInt request:
    // now `unexpected-error` and `validation-error`, docs/runtime.md, The local sender). A bogus
    // status is `unexpected-error` naming it. A NaN or an invalid Date answered crosses JSON as null,
    // "as they would on a wire".
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    const local = createLocalSender({
      'probe:node': () => {
        throw new Error('handler boom')
      },
      'probe:map': async () => Promise.reject(new Error('async boom')),
      'probe:list': () => cycle,
      'probe:any': () => 5n,
      'probe:text': () => ({ status: 'bogus', isSuccessful: true }),
    })
    const call = (client: any, request: unknown) => bounded('client', client.send(local, request), 2000) as Promise<any>
    expect(await call(probe.node, { name: 'x' })).toMatchObject({
      status: 'unexpected-error',
      errors: [{ message: 'The local handler for topic "probe:node" failed: handler boom' }],
    })
    expect(await call(probe.map, {})).toMatchObject({ status: 'unexpected-error' })
    expect(await call(probe.list, [1])).toMatchObject({ status: 'unexpected-error' })
    expect(await call(probe.any, 1)).toMatchObject({ status: 'unexpected-error' })
    expect((await call(probe.text, { s: 'a' })).errors[0].message).toContain('"bogus"')
    expect(await local.send('probe:node', {})).toMatchObject({ status: 'unexpected-error', errors: [{ message: expect.stringContaining('handler boom') }] })
    expect(await local.send('probe:list', {})).toMatchObject({ status: 'unexpected-error' })
    expect(await local.send('probe:node', cycle)).toMatchObject({ status: 'validation-error', errors: [{ code: 'json' }] })
    expect(await local.send('probe:node', { n: 1n })).toMatchObject({ status: 'validation-error', errors: [{ code: 'json' }] })
    const wire = createLocalSender({ 'x:y': () => ({ at: new Date(Number.NaN), n: Number.NaN }) })
    expect(await wire.send('x:y', {})).toMatchObject({ status: 'ok', payload: { at: null, n: null } })
  })
})
