import type { Page } from 'playwright-core'

/**
 * A full-page screenshot for a person to look at (test/.tmp/screenshots/), taken only when
 * `CONTRACTS_SCREENSHOTS=1`: it asserts nothing, costs a rendering of the whole page, and on a busy
 * machine waiting for it was the one thing that timed out in the browser tests.
 */
export async function screenshot(page: Page, path: string): Promise<void> {
  if (process.env.CONTRACTS_SCREENSHOTS !== '1') return
  await page.screenshot({ path, fullPage: true })
}
