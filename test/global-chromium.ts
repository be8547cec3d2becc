/**
 * One Chromium for the whole run: vitest's global setup starts it (a Playwright browser server on
 * loopback) and hands its endpoint to the test files, whose `launchChromium()` connects to it. A
 * launch costs about 3 CPU seconds and as long on the clock; a dozen files each launching their own
 * was a sixth of the suite's browser time. Each test still gets pages in contexts of its own, and
 * closing its `Browser` closes them and disconnects, never the shared process.
 */
import { chromium } from 'playwright-core'
import type { TestProject } from 'vitest/node'
import { CHROMIUM, CHROMIUM_ARGS } from './helpers/chromium-path.js'

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!CHROMIUM) return undefined
  const server = await chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, host: '127.0.0.1' })
  project.provide('chromiumEndpoint', server.wsEndpoint())
  return () => server.close()
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared Chromium's Playwright endpoint (`ws://127.0.0.1:...`), when Chromium is installed. */
    chromiumEndpoint: string | undefined
  }
}
