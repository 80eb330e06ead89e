/**
 * The V8 heap of the worker's isolate in a `wrangler dev` process, through
 * wrangler's inspector proxy (Chrome DevTools Protocol): what the code really
 * keeps alive after a full garbage collection, as opposed to the process's
 * resident size, which also counts garbage not yet collected and the runtime's
 * own allocations.
 */

export interface Inspector {
  /** Live heap after a forced full GC, in MiB. */
  liveHeapMb(): Promise<number>
  close(): void
}

/**
 * @example
 * const inspector = inspectorOf(dev.inspectorPort, dev.url)
 * const before = await inspector.liveHeapMb()
 */
export function inspectorOf(port: number, workerUrl: string): Inspector {
  let session: Promise<InspectorSession> | null = null
  return {
    async liveHeapMb() {
      // wrangler's proxy wires an inspector connection to the runtime when a request passes through
      // it, and may drop that wiring while only WebSocket traffic flows (seen here: calls then go
      // unanswered). So every measurement sends a request first, and a call that gets no answer
      // reconnects and asks again.
      for (let attempt = 0; ; attempt++) {
        session ??= inspectorSession(port)
        const current = await session
        try {
          await (await fetch(`${workerUrl}/health`)).text()
          await current.call('HeapProfiler.collectGarbage')
          const usage = (await current.call('Runtime.getHeapUsage')) as { usedSize: number }
          return usage.usedSize / (1024 * 1024)
        } catch (error) {
          current.close()
          session = null
          if (attempt === 4) throw error
        }
      }
    },
    close() {
      void session?.then((s) => s.close())
    },
  }
}

/** One Chrome DevTools Protocol connection to the worker's isolate. */
export interface InspectorSession {
  /** Sends one CDP command; rejects when it gets no answer within `timeoutMs` (a profile can take a while to serialize). */
  call(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<Record<string, unknown>>
  close(): void
}

/**
 * Connects to wrangler's inspector proxy. Send the worker a request first: the proxy wires a
 * connection to the runtime only when a request passes through it (see `liveHeapMb`).
 *
 * @example
 * const cdp = await inspectorSession(dev.inspectorPort)
 * await cdp.call('Profiler.enable')
 */
export async function inspectorSession(port: number): Promise<InspectorSession> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as { webSocketDebuggerUrl: string }[]
  // The proxy accepts local origins only; Node's WebSocket lets us say which.
  const ws = new WebSocket(targets[0]!.webSocketDebuggerUrl, { headers: { origin: 'http://localhost' } } as unknown as string[])
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve())
    ws.addEventListener('error', () => reject(new Error('inspector: connection failed')))
  })
  let next = 0
  const waiting = new Map<number, (result: Record<string, unknown>) => void>()
  ws.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: Record<string, unknown> }
    if (message.id !== undefined) waiting.get(message.id)?.(message.result ?? {})
  })
  return {
    call: (method, params = {}, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const id = ++next
        const timer = setTimeout(() => {
          waiting.delete(id)
          reject(new Error(`inspector: ${method} got no answer`))
        }, timeoutMs)
        waiting.set(id, (result) => {
          clearTimeout(timer)
          waiting.delete(id)
          resolve(result)
        })
        ws.send(JSON.stringify({ id, method, params }))
      }),
    close: () => ws.close(),
  }
}
