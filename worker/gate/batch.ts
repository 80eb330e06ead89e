/**
 * Per-isolate batching for the stages that record after the response: the
 * first item of a batch schedules one flush `afterMs` later, kept alive with
 * `waitUntil`; everything added meanwhile rides along. One write or log call
 * per window instead of one per request.
 */
/** How long a batch gathers before it is written: the window of the stages that record after a response. */
export const FLUSH_AFTER_MS = 250

export interface Batcher<T> {
  add(item: T, waitUntil: (work: Promise<unknown>) => void): void
}

/**
 * @example
 * const lines = batched<string>((all) => console.log(all.join('\n')), 250)
 * lines.add('GET /v1/me 200', (p) => c.executionCtx.waitUntil(p))
 */
export function batched<T>(flush: (items: T[]) => Promise<void> | void, afterMs: number): Batcher<T> {
  let items: T[] | null = null
  return {
    add(item, waitUntil) {
      if (!items) {
        items = []
        waitUntil(
          new Promise((resolve) => setTimeout(resolve, afterMs)).then(() => {
            const batch = items!
            items = null
            return flush(batch)
          }),
        )
      }
      items.push(item)
    },
  }
}
