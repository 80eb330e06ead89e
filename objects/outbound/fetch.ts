/**
 * The one fetch for URLs that came from outside the code: every URL it sends to, the first and
 * every redirect's, passes the outbound policy (policy.ts), and every answer's body is a bounded
 * stream, so no server can make the isolate hold more than `maxBytes` of it (a body read whole
 * before a cut is the body's size in memory: 700 MiB of instructions took 1.05 GB). Past the
 * bound the stream errors with `code` (502); a `Content-Length` already over it is refused
 * before a byte is read.
 *
 * `readText` reads a body up to a length and cancels the rest, for callers that keep a prefix.
 *
 * @example
 * const get = outboundFetch({ development: false }, { refused: 'URL_REFUSED', tooLarge: 'URL_BODY_TOO_LARGE', maxBytes: 1 << 20 })
 * const { text, cut } = await readText(await get('https://example.com/notes.md'), 64 * 1024)
 */
import { NeuronError } from '../core/errors.ts'
import { checkOutboundUrl, type OutboundPolicy } from './policy.ts'

/** Redirects followed at most; each is checked like the first URL. */
const MAX_REDIRECTS = 5

export interface OutboundLimits {
  /** The code of a URL the policy refuses (400). */
  refused: string
  /** The code of a body past `maxBytes` (502). */
  tooLarge: string
  maxBytes: number
}

/**
 * A `fetch` under `policy` and `limits`; `network` is the fetch it sends with (tests pass a fake).
 *
 * @example
 * const transportFetch = outboundFetch(policy, { refused: 'MCP_URL_REFUSED', tooLarge: 'MCP_RESPONSE_TOO_LARGE', maxBytes: 4 << 20 })
 */
export function outboundFetch(policy: OutboundPolicy, limits: OutboundLimits, network: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    let url = input instanceof Request ? input.url : String(input)
    let request: RequestInit = input instanceof Request ? { method: input.method, headers: input.headers, body: input.body, signal: input.signal, ...init } : { ...init }
    for (let hop = 0; ; hop++) {
      checkOutboundUrl(url, policy, limits.refused)
      const response = await network(url, { ...request, redirect: 'manual' })
      const location = response.headers.get('location')
      if (response.status < 300 || response.status > 399 || location === null) return bounded(response, url, limits)
      await response.body?.cancel()
      if (hop === MAX_REDIRECTS) throw new NeuronError(limits.refused, `${url.slice(0, 200)} redirected more than ${MAX_REDIRECTS} times`, { status: 400, details: { url: url.slice(0, 2048) } })
      url = new URL(location, url).href
      // 301, 302 and 303 turn into a GET without a body; 307 and 308 repeat the request.
      if (response.status !== 307 && response.status !== 308) request = { ...request, method: 'GET', body: null }
    }
  }
}

function bounded(response: Response, url: string, limits: OutboundLimits): Response {
  const tooLarge = () => new NeuronError(limits.tooLarge, `the answer of ${url.slice(0, 200)} is larger than ${limits.maxBytes} bytes`, { status: 502, details: { url: url.slice(0, 2048), limit: limits.maxBytes } })
  const declared = Number(response.headers.get('content-length') ?? NaN)
  if (declared > limits.maxBytes) {
    void response.body?.cancel()
    throw tooLarge()
  }
  if (response.body === null) return response
  const source = response.body.getReader()
  let seen = 0
  // Pulled by the reader, one chunk at a time: nothing is read ahead of what the reader asks for.
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await source.read()
      if (done) return controller.close()
      seen += value.byteLength
      if (seen <= limits.maxBytes) return controller.enqueue(value)
      controller.error(tooLarge())
      await source.cancel().catch(() => {})
    },
    cancel: (reason) => source.cancel(reason).catch(() => {}),
  })
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
}

/**
 * At most `maxBytes` of `response`'s body as text (UTF-8), and whether the rest was cut off;
 * the rest is never read.
 *
 * @example
 * const { text, cut } = await readText(response, 64 * 1024)
 */
export async function readText(response: Response, maxBytes: number): Promise<{ text: string; cut: boolean }> {
  if (response.body === null) return { text: '', cut: false }
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let read = 0
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return { text: text + decoder.decode(), cut: false }
    const room = maxBytes - read
    read += value.byteLength
    if (value.byteLength > room) {
      void reader.cancel()
      // A character split by the cut is dropped, not shown as a replacement character.
      return { text: text + decoder.decode(value.subarray(0, room), { stream: true }), cut: true }
    }
    text += decoder.decode(value, { stream: true })
  }
}
