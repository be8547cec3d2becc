/**
 * The Vite dev loop in real Chromium, on the Benzene example's web page: an edit is seen on the page,
 * an invalid edit shows Vite's overlay with the diagnostic's code and position (and its file link
 * asks the editor for that same 1-based position), the fix recovers. The edit-to-visible times are
 * printed; the bench reports them (no timing assertions here).
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ContractCompiler } from 'unplugin-contracts'
import { CHROMIUM } from './helpers/chromium.js'
import { openDevLoop, withTopic, type DevLoop } from './helpers/dev-loop.js'

describe.skipIf(!CHROMIUM)('the Vite dev loop in Chromium', () => {
  let loop: DevLoop
  beforeAll(async () => {
    loop = await openDevLoop(join(import.meta.dirname, '.tmp', `dev-loop-${process.pid}`))
  }, 60_000)
  afterAll(() => loop?.close())

  it('shows an edit, the overlay with code and position for an invalid edit, and recovers after the fix', async () => {
    const { page } = loop
    expect(await page.locator('#topics li').allTextContents()).toEqual(['payments:capture v2', 'payments:refund', 'payments:get-all'])
    expect(await page.textContent('#hash')).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(await page.textContent('#checked')).toMatch(/^validation-error: .*Amount/)
    const before = await page.textContent('#hash')

    // A valid edit: one more topic, visible after the reload, with a new contract hash.
    const added = withTopic(loop.original, 1)
    const shown = await loop.saveAndSee(added, 'li[data-topic="payments:void-1"]')
    expect(await page.textContent('#hash')).not.toBe(before)

    // An invalid edit: a $ref to a schema that does not exist.
    const broken = added.replace('"#/components/schemas/RefundPayment"', '"#/components/schemas/RefundPaymentt"')
    expect(broken).not.toBe(added)
    const failed = await loop.saveAndSee(broken, 'vite-error-overlay')
    const overlay = page.locator('vite-error-overlay')
    const message = await overlay.locator('.message-body').textContent()
    const file = await overlay.locator('.file').textContent()
    expect(message).toContain('BENZENE_REF_MISSING')
    // The position the overlay shows is the diagnostic's own, as the CLI prints it.
    const { diagnostics } = await new ContractCompiler().compile(loop.contract)
    const first = diagnostics.find((d) => d.severity === 'error')!
    expect(first.code).toBe('BENZENE_REF_MISSING')
    const position = `${loop.contract}:${first.line}:${first.column}`
    expect(file).toBe(position)
    expect(message).toContain(`${position} (`)
    expect(await overlay.locator('.frame').textContent()).toContain('RefundPaymentt')
    expect(await overlay.locator('.stack').textContent()).toBe('')
    expect(message).not.toMatch(/\0|\.contract\.js/)
    // Its link asks the dev server to open the editor at that position (intercepted: no editor runs here).
    const opened = new Promise<string>((resolve) =>
      page.route('**/__open-in-editor**', async (route) => {
        resolve(new URL(route.request().url()).searchParams.get('file')!)
        await route.fulfill({ status: 200, body: '' })
      }),
    )
    await overlay.locator('.file a.file-link').click()
    expect(await opened).toBe(position)

    // The fix: the page is back, without the overlay.
    const fixed = await loop.saveAndSee(added, '#topics li[data-topic="payments:void-1"]', 'vite-error-overlay')
    expect(await page.locator('#topics li').count()).toBe(4)
    console.log(`dev loop in Chromium: edit visible in ${shown.toFixed(0)} ms, overlay in ${failed.toFixed(0)} ms, recovery in ${fixed.toFixed(0)} ms`)
  }, 90_000)
})
