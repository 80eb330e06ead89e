/**
 * A browser host, played by Node: it opens a session's WebSocket with a
 * one-use ticket (as the shell does), offers tools, and answers `host.call`s
 * the way a test tells it to. Used by the process tests and the benchmark.
 */

export interface HostMessage {
  type: string
  [key: string]: unknown
}

/** An open host socket and everything it received, in order. */
export interface Host {
  ws: WebSocket
  messages: HostMessage[]
  send(message: unknown): void
  /** Resolves with the first message (from the start) that `match` accepts; fails after `timeoutMs`. */
  next(match: (message: HostMessage) => boolean, timeoutMs?: number): Promise<HostMessage>
  /** Resolves when the socket is closed (by either side). */
  closed: Promise<void>
  close(): Promise<void>
}

/**
 * @example
 * const host = await openHost(dev.url, 'notes-1', auth)
 * host.send({ type: 'host.offer', host: 'notes', tools: [notesSearch] })
 * await host.next((m) => m.type === 'host.offered')
 */
export async function openHost(base: string, session: string, auth: Record<string, string>): Promise<Host> {
  const minted = await fetch(`${base}/v1/sessions/${session}/tickets`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: '{}' })
  if (minted.status !== 201) throw new Error(`ticket: ${minted.status} ${await minted.text()}`)
  const { ticket } = (await minted.json()) as { ticket: string }
  const ws = new WebSocket(`${base.replace('http', 'ws')}/v1/sessions/${session}/ws?ticket=${encodeURIComponent(ticket)}`)
  const messages: HostMessage[] = []
  const waiters = new Set<() => void>()
  ws.addEventListener('message', (event) => {
    messages.push(JSON.parse(String(event.data)) as HostMessage)
    for (const wake of waiters) wake()
  })
  const closed = new Promise<void>((resolve) => ws.addEventListener('close', () => resolve()))
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve())
    ws.addEventListener('error', () => reject(new Error(`WebSocket to ${session} failed`)))
  })
  return {
    ws,
    messages,
    closed,
    send: (message) => ws.send(JSON.stringify(message)),
    next(match, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find(match)
          if (!found) return
          clearTimeout(timer)
          waiters.delete(check)
          resolve(found)
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`host: no matching message within ${timeoutMs} ms; got ${JSON.stringify(messages.map((m) => m.type))}`))
        }, timeoutMs)
        waiters.add(check)
        check()
      })
    },
    async close() {
      ws.close(1000, 'done')
      await closed
    },
  }
}

/** The notes app's search tool, as a browser app describes it. */
export const NOTES_SEARCH = {
  name: 'notes_search',
  description: 'Search the notes by text',
  inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'], additionalProperties: false },
}
