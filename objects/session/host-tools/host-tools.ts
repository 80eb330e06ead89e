/**
 * Host tools: the tools a browser holding the session's WebSocket offers (the
 * shell in Agent Mode), registered in the session's tool registry only while
 * that socket is open. A call is recorded by the runner first, then sent to the
 * socket whose registration the model was shown; the answer comes back on the
 * same socket and is settled like any tool's. Protocol: docs/host-tools.md.
 *
 * What survives hibernation: each socket's id (its attachment) and its offer
 * (storage, keyed by that id: schemas do not fit an attachment). `restore`
 * registers the offers of sockets that are still open and forgets the rest.
 * What does not: an open call (its turn died with the isolate). Each open call
 * leaves a marker in storage until its outcome is recorded, so the wake after
 * a restart fails it `HOST_GONE` rather than a generic abandonment.
 */
import type { Caller } from '../../access/authorize.ts'
import { NeuronError } from '../../core/errors.ts'
import { utf8Length } from '../../ledger/json.ts'
import { MAX_HOST_PROGRESS_BYTES, MAX_HOST_SOCKETS } from '../../core/limits.ts'
import type { Registration, ToolRegistry } from '../../tools/registry.ts'
import type { Tool } from '../../tools/tool.ts'
import type { Delta } from '../events/air.ts'
import { HostCalls } from './host-calls.ts'
import { checkOffer, type HostExecute, type OfferedTool } from './host-offer.ts'
import type { SocketAttachment } from '../../delivery/subscribers.ts'
import type { ClientMessage } from '../wiring/ws-protocol.ts'

export interface HostToolsDeps {
  ctx: DurableObjectState
  tools: ToolRegistry
  /** The session's owner: the only principal that may offer. */
  owner(): string
  /** Sends a delta on the session's air (progress). */
  air(delta: Delta): void
  /** How long a host has to answer one call. */
  timeoutMs: number
}

type HostMessage = Extract<ClientMessage, { type: `host.${string}` }>

interface StoredOffer {
  host: string
  tools: OfferedTool[]
}

const OFFER = 'host-offer:'
const OPEN_CALL = 'host-call:'

/**
 * @example
 * const hostTools = new HostTools({ ctx, tools, owner: () => state.owner, air, timeoutMs: 120_000 })
 * const gone = hostTools.restore()            // on wake, before crash recovery
 * hostTools.receive(ws, caller, message)     // a `host.*` message
 * hostTools.closed(ws)                       // its tools are withdrawn, its open calls fail HOST_GONE
 */
export class HostTools {
  private readonly calls = new HostCalls()
  private readonly registrations = new Map<string, Registration[]>()
  /** Calls whose storage marker this instance wrote and has not removed yet. */
  private readonly marked = new Set<string>()

  constructor(private readonly deps: HostToolsDeps) {}

  /**
   * On wake: registers the stored offers of sockets still open and deletes the others; returns the
   * calls that were open when the object stopped (their sockets, if alive, get `host.cancel`).
   */
  restore(): Set<string> {
    const kv = this.deps.ctx.storage.kv
    const live = this.sockets()
    for (const [key, offer] of [...kv.list<StoredOffer>({ prefix: OFFER })]) {
      const socket = key.slice(OFFER.length)
      if (live.has(socket) && this.reoffer(socket, offer)) continue
      kv.delete(key)
    }
    const abandoned = new Set<string>()
    for (const [key, socket] of [...kv.list<string>({ prefix: OPEN_CALL })]) {
      const call = key.slice(OPEN_CALL.length)
      abandoned.add(call)
      send(live.get(socket), { type: 'host.cancel', call, reason: 'the session restarted' })
      kv.delete(key)
    }
    return abandoned
  }

  /** Handles one `host.*` message from `ws`; a refusal throws a coded `NeuronError` and changes nothing. */
  receive(ws: WebSocket, caller: Caller, message: HostMessage): void {
    const socket = socketIdOf(ws)
    switch (message.type) {
      case 'host.offer':
        return this.offer(ws, socket, caller, message)
      case 'host.progress': {
        const bytes = utf8Length(JSON.stringify(message.progress))
        if (bytes > MAX_HOST_PROGRESS_BYTES) {
          throw new NeuronError('HOST_PROGRESS_TOO_LARGE', `progress is ${bytes} bytes of JSON; the limit is ${MAX_HOST_PROGRESS_BYTES}`, {
            status: 413,
            details: { call: message.call, maxBytes: MAX_HOST_PROGRESS_BYTES },
          })
        }
        const { step } = this.calls.progress(socket, message.call)
        return this.deps.air({ type: 'tool-progress', step, toolCallId: message.call, progress: message.progress })
      }
      case 'host.result':
        return this.calls.answer(socket, message.call, message.ok ? { ok: true, content: message.content! } : { ok: false, error: message.error! })
    }
  }

  /** `ws` closed: its tools are withdrawn and its stored offer deleted; its open calls fail `HOST_GONE`. */
  closed(ws: WebSocket): void {
    const socket = (ws.deserializeAttachment() as SocketAttachment | null)?.socket
    if (!socket) return
    // Only a socket holding an offer has a stored one: others close without a write.
    if (this.registrations.has(socket)) this.deps.ctx.storage.kv.delete(OFFER + socket)
    this.withdraw(socket)
    this.calls.drop(socket)
  }

  /** A call's outcome is recorded: its marker is no longer needed. */
  settled(toolCallId: string): void {
    if (this.marked.delete(toolCallId)) this.deps.ctx.storage.kv.delete(OPEN_CALL + toolCallId)
  }

  private offer(ws: WebSocket, socket: string, caller: Caller, message: Extract<HostMessage, { type: 'host.offer' }>): void {
    if (caller.id !== this.deps.owner()) {
      throw new NeuronError('HOST_OWNER_ONLY', "only the session's owner may offer host tools", { status: 403 })
    }
    if (!this.registrations.has(socket) && this.registrations.size >= MAX_HOST_SOCKETS && message.tools.length > 0) {
      throw new NeuronError('HOST_SOCKETS_FULL', `${MAX_HOST_SOCKETS} sockets already offer tools to this session; close one first`, {
        status: 429,
        details: { maxSockets: MAX_HOST_SOCKETS },
      })
    }
    const { tools, offered, refused } = checkOffer(message.tools, this.executor(socket, message.host))
    this.withdraw(socket)
    this.register(socket, message.host, tools)
    const kv = this.deps.ctx.storage.kv
    if (offered.length > 0) kv.put(OFFER + socket, { host: message.host, tools: offered } satisfies StoredOffer)
    else kv.delete(OFFER + socket)
    send(ws, { type: 'host.offered', host: message.host, tools: [...tools.keys()], refused })
  }

  /** Registers a stored offer again; false when it no longer passes (a limit changed since it was stored). */
  private reoffer(socket: string, offer: StoredOffer): boolean {
    try {
      this.register(socket, offer.host, checkOffer(offer.tools, this.executor(socket, offer.host)).tools)
      return true
    } catch (error) {
      if (error instanceof NeuronError) return false
      throw error
    }
  }

  private register(socket: string, host: string, tools: Map<string, Tool>): void {
    if (tools.size === 0) return
    this.registrations.set(socket, [...tools].map(([name, tool]) => this.deps.tools.register(name, tool, `host:${host}`)))
  }

  private withdraw(socket: string): void {
    for (const registration of this.registrations.get(socket) ?? []) registration.close()
    this.registrations.delete(socket)
  }

  /** How the tools `socket` offers execute: the call goes to that socket, and its answer settles it. */
  private executor(socket: string, host: string): HostExecute {
    return async (name, input, context) => {
      // A host tool acts in the owner's browser: it asserts policy before the call is sent.
      await context.permission.assert({ tool: name, source: `host:${host}`, subjects: [], input, reason: `${name} runs in ${host}` })
      const ws = this.sockets().get(socket)
      if (!ws) throw new NeuronError('HOST_GONE', 'the host that offered this tool is no longer connected', { status: 502 })
      const call = context.toolCallId
      const answer = this.calls.start({
        socket,
        call,
        step: context.assistantMessageId,
        signal: context.signal,
        timeoutMs: this.deps.timeoutMs,
        cancel: (reason) => send(this.sockets().get(socket), { type: 'host.cancel', call, reason }),
      })
      this.deps.ctx.storage.kv.put(OPEN_CALL + call, socket)
      this.marked.add(call)
      if (!send(ws, { type: 'host.call', call, name, input })) this.calls.fail(call, 'HOST_GONE', 'the host disconnected before the call reached it')
      return answer
    }
  }

  /** The open sockets by id. */
  private sockets(): Map<string, WebSocket> {
    const byId = new Map<string, WebSocket>()
    for (const ws of this.deps.ctx.getWebSockets()) {
      const socket = (ws.deserializeAttachment() as SocketAttachment | null)?.socket
      if (socket) byId.set(socket, ws)
    }
    return byId
  }
}

/** The socket's id, given one now if it was accepted before sockets had ids. */
function socketIdOf(ws: WebSocket): string {
  const attachment = ws.deserializeAttachment() as SocketAttachment
  if (attachment.socket) return attachment.socket
  const socket = crypto.randomUUID()
  ws.serializeAttachment({ ...attachment, socket } satisfies SocketAttachment)
  return socket
}

/** Sends a JSON message; false when the socket is gone or cannot take it. */
function send(ws: WebSocket | undefined, message: Record<string, unknown>): boolean {
  if (!ws) return false
  try {
    ws.send(JSON.stringify(message))
    return true
  } catch {
    return false
  }
}
