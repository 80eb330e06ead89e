/**
 * Keyboard reachability: a test gets to a control the way a person without a mouse does.
 *
 * @example
 * await tabTo(page, '[data-action=cancel]')
 * await page.keyboard.press('Enter')
 */
import type { Page } from 'playwright-core'

/** Presses Tab (at most `max` times) until `selector` has the focus; fails if the keyboard never reaches it. */
export async function tabTo(page: Page, selector: string, max = 60): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return
    await page.keyboard.press('Tab')
  }
  throw new Error(`the keyboard never reached ${selector}`)
}
