/**
 * Request bodies over a route's limit: 413 `PAYLOAD_TOO_LARGE`, with the
 * body read to its end (and thrown away) before the answer leaves.
 *
 * Why drain: a client that sends a body the worker does not know the size of
 * (chunked, no content-length) is still writing when the limit is reached.
 * Answering then, with the rest unread, made the client see a reset or
 * `wrangler dev`'s proxy a 500 `text/plain` instead of the 413 in 8 of 20
 * rounds of 3, 16 and 64 MiB chunked bodies (5 resets, 3 × 500; measured with
 * test/process/body-limit.test.ts); reading the rest first, 20 of 20 got the
 * 413 and the connection served the next request. Draining is bounded: at most `DRAIN_MAX_BYTES` and
 * `DRAIN_MAX_MS`, past which the body is cancelled and the client may see the
 * connection close (a body that large never reaches a deployed worker on most
 * plans: Cloudflare refuses it at its edge). The bytes read are discarded as
 * they come: nothing past the limit is held in memory.
 */
import type { MiddlewareHandler } from 'hono'
import { NeuronError } from '../objects/core/errors.ts'
import { DRAIN_MAX_BYTES, DRAIN_MAX_MS } from '../objects/core/limits.ts'

/**
 * Refuses request bodies over `maxBytes` with 413 `PAYLOAD_TOO_LARGE` after draining them; a body
 * within it reaches the handler whole.
 *
 * @example
 * app.post('/prompt', limitBody(1024 * 1024), handler)
 */
export function limitBody(maxBytes: number): MiddlewareHandler {
  return async (c, next) => {
    const body = c.req.raw.body
    if (!body) return next()
    const reader = body.getReader()
    await refuseDeclared(c.req.raw.headers, reader, maxBytes)
    let size = 0
    let buffer = new Uint8Array(0)
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      const offset = size
      size += value.length
      if (size > maxBytes) {
        await drain(reader)
        throw tooLarge(maxBytes)
      }
      if (size > buffer.length) {
        const grown = new Uint8Array(Math.min(maxBytes, Math.max(size, buffer.length * 2)))
        grown.set(buffer.subarray(0, offset))
        buffer = grown
      }
      buffer.set(value, offset)
    }
    c.req.raw = new Request(c.req.raw, { body: buffer.subarray(0, size) })
    return next()
  }
}

/**
 * Refuses request bodies over `maxBytes` like `limitBody`, but hands the body on as a stream,
 * counted as it is read and never held: one declared too large is refused before it is read; one
 * that grows past the limit errors the stream (the reader stops) and the answer is 413
 * `PAYLOAD_TOO_LARGE`. The answer leaves after the body was read to its end or drained (a reader
 * that stops early, a refusal, cancels it into a drain), for the reason `limitBody` drains.
 *
 * @example
 * app.put('/upload', limitStream(512 * 1024 * 1024), (c) => stub.upload(c.req.raw.body))
 */
export function limitStream(maxBytes: number): MiddlewareHandler {
  return async (c, next) => {
    const body = c.req.raw.body
    if (!body) return next()
    const reader = body.getReader()
    await refuseDeclared(c.req.raw.headers, reader, maxBytes)
    let size = 0
    let over = false
    let finished = () => {}
    const read = new Promise<void>((resolve) => (finished = resolve))
    const counted = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          const { done, value } = await reader.read()
          if (done) return void (finished(), controller.close())
          size += value.byteLength
          if (size <= maxBytes) return controller.enqueue(value)
          over = true
          await drain(reader)
          finished()
          controller.error(tooLarge(maxBytes))
        },
        async cancel() {
          await drain(reader)
          finished()
        },
      },
      { highWaterMark: 0 },
    )
    c.req.raw = new Request(c.req.raw, { body: counted })
    await next()
    const left = c.req.raw.body
    if (left && !left.locked) await left.cancel()
    else {
      let timer: ReturnType<typeof setTimeout> | undefined
      await Promise.race([read, new Promise((resolve) => (timer = setTimeout(resolve, DRAIN_MAX_MS)))])
      clearTimeout(timer)
    }
    if (over) throw tooLarge(maxBytes)
  }
}

/** Reads the rest of a body and discards it, within the drain bounds; past them, cancels it. */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  const deadline = Date.now() + DRAIN_MAX_MS
  let drained = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return
    drained += value.length
    if (drained > DRAIN_MAX_BYTES || Date.now() > deadline) return void (await reader.cancel().catch(() => {}))
  }
}

function tooLarge(maxBytes: number): NeuronError {
  return new NeuronError('PAYLOAD_TOO_LARGE', `request body exceeds ${maxBytes} bytes`, { status: 413, details: { maxBytes } })
}

/** A body whose declared length is over the limit is refused before any of it is read (drained first, so the answer reaches the client). */
async function refuseDeclared(headers: Headers, reader: ReadableStreamDefaultReader<Uint8Array>, maxBytes: number): Promise<void> {
  const declared = headers.has('transfer-encoding') ? null : headers.get('content-length')
  if (declared !== null && Number(declared) > maxBytes) {
    await drain(reader)
    throw tooLarge(maxBytes)
  }
}
