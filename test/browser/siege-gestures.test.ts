/**
 * Hardening probes, part three (harness: `support/siege.ts`): whose gesture counts. A tile that
 * takes focus on a timer and fires every gesture-bound action the moment it has it
 * (`siege.thief`) gets nothing from a click the person makes on the shell's chrome or in another
 * app's tile; a background looping `permissions.request` never gets a dialog without a gesture in
 * its app, and a dismissed request is remembered. Every gesture here is a raw mouse click or key
 * press, and the page is read through its devtools protocol, never through Playwright's
 * `evaluate` (which would hand the page a synthetic gesture of its own): `support/gestures.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type PageGestures, gestures } from './support/gestures.ts'
import { figures, s, setupSiege, shell, siegeBg, siegeTile, w, witnessTile } from './support/siege.ts'

setupSiege()

let g: PageGestures
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const wallet = () => g.value<string[]>('window.walletCalls')
const clipboard = () => shell.page.evaluate(() => navigator.clipboard.readText())
/** Consent dialogs the siege app opened in Agent Mode (every open counts, answered or not). */
const agentDialogs = () => g.value<number>("window.neutron.kernel.agentMode.recentConsents('siege')")

beforeAll(async () => {
  await shell.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: shell.dev.url })
  await shell.page.evaluate(() => navigator.clipboard.writeText('the person’s own text'))
  g = await gestures(shell.page)
  // A stand-in EIP-1193 provider that records every request it is asked (defined without a gesture).
  await g.value(`(() => {
    window.walletCalls = []
    window.ethereum = { async request({ method }) {
      window.walletCalls.push(method)
      if (method === 'eth_requestAccounts' || method === 'eth_accounts') return ['0x00000000000000000000000000000000000000a1']
      if (method === 'eth_chainId') return '0x1'
      return '0x' + 'ab'.repeat(32)
    } }
  })()`)
})
afterAll(() => g?.close())

describe('a gesture counts only for the frame the person used', () => {
  it('a tile that takes focus on a timer gets no gesture from a click on the shell or in another app’s tile', async () => {
    // The thief starts after the gesture Playwright's evaluate gave its frame has run out.
    await s.evaluate(() => (globalThis as any).siege.thief({ startInMs: 6_000, forMs: 17_000, everyMs: 50, entrypoint: 'inspect' }))
    await g.quiet()
    await sleep(6_500)
    // The thief holds focus now, with no gesture anywhere. The person clicks the shell's chrome…
    await g.clickPage('.brand')
    await sleep(6_500) // its attempts, and any wait for the gesture to be told apart, are over
    // …and then another app's tile.
    await g.clickFrame(witnessTile)
    await sleep(6_500)
    await expect.poll(() => s.evaluate(() => (globalThis as any).siege.clicks.thiefDone), { timeout: 10_000 }).toBe(true)
    const stolen = await s.evaluate(() => (globalThis as any).siege.clicks.stolen as { action: string; outcome: { ok?: unknown; error?: { code: string } } }[])
    const codes = stolen.map((a) => `${a.action}: ${a.outcome.error?.code ?? 'ok'}`)
    figures.push(`focus theft: ${stolen.length} attempts after 2 clicks elsewhere: ${JSON.stringify(codes)}`)
    // It took focus back after each click and tried everything at once, every time…
    expect(stolen.filter((a) => a.action === 'clipboard.write_text').length).toBeGreaterThanOrEqual(2)
    // …and every attempt was refused: nothing written, no wallet request, no consent dialog.
    expect(stolen.filter((a) => a.outcome.error?.code !== 'USER_ACTIVATION_REQUIRED'), JSON.stringify(codes)).toEqual([])
    expect(await clipboard()).toBe('the person’s own text')
    expect(await wallet()).toEqual([])
    expect(await agentDialogs()).toBe(0)
  }, 90_000)

  it('the control: a click in the tile itself is its gesture, and the same action succeeds', async () => {
    await s.evaluate(() => ((globalThis as any).siege.clicks.onClick = [['clipboard.write_text', { text: 'copied by a real click' }]]))
    await g.quiet()
    await g.clickFrame(siegeTile)
    await expect.poll(clipboard, { timeout: 15_000 }).toBe('copied by a real click')
    // The answer reaches the tile after the clipboard is written: wait for it.
    await expect.poll(async () => (await s.evaluate(() => (globalThis as any).siege.clicks.clicked)).map((c: any) => c.outcome)).toEqual([{ ok: {} }])
  })
})

describe('a dialog needs a gesture in the app that asks, and a dismissed one is remembered', () => {
  /** Watches the grant dialog for `ms` without a gesture: each time it opens, Escape; returns when it opened. */
  async function escapeEveryDialog(ms: number): Promise<number[]> {
    const opened: number[] = []
    const started = Date.now()
    while (Date.now() - started < ms) {
      if (await g.value<boolean>("document.querySelector('#grant-dialog').open")) {
        opened.push(Date.now() - started)
        await shell.page.keyboard.press('Escape')
      }
      await sleep(20)
    }
    return opened
  }

  it('a background asking over and over, with no gesture in its app, never gets the dialog; the shell stays usable', async () => {
    await siegeBg.evaluate(() => void (globalThis as any).permissionLoop('witness', 6_000, 6_500))
    await g.quiet()
    await sleep(6_500)
    const opened = await escapeEveryDialog(6_000)
    await expect.poll(() => siegeBg.evaluate(() => (globalThis as any).fixture.loop), { timeout: 15_000 }).toBeTruthy()
    const counts = await siegeBg.evaluate(() => (globalThis as any).fixture.loop as Record<string, number>)
    figures.push(`permissions.request looped by a background for 6 s, no gesture: dialog opened ${opened.length} times (at ${opened.slice(0, 8).join(', ')} ms); answers ${JSON.stringify(counts)}`)
    expect(opened).toEqual([])
    expect(Object.keys(counts)).toEqual(['USER_ACTIVATION_REQUIRED'])
    expect(await g.value('window.neutron.kernel.grants.sessions().length')).toBe(0)
  }, 60_000)

  it('asked from a click in its tile the dialog opens; dismissed, the app is refused without a dialog while another app still gets its own', async () => {
    const ask = ['tools.call', { target: 'kernel', name: 'permissions.request', arguments: { app: 'witness', scope: 'session', reason: 'first' } }]
    const lastClicked = () => s.evaluate(() => (globalThis as any).siege.clicks.clicked.at(-1)?.outcome)
    await s.evaluate((a) => (((globalThis as any).siege.clicks.onClick = [a]), ((globalThis as any).siege.clicks.clicked = [])), ask)
    await g.quiet()
    await g.clickFrame(siegeTile)
    for (const until = Date.now() + 10_000; !(await g.value<boolean>("document.querySelector('#grant-dialog').open")); await sleep(20)) {
      if (Date.now() > until) throw new Error('the dialog asked for by a click never opened')
    }
    await shell.page.keyboard.press('Escape')
    await expect.poll(lastClicked, { timeout: 10_000 }).toMatchObject({ error: { code: 'PERMISSION_DENIED' } })

    // Asked again from a new click in the same tile: remembered, refused without a dialog.
    await s.evaluate(() => ((globalThis as any).siege.clicks.clicked = []))
    await g.quiet()
    await g.clickFrame(siegeTile)
    const again = await escapeEveryDialog(1_500)
    await expect.poll(lastClicked, { timeout: 10_000 }).toMatchObject({ error: { code: 'PERMISSION_DENIED', retryAfterMs: expect.any(Number) } })
    expect(again).toEqual([])

    // Its background asking over and over meanwhile: refused each time, without a dialog.
    await siegeBg.evaluate(() => void (globalThis as any).permissionLoop('witness', 4_000, 6_500))
    await g.quiet()
    await sleep(1_500)
    const opened = await escapeEveryDialog(5_000)
    await expect.poll(() => siegeBg.evaluate(() => (globalThis as any).fixture.loop), { timeout: 15_000 }).toBeTruthy()
    const counts = await siegeBg.evaluate(() => (globalThis as any).fixture.loop as Record<string, number>)
    figures.push(`after the person dismissed a dialog asked for by a click: asked again by a click, dialog ${again.length ? 'reopened' : 'not reopened'}; the background asking for 4 s, dialog opened ${opened.length} times; answers ${JSON.stringify(counts)}`)
    expect(opened).toEqual([])
    expect(Object.keys(counts).every((c) => ['PERMISSION_DENIED', 'USER_ACTIVATION_REQUIRED'].includes(c)), JSON.stringify(counts)).toBe(true)

    // Another app, from a click in its own tile, gets its dialog meanwhile.
    await w.evaluate(() => ((globalThis as any).witness.onClick = () => (globalThis as any).witness.bus.requestPermission({ app: 'siege', scope: 'call', reason: 'mine' })))
    await g.quiet()
    await g.clickFrame(witnessTile)
    await expect.poll(() => g.value<string>("document.querySelector('#grant-dialog[open]')?.textContent ?? 'no dialog open'"), { timeout: 10_000 }).toContain('mine').catch(async (error: Error) => {
      const seen = await w.evaluate(() => (globalThis as any).witness.clicked)
      throw new Error(`${error.message}; the witness tile's outcomes: ${JSON.stringify(seen)}; the page's attention: ${JSON.stringify(await g.value('window.neutron.kernel.gestures.state()'))}`)
    })
    await shell.page.keyboard.press('Escape')
    await expect.poll(() => w.evaluate(() => (globalThis as any).witness.clicked.at(-1)), { timeout: 10_000 }).toMatchObject({ error: 'PERMISSION_DENIED' })
  }, 90_000)
})
