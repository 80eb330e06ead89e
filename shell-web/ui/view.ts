/**
 * The convention every view of the shell follows: a view module exports
 * `mount(container, deps)`, and the frame (main.ts) mounts it into its pane when
 * the person signs in and calls the returned `unmount` when they sign out. A view
 * reaches the server only through `deps.client` (the typed client, client/: the
 * public API, signed in as the person), hears the open session's frames through
 * `deps.events`, and moves the person elsewhere with `deps.navigate` (never by
 * touching another view's DOM).
 *
 * Views are mounted at sign-in, before any session opens, so a subscriber sees
 * every opened session from the first frame of its replay: a view folds its state
 * from those frames (and the API), never from memory of an earlier page.
 *
 * @example
 * // shell-web/ui/sessions/index.ts
 * export const mount: MountView = (container, deps) => {
 *   const list = h('ul')
 *   container.replaceChildren(list)
 *   void deps.client.sessions().then((page) => list.replaceChildren(...page.items.map((s) =>
 *     h('li', {}, h('button', { onclick: () => deps.navigate({ view: 'conversation', session: s.id }) }, s.title ?? s.id)))))
 *   return { unmount: () => container.replaceChildren() }
 * }
 * // main.ts, in VIEWS:  sessions: () => import('./sessions/index.ts'),
 */
import type { NeuronClient, SessionSocket, SocketFrame } from '../../client/index.ts'

/** The panes of the layout, in the order the navigation lists them. */
export const VIEW_NAMES = ['sessions', 'conversation', 'orchestrations', 'memory', 'apps'] as const
export type ViewName = (typeof VIEW_NAMES)[number]

/** Where the person is: a pane, and what it shows (a session, an orchestration). */
export interface Route {
  view: ViewName
  /** The session to show (the conversation pane). */
  session?: string
  /** The orchestration to show (the orchestrations pane). */
  orchestration?: string
}

/** Who is signed in (`GET /v1/me`). */
export interface Person {
  id: string
  subject: string
  via: string
}

/**
 * The session the shell has open, and its frames. The shell holds one socket, for the session it
 * shows: that socket is also the Agent Mode bridge (the session's model calls enabled app tools
 * through it), so views share it rather than opening their own.
 */
export interface SessionEvents {
  /** The id of the open session, or null. */
  readonly current: string | null
  /** Opens `session` (closing the one open before): its socket replays from the start, then goes live. */
  open(session: string): Promise<void>
  /** Closes the open session's socket (nothing is shown). */
  close(): void
  /** Hears every frame of every session opened from now on (open, events, deltas, replay-end, …); returns a stop. */
  subscribe(listener: (session: string, frame: SocketFrame) => void): () => void
  /** The open session's socket, to prompt, interrupt and answer permissions; undefined when none is open. */
  socket(): SessionSocket | undefined
}

/** What the frame hands every view. */
export interface ViewDeps {
  client: NeuronClient
  me: Person
  events: SessionEvents
  /** Moves the person to a pane (on a narrow screen, the only one shown); the route lands in the URL's hash. */
  navigate(to: Route): void
}

/** What a mounted view gives back. */
export interface MountedView {
  /** The person signed out: drop timers, sockets and subscriptions; the frame empties the container. */
  unmount?(): void
  /** The route changed to this view's pane (e.g. another session to show). */
  show?(route: Route): void
}

export type MountView = (container: HTMLElement, deps: ViewDeps) => MountedView | void

/** A view module, loaded when first mounted: `() => import('./sessions/index.ts')`. */
export type ViewModule = () => Promise<{ mount: MountView }>
