/**
 * What the shell's conversation view shows, read from the trusted page for assertions.
 *
 * @example
 * await expect.poll(() => conversationLines(shell.page, 'result')).toContain('{"waitedMs":600}')
 */
import type { Page } from 'playwright-core'

/** One kind of line: prompts (`you`), tool calls (`name input`), results, failures (`error`), or notes (anything else). */
export function conversationLines(page: Page, kind: string): Promise<string[]> {
  return page.evaluate((kind) => {
    const root = document.querySelector('#agent-panel [data-conversation]')
    if (!root) return []
    const texts = (selector: string) => [...root.querySelectorAll<HTMLElement>(selector)].map((el) => el.innerText.trim())
    if (kind === 'you') return texts('.block.turn .prompt p')
    if (kind === 'tool') return [...root.querySelectorAll('[data-block=tool]')].map((el) => `${el.querySelector('.tool-name')!.textContent} ${JSON.stringify(JSON.parse(el.querySelector('.tool-input')!.textContent!))}`)
    if (kind === 'result') return [...root.querySelectorAll('.tool-output.succeeded')].map((el) => el.textContent!)
    if (kind === 'error') return [...root.querySelectorAll('.tool-output.failed, [data-notice=failed]')].map((el) => el.textContent!)
    return [...root.querySelectorAll('.tool-output.cancelled, [data-notice], [data-conversation-note]')].map((el) => el.textContent!)
  }, kind)
}
