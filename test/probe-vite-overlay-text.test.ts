/**
 * The Vite dev loop in real Chromium, with a contract whose error carries markup from the document:
 * a `$ref` naming `<img src=x onerror=...>` and a `<script>` in the frame's line. The overlay shows
 * it as text, on the page that saw the save and on a page opened after it (which gets the error
 * when its own request for the module fails, or as the error sent again to a page that connects
 * late): no element made from it, no script run.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHROMIUM } from './helpers/chromium.js'
import { openDevLoop, type DevLoop } from './helpers/dev-loop.js'

const MARKUP = `<img src=x onerror=window.__pwned=1><script>window.__pwned=2</script>`

describe.skipIf(!CHROMIUM)('the overlay shows markup from the document as text (Chromium)', () => {
  let loop: DevLoop
  beforeAll(async () => {
    loop = await openDevLoop(join(import.meta.dirname, '.tmp', `probe-vite-overlay-text-${process.pid}`))
  }, 60_000)
  afterAll(() => loop?.close())

  it('on the page that saved, and on a page opened after the error', async () => {
    const { page } = loop
    const ref = `"#/components/schemas/PaymentDto"`
    expect(loop.original).toContain(ref)
    const broken = loop.original.replace(ref, JSON.stringify(`#/components/schemas/${MARKUP}`))
    await loop.saveAndSee(broken, 'vite-error-overlay')
    const shown = async () => {
      const overlay = page.locator('vite-error-overlay')
      return {
        text: (await overlay.locator('.message-body').textContent()) ?? '',
        frame: (await overlay.locator('.frame').textContent()) ?? '',
        elements: await overlay.evaluate((el) => el.shadowRoot!.querySelectorAll('img, script:not([data-vite]), iframe, object').length),
        pwned: await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned),
      }
    }
    for (const view of ['saved', 'opened after']) {
      if (view === 'opened after') {
        await page.reload()
        await page.waitForSelector('vite-error-overlay', { timeout: 20_000, state: 'attached' })
      }
      const s = await shown()
      expect([view, s.text + s.frame]).toEqual([view, expect.stringContaining(MARKUP.slice(0, 20))])
      expect([view, s.elements, s.pwned]).toEqual([view, 0, undefined])
    }
  }, 90_000)
})
