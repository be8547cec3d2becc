/**
 * The overlay of an invalid contract, shown by a page that connects after Vite sent it. Vite sends a
 * module's error to the pages connected at that moment (and keeps it for later only when none is).
 * A save reloads the page: the new page requests the contract's module while the page it replaces
 * may still be connected and its own socket not yet, so the error goes to the page that left and
 * the new one shows no overlay (seen on a loaded machine: the module answered 500, the new page
 * connected 30 ms later, no overlay). So the last error of this plugin's modules is sent again to
 * each page that connects, until a contract changes, one of its modules is served or a page's HTML
 * is served (the page loaded then requests its modules again: a broken one fails again and its error
 * is the one kept; a page that imports no broken contract gets none).
 */

/** What this needs of the client environment's hot channel (Vite's `NormalizedHotChannel`). */
export interface HotChannelLike {
  send(...args: unknown[]): void
  on(event: 'vite:client:connect', listener: (data: unknown, client: { send(payload: unknown): void }) => void): void
}

export interface ErrorReplay {
  /** A contract changed or a module was served: the error sent last is no longer the page's to show. */
  reset(): void
}

const isPluginError = (payload: unknown, plugin: string): boolean =>
  typeof payload === 'object' &&
  payload !== null &&
  (payload as { type?: unknown }).type === 'error' &&
  (payload as { err?: { plugin?: unknown } }).err?.plugin === plugin

export function replayErrors(hot: HotChannelLike, plugin: string): ErrorReplay {
  let last: unknown
  const send = hot.send.bind(hot)
  hot.send = (...args: unknown[]) => {
    if (isPluginError(args[0], plugin)) last = args[0]
    send(...args)
  }
  hot.on('vite:client:connect', (_data, client) => {
    if (last !== undefined) client.send(last)
  })
  return {
    reset() {
      last = undefined
    },
  }
}
