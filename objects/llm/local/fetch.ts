/**
 * The local model's transport: a `fetch`-compatible function that answers
 * `POST …/chat/completions` in-process with a streaming `Response`, so the
 * real OpenAI-compatible dialect sends to it and parses its bytes like any vendor's.
 */
import { laterTurn } from '../../core/event-loop.ts'
import { planTurn, type ChatBody } from './reply.ts'
import { sseEvents } from './wire.ts'

/** Without `/slow`, chunks are coalesced up to this many characters, as a network would. */
const COALESCE = 16 * 1024

/**
 * @example
 * const response = await localFetch('http://local.neuron/v1/chat/completions', {
 *   method: 'POST',
 *   body: JSON.stringify({ model: 'echo-1', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
 * })
 */
export async function localFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init)
  if (request.method !== 'POST' || !new URL(request.url).pathname.endsWith('/chat/completions')) {
    const asked = `${request.method} ${request.url}`
    return failure(404, 'not_found', `the local model only serves POST /chat/completions, not ${asked}`)
  }
  // Answer on a later turn of the event loop, as a network peer would: without it an
  // in-process turn could run to the end inside one task, holding back every output
  // (replies, events) the object's output gate releases only when that task yields.
  await laterTurn()
  let body: ChatBody
  try {
    body = (await request.json()) as ChatBody
  } catch {
    return failure(400, 'invalid_request_error', 'request body is not JSON')
  }
  if (body.stream !== true) return failure(400, 'invalid_request_error', 'the local model only streams: set "stream": true')
  const turn = planTurn(body)
  if (turn.fail) return failure(turn.fail.status, turn.fail.code ? 'invalid_request_error' : 'local_failure', turn.fail.message, turn.fail.code)
  const events = sseEvents(turn, body.model ?? 'echo-1')
  return new Response(eventStream(events, turn.slowMs), {
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' },
  })
}

function eventStream(events: string[], slowMs: number): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  let next = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (slowMs > 0) await new Promise<void>((resolve) => (timer = setTimeout(resolve, slowMs)))
      let text = events[next++] ?? ''
      while (slowMs === 0 && next < events.length && text.length < COALESCE) text += events[next++]
      if (text !== '') controller.enqueue(encoder.encode(text))
      if (next >= events.length) controller.close()
    },
    cancel() {
      clearTimeout(timer)
      next = events.length
    },
  })
}

function failure(status: number, type: string, message: string, code: string | null = null): Response {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  // A scripted 429 asks for an immediate retry, so retry paths run fast in tests.
  if (status === 429) headers['retry-after'] = '0'
  return Response.json({ error: { message, type, param: null, code } }, { status, headers })
}
