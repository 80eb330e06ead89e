/**
 * `npm run profile:delivery -- [prompts]`: where an admission's step spends its time. The delivery
 * bench (bench/node/session.bench.ts, `-t latency`) times a socket prompt until its `admitted`
 * event comes back, against the limit of one durable INSERT and a `ws.send`; this profiles the same
 * traffic under `wrangler dev` and cuts the admission's step out of the profile: from the socket
 * message until the runner starts after the commit (or the thread goes idle). Its parts are what
 * the step's JavaScript adds to the limit's.
 *
 * - prompts: profiled prompts (default 300), after 50 unprofiled, each on an idle session as the
 *   bench sends them (after the previous turn's `drain.ended` and one ping round trip)
 * Writes the profile to the temp folder for DevTools. The sampler costs time of its own, so read
 * shares from it and durations from the bench.
 */
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inspectorSession } from '../../test/support/inspector.ts'
import { devToken, startWrangler } from '../../test/support/wrangler.ts'
import { type CpuProfile, stepsOf, summarize } from './summary.ts'

const prompts = Number(process.argv[2] ?? 300)
const WARM = 50
/** µs between samples asked for; a busy 2-core machine delivers one per ~100 µs (stepsOf weighs by what it got). */
const SAMPLING_US = 25

// The dev tool's trace collector shares the thread with every object; the bench turns it off too.
process.env.X_LOCAL_OBSERVABILITY = 'false'
const dev = await startWrangler()
try {
  const auth = { authorization: `Bearer ${await devToken('profile')}` }
  const post = (path: string, body: unknown) =>
    fetch(`${dev.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify(body) })
  await post('/v1/sessions', { id: 'profile', model: 'local/echo-1' })
  const { ticket } = (await (await post('/v1/sessions/profile/tickets', {})).json()) as { ticket: string }
  const ws = new WebSocket(`${dev.url.replace('http', 'ws')}/v1/sessions/profile/ws?ticket=${encodeURIComponent(ticket)}`)
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve())
    ws.addEventListener('error', () => reject(new Error('the session socket did not open')))
  })
  type Message = { type: string; event?: { type: string; payload?: { messageId?: string } }; error?: { code: string; message: string } }
  // Resolves on the first message `match` accepts; an error frame ends the run with its code instead of waiting forever.
  const next = (match: (m: Message) => boolean) =>
    new Promise<void>((resolve, reject) => {
      const on = (event: MessageEvent) => {
        const m = JSON.parse(String(event.data)) as Message
        if (m.type === 'error') reject(new Error(`the session answered ${m.error?.code}: ${m.error?.message}`))
        else if (!match(m)) return
        ws.removeEventListener('message', on)
        resolve()
      }
      ws.addEventListener('message', on)
    })
  const subscribed = next((m) => m.type === 'replay-end')
  ws.send(JSON.stringify({ type: 'subscribe', after: 0 }))
  await subscribed
  // An SSE reader too, as in the bench: the admitted event is framed for both.
  const sse = (await fetch(`${dev.url}/v1/sessions/profile/events?after=0`, { headers: auth })).body!.getReader()
  void (async () => {
    while (!(await sse.read()).done);
  })().catch(() => {})
  const text = 'x'.repeat(400)
  const prompt = async (i: number) => {
    const idle = next((m) => m.type === 'event' && m.event?.type === 'session.next.drain.ended')
    const admitted = next((m) => m.type === 'event' && m.event?.type === 'session.next.admitted' && m.event.payload?.messageId === `p${i}`)
    const began = performance.now()
    ws.send(JSON.stringify({ type: 'prompt', id: `p${i}`, text: text + i }))
    await admitted
    const took = performance.now() - began
    await idle
    const pong = next((m) => m.type === 'pong')
    ws.send(JSON.stringify({ type: 'ping', data: 'settle' }))
    await pong
    return took
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
  const unprofiled: number[] = []
  for (let i = 0; i < WARM; i++) unprofiled.push(await prompt(i))
  const cdp = await inspectorSession(dev.inspectorPort)
  await cdp.call('Profiler.enable')
  await cdp.call('Profiler.setSamplingInterval', { interval: SAMPLING_US })
  await cdp.call('Profiler.start')
  const profiled: number[] = []
  for (let i = WARM; i < WARM + prompts; i++) profiled.push(await prompt(i))
  const { profile } = (await cdp.call('Profiler.stop', {}, 60_000)) as { profile: CpuProfile }
  cdp.close()
  ws.close()
  await sse.cancel()
  const path = join(tmpdir(), 'neuron-delivery.cpuprofile')
  writeFileSync(path, JSON.stringify(profile))
  // The step ends where the runner starts, after the commit, or the thread idles. The runner's work
  // is named by every frame it can resume in: an async generator resumes without its caller on the stack.
  const admissions = stepsOf(profile, { begin: 'webSocketMessage', end: ['now', 'wake', 'drain', 'step', 'runTurn', 'endTurn', 'failTurn', 'streamModelBatches'], within: 'admitPrompt' })
  const perStep = admissions.samples.reduce((a, b) => a + b, 0) / admissions.samples.length
  console.log(`delivery profile: ${prompts} prompts; prompt → admitted p50 ${median(unprofiled).toFixed(2)} ms unprofiled (${WARM}), ${median(profiled).toFixed(2)} ms profiled`)
  console.log(
    `admission steps found: ${admissions.samples.length}; ${perStep.toFixed(1)} samples per step, one per ${admissions.interval} µs (median): ` +
      `~${((perStep * admissions.interval) / 1000).toFixed(2)} ms of JavaScript per step, profiled`,
  )
  // The step's parts, by the functions they run in: the message's JSON and validation, the
  // admission's decision (digest, receipt lookup), its append, the receipt's write, the frames
  // for the subscribers (in the microtasks the append queued), the runner's wake-up.
  console.log(
    summarize(admissions.profile, {
      top: 15,
      inside: ['readMessage', 'parseOrThrow', 'admit', 'seal', 'appendSealed', 'put', 'deliver', 'afterCommit', 'admitPrompt', 'webSocketMessage', '(garbage collector)', '(program)'],
    }),
  )
  console.log(`profile: ${path}`)
} finally {
  await dev.stop()
}
