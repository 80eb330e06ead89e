/**
 * The starter's own tool, end to end inside workerd: a session on the local model is prompted
 * `/tool weather {...}`, the model calls the tool, the tool calls the (loopback) weather API, and
 * the settled result is in the session's `/history`. An answer the tool's output schema refuses
 * fails that one call with `TOOL_OUTPUT_INVALID`, and the turn writes nothing a good call does not.
 * A session of the starter's own agent profile (`forecaster`) is offered its one tool and told its instructions.
 */
import { env, exports } from 'cloudflare:workers'
import { sign } from 'hono/jwt'
import { describe, expect, it } from 'vitest'
import { ISSUER } from './keys.ts'

interface Event {
  seq: number
  topic: string
  type: string
  payload: Record<string, unknown>
}

async function api(path: string, init: RequestInit = {}): Promise<Response> {
  const now = Math.floor(Date.now() / 1000)
  const jwk = JSON.parse((env as unknown as { TEST_SIGNING_JWK: string }).TEST_SIGNING_JWK)
  const token = await sign({ iss: ISSUER, aud: 'neuron', sub: 'ada', iat: now, exp: now + 300, claims: [] }, jwk, 'ES256')
  const headers = new Headers(init.headers)
  headers.set('authorization', `Bearer ${token}`)
  if (init.body) headers.set('content-type', 'application/json')
  return exports.default.fetch(`http://starter${path}`, { ...init, headers })
}

/** Creates a session (of `agent`, when given), prompts it once, waits for the turn to end; answers the session's whole history. */
async function turn(text: string, agent?: string): Promise<Event[]> {
  const id = `starter-${crypto.randomUUID()}`
  expect((await api('/v1/sessions', { method: 'POST', body: JSON.stringify(agent ? { id, agent } : { id }) })).status).toBe(201)
  expect((await api(`/v1/sessions/${id}/prompt`, { method: 'POST', body: JSON.stringify({ text }) })).status).toBe(202)
  const deadline = Date.now() + 20_000
  for (;;) {
    const view = (await (await api(`/v1/sessions/${id}`)).json()) as { status: string; lastSeq?: number }
    const history = (await (await api(`/v1/sessions/${id}/history?limit=1000`)).json()) as { items: Event[] }
    if (view.status === 'idle' && history.items.some((e) => e.type === 'session.next.drain.ended')) return history.items
    if (Date.now() > deadline) throw new Error(`session ${id} did not settle: ${JSON.stringify(view)}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const tail = (type: string) => type.replace('session.next.', '')

describe('the starter Worker', () => {
  it('the local model calls the weather tool, and its result is in /history', async () => {
    const events = await turn('/tool weather {"city":"Oslo"}')
    const called = events.find((e) => e.type === 'session.next.tool.called')!
    expect(called.payload).toMatchObject({ name: 'weather', input: { city: 'Oslo' } })
    const succeeded = events.find((e) => e.type === 'session.next.tool.succeeded')!
    expect(succeeded, JSON.stringify(events.map((e) => [e.type, e.payload]))).toBeDefined()
    // Only the loopback API knows this sky: the tool called it.
    expect(JSON.parse(succeeded.payload.content as string)).toEqual({ city: 'Oslo', celsius: 7.5, sky: 'clear over Oslo' })
  })

  it('an answer that breaks the output schema fails the call with a code and writes nothing else', async () => {
    const good = await turn('/tool weather {"city":"Oslo"}')
    const bad = await turn('/tool weather {"city":"Atlantis"}')
    const failed = bad.find((e) => e.type === 'session.next.tool.failed')!
    expect(failed, JSON.stringify(bad.map((e) => [e.type, e.payload]))).toBeDefined()
    expect((failed.payload.error as { code: string }).code).toBe('TOOL_OUTPUT_INVALID')
    expect(bad.some((e) => e.type === 'session.next.tool.succeeded')).toBe(false)
    // The same turn as a good call's, event for event, with the failure in the success's place.
    expect(bad.map((e) => tail(e.type))).toEqual(good.map((e) => tail(e.type)).map((t) => (t === 'tool.succeeded' ? 'tool.failed' : t)))
  })

  it('a session of the forecaster agent is told its instructions and offered the weather tool alone', async () => {
    const agents = (await (await api('/v1/agents')).json()) as { items: { name: string; source: string }[] }
    expect(agents.items.map(({ name, source }) => [name, source])).toEqual([['default', 'builtin'], ['forecaster', 'deployment']])
    const events = await turn('/tool weather {"city":"Oslo"}', 'forecaster')
    const id = (events[0]!.topic as string).replace(/^session\./, '')
    expect(await (await api(`/v1/sessions/${id}`)).json()).toMatchObject({ agent: 'forecaster' })
    const started = events.find((e) => e.type === 'session.next.step.started')!
    const offered = (await (await api(`/v1/sessions/${id}/artifacts/${started.payload.tools as string}`)).json()) as { name: string }[]
    expect(offered.map((spec) => spec.name)).toEqual(['weather'])
    const epoch = events.find((e) => e.type === 'session.next.epoch.started')!
    const baseline = (await (await api(`/v1/sessions/${id}/artifacts/${epoch.payload.baseline as string}`)).json()) as { sources: Record<string, unknown> }
    expect(baseline.sources['agent.instructions']).toBe('Answer with the weather tool, naming the city.')
    expect(events.some((e) => e.type === 'session.next.tool.succeeded')).toBe(true)
  })
})
