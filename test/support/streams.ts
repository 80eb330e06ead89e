import { SseParser, type SseEvent } from '../../objects/llm/sse.ts'
import { api, OWNER } from './api.ts'

/** Reads SSE events from a response until `until` says stop; then cancels the body (a client disconnect). */
export async function readSse(res: Response, until: (events: SseEvent[]) => boolean, timeoutMs = 20_000): Promise<SseEvent[]> {
  const reader = res.body!.getReader()
  const parser = new SseParser()
  const events: SseEvent[] = []
  const deadline = Date.now() + timeoutMs
  try {
    while (!until(events)) {
      if (Date.now() > deadline) throw new Error(`SSE: condition not met; got ${events.map((e) => e.event).join(',')}`)
      const { done, value } = await reader.read()
      if (done) break
      parser.push(value, events)
    }
  } finally {
    await reader.cancel().catch(() => {})
  }
  return events
}

/** A WebSocket client through the real gate (as `as`), collecting JSON messages. */
export async function openSocket(path: string, as = OWNER, init: RequestInit = {}) {
  const res = await api(path, { ...init, headers: { ...(init.headers as Record<string, string>), upgrade: 'websocket' } }, as)
  const ws = res.webSocket
  if (!ws) throw new Error(`no WebSocket: ${res.status} ${await res.text()}`)
  ws.accept()
  const messages: Record<string, unknown>[] = []
  const waiters: (() => void)[] = []
  ws.addEventListener('message', (event) => {
    messages.push(JSON.parse(event.data as string))
    for (const wake of waiters.splice(0)) wake()
  })
  return {
    ws,
    messages,
    send: (message: unknown) => ws.send(JSON.stringify(message)),
    async until(done: (messages: Record<string, unknown>[]) => boolean, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs
      while (!done(messages)) {
        if (Date.now() > deadline) throw new Error(`WebSocket: condition not met; got ${JSON.stringify(messages.map((m) => m.type))}`)
        await new Promise<void>((resolve) => {
          waiters.push(resolve)
          setTimeout(resolve, 50)
        })
      }
      return messages
    },
    close: () => ws.close(1000, 'done'),
  }
}
