/**
 * One provider turn (spec §3.2 "one explicit llm.stream per provider turn"):
 * catalog row → dialect request → fetch → SSE → dialect parser → normalized
 * events. Retries happen here and are yielded as `retry` events, never hidden
 * and never after output of that attempt was yielded, so nothing is duplicated.
 */
import { ProviderError } from './errors.ts'
import { type Catalog, resolveModel } from './catalog.ts'
import { dialectFor } from './dialects/registry.ts'
import { errorFromResponse } from './http-error.ts'
import { RETRY_DEFAULTS, retryDelay, sleep as defaultSleep } from './retry.ts'
import { providerSafeNames } from './tool-names.ts'
import type { LlmEvent, LlmRequest } from './types.ts'
import { WireReader } from './wire-reader.ts'

export interface StreamOptions {
  /**
   * The composed catalog (`composeCatalog(env)`), or a function that finds it when the turn starts
   * (a session's owner keys are read per turn): the caller then needs no generator of its own
   * around this one, and every generator a batch passes through costs async steps per chunk.
   */
  catalog: Catalog | (() => Promise<Catalog>)
  /** Defaults to the global fetch; a provider with its own transport (local) ignores it. */
  fetch?: typeof fetch
  /** Aborting stops the turn at once; the iterator then throws `signal.reason`. */
  signal?: AbortSignal
  /** Total attempts including the first (default 3). */
  maxAttempts?: number
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
}

/**
 * Streams one turn as normalized events. Throws a `NeuronError` subclass:
 * `UNKNOWN_MODEL`, `PROVIDER_NOT_CONFIGURED`, `UNSUPPORTED_ENDPOINT`, or a
 * `ProviderError` (`PROVIDER_AUTH`, `PROVIDER_BAD_REQUEST`, `PROVIDER_RATE_LIMITED`,
 * `PROVIDER_OVERLOADED`, `PROVIDER_STREAM_TRUNCATED`, …) with the vendor's message.
 *
 * @example
 * for await (const event of streamModel(
 *   { provider: 'local', model: 'echo-1', messages: [{ role: 'user', content: 'hi' }] },
 *   { catalog: composeCatalog(env) },
 * )) if (event.type === 'text-delta') write(event.text)
 */
export async function* streamModel(
  request: LlmRequest,
  options: StreamOptions,
): AsyncGenerator<LlmEvent, void, undefined> {
  // A plain loop, not `yield*`: delegating to an array from an async generator costs extra ticks per event.
  for await (const batch of streamModelBatches(request, options)) for (const event of batch) yield event
}

/**
 * The same turn as `streamModel`, in batches: one array per network chunk that
 * completed any events (a retry is a batch of one). Consumers on the hot path
 * (the session runner) pay one async step per chunk instead of one per event.
 *
 * @example
 * for await (const batch of streamModelBatches(request, { catalog })) for (const event of batch) handle(event)
 */
export async function* streamModelBatches(
  request: LlmRequest,
  options: StreamOptions,
): AsyncGenerator<LlmEvent[], void, undefined> {
  const catalog = typeof options.catalog === 'function' ? await options.catalog() : options.catalog
  const { provider, model, endpoint } = resolveModel(catalog, request)
  const dialect = dialectFor(endpoint)
  // A named stage: tool names leave in the form vendors accept and come back canonical.
  const names = providerSafeNames(request)
  const send = provider.fetch ?? options.fetch ?? fetch
  const { signal } = options
  const maxAttempts = Math.max(1, options.maxAttempts ?? RETRY_DEFAULTS.maxAttempts)
  const sleep = options.sleep ?? defaultSleep
  for (let attempt = 1; ; attempt++) {
    let yielded = false
    try {
      signal?.throwIfAborted()
      const { baseUrl, apiKey, headers } = provider
      const http = dialect.request({ request: names.request, model, baseUrl, apiKey, headers })
      const response = await send(http, signal ? { signal } : {}).catch((cause: unknown) => {
        if (signal?.aborted) throw cause
        throw new ProviderError('PROVIDER_NETWORK', `fetch ${http.url} failed: ${String(cause)}`, { cause })
      })
      if (!response.ok) throw await errorFromResponse(response)
      if (!response.body) throw new ProviderError('PROVIDER_PROTOCOL', `${dialect.kind}: response has no body`)
      // The body is read here, not through a nested generator: every generator a batch passes
      // through costs its own async steps, once per network chunk.
      const reader = response.body.getReader()
      const wire = new WireReader(dialect.parser())
      // Cancelling the reader settles a pending read at once, for network and in-process bodies alike.
      const onAbort = () => void reader.cancel(signal?.reason).catch(() => {})
      signal?.addEventListener('abort', onAbort, { once: true })
      try {
        for (;;) {
          let chunk: ReadableStreamReadResult<Uint8Array>
          // A try, not `.catch()`: that would be one more promise and async step per chunk.
          try {
            chunk = await reader.read()
          } catch (cause) {
            throw signal?.aborted ? cause : new ProviderError('PROVIDER_STREAM_TRUNCATED', `stream broke: ${String(cause)}`, { cause })
          }
          signal?.throwIfAborted()
          const out: LlmEvent[] = []
          const failure = parseChunk(wire, chunk, out)
          // Output parsed before a failure still reaches the caller, in order, before the error.
          if (out.length > 0) {
            yielded = true
            yield names.inbound ? out.map(names.inbound) : out
          }
          if (failure) throw failure.error
          if (chunk.done) return
        }
      } finally {
        signal?.removeEventListener('abort', onAbort)
        void reader.cancel().catch(() => {})
      }
    } catch (error) {
      if (signal?.aborted) throw signal.reason
      const delayMs = yielded ? undefined : retryDelay(error, attempt, maxAttempts)
      if (delayMs === undefined || !(error instanceof ProviderError)) throw error
      yield [{ type: 'retry', attempt, delayMs, status: error.httpStatus, message: error.message }]
      await sleep(delayMs, signal)
    }
  }
}

/** Reads one chunk (or the end of the body) into `out`; what the parser threw, if it did. */
function parseChunk(wire: WireReader, chunk: ReadableStreamReadResult<Uint8Array>, out: LlmEvent[]): { error: unknown } | null {
  try {
    if (chunk.done) wire.end(out)
    else wire.push(chunk.value, out)
    return null
  } catch (error) {
    return { error }
  }
}
