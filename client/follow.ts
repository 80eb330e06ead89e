/**
 * Following a stream of durable events over SSE, the way every Neuron stream
 * resumes: the server replays after `Last-Event-ID`, then goes live. When the
 * connection drops the follower reconnects with the last sequence it yielded,
 * so no durable event is skipped or yielded twice, whatever the server or a
 * proxy replays. Sessions and orchestrations both follow this way.
 */
import { NeuronApiError } from './errors.ts'
import { backoffMs, type Http, sleep } from './http.ts'
import { readSse, type SseMessage } from './sse.ts'
import type { FollowOptions, Stored } from './types.ts'

/** What a stream yields: durable events with their sequence, and the frames without one. */
export type Followed = { kind: 'event'; envelope: Stored } | { kind: 'other'; message: SseMessage }

/**
 * Ends when `options.signal` aborts; throws a `NeuronApiError` the server will
 * keep answering (401, 404, …).
 *
 * @example
 * for await (const item of follow(http, '/v1/orchestrations/o1/events', { after: 0 })) if (item.kind === 'event') console.log(item.envelope.seq)
 */
export async function* follow(http: Http, path: string, options: FollowOptions = {}): AsyncGenerator<Followed> {
  let last = options.after ?? 0
  const { signal } = options
  for (let attempt = 0; !signal?.aborted; attempt++) {
    let cause: unknown
    try {
      const res = await http.send('GET', path, undefined, {
        headers: { accept: 'text/event-stream', 'last-event-id': String(last) },
        ...(signal ? { signal } : {}),
      })
      for await (const message of readSse(res.body!)) {
        attempt = 0
        if (message.id === undefined) {
          yield { kind: 'other', message }
          continue
        }
        const seq = Number(message.id)
        if (seq <= last) continue
        last = seq
        yield { kind: 'event', envelope: JSON.parse(message.data) as Stored }
      }
      cause = new Error('the server ended the stream')
    } catch (error) {
      if (signal?.aborted) return
      if (error instanceof NeuronApiError && !error.retryable) throw error
      cause = error
    }
    if (signal?.aborted) return
    options.onReconnect?.(last, cause)
    await sleep(backoffMs(attempt), signal)
  }
}
