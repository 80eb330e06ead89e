/**
 * Real gestures for browser tests, and a way to look at the page that is none. Playwright's
 * `evaluate` (and every locator or element-handle call, which evaluate behind the scenes) gives
 * the frame it runs in a synthetic user gesture, which the browser passes on to the trusted page:
 * a gesture test would then measure Playwright, not the kernel. So: state is read through the
 * page's own devtools protocol session (`Runtime.evaluate` without `userGesture`), positions are
 * computed there too, and clicks are raw mouse input at those positions (`page.mouse.click`),
 * reaching a frame the way a mouse does: over the page's own pixels first (the tile's header),
 * which is how the trusted page knows where the pointer went.
 *
 * @example
 * const g = await gestures(shell.page)
 * await g.quiet()                                    // no activation is live on the page
 * await g.clickFrame('app:siege:tile:t1:instance:ab') // a person's click in the middle of that tile
 * await g.value('navigator.userActivation.isActive')
 */
import type { CDPSession, Frame, Page } from 'playwright-core'

export interface PageGestures {
  /** An expression's value in the trusted page, read without a gesture. */
  value<T = unknown>(expression: string): Promise<T>
  /** Waits until the page has no transient activation left (at most 8 s). */
  quiet(): Promise<void>
  /** A raw click in the middle of the frame of endpoint `id` (or at `at`, relative to its top left). */
  clickFrame(id: string, at?: { x: number; y: number }): Promise<void>
  /**
   * A raw click on `selector` inside the frame of endpoint `id`, after the page's activation has run
   * out (locating the element is one of Playwright's own gestures).
   */
  clickIn(frame: Frame, id: string, selector: string): Promise<void>
  /** A raw click in the middle of the trusted page's element `selector`. */
  clickPage(selector: string): Promise<void>
  /** Posts `data` to the frame of endpoint `id` from the trusted page (no gesture in the frame). */
  postToFrame(id: string, data: unknown): Promise<void>
  close(): Promise<void>
}

export async function gestures(page: Page): Promise<PageGestures> {
  const cdp: CDPSession = await page.context().newCDPSession(page)
  const value = async <T>(expression: string): Promise<T> => {
    const { result, exceptionDetails } = await cdp.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true })
    if (exceptionDetails) throw new Error(`${expression}: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`)
    return result.value as T
  }
  // Scrolled into view first (scrolling is no gesture): a raw click lands only on what the viewport shows.
  const rect = (selector: string) => value<{ x: number; y: number; width: number; height: number } | null>(`(() => { const el = document.querySelector(${JSON.stringify(selector)}); el?.scrollIntoView({ block: 'nearest', inline: 'nearest' }); const r = el?.getBoundingClientRect(); return r ? { x: r.x, y: r.y, width: r.width, height: r.height } : null })()`)
  const frame = (id: string) => `iframe[data-endpoint="${id}"]`
  const quiet = async () => {
    for (const until = Date.now() + 8_000; await value<boolean>('navigator.userActivation.isActive'); ) {
      if (Date.now() > until) throw new Error('the page kept its transient activation for 8 s')
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  return {
    value,
    quiet,
    async clickFrame(id, at) {
      const r = await rect(frame(id))
      if (!r) throw new Error(`no frame for ${id}`)
      await page.mouse.move(r.x + r.width / 2, r.y - 6) // the page's own pixels just outside its box
      await page.mouse.click(r.x + (at?.x ?? r.width / 2), r.y + (at?.y ?? r.height / 2))
    },
    async clickIn(target, id, selector) {
      const r = await rect(frame(id))
      const box = await target.locator(selector).boundingBox()
      if (!box || !r) throw new Error(`no ${selector} in ${id}`)
      await quiet()
      await page.mouse.move(r.x + r.width / 2, r.y - 6)
      await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2)
    },
    async clickPage(selector) {
      const r = await rect(selector)
      if (!r) throw new Error(`no element ${selector}`)
      await page.mouse.click(r.x + r.width / 2, r.y + r.height / 2)
    },
    async postToFrame(id, data) {
      await value(`document.querySelector(${JSON.stringify(frame(id))}).contentWindow.postMessage(${JSON.stringify(data)}, '*')`)
    },
    close: () => cdp.detach(),
  }
}
