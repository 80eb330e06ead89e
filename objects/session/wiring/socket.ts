/**
 * A session's stream port: how the one stream endpoint (delivery/endpoint.ts) authorizes a reader
 * of this session, and what a session socket does with each message beyond `subscribe`: a
 * keepalive `ping`, a prompt, an interrupt, and a browser host's `host.*` messages. Replies use
 * the same shapes as HTTP; every failure becomes the socket's `error` frame in the endpoint.
 *
 * @example
 * this.streams = sessionStream({ kv: ctx.storage.kv, subscribers, hostTools, read, prompt, interrupt })
 * override fetch(request) { return openStream(this.streams, request) }
 */
import type { Caller } from '../../access/authorize.ts'
import { settle } from '../../core/rpc.ts'
import type { StreamHost } from '../../delivery/endpoint.ts'
import type { Subscribers } from '../../delivery/subscribers.ts'
import type { Receipt } from '../intake/admission.ts'
import type { InterruptReply } from '../intake/control.ts'
import type { AnswerResult, PermissionAnswer } from '../../permission/approvals.ts'
import type { HostTools } from '../host-tools/host-tools.ts'
import type { Delta } from '../events/air.ts'
import type { StepSnapshot } from '../turn/open-step.ts'
import type { PromptInput } from '../intake/schemas.ts'
import { type ClientMessage, ClientMessageSchema } from './ws-protocol.ts'

/** What a session's sockets need of the session object. */
export interface SessionStreamPort {
  /** Where one-use stream tickets are spent. */
  readonly kv: SyncKvStorage
  readonly subscribers: Subscribers<Delta, StepSnapshot>
  readonly hostTools: HostTools
  /** Authorizes `caller` to read the session; throws `SESSION_NOT_FOUND` as for an unknown one. */
  read(caller: Caller): void
  /** Admits a prompt the socket's message already validated; its failures are thrown. */
  prompt(caller: Caller, input: PromptInput): { receipt: Receipt; duplicate: boolean }
  /** The session's RPC `interrupt`, likewise. */
  interrupt(caller: Caller, body: unknown): InterruptReply
  /** The owner's answer to a pending permission request (objects/permission/approvals.ts); its refusals are thrown. */
  answerPermission(caller: Caller, answer: PermissionAnswer): AnswerResult
}

/** The stream endpoint's host for a session. */
export function sessionStream(port: SessionStreamPort): StreamHost<ClientMessage> {
  return {
    name: 'SessionObject',
    kv: port.kv,
    subscribers: port.subscribers,
    messages: ClientMessageSchema,
    read: (caller) => port.read(caller),
    receive: (ws, caller, msg) => {
      if (msg.type === 'ping') return ws.send(JSON.stringify({ type: 'pong', data: msg.data ?? '' }))
      if (msg.type === 'host.offer' || msg.type === 'host.progress' || msg.type === 'host.result') return port.hostTools.receive(ws, caller, msg)
      if (msg.type === 'interrupt') {
        const { type: _, ...request } = msg
        return ws.send(JSON.stringify({ type: 'interrupt', ...settle(port.interrupt(caller, request)) }))
      }
      if (msg.type === 'permission.answer') {
        const { type: _, ...answer } = msg
        return ws.send(JSON.stringify({ type: 'permission.answered', ...settle(port.answerPermission(caller, answer)) }))
      }
      const { type: _, ...prompt } = msg
      const reply = port.prompt(caller, prompt)
      // The `admitted` event's frame is queued first (the bus delivers it in a microtask queued by
      // the append): every subscriber, the sender too, gets the event without waiting behind this
      // reply's send. Both leave with the same commit.
      queueMicrotask(() => ws.send(JSON.stringify({ type: 'receipt', ...reply })))
    },
    // Its host offer ends: its tools are withdrawn and its open calls fail.
    gone: (ws) => port.hostTools.closed(ws),
  }
}
