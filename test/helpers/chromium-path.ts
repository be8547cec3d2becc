/** Where Debian's Chromium is, and how the tests start it (no vitest import: the global setup reads it too). */
import { existsSync } from 'node:fs'

/**
 * Chromium's headless shell (Debian's `chromium-headless-shell`, which `.ci/run` installs) when it
 * is there: the same Blink and V8 as `chromium`, built for headless use without the browser's own
 * layers, as Playwright runs headless Chromium by default. On the 2-core machine a launch with six
 * pages (layout, text measuring, screenshots) took 4.3 to 4.8 CPU seconds against 7.7 to 9.1 with
 * the full browser, and the ten browser test files 62.9, 63.7 and 67.0 against 77.6, 71.2 and 70.9
 * (alternated, the same tests passing). The full browser where only it is installed.
 */
const CANDIDATES = ['/usr/lib/chromium/chromium-headless-shell', '/usr/bin/chromium-headless-shell', '/usr/bin/chromium', '/usr/bin/chromium-browser']

export const CHROMIUM = CANDIDATES.find((p) => existsSync(p))
if (!CHROMIUM) console.warn('\n*** chromium is not installed: the browser tests are SKIPPED (apt-get install chromium-headless-shell; .ci/run does) ***\n')

/** The launch arguments (the tests run as root, where Chromium's sandbox cannot start). */
export const CHROMIUM_ARGS = ['--no-sandbox']
