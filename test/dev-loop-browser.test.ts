/**
 * The Vite dev loop in real Chromium, on the Benzene example's web page: an edit is seen on the page,
 * an invalid edit shows Vite's overlay with each diagnostic in order, its header then its own frame,
 * as `contracts check` prints them (and its file link asks the editor for the first one's 1-based
 * position), the fix recovers. The edit-to-visible times are
 * printed; the bench reports them (no timing assertions here).
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ContractCompiler } from 'unplugin-contracts'
import { CHROMIUM } from './helpers/chromium.js'
import { contracts } from './helpers/cli.js'
import { openDevLoop, withTopic, type DevLoop } from './helpers/dev-loop.js'

describe.skipIf(!CHROMIUM)('the Vite dev loop in Chromium', () => {
  let loop: DevLoop
  beforeAll(async () => {
    loop = await openDevLoop(join(import.meta.dirname, '.tmp', `dev-loop-${process.pid}`))
  }, 60_000)
  afterAll(() => loop?.close())

  it('shows an edit, the overlay with each error of an invalid edit in order, and recovers after the fix', async () => {
    const { page } = loop
    expect(await page.locator('#topics li').allTextContents()).toEqual(['payments:capture v2', 'payments:refund', 'payments:get-all'])
    expect(await page.textContent('#hash')).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(await page.textContent('#checked')).toMatch(/^validation-error: .*Amount/)
    const before = await page.textContent('#hash')

    // A valid edit: one more topic, visible after the reload, with a new contract hash.
    const added = withTopic(loop.original, 1)
    const shown = await loop.saveAndSee(added, 'li[data-topic="payments:void-1"]')
    expect(await page.textContent('#hash')).not.toBe(before)

    // An invalid edit with two errors: two $refs to schemas that do not exist.
    const broken = added
      .replace('"#/components/schemas/PaymentDto"', '"#/components/schemas/PaymentDtoo"')
      .replace('"#/components/schemas/RefundPayment"', '"#/components/schemas/RefundPaymentt"')
    expect(broken).not.toBe(added)
    const failed = await loop.saveAndSee(broken, 'vite-error-overlay')
    const overlay = page.locator('vite-error-overlay')
    const text = async (part: string) => (await overlay.locator(part).textContent()) ?? ''
    const { diagnostics } = await new ContractCompiler().compile(loop.contract)
    const errors = diagnostics.filter((d) => d.severity === 'error')
    expect(errors.map((d) => d.code)).toEqual(['BENZENE_REF_MISSING', 'BENZENE_REF_MISSING'])
    // What `contracts check` prints for the same file: each diagnostic's header, then its own frame.
    const check = contracts(['check', loop.contract])
    const listing = check.stderr.slice(0, check.stderr.lastIndexOf('\n\n1 contract checked')).split('\n')
    expect(listing.filter((l) => l.startsWith('error '))).toHaveLength(2)
    // The overlay, top to bottom: the headline and the first diagnostic's header (the message), the
    // link to its position, then its frame and the second diagnostic with its frame; nothing else.
    const position = `${loop.contract}:${errors[0]!.line}:${errors[0]!.column}`
    expect(await text('.plugin')).toBe('[plugin:unplugin-contracts] ')
    expect((await text('.message-body')).split('\n')).toEqual([`Contract ${loop.contract} is invalid (2 errors):`, '', ...listing.slice(0, 2)])
    expect(listing[1]).toBe(`  at ${position} (${errors[0]!.pointer})`)
    expect(await text('.file')).toBe(position)
    expect((await text('.frame')).split('\n')).toEqual(listing.slice(2).join('\n').trim().split('\n'))
    expect(await text('.stack')).toBe('')
    expect(await overlay.textContent()).not.toMatch(/\0|\.contract\.js/)
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
