/**
 * Host tool round trip with the real browser half: Chromium runs the shell signed in,
 * the agent panel holds the session's socket, Agent Mode is enabled for the Notes app. Measured
 * at the page: from `host.call` arriving on the page's socket to the call's `tool.succeeded`
 * event arriving on it — through the bridge, the kernel (a root invocation with its capability,
 * validation at both ends, audit), the notes background frame, back over the socket, settled and
 * stored by the session.
 *
 * The sum of its parts, measured in the same run, alternating with it: a raw WebSocket echo on
 * the same socket (`ping` → `pong`) plus the same routed call without the session
 * (`kernel.agent.call('notes_search')` on the page). The round trip also writes the result
 * durably, so one durable event delivery (a prompt → its `admitted` event) is shown too, and the
 * ratio against all three.
 */
import { afterAll, beforeAll, describe, it } from 'vitest'
import { openShell, type Shell, trackSockets, waitForEndpoint } from '../../test/browser/support/shell.ts'

const N = 60
let shell: Shell

beforeAll(async () => {
  shell = await openShell()
  const page = shell.page
  await trackSockets(page)
  await waitForEndpoint(page, 'app:notes:background', ['notes_search'])
  await page.locator('#agent-panel [data-action=dev-sign-in]').click()
  await page.locator('#agent-panel [data-action=new-session]').click()
  await page.locator('#agent-panel [data-connection=live]').waitFor()
  await page.evaluate(() => {
    const k = (window as any).neutron.kernel
    const answer = k.agentMode.ask({ app: 'notes', version: '1.0.0', title: 'Notes', entrypoint: 'notes_search', endpoint: 'bench' })
    k.agentMode.decide(k.agentMode.pending().id, 'allow')
    return answer
  })
  await page.waitForFunction(() => document.querySelector('#agent-panel [data-connection]')?.textContent?.includes('offering notes_search'))
}, 180_000)
afterAll(() => shell?.close())

describe('agent mode', () => {
  it('host tool round trip through the shell vs a raw echo plus a routed callTool', async () => {
    const result = await shell.page.evaluate(async (n) => {
      const ws: WebSocket = (window as any).__sockets.at(-1)
      const kernel = (window as any).neutron.kernel
      const next = (match: (m: any) => boolean) =>
        new Promise<{ m: any; at: number }>((resolve) => {
          const on = (e: MessageEvent) => {
            const m = JSON.parse(String(e.data))
            if (!match(m)) return
            ws.removeEventListener('message', on)
            resolve({ m, at: performance.now() })
          }
          ws.addEventListener('message', on)
        })
      const type = (m: any) => (m.type === 'event' ? m.event.type : undefined)
      const echo: number[] = []
      const routed: number[] = []
      const delivery: number[] = []
      const roundTrip: number[] = []
      for (let i = 0; i < n; i++) {
        // The session finishes its turn's bookkeeping just after drain.ended; measure the echo once it is idle.
        await new Promise((r) => setTimeout(r, 50))
        let start = performance.now()
        const pong = next((m) => m.type === 'pong' && m.data === `p${i}`)
        ws.send(JSON.stringify({ type: 'ping', data: `p${i}` }))
        echo.push((await pong).at - start)

        start = performance.now()
        const outcome = await kernel.agent.call({ name: 'notes_search', arguments: { query: 'roadmap' } })
        if (!('ok' in outcome)) throw new Error(JSON.stringify(outcome))
        routed.push(performance.now() - start)

        let idle = next((m) => type(m) === 'session.next.drain.ended')
        const admitted = next((m) => type(m) === 'session.next.admitted' && m.event.payload.messageId === `d${i}`)
        start = performance.now()
        ws.send(JSON.stringify({ type: 'prompt', id: `d${i}`, text: `plain ${i}` }))
        delivery.push((await admitted).at - start)
        await idle

        idle = next((m) => type(m) === 'session.next.drain.ended')
        const call = next((m) => m.type === 'host.call')
        ws.send(JSON.stringify({ type: 'prompt', id: `t${i}`, text: '/tool notes_search {"query":"roadmap"}' }))
        const { m, at } = await call
        const settled = await next((e) => type(e) === 'session.next.tool.succeeded' && e.event.payload.toolCallId === m.call)
        roundTrip.push(settled.at - at)
        await idle
      }
      return { echo, routed, delivery, roundTrip }
    }, N)
    const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
    const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))]!
    const row = (name: string, xs: number[]) => `  ${name.padEnd(58)} p50 ${p50(xs).toFixed(2)} ms   p99 ${p99(xs).toFixed(2)} ms`
    const parts = p50(result.echo) + p50(result.routed)
    console.log(`\nhost tool round trip through the shell, ${N} calls (Chromium, real wrangler dev, loopback; shared machine)`)
    console.log(row('raw WebSocket echo on the page (ping → pong)', result.echo))
    console.log(row('routed call on the page (kernel.agent.call notes_search)', result.routed))
    console.log(row('one durable event delivery (prompt → admitted)', result.delivery))
    console.log(row('host.call → bridge → kernel → notes → tool.succeeded', result.roundTrip))
    console.log(`  ratio to echo + routed call (p50): ${(p50(result.roundTrip) / parts).toFixed(2)}× (target ≤ 1.5×)`)
    console.log(`  ratio to echo + routed call + durable delivery (p50): ${(p50(result.roundTrip) / (parts + p50(result.delivery))).toFixed(2)}×`)
  })
})
