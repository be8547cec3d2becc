/**
 * One Chromium for the whole run: vitest's global setup starts it (a Playwright browser server on
 * loopback) and hands its endpoint to the test files, whose `launchChromium()` connects to it. A
 * launch costs about 3 CPU seconds and as long on the clock; a dozen files each launching their own
 * was a sixth of the suite's browser time. Each test still gets pages in contexts of its own, and
 * closing its `Browser` closes them and disconnects, never the shared process.
 *
 * Vitest runs a global setup once for each project of the run and once more for the root: the
 * first call launches the browser, the others share it (kept on `globalThis`, since each project may
 * load this module anew), and the last teardown closes it. Launched per call, a full run started
 * six browsers and used one.
 */
import { chromium, type BrowserServer } from 'playwright-core'
import type { TestProject } from 'vitest/node'
import { CHROMIUM, CHROMIUM_ARGS } from './helpers/chromium-path.js'

const SHARED = Symbol.for('unplugin-contracts.test.chromium')
interface Shared {
  server: Promise<BrowserServer>
  users: number
}
const held = globalThis as { [SHARED]?: Shared }

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!CHROMIUM) return undefined
  const shared = (held[SHARED] ??= { server: chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, host: '127.0.0.1' }), users: 0 })
  shared.users++
  project.provide('chromiumEndpoint', (await shared.server).wsEndpoint())
  return async () => {
    if (--shared.users > 0) return
    delete held[SHARED]
    await (await shared.server).close()
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared Chromium's Playwright endpoint (`ws://127.0.0.1:...`), when Chromium is installed. */
    chromiumEndpoint: string | undefined
  }
}
