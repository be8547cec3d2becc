/** Where Debian's Chromium is, and how the tests start it (no vitest import: the global setup reads it too). */
import { existsSync } from 'node:fs'

export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p))
if (!CHROMIUM) console.warn('\n*** chromium is not installed: the browser tests are SKIPPED (apt-get install chromium; .ci/run does) ***\n')

/**
 * The launch arguments: no sandbox (the tests run as root, where Chromium's sandbox cannot start)
 * and no GPU process (on a machine without a GPU it rasterizes in software, SwiftShader, for pages
 * that draw nothing a test reads from pixels: the four browser files took about a tenth less
 * processor time and a third less time on the clock without it).
 */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu']
