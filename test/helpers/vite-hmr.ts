/** A page's HMR connection to a Vite dev server, as the client Vite injects makes it (loopback only). */
import type { ViteDevServer } from 'vite'
import WebSocket from 'ws'

/** A socket to `server`'s HMR endpoint with Vite's token and subprotocol (not yet open). */
export function hmrSocket(server: ViteDevServer): WebSocket {
  const port = (server.httpServer!.address() as { port: number }).port
  return new WebSocket(`ws://127.0.0.1:${port}/?token=${server.config.webSocketToken}`, 'vite-hmr')
}

/**
 * The messages a page that connects now gets, up to Vite's `connected` (sent after what a new page
 * is owed: a replayed error), waited for at most `boundMs`; the socket is closed after.
 */
export async function connectedMessages(server: ViteDevServer, boundMs = 10_000): Promise<Array<{ type: string; [key: string]: any }>> {
  const socket = hmrSocket(server)
  const got: Array<{ type: string; [key: string]: any }> = []
  try {
    await new Promise<void>((resolve, reject) => {
      socket.on('message', (data) => {
        got.push(JSON.parse(String(data)))
        if (got.at(-1)!.type === 'connected') resolve()
      })
      socket.once('error', reject)
      setTimeout(() => reject(new Error(`no connected message in ${boundMs} ms`)), boundMs).unref()
    })
  } finally {
    socket.close()
  }
  return got
}
