/**
 * A kill -9 that lands inside a compaction turn, made certain: a fake
 * OpenAI-compatible vendor (a local HTTP server speaking the exact
 * chat-completions SSE bytes) reports a nearly full window on every turn, so
 * the next turn compacts, and it streams the compaction's summary slowly.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { planTurn, type ChatBody } from '../../objects/llm/local/reply.ts'
import { sseEvents } from '../../objects/llm/local/wire.ts'
import { Restartable, until } from '../support/restartable.ts'

describe('kill -9 inside a compaction turn (real wrangler dev, fake vendor)', () => {
  const server = new Restartable()
  let vendor: Server | undefined
  let compactions = 0
  afterAll(async () => {
    await server.stop()
    vendor?.close()
  })

  const history = () => server.history('vendored')
  /** Polls every 25 ms: the kill must land inside the compaction turn. */
  const soon = (check: () => Promise<boolean>, what: string, timeoutMs = 90_000) => until(check, what, timeoutMs, 25)

  /** Every answer says the prompt filled 36,000 of the 40,960-token window; summaries trickle out. */
  async function startVendor(): Promise<string> {
    vendor = createServer(async (req, res) => {
      let raw = ''
      for await (const chunk of req) raw += chunk
      const body = JSON.parse(raw) as ChatBody
      // Only a compaction turn caps its output.
      const compaction = body.max_tokens !== undefined
      const turn = planTurn({ ...body, model: 'echo-1', messages: compaction ? [{ role: 'user', content: '/say the summary of it all' }] : body.messages })
      turn.usage.prompt = 36_000
      if (compaction) compactions++
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      for (const event of sseEvents(turn, 'qwen3:8b')) {
        if (compaction) await new Promise((r) => setTimeout(r, 400))
        if (res.destroyed) return
        res.write(event)
      }
      res.end()
    })
    await new Promise<void>((resolve) => vendor!.listen(0, '127.0.0.1', resolve))
    return `http://127.0.0.1:${(vendor.address() as AddressInfo).port}/v1`
  }

  it('the interrupted compaction is invisible after restart; the next one completes; the drain finishes; sequences contiguous', { timeout: 240_000 }, async () => {
    const vars = { OLLAMA_BASE_URL: await startVendor() }
    await server.start(vars)
    expect((await server.post('/v1/sessions', { id: 'vendored', model: 'ollama/qwen3:8b' })).status).toBe(201)
    expect((await server.post('/v1/sessions/vendored/prompt', { id: 'one', text: 'first question' })).status).toBe(202)
    await soon(async () => (await history()).some((e) => e.type === 'session.next.step.ended'), 'the first turn')
    expect((await server.post('/v1/sessions/vendored/prompt', { id: 'two', text: 'second question' })).status).toBe(202)
    await soon(async () => (await history()).some((e) => e.type === 'session.next.compaction.started'), 'a compaction to start')
    await server.crash() // the summary takes seconds to stream: this lands inside the compaction turn

    await server.start(vars)
    await soon(async () => (await server.get<{ status: string }>('/v1/sessions/vendored')).status === 'idle', 'the drain to finish after restart', 120_000)
    const log = await history()
    const ended = log.filter((e) => e.type === 'session.next.compaction.ended').map((e) => e.payload)
    expect(ended[0], JSON.stringify(ended)).toMatchObject({ outcome: 'failed', error: { code: 'ABANDONED' } })
    expect(ended.at(-1), JSON.stringify(ended)).toMatchObject({ outcome: 'completed' })
    // The abandoned compaction started no epoch; the completed one did.
    const epochs = log.filter((e) => e.type === 'session.next.epoch.started').map((e) => e.payload.reason)
    expect(epochs).toEqual(['start', ...ended.filter((e) => e.outcome === 'completed').map(() => 'compaction')])
    expect(compactions).toBeGreaterThanOrEqual(2)
    expect(log.filter((e) => e.type === 'session.next.prompted').flatMap((e) => e.payload.messageIds as string[])).toEqual(['one', 'two'])
    expect(log.filter((e) => e.type === 'session.next.halted')).toEqual([])
    expect(log.at(-1)!.type).toBe('session.next.drain.ended')
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1))
  })
})
