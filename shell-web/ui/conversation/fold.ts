/**
 * The conversation as a fold over a window of a session's durable events plus the live part of
 * the open step (deltas, and the `snapshot` a stream sends after its replay). The blocks it gives
 * are a pure function of the events in the window and the live part, so a page that reconnects or
 * reloads mid-turn shows what a page that never left shows. The window is bounded: older events
 * come back a page at a time (`prepend`) as the person scrolls up, and while the newest end grows
 * the oldest blocks leave it (`trim`), so memory does not grow with the session.
 *
 * @example
 * const fold = new ConversationFold()
 * for await (const frame of socket.frames()) if (fold.apply(frame)) draw(fold.blocks())
 */
import { EVENT, isSessionEvent, type SessionFrame, type Stored } from '../../../client/index.ts'

/** One thing the conversation shows, keyed so a redraw updates it in place. */
export type Block =
  | { kind: 'turn'; key: string; seq: number; prompts: { text: string; delivery: string }[]; steps: number; inputTokens: number; outputTokens: number; cost: number | null }
  | { kind: 'text'; key: string; step: string; text: string; streaming: boolean }
  | { kind: 'reasoning'; key: string; step: string; text: string }
  | { kind: 'tool'; key: string; step: string; toolCallId: string; name: string; input: unknown; calledSeq: number; state: 'running' | 'succeeded' | 'failed' | 'cancelled'; output?: string; endedSeq?: number; progress?: string }
  | { kind: 'usage'; key: string; step: string; finish: string; inputTokens: number; outputTokens: number; cost: number | null }
  | { kind: 'notice'; key: string; tone: 'halted' | 'failed' | 'interrupted' | 'retry'; title: string; detail: string; advice: string }

/** Events the window keeps; past it the oldest leave (they page back in on scroll). */
export const MAX_WINDOW_EVENTS = 1_500
/** A block's text is cut past this (a turn of 10,000 tokens is ~60 KB). */
const MAX_TEXT = 400_000

interface Live {
  text: string
  reasoning: string
  progress: Map<string, string>
}

export class ConversationFold {
  /** The window's events, by sequence, oldest first. */
  #events: Stored[] = []
  /** The newest sequence seen (live frames at or below it are old). */
  last = 0
  /** The live part of open steps, by step. */
  #live = new Map<string, Live>()
  #blocks: Block[] | null = null

  /** The oldest sequence in the window (0: empty). */
  get first(): number {
    return this.#events[0]?.seq ?? 0
  }

  /** How many events the window holds. */
  get size(): number {
    return this.#events.length
  }

  /** Folds one frame in; true when what is shown changed. */
  apply(frame: SessionFrame): boolean {
    if (frame.kind === 'event') {
      const event = frame.envelope
      if (event.seq <= this.last) return false
      this.last = event.seq
      if (!isSessionEvent(event)) return false
      this.#events.push(event)
      this.#settleLive(event)
      this.#blocks = null
      return true
    }
    if (frame.kind === 'snapshot') {
      const { step, text, reasoning } = frame.snapshot
      this.#live.set(step, { text, reasoning, progress: this.#live.get(step)?.progress ?? new Map() })
      this.#blocks = null
      return true
    }
    if (frame.kind !== 'delta') return false
    const delta = frame.delta
    const live = this.#liveOf(delta.step)
    if (delta.type === 'text-delta') live.text = (live.text + delta.text).slice(0, MAX_TEXT)
    else if (delta.type === 'reasoning-delta') live.reasoning = (live.reasoning + delta.text).slice(0, MAX_TEXT)
    else if (delta.type === 'tool-progress') live.progress.set(delta.toolCallId, progressText(delta))
    else return false
    this.#blocks = null
    return true
  }

  /** An older page (oldest first, ending before the window): the window grows at its start. */
  prepend(events: Stored[]): void {
    const older = events.filter((e) => e.seq < (this.first || Infinity) && isSessionEvent(e))
    if (older.length === 0) return
    this.#events = [...older, ...this.#events]
    this.#blocks = null
  }

  /** Leaves out the oldest events past `MAX_WINDOW_EVENTS` (call while the newest end is shown). */
  trim(max = MAX_WINDOW_EVENTS): boolean {
    if (this.#events.length <= max) return false
    this.#events = this.#events.slice(this.#events.length - max)
    this.#blocks = null
    return true
  }

  /** Whether a turn runs: a drain started and not ended, or a step open. */
  running(): { step: string | null; tool: string | null } | null {
    let open: { step: string | null; tool: string | null } | null = null
    const tools = new Map<string, string>()
    for (const event of this.#events) {
      if (!isSessionEvent(event)) continue
      if (event.type === EVENT.drainStarted) open = { step: null, tool: null }
      else if (event.type === EVENT.drainEnded) open = null
      else if (event.type === EVENT.stepStarted) (open = { step: event.payload.step, tool: null }), tools.clear()
      else if (event.type === EVENT.stepEnded || event.type === EVENT.stepFailed) open &&= { step: null, tool: null }
      else if (event.type === EVENT.toolCalled) tools.set(event.payload.toolCallId, event.payload.name)
      else if (event.type === EVENT.toolSucceeded || event.type === EVENT.toolFailed || event.type === EVENT.toolCancelled) tools.delete(event.payload.toolCallId)
      else if (event.type === EVENT.halted) open = null
      if (open) open.tool = [...tools.values()].at(-1) ?? null
    }
    return open
  }

  /** Prompts admitted and not yet taken into a turn, oldest first. */
  queued(): { messageId: string; text: string; delivery: string }[] {
    const waiting = new Map<string, { messageId: string; text: string; delivery: string }>()
    for (const event of this.#events) {
      if (!isSessionEvent(event)) continue
      if (event.type === EVENT.admitted) waiting.set(event.payload.messageId, { messageId: event.payload.messageId, text: event.payload.text, delivery: event.payload.delivery })
      else if (event.type === EVENT.prompted) for (const id of event.payload.messageIds) waiting.delete(id)
    }
    return [...waiting.values()]
  }

  /** Tokens and cost of the steps that ended after `after` (the session view counts those before). */
  usageAfter(after: number): { inputTokens: number; outputTokens: number; cost: number } {
    const sum = { inputTokens: 0, outputTokens: 0, cost: 0 }
    for (const event of this.#events) {
      if (event.seq <= after || !isSessionEvent(event) || event.type !== EVENT.stepEnded) continue
      sum.inputTokens += event.payload.usage?.inputTokens ?? 0
      sum.outputTokens += event.payload.usage?.outputTokens ?? 0
      sum.cost += event.payload.cost ?? 0
    }
    return sum
  }

  /** The blocks the window and the live part show, oldest first. */
  blocks(): Block[] {
    return (this.#blocks ??= this.#fold())
  }

  #fold(): Block[] {
    const blocks: Block[] = []
    const byKey = new Map<string, Block>()
    const admitted = new Map<string, { text: string; delivery: string }>()
    const turns: Extract<Block, { kind: 'turn' }>[] = []
    const add = (block: Block) => (blocks.push(block), byKey.set(block.key, block), block)
    const text = (step: string, kind: 'text' | 'reasoning') => (byKey.get(`${kind}:${step}`) as Extract<Block, { kind: 'text' | 'reasoning' }> | undefined) ?? (add(kind === 'text' ? { kind, key: `${kind}:${step}`, step, text: '', streaming: false } : { kind, key: `${kind}:${step}`, step, text: '' }) as Extract<Block, { kind: 'text' | 'reasoning' }>)
    const tool = (step: string, id: string) => byKey.get(`tool:${step}:${id}`) as Extract<Block, { kind: 'tool' }> | undefined
    for (const event of this.#events) {
      if (!isSessionEvent(event)) continue
      const { seq } = event
      switch (event.type) {
        case EVENT.admitted:
          admitted.set(event.payload.messageId, { text: event.payload.text, delivery: event.payload.delivery })
          break
        case EVENT.prompted:
          turns.push(add({ kind: 'turn', key: `turn:${seq}`, seq, prompts: event.payload.messageIds.map((id) => admitted.get(id) ?? { text: '(a prompt from before the part shown)', delivery: 'queue' }), steps: 0, inputTokens: 0, outputTokens: 0, cost: null }) as Extract<Block, { kind: 'turn' }>)
          break
        case EVENT.reasoning:
          text(event.payload.step, 'reasoning').text += event.payload.text
          break
        case EVENT.text:
          text(event.payload.step, 'text').text += event.payload.text
          break
        case EVENT.toolCalled: {
          const p = event.payload
          add({ kind: 'tool', key: `tool:${p.step}:${p.toolCallId}`, step: p.step, toolCallId: p.toolCallId, name: p.name, input: p.input, calledSeq: seq, state: 'running' })
          break
        }
        case EVENT.toolSucceeded:
        case EVENT.toolFailed:
        case EVENT.toolCancelled: {
          const p = event.payload
          const call = tool(p.step, p.toolCallId)
          if (!call) break
          call.endedSeq = seq
          if (event.type === EVENT.toolSucceeded) (call.state = 'succeeded'), (call.output = event.payload.content)
          else if (event.type === EVENT.toolFailed) (call.state = 'failed'), (call.output = `${event.payload.error.code}: ${event.payload.error.message}`)
          else (call.state = 'cancelled'), (call.output = `Cancelled: ${event.payload.reason}`)
          break
        }
        case EVENT.stepEnded: {
          const p = event.payload
          const used = { inputTokens: p.usage?.inputTokens ?? 0, outputTokens: p.usage?.outputTokens ?? 0, cost: p.cost }
          add({ kind: 'usage', key: `usage:${p.step}`, step: p.step, finish: p.finish, ...used })
          const turn = turns.at(-1)
          if (turn) {
            turn.steps++
            turn.inputTokens += used.inputTokens
            turn.outputTokens += used.outputTokens
            if (used.cost !== null) turn.cost = (turn.cost ?? 0) + used.cost
          }
          break
        }
        case EVENT.stepFailed:
          add({ kind: 'notice', key: `failed:${seq}`, tone: 'failed', title: 'The model call failed', detail: `${event.payload.error.code}: ${event.payload.error.message}`, advice: adviceFor(event.payload.error.code) })
          break
        case EVENT.retried:
          add({ kind: 'notice', key: `retried:${seq}`, tone: 'retry', title: `Retrying (attempt ${event.payload.attempt})`, detail: `The provider answered ${event.payload.status}: ${event.payload.message}`, advice: `Neuron tries again after ${Math.round(event.payload.delayMs / 100) / 10} s; nothing to do.` })
          break
        case EVENT.interrupted:
          add({ kind: 'notice', key: `interrupted:${seq}`, tone: 'interrupted', title: 'Interrupted', detail: event.payload.reason, advice: 'Send a prompt to go on from here.' })
          break
        case EVENT.halted:
          add({ kind: 'notice', key: `halted:${seq}`, tone: 'halted', ...haltedText(event.payload) })
          break
      }
    }
    for (const [step, live] of this.#live) {
      if (live.reasoning) text(step, 'reasoning').text += live.reasoning
      if (live.text) {
        const block = text(step, 'text') as Extract<Block, { kind: 'text' }>
        block.text = (block.text + live.text).slice(0, MAX_TEXT)
        block.streaming = true
      }
      for (const [id, progress] of live.progress) {
        const call = tool(step, id)
        if (call && call.state === 'running') call.progress = progress
      }
    }
    return blocks
  }

  #liveOf(step: string): Live {
    let live = this.#live.get(step)
    if (!live) this.#live.set(step, (live = { text: '', reasoning: '', progress: new Map() }))
    return live
  }

  /** A step's durable events take over from its live part; its end clears what is left. */
  #settleLive(event: Stored) {
    const step = (event.payload as { step?: unknown } | undefined)?.step
    if (typeof step !== 'string') return
    const live = this.#live.get(step)
    if (!live) return
    if (event.type === EVENT.text) live.text = ''
    else if (event.type === EVENT.reasoning) live.reasoning = ''
    else if (event.type === EVENT.toolSucceeded || event.type === EVENT.toolFailed || event.type === EVENT.toolCancelled) live.progress.delete((event.payload as { toolCallId: string }).toolCallId)
    else if (event.type === EVENT.stepEnded || event.type === EVENT.stepFailed || event.type === EVENT.interrupted) this.#live.delete(step)
  }
}

function progressText(progress: { progress?: unknown; total?: unknown; message?: unknown }): string {
  const { progress: done, total, message } = progress as { progress?: number; total?: number; message?: string }
  if (typeof done === 'number') return [total ? `${done}/${total}` : String(done), message].filter(Boolean).join(' · ')
  return JSON.stringify(progress).slice(0, 200)
}

/** What the person can do about a failed model call, by its code. */
export function adviceFor(code: string): string {
  if (code.startsWith('PROVIDER_AUTH') || code === 'CREDENTIAL_MISSING') return 'Check the provider credential in your config, then send the prompt again.'
  if (code === 'RATE_LIMITED' || code.includes('RATE')) return 'The provider is limiting requests: wait a minute, then send the prompt again.'
  if (code === 'CONTEXT_OVERFLOW') return 'The conversation no longer fits the model: fork from an earlier turn, or start a new session.'
  if (code === 'ABANDONED') return 'The turn was cut off by a restart: send the prompt again to go on.'
  return 'Send the prompt again; if it fails the same way, check the provider’s status and the session’s config.'
}

function haltedText(p: { reason: string; limit: number | null; error?: { code: string; message: string } }): { title: string; detail: string; advice: string } {
  if (p.reason === 'turn-limit') return { title: 'Stopped at the turn limit', detail: `The agent took ${p.limit ?? 'its'} turns without finishing.`, advice: 'Send a prompt to let it go on, or raise the turn limit in the session’s config.' }
  if (p.reason === 'context-overflow') return { title: 'Stopped: the conversation is too long for the model', detail: p.error ? `${p.error.code}: ${p.error.message}` : 'The context no longer fits.', advice: adviceFor('CONTEXT_OVERFLOW') }
  return { title: 'Stopped after a failed step', detail: p.error ? `${p.error.code}: ${p.error.message}` : 'A step failed and the turn could not go on.', advice: 'Send a prompt to try again from here.' }
}
