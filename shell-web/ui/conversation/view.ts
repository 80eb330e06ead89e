/**
 * The conversation view of one session: its turns drawn from a fold over its events (fold.ts) —
 * prompts, the model's text as sanitized Markdown, tool calls as cards, each step's and turn's
 * tokens and cost and the session's, notices for halted and failed turns — with the permission
 * requests inline (permission-cards.ts), a running indicator whose Interrupt names the step it
 * shows, the prompts queued behind the turn, a prompt box, and the session's workspace beside it.
 *
 * History pages in as the person scrolls up (`GET …/history`, a page at a time before the oldest
 * event shown); the socket starts `INITIAL_EVENTS` before the end. While the newest end is shown
 * the window keeps at most `MAX_WINDOW_EVENTS` events, so a long session costs the page no more
 * than a short one. Redraws are throttled and touch only the blocks that changed.
 *
 * @example
 * const { view, after } = await ConversationView.open(client, id)
 * const socket = client.socket(id, { after })
 * container.append(view.root)
 * for await (const frame of socket.frames()) view.apply(frame)
 */
import { EVENT, type NeuronClient, type SessionFrame, type SessionHandle, type SessionSocket, type Stored } from '../../../client/index.ts'
import { PermissionRequests } from '../../agent/permissions.ts'
import { h, throttled } from '../dom.ts'
import { PermissionCards } from '../permission-cards.ts'
import { type Drawn, costText, drawBlock, tokensText } from './blocks.ts'
import { changesOf, FILE_CHANGERS } from './changes.ts'
import { ConversationFold } from './fold.ts'
import type { MountView } from '../view.ts'
import { WorkspaceView } from './workspace-view.ts'

/** Events before the end a view opens with; older ones page in on scroll. */
export const INITIAL_EVENTS = 300
/** Events one scroll-up page reads. */
export const PAGE_EVENTS = 200
/** How near the top (px) the log must be scrolled to read the page before. */
const NEAR_TOP = 120
const NEAR_BOTTOM = 80

export interface ConversationDeps {
  session: SessionHandle
  /** Prompts, interrupts and permission answers go over it. */
  socket: Pick<SessionSocket, 'prompt' | 'interrupt' | 'answerPermission'>
  /** The session's usage as of `seq` (its view's `usage` and `lastSequence`). */
  base: { seq: number; inputTokens: number; outputTokens: number; cost: number }
  /** The first sequence the socket subscribes after: the window starts there. */
  after: number
  /** The signed-in person's id (their answers read "you"). */
  me?: string
}

export class ConversationView {
  readonly root: HTMLElement
  readonly fold = new ConversationFold()
  readonly permissions = new PermissionRequests()
  readonly workspace: WorkspaceView
  readonly #log: HTMLElement
  readonly #list: HTMLElement
  readonly #earlier: HTMLButtonElement
  readonly #running: HTMLElement
  readonly #runningText: HTMLElement
  readonly #interruptButton: HTMLButtonElement
  /** The step an interrupt was sent for ('' for a turn not yet at a step), until the indicator moves on. */
  #sentFor: string | null = null
  readonly #queued: HTMLElement
  readonly #usage: HTMLElement
  readonly #note: HTMLElement
  readonly #cards: PermissionCards
  #drawn = new Map<string, Drawn>()
  /** Every session event with a sequence at or after this is in the window. */
  #from: number
  #atStart: boolean
  #paging: Promise<void> | null = null
  #extra = { inputTokens: 0, outputTokens: 0, cost: 0 }
  #live = false
  /** Whether the log follows the newest end: the person has not scrolled up away from it. */
  #following = true
  #render = throttled(() => this.render(), 60)
  #refreshFiles = throttled(() => void this.workspace.refresh(), 400)

  /** Reads the session's view: where its socket should start, and its usage so far. */
  static async open(client: NeuronClient, id: string, me?: string): Promise<{ view: ConversationView; after: number; session: SessionHandle }> {
    const session = client.session(id)
    // The requests still waiting may be older than the window the socket replays.
    const [seen, pending] = await Promise.all([session.view(), session.permissions()])
    const after = Math.max(0, seen.lastSequence - INITIAL_EVENTS)
    const usage = seen.usage ?? { inputTokens: 0, outputTokens: 0, cost: 0 }
    const socket = { prompt: () => Promise.reject(new Error('not connected')), interrupt: () => Promise.reject(new Error('not connected')), answerPermission: () => Promise.reject(new Error('not connected')) }
    const view = new ConversationView({ session, socket, base: { seq: seen.lastSequence, ...usage }, after, ...(me ? { me } : {}) })
    view.permissions.seed(pending)
    return { view, after, session }
  }

  constructor(private deps: ConversationDeps) {
    this.#from = deps.after + 1
    this.#atStart = deps.after === 0
    this.workspace = new WorkspaceView(deps.session.workspace)
    this.#earlier = h('button', { type: 'button', class: 'earlier', 'data-action': 'load-earlier', onclick: () => void this.loadEarlier() }, 'Show earlier messages')
    this.#list = h('div', { class: 'blocks' })
    this.#cards = new PermissionCards(
      async (card, reply, reason) => void (await this.deps.socket.answerPermission({ toolCallId: card.toolCallId, reply, ...(reason ? { reason } : {}) })),
      (by) => (by === deps.me ? 'you' : by),
    )
    this.#log = h('div', { class: 'conversation-log', role: 'log', 'aria-label': 'Conversation', tabindex: 0, onscroll: () => this.#scrolled() }, this.#earlier, this.#list, this.#cards.root)
    this.#runningText = h('span', {})
    this.#interruptButton = h('button', { type: 'button', class: 'danger', 'data-action': 'interrupt', onclick: () => this.#onInterrupt() }, 'Interrupt')
    this.#running = h('div', { class: 'running', 'data-running': '' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), h('span', { role: 'status' }, this.#runningText), this.#interruptButton)
    this.#queued = h('ul', { class: 'queued', 'aria-label': 'Queued prompts' })
    this.#usage = h('p', { class: 'session-usage muted', 'data-session-usage': true })
    this.#note = h('p', { class: 'muted', role: 'status', 'data-conversation-note': true })
    const input = h('textarea', { name: 'prompt', rows: 2, placeholder: 'Message the agent (Enter sends, Shift+Enter for a new line)', 'aria-label': 'Prompt' })
    const send = () => {
      const text = input.value.trim()
      if (!text) return
      input.value = ''
      void this.deps.socket.prompt(text).catch((error: Error) => this.#say(`Not sent: ${(error as { code?: string }).code ?? ''} ${error.message}`))
    }
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) (e.preventDefault(), send())
    })
    const composer = h('form', { class: 'composer', onsubmit: (e) => (e.preventDefault(), send()) }, input, h('button', { type: 'submit', class: 'primary', 'data-action': 'send' }, 'Send'))
    this.root = h('div', { class: 'conversation', 'data-conversation': true }, h('div', { class: 'conversation-inner' },
      h('div', { class: 'conversation-main' }, this.#usage, this.#log, this.#running, this.#queued, this.#note, composer),
      h('aside', { class: 'conversation-side', 'aria-label': 'Workspace files' }, this.workspace.root)))
    this.render()
  }

  /** Where prompts, interrupts and answers go (the socket, once it exists). */
  attach(socket: ConversationDeps['socket']): void {
    this.deps = { ...this.deps, socket }
  }

  /** Folds one frame of the session's socket in. */
  apply(frame: SessionFrame): void {
    if (frame.kind === 'replay-end' && !this.#live) {
      this.#live = true
      void this.workspace.refresh()
    }
    const isNew = frame.kind === 'event' && frame.envelope.seq > this.fold.last
    if (!this.fold.apply(frame)) return
    this.permissions.apply(frame)
    if (isNew && frame.kind === 'event') this.#counted(frame.envelope)
    this.#render()
  }

  /** Reads the page of history before the oldest event shown. */
  loadEarlier(): Promise<void> {
    if (this.#atStart) return Promise.resolve()
    return (this.#paging ??= (async () => {
      try {
        const before = this.#from
        const after = Math.max(0, before - 1 - PAGE_EVENTS)
        const page = await this.deps.session.history({ after, limit: PAGE_EVENTS })
        const height = this.#log.scrollHeight
        const top = this.#log.scrollTop
        this.fold.prepend((page.items as Stored[]).filter((e) => e.seq < before))
        this.#from = after + 1
        this.#atStart = after === 0
        this.render()
        // The part shown stays where it was: the page grew above it.
        this.#log.scrollTop = top + (this.#log.scrollHeight - height)
      } catch (error) {
        this.#say(`Earlier messages were not read: ${(error as Error).message}`)
      } finally {
        this.#paging = null
      }
    })())
  }

  /** Whether the oldest event of the session is shown. */
  get atStart(): boolean {
    return this.#atStart
  }

  render(): void {
    const atBottom = this.#following
    if (atBottom && this.fold.trim()) (this.#from = this.fold.first), (this.#atStart = false)
    const blocks = this.fold.blocks()
    const keys = new Set(blocks.map((b) => b.key))
    for (const [key, drawn] of this.#drawn) if (!keys.has(key)) (drawn.el.remove(), this.#drawn.delete(key))
    let previous: Element | null = null
    for (const block of blocks) {
      let drawn = this.#drawn.get(block.key)
      if (drawn) drawn.update(block)
      else this.#drawn.set(block.key, (drawn = drawBlock(block, { changes: (from, to) => changesOf(this.deps.session.workspace, from, to) })))
      const at: Element | null = previous ? previous.nextElementSibling : this.#list.firstElementChild
      if (at !== drawn.el) this.#list.insertBefore(drawn.el, at)
      previous = drawn.el
    }
    this.#earlier.hidden = this.#atStart
    this.#cards.sync(this.permissions.list())
    this.#drawRunning()
    this.#drawQueued()
    const total = { inputTokens: this.deps.base.inputTokens + this.#extra.inputTokens, outputTokens: this.deps.base.outputTokens + this.#extra.outputTokens, cost: this.deps.base.cost + this.#extra.cost }
    this.#usage.textContent = `Session: ${tokensText(total)} tokens · ${costText(total.cost)}`
    if (atBottom) this.#log.scrollTop = this.#log.scrollHeight
  }

  /** The indicator is built once and updated in place, so a focused Interrupt keeps the focus while text streams. */
  #drawRunning() {
    const running = this.fold.running()
    this.#running.dataset.running = running ? (running.step ?? 'starting') : ''
    this.#running.hidden = !running
    this.#runningText.textContent = !running ? '' : `Running: ${running.tool ? `calling ${running.tool}` : running.step ? 'the model is answering' : 'starting the turn'}`
    this.#interruptButton.dataset.step = running?.step ?? ''
    // A second click on the step already sent for is the same intent, not a stop of what comes next.
    this.#interruptButton.disabled = this.#sentFor !== null && this.#sentFor !== '' && this.#sentFor === (running?.step ?? '')
    if (!this.#interruptButton.disabled) this.#sentFor = null
  }

  #onInterrupt() {
    if (this.#interruptButton.disabled) return
    const step = this.#interruptButton.dataset.step || null
    this.#sentFor = step ?? ''
    this.#interruptButton.disabled = true
    void this.#interrupt(step)
  }

  #drawQueued() {
    const queued = this.fold.queued()
    this.#queued.hidden = queued.length === 0
    this.#queued.replaceChildren(...queued.map((q) => h('li', { 'data-queued': q.messageId }, h('span', { class: 'muted' }, q.delivery === 'steer' ? 'Steering: ' : 'Queued: '), q.text)))
  }

  /** Stops the step the indicator shows (a turn that ended meanwhile is not stopped). */
  async #interrupt(step: string | null) {
    try {
      const reply = await this.deps.socket.interrupt(step ? { step } : {})
      this.#say(reply.interrupted ? 'Interrupt sent.' : reply.step === null ? 'Nothing was running.' : 'The turn had already ended.')
    } catch (error) {
      this.#sentFor = null // not sent: the person may try again
      this.#interruptButton.disabled = false
      this.#say(`Not interrupted: ${(error as Error).message}`)
    }
  }

  /** A step's usage past the base view, counted once per event (the window may leave it later). */
  #counted(event: Stored) {
    if (event.type === EVENT.stepEnded && event.seq > this.deps.base.seq) {
      const p = event.payload as { usage: { inputTokens: number; outputTokens: number } | null; cost: number | null }
      this.#extra.inputTokens += p.usage?.inputTokens ?? 0
      this.#extra.outputTokens += p.usage?.outputTokens ?? 0
      this.#extra.cost += p.cost ?? 0
    }
    if (this.#live && event.type === EVENT.toolSucceeded) {
      const call = this.fold.blocks().find((b) => b.kind === 'tool' && b.key === `tool:${(event.payload as { step: string }).step}:${(event.payload as { toolCallId: string }).toolCallId}`)
      if (call && call.kind === 'tool' && FILE_CHANGERS.has(call.name)) this.#refreshFiles()
    }
  }

  #scrolled() {
    this.#following = this.#nearBottom()
    if (this.#log.scrollTop < NEAR_TOP) void this.loadEarlier()
  }

  #nearBottom(): boolean {
    return this.#log.scrollHeight - this.#log.scrollTop - this.#log.clientHeight < NEAR_BOTTOM
  }

  #say(text: string) {
    this.#note.textContent = text
  }
}

/**
 * The view convention (view.ts): mounted, it shows the session a route names, with a socket of its
 * own (the agent panel, which holds the Agent Mode bridge, shows its open session the same way over
 * its own socket); `unmount` ends the socket.
 *
 * @example
 * const shown = mount(document.querySelector('#pane')!, deps)
 * shown.show?.({ view: 'conversation', session: id })
 */
export const mount: MountView = (container, deps) => {
  let shown: { close(): void } | undefined
  let asked = 0
  return {
    show(route) {
      if (!route.session) return
      const ask = ++asked
      shown?.close()
      void openConversation(container, deps.client, route.session, deps.me.id).then((opened) => (ask === asked ? (shown = opened) : opened.close()))
    },
    unmount: () => ((asked = -1), shown?.close()),
  }
}

/** A session's conversation in `container`, over a socket of its own; `close()` ends it and empties the container. */
async function openConversation(container: HTMLElement, client: NeuronClient, session: string, me: string): Promise<{ view: ConversationView; close(): void }> {
  const { view, after } = await ConversationView.open(client, session, me)
  const socket = client.socket(session, { after })
  view.attach(socket)
  container.replaceChildren(view.root)
  let open = true
  void (async () => {
    try {
      for await (const frame of socket.frames()) if (open && frame.kind !== 'open' && frame.kind !== 'host' && frame.kind !== 'host-error') view.apply(frame)
    } catch (error) {
      if (open) container.append(h('p', { class: 'error', role: 'alert' }, `The session’s stream ended: ${(error as Error).message}`))
    }
  })()
  return { view, close: () => ((open = false), socket.close(), container.replaceChildren()) }
}
