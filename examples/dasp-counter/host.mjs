// A small DASP-style host for the example: it answers a session setup and, later, offers the
// extensions it would resume a session with. Over HTTP on 127.0.0.1, in memory; the query string
// makes it misbehave the ways a client must notice (all of them are asked for by src/main.ts).
//   POST /setup            the selection request -> { confirmed } (exactly the request;
//                          ?alter=rekey confirms a longer rekey interval than asked)
//   GET  /offer?request=.. the selection the host offers to resume with (?drop=<uri> leaves an
//                          extension out, ?rekey=<s> or ?cipher=<c> change a setting, ?version=<v> another version)
import { createServer } from 'node:http'

const MAX_BODY = 64 * 1024

/** Starts the host on 127.0.0.1 (port 0: any free port) and resolves to { url, close }. */
export async function startHost(port = 0) {
  /** The last confirmed selection: what the host resumes from. */
  let session
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://host')
    const reply = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    if (req.method === 'POST' && url.pathname === '/setup') {
      let text = ''
      for await (const chunk of req) {
        text += chunk
        if (text.length > MAX_BODY) return reply(413, { error: 'too large' })
      }
      const request = JSON.parse(text)
      const confirmed = structuredClone(request)
      if (url.searchParams.get('alter') === 'rekey') confirmed.extensions[0].settings.rekey_interval_s *= 2
      else session = confirmed
      return reply(200, { confirmed })
    }
    if (req.method === 'GET' && url.pathname === '/offer') {
      if (!session) return reply(409, { error: 'no session' })
      const offered = structuredClone(session)
      const drop = url.searchParams.get('drop')
      if (drop) offered.extensions = offered.extensions.filter((e) => e.uri !== drop)
      const rekey = url.searchParams.get('rekey')
      if (rekey) offered.extensions[0].settings.rekey_interval_s = Number(rekey)
      const cipher = url.searchParams.get('cipher')
      if (cipher) offered.extensions[0].settings.cipher = cipher
      const version = url.searchParams.get('version')
      if (version) offered.extensions[0].version = version
      return reply(200, { offered })
    }
    reply(404, { error: 'not found' })
  })
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((resolve) => server.close(resolve)) }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const host = await startHost(Number(process.env.PORT ?? 3100))
  console.log(`DASP host listening on ${host.url}`)
}
