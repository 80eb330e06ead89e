/**
 * The agent panel: a trusted part of the shell page (not an iframe), where the
 * person signs in, lists and creates sessions, prompts, watches the answer
 * stream with its tool calls, progress and results, answers the permission
 * requests its tool calls make (permission-cards.ts), and interrupts. While a
 * session is open here its socket is the bridge: the session's model may call
 * the tools of apps the person enabled in Agent Mode. Signing out — by the
 * person, or on its own when the token expires or the server refuses it —
 * closes the socket and tears every app down (`onSignOut`); the panel then says why.
 * A reload signs back in from the lasting sign-in (connection.ts) and reopens the session this tab
 * showed, whose replay brings back its transcript and the permission requests still waiting.
 *
 * @example
 * new AgentPanel(kernel, document.querySelector('#agent-panel')!, { onSignIn: (c) => runInstallsOf(c), onSignOut: () => teardown(), onRestoreFailed: () => runBuiltIns() })
 */
import { h, throttled } from './dom.ts'
import { NeuronApiError, type SessionSocket, type SocketFrame } from '../../client/index.ts'
import type { EndedReason } from '../agent/authorization.ts'
import { HostBridge } from '../agent/bridge.ts'
import { Connection } from '../agent/connection.ts'
import { PermissionRequests } from '../agent/permissions.ts'
import { Transcript } from '../agent/transcript.ts'
import type { Kernel } from '../kernel/kernel.ts'
import { PermissionCards } from './permission-cards.ts'
import type { SessionEvents } from './view.ts'

/** The session this tab shows, kept beside the token (connection.ts) so a reload reopens it. */
const OPEN_KEY = 'neuron.shell.session'

export interface PanelHooks {
  /** Signed in (or restored from this tab): the shell now runs the person's installs. */
  onSignIn(connection: Connection): Promise<void> | void
  /** Signed out: by the person, or on its own (`reason`: the token expired or was refused). */
  onSignOut(reason?: EndedReason): void
  /** The token kept in this tab no longer signs in: the shell runs this browser's installs. */
  onRestoreFailed(): void
}

interface Open {
  id: string
  socket: SessionSocket
  bridge: HostBridge
  transcript: Transcript
  /** The session's permission requests, folded from the same frames as the transcript. */
  permissions: PermissionRequests
  state: string
  /** Built once per open session, so typing is never interrupted by a re-render. */
  view: { root: HTMLElement; status: HTMLElement; list: HTMLElement; cards: PermissionCards }
}

export class AgentPanel {
  connection?: Connection
  open?: Open
  /** The identity's sessions, as last listed. */
  sessions: { id: string; title: string | null }[] = []
  #error = ''
  #listeners = new Set<(session: string, frame: SocketFrame) => void>()
  /** The open session and its frames, as the shell's views see them (view.ts). */
  readonly events: SessionEvents = ((panel: AgentPanel) => ({
    get current() {
      return panel.open?.id ?? null
    },
    open: (session: string) => panel.openSession(session),
    close: () => void panel.openSession(''),
    subscribe: (listener: (session: string, frame: SocketFrame) => void) => (panel.#listeners.add(listener), () => void panel.#listeners.delete(listener)),
    socket: () => panel.open?.socket,
  }))(this)
  /** Frames arrive fast: redraw the open session at most every 30 ms, without rebuilding the panel. */
  #render = throttled(() => (this.open ? this.#refresh(this.open) : this.render()), 30)

  constructor(
    private readonly kernel: Kernel,
    private readonly root: HTMLElement,
    private readonly hooks: PanelHooks,
  ) {
    this.render()
    if (Connection.remembered()) void this.#signIn(() => Connection.restore(location.origin, this.#ended), true)
  }

  /** The sign-in ended on its own (the token expired, the server refused it): sign out, saying why. */
  #ended = (reason: EndedReason) => {
    if (this.connection) this.signOut(reason)
  }

  render(): void {
    if (!this.connection) return void this.root.replaceChildren(...this.#signedOut().filter((n) => n !== null))
    const open = this.open
    this.root.replaceChildren(
      h('h2', {}, 'Agent'),
      h('p', { class: 'who' }, `Signed in as ${this.connection.me.subject} (${this.connection.me.via}) `, h('button', { 'data-action': 'sign-out', onclick: () => this.signOut() }, 'Sign out')),
      h('div', { class: 'row' },
        h('select', { 'aria-label': 'Session', 'data-sessions': true, onchange: (e) => void this.openSession((e.target as HTMLSelectElement).value) },
          h('option', { value: '' }, 'Choose a session…'),
          ...this.sessions.map((s) => h('option', { value: s.id, selected: s.id === open?.id }, s.title ? `${s.title} · ${s.id.slice(0, 8)}` : s.id))),
        h('button', { 'data-action': 'new-session', onclick: () => void this.newSession() }, 'New session')),
      this.#error ? h('p', { class: 'error', role: 'alert' }, this.#error) : '',
      open ? open.view.root : h('p', { class: 'muted empty' }, this.sessions.length ? 'No session open: choose one above, or start a New session.' : 'No sessions yet: press New session to start one.'),
    )
    if (open) this.#refresh(open)
  }

  /** Redraws what changes while a session is open: its status line and transcript. */
  #refresh(open: Open) {
    const offered = open.bridge.lastOffer?.tools ?? []
    open.view.status.dataset.connection = open.state
    open.view.status.textContent = `${open.state} · after ${open.transcript.last} · offering ${offered.length ? offered.join(', ') : 'no app tools'}`
    open.view.list.replaceChildren(...open.transcript.lines.map((l) => h('li', { class: `line ${l.kind}`, 'data-kind': l.kind }, l.text, l.progress ? h('span', { class: 'progress' }, ` ${l.progress}`) : null)))
    open.view.list.scrollTop = open.view.list.scrollHeight
    open.view.cards.sync(open.permissions.list())
  }

  async newSession(): Promise<void> {
    await this.#try(async () => {
      const session = await this.connection!.client.createSession({ title: 'From the shell' })
      this.sessions = await this.connection!.sessions()
      await this.openSession(session.id)
    })
  }

  /** Opens a session's socket: replay from the start, then live; the bridge offers the enabled tools. */
  async openSession(id: string): Promise<void> {
    this.#closeSession()
    if (id) sessionStorage.setItem(OPEN_KEY, id)
    else sessionStorage.removeItem(OPEN_KEY)
    if (!id || !this.connection) return this.render()
    const socket = this.connection.client.socket(id)
    const open = { id, socket, bridge: new HostBridge(this.kernel, socket, this.#render), transcript: new Transcript(), permissions: new PermissionRequests(), state: 'connecting' } as Open
    open.view = this.#session(open)
    this.open = open
    this.render()
    void (async () => {
      try {
        for await (const frame of socket.frames()) {
          if (this.open !== open) return
          for (const listener of this.#listeners) listener(id, frame)
          if (frame.kind === 'open') open.state = 'connected'
          if (frame.kind === 'replay-end') open.state = 'live'
          if (open.bridge.handle(frame)) continue
          if (frame.kind !== 'open' && frame.kind !== 'host' && frame.kind !== 'host-error') {
            open.transcript.apply(frame)
            open.permissions.apply(frame)
          }
          this.#render()
        }
      } catch (error) {
        // The server ended the socket because the sign-in's token expired (or refused it): the sign-in is over.
        if (error instanceof NeuronApiError && error.code.startsWith('TOKEN_')) return this.connection?.authorization.end({ code: error.code, message: error.message })
        if (this.open === open) this.#fail(error)
      }
    })()
  }

  /** Sign-out: the socket closes, the token is forgotten, every app port closes; with a `reason`, the panel says why. */
  signOut(reason?: EndedReason): void {
    const connection = this.connection
    this.#closeSession()
    this.connection = undefined
    this.sessions = []
    Connection.forget()
    sessionStorage.removeItem(OPEN_KEY)
    connection?.authorization.end(reason ?? { code: 'SIGNED_OUT', message: 'the person signed out' })
    this.hooks.onSignOut(reason)
    this.#error = reason ? `Signed out: ${reason.message} (${reason.code}). Sign in again to go on.` : ''
    this.render()
  }

  #session(open: Open): Open['view'] {
    const input = h('input', { name: 'prompt', placeholder: 'Prompt the session (the local model: /tool notes_search {"query":"…"})', autocomplete: 'off' })
    const status = h('p', { class: 'muted', 'data-connection': open.state })
    const list = h('ol', { class: 'transcript' })
    // The owner's answer goes over the session's socket; a refusal (already settled, …) is shown on its card.
    const me = this.connection?.me.id
    const cards = new PermissionCards(
      async (card, reply, reason) => void (await open.socket.answerPermission({ toolCallId: card.toolCallId, reply, ...(reason ? { reason } : {}) })),
      (by) => (by === me ? 'you' : by),
    )
    const root = h('div', { class: 'session', 'data-session': open.id },
      status,
      list,
      cards.root,
      h('form', { class: 'row', onsubmit: (e) => {
        e.preventDefault()
        const text = input.value.trim()
        if (!text) return
        input.value = ''
        void this.#try(() => open.socket.prompt(text))
      } }, input, h('button', { type: 'submit' }, 'Send'), h('button', { type: 'button', 'data-action': 'interrupt', onclick: () => void this.#try(() => this.#interrupt(open)) }, 'Interrupt')),
    )
    return { root, status, list, cards }
  }

  /** Interrupts the turn the transcript shows (the socket names it); says so when it had already ended. */
  async #interrupt(open: Open) {
    const reply = await open.socket.interrupt()
    if (!reply.interrupted) open.transcript.note(reply.step === null ? 'nothing was running' : 'the interrupt arrived after the turn had ended')
  }

  #signedOut() {
    const token = h('textarea', { name: 'token', rows: 3, placeholder: 'Paste a bearer JWT from your identity provider', 'aria-label': 'Bearer token' })
    const remember = h('input', { type: 'checkbox', name: 'remember', checked: true })
    const options = () => ({ remember: remember.checked })
    return [
      h('h2', {}, 'Agent'),
      h('p', { class: 'muted' }, 'Sign in to talk to sessions and let them use the apps you enable.'),
      h('button', { class: 'primary', 'data-action': 'dev-sign-in', onclick: () => void this.#signIn(() => Connection.devSignIn(location.origin, this.#ended, options())) }, 'Sign in (local dev identity)'),
      token,
      h('div', { class: 'row' },
        h('button', { 'data-action': 'token-sign-in', onclick: () => void this.#signIn(() => Connection.withToken(location.origin, token.value, this.#ended, options())) }, 'Use token'),
        h('label', { class: 'remember' }, remember, ' Keep me signed in on this browser')),
      this.#error ? h('p', { class: 'error', role: 'alert' }, this.#error) : null,
    ]
  }

  async #signIn(connect: () => Promise<Connection>, restoring = false) {
    await this.#try(async () => {
      try {
        this.connection = await connect()
      } catch (error) {
        if (restoring) {
          Connection.forget({ revoke: false })
          this.hooks.onRestoreFailed()
        }
        throw error
      }
      this.sessions = await this.connection.sessions()
      await this.hooks.onSignIn(this.connection)
      const shown = restoring ? sessionStorage.getItem(OPEN_KEY) : null
      if (shown && this.sessions.some((s) => s.id === shown)) await this.openSession(shown)
    })
  }

  #closeSession() {
    if (!this.open) return
    this.open.bridge.close()
    this.open.socket.close()
    this.open = undefined
  }

  async #try(work: () => Promise<unknown>) {
    this.#error = ''
    try {
      await work()
    } catch (error) {
      this.#fail(error)
    }
    this.render()
  }

  #fail(error: unknown) {
    this.#error = error instanceof Error ? `${(error as { code?: string }).code ?? ''} ${error.message}`.trim() : String(error)
    this.render()
  }
}
