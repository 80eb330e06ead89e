import type { MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { NeuronError } from '../objects/errors.ts'

/**
 * Refuses request bodies over `maxBytes` with 413 `PAYLOAD_TOO_LARGE`, before they are read.
 *
 * @example
 * app.post('/prompt', limitBody(1024 * 1024), handler)
 */
export function limitBody(maxBytes: number): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new NeuronError('PAYLOAD_TOO_LARGE', `request body exceeds ${maxBytes} bytes`, { status: 413, details: { maxBytes } })
    },
  })
}
