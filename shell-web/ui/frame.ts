/**
 * The shell's frame: the navigation (Sessions, Conversation, Orchestrations, Memory, Apps), the
 * panes the views mount into (view.ts), the Developer drawer, and where the person is (the route,
 * kept in the URL's hash so a reload lands on the same pane). Wide, the conversation is docked
 * beside the main pane, which shows one of the others; narrow (under 1000 px), one pane at a time.
 *
 * Views are mounted when the person signs in and unmounted when they sign out; signed out, a pane
 * says what to do next.
 *
 * @example
 * const frame = new Frame(document, { sessions: () => import('./sessions/index.ts') }, events)
 * frame.signedIn(client, me)
 * frame.navigate({ view: 'conversation', session: id })
 */
import { h } from './dom.ts'
import type { NeuronClient } from '../../client/index.ts'
import { type MountedView, type Person, type Route, type SessionEvents, VIEW_NAMES, type ViewModule, type ViewName } from './view.ts'

const LABELS: Record<ViewName, string> = { sessions: 'Sessions', conversation: 'Conversation', orchestrations: 'Orchestrations', memory: 'Memory', apps: 'Apps' }

/** What a pane says while nothing is mounted in it. */
const EMPTY: Record<ViewName, { signedOut: string; signedIn: string }> = {
  sessions: { signedOut: 'Sign in (in the Conversation panel) to see your sessions.', signedIn: 'Your sessions are listed in the Conversation panel: choose one, or start a new session there.' },
  conversation: { signedOut: '', signedIn: '' },
  orchestrations: { signedOut: 'Sign in to follow your orchestrations.', signedIn: 'No orchestration view here yet: start one with `npx neuron orchestrate` and follow it from the CLI.' },
  memory: { signedOut: 'Sign in to browse what your agents remember.', signedIn: 'No memory view here yet: your agents\' memories are reachable through the API (`/v1/memory`).' },
  apps: { signedOut: '', signedIn: '' },
}

/** The main panes (the conversation is docked beside them when the screen is wide). */
type MainView = Exclude<ViewName, 'conversation'>

export class Frame {
  route: Route = { view: 'apps' }
  #main: MainView = 'apps'
  #mounted = new Map<ViewName, MountedView>()
  #deps?: { client: NeuronClient; me: Person }
  /** Bumped on every sign-in and sign-out, so a view that loads late is not mounted into the wrong one. */
  #epoch = 0
  readonly #nav: HTMLElement
  readonly #layout: HTMLElement
  readonly #drawer: HTMLElement
  readonly #toggle: HTMLButtonElement

  constructor(
    private readonly document: Document,
    private readonly views: Partial<Record<ViewName, ViewModule | undefined>>,
    private readonly events: SessionEvents,
  ) {
    const $ = (id: string) => document.getElementById(id)!
    this.#nav = $('nav')
    this.#layout = $('layout')
    this.#drawer = $('developer')
    this.#toggle = $('developer-toggle') as HTMLButtonElement
    this.#toggle.addEventListener('click', () => this.developer(this.#drawer.hasAttribute('hidden')))
    $('developer-close').addEventListener('click', () => (this.developer(false), this.#toggle.focus()))
    this.#nav.replaceChildren(...VIEW_NAMES.map((view) => h('button', { type: 'button', 'data-nav': view, onclick: () => this.navigate({ ...this.route, view }) }, LABELS[view])))
    window.addEventListener('hashchange', () => this.#apply(routeOf(location.hash)))
    this.#apply(routeOf(location.hash), false)
    this.#empty()
  }

  /** The container a view mounts into. */
  pane(view: ViewName): HTMLElement {
    return this.document.getElementById(view === 'conversation' ? 'pane-conversation' : `pane-${view}`)!
  }

  /** Opens or closes the Developer drawer (endpoints, grants, audit). */
  developer(open: boolean): void {
    this.#drawer.hidden = !open
    this.#toggle.setAttribute('aria-expanded', String(open))
    this.#layout.classList.toggle('with-developer', open)
  }

  /** Moves to `to`; a session in the route opens in the shell (its socket is the Agent Mode bridge). */
  navigate(to: Route): void {
    const hash = hashOf(to)
    if (location.hash !== hash) history.pushState(null, '', hash || location.pathname + location.search)
    this.#apply(to)
  }

  /** Signed in: every view with a module is mounted into its pane. */
  signedIn(client: NeuronClient, me: Person): void {
    this.#unmountAll()
    this.#deps = { client, me }
    const epoch = ++this.#epoch
    this.#empty()
    for (const view of VIEW_NAMES) {
      const load = this.views[view]
      if (!load) continue
      void load().then(({ mount }) => {
        if (epoch !== this.#epoch) return
        const container = this.pane(view)
        container.replaceChildren()
        const mounted = mount(container, { client, me, events: this.events, navigate: (to) => this.navigate(to) }) ?? {}
        this.#mounted.set(view, mounted)
        if (this.route.view === view) mounted.show?.(this.route)
      }, (error) => console.error(`the ${view} view did not load`, error))
    }
    if (this.route.session && this.route.session !== this.events.current) void this.events.open(this.route.session)
  }

  /** Signed out: every view is unmounted and the panes say how to sign in. */
  signedOut(): void {
    this.#epoch++
    this.#unmountAll()
    this.#deps = undefined
    this.#empty()
  }

  #unmountAll() {
    for (const [view, mounted] of this.#mounted) {
      mounted.unmount?.()
      this.pane(view).replaceChildren()
    }
    this.#mounted.clear()
  }

  /** Panes without a mounted view say what to do next. */
  #empty() {
    for (const view of VIEW_NAMES) {
      const text = EMPTY[view][this.#deps ? 'signedIn' : 'signedOut']
      if (text && !this.#mounted.has(view)) this.pane(view).replaceChildren(h('p', { class: 'empty' }, text))
    }
  }

  #apply(to: Route, open = true) {
    this.route = to
    if (to.view !== 'conversation') this.#main = to.view
    this.#layout.dataset.view = to.view
    for (const pane of this.#layout.querySelectorAll<HTMLElement>('.pane')) {
      const name = pane.dataset.pane as ViewName
      pane.classList.toggle('active', name === to.view)
      pane.classList.toggle('on-main', name === this.#main)
    }
    for (const button of this.#nav.querySelectorAll<HTMLElement>('[data-nav]')) {
      if (button.dataset.nav === to.view) button.setAttribute('aria-current', 'page')
      else button.removeAttribute('aria-current')
    }
    this.#mounted.get(to.view)?.show?.(to)
    if (open && this.#deps && to.session && to.session !== this.events.current) void this.events.open(to.session)
  }
}

/**
 * A route from the URL's hash: `#/sessions`, `#/conversation/<session>`, `#/orchestrations/<id>`.
 *
 * @example
 * routeOf('#/conversation/8c1e…') // { view: 'conversation', session: '8c1e…' }
 */
export function routeOf(hash: string): Route {
  const [view, id] = hash.replace(/^#\/?/, '').split('/').map((part) => decodeURIComponent(part))
  if (!(VIEW_NAMES as readonly string[]).includes(view ?? '')) return { view: 'apps' }
  const route: Route = { view: view as ViewName }
  if (id && view === 'conversation') route.session = id
  if (id && view === 'orchestrations') route.orchestration = id
  return route
}

/** The hash of a route (the inverse of `routeOf`). */
export function hashOf(route: Route): string {
  const id = route.view === 'conversation' ? route.session : route.view === 'orchestrations' ? route.orchestration : undefined
  return `#/${route.view}${id ? `/${encodeURIComponent(id)}` : ''}`
}
