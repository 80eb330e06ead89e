/**
 * A TCP proxy in front of a real server, so a test can cut every open
 * connection at once (a network drop), or hold what the server sends on them
 * (a client that lags behind the server), while new connections still get through.
 */
import { createServer, type Socket, connect } from 'node:net'

export interface Proxy {
  url: string
  /** Destroys every open connection, both sides, now. */
  drop(): number
  /** Stops passing what the server sends on the connections open now (new ones flow), until `release`. */
  hold(): number
  /** Passes on what `hold` kept, and everything after it. */
  release(): void
  close(): Promise<void>
}

/** Starts a proxy on 127.0.0.1 to `targetPort`. */
export async function startProxy(targetPort: number): Promise<Proxy> {
  const open = new Set<Socket>()
  const pairs = new Map<Socket, Socket>()
  const held = new Set<Socket>()
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1')
    open.add(client)
    open.add(upstream)
    pairs.set(upstream, client)
    client.pipe(upstream).pipe(client)
    const forget = () => {
      open.delete(client)
      open.delete(upstream)
      pairs.delete(upstream)
      held.delete(upstream)
      client.destroy()
      upstream.destroy()
    }
    client.on('error', forget).on('close', forget)
    upstream.on('error', forget).on('close', forget)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    drop() {
      const count = open.size
      for (const socket of open) socket.destroy()
      open.clear()
      return count
    },
    hold() {
      for (const [upstream, client] of pairs) {
        upstream.unpipe(client)
        upstream.pause()
        held.add(upstream)
      }
      return held.size
    },
    release() {
      for (const upstream of held) {
        const client = pairs.get(upstream)
        if (client) upstream.pipe(client)
      }
      held.clear()
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of open) socket.destroy()
        server.close(() => resolve())
      }),
  }
}
