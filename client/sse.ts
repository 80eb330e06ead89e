/**
 * A minimal `text/event-stream` reader for the client: fields `id`, `event`,
 * `data`; comments (heartbeats) skipped; CRLF, CR and LF line ends.
 */

export interface SseMessage {
  id: string | undefined
  event: string
  data: string
}

/**
 * @example
 * for await (const message of readSse(res.body!)) console.log(message.event)
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder()
  const reader = body.getReader()
  let buffer = ''
  let message: SseMessage = { id: undefined, event: 'message', data: '' }
  let hasData = false
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      buffer += decoder.decode(value, { stream: true })
      let end: number
      while ((end = buffer.search(/\r\n|\r|\n/)) >= 0) {
        // A lone CR at the very end may be the first half of CRLF: wait for more.
        if (buffer[end] === '\r' && end === buffer.length - 1) break
        const line = buffer.slice(0, end)
        buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1))
        if (line === '') {
          if (hasData) yield message
          message = { id: undefined, event: 'message', data: '' }
          hasData = false
          continue
        }
        if (line.startsWith(':')) continue
        const colon = line.indexOf(':')
        const field = colon < 0 ? line : line.slice(0, colon)
        const value = colon < 0 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1))
        if (field === 'id') message.id = value
        else if (field === 'event') message.event = value
        else if (field === 'data') {
          message.data = hasData ? `${message.data}\n${value}` : value
          hasData = true
        }
      }
    }
  } finally {
    reader.cancel().catch(() => {})
  }
}
