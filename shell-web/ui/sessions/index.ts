/**
 * The Sessions pane: the person's sessions, newest first, with a title search, the archived ones
 * behind a toggle, and pages of 50 read as the list scrolls (an observer on the list's end, and a
 * "Load more" button for the keyboard). Each row opens its session in the conversation, renames it
 * in place, forks it at its latest turn boundary, and archives or restores it. What it shows is
 * the fold (list-state.ts) of the API's answers and the open session's stream, so a reload shows
 * what a never-reloaded page shows.
 *
 * @example
 * // main.ts, in VIEWS:
 * sessions: () => import('./sessions/index.ts'),
 */
import { h } from '../dom.ts'
import type { MountView } from '../view.ts'
import { emptyList, eventSeen, type ListState, marked, pageLoaded, type Row } from './list-state.ts'
import { renderRow, type RowActions } from './row.ts'

/** The page size: each listed session is read live, so a page stays small. */
const PAGE = 50

export const mount: MountView = (container, deps) => {
  const search = h('input', { type: 'search', name: 'q', placeholder: 'Search titles', 'aria-label': 'Search sessions by title', maxlength: 200 })
  const archivedToggle = h('input', { type: 'checkbox', name: 'archived' })
  const list = h('ul', { class: 'session-list', 'aria-label': 'Sessions' })
  const empty = h('p', { class: 'empty', hidden: true })
  const more = h('button', { type: 'button', 'data-action': 'more', hidden: true, onclick: () => void load() }, 'Load more')
  const sentinel = h('div', { class: 'session-list-end', 'aria-hidden': 'true' })
  const status = h('p', { class: 'session-status', role: 'status', 'aria-live': 'polite' })
  container.replaceChildren(
    h('section', { class: 'sessions', 'aria-labelledby': 'sessions-heading' },
      h('header', { class: 'sessions-header' },
        h('h2', { id: 'sessions-heading' }, 'Sessions'),
        search,
        h('label', { class: 'archived-toggle' }, archivedToggle, ' Show archived'),
      ),
      status, list, empty, more, sentinel,
    ),
  )

  let state: ListState = emptyList({ q: '', archived: false })
  /** Bumped when the filter changes, so an answer to an older filter is dropped. */
  let epoch = 0
  let loading: Promise<void> | null = null
  const shown = new Map<string, { row: Row; el: HTMLLIElement }>()

  const actions: RowActions = {
    open: (id) => deps.navigate({ view: 'conversation', session: id }),
    rename: async (id, title) => {
      const answer = await deps.client.session(id).mark({ title })
      apply(marked(state, answer))
      status.textContent = `Renamed to ${answer.title}`
    },
    archive: (id, archived) => {
      deps.client.session(id).mark({ archived }).then((answer) => {
        apply(marked(state, answer))
        status.textContent = `${answer.title ?? 'Session'} ${archived ? 'archived' : 'restored'}`
        search.focus()
      }, failed)
    },
    fork: (id) => {
      const origin = deps.client.session(id)
      origin.view().then((view) => origin.fork({ at: view.lastSequence })).then(async (fork) => {
        // The list is read again from the start: the fork is the newest, as a reload would show it.
        await restart()
        status.textContent = `Forked into a new session`
        list.querySelector<HTMLElement>(`[data-session="${CSS.escape(fork.id)}"] [data-action=open]`)?.focus()
      }, failed)
    },
  }
  const failed = (e: unknown): void => {
    status.textContent = `${(e as { code?: string }).code ?? 'ERROR'}: ${(e as Error).message}`
  }

  /** Draws `next`: a row element is kept while its row is the same value, so focus and edits survive. */
  function apply(next: ListState) {
    state = next
    const els = state.rows.map((row) => {
      const kept = shown.get(row.id)
      if (kept && kept.row === row) return kept.el
      const el = renderRow(row, actions)
      shown.set(row.id, { row, el })
      return el
    })
    const ids = new Set(state.rows.map((r) => r.id))
    for (const id of shown.keys()) if (!ids.has(id)) shown.delete(id)
    if (els.length !== list.children.length || els.some((el, i) => list.children[i] !== el)) list.replaceChildren(...els)
    empty.hidden = !(state.loaded && state.rows.length === 0 && state.next === null)
    empty.textContent = state.filter.q ? `No session's title matches “${state.filter.q}”.` : state.filter.archived ? 'No archived sessions.' : 'No sessions yet: start one in the Conversation panel (New session), or from the CLI with `npx neuron chat`.'
    more.hidden = state.next === null
    list.setAttribute('aria-busy', String(loading !== null))
  }

  /** Reads the next page (one at a time); continues while the list's end is on screen. */
  function load(): Promise<void> {
    if (loading || state.next === null) return loading ?? Promise.resolve()
    const mine = epoch
    const filter = state.filter
    const reading = deps.client
      .sessions({ after: state.next, limit: PAGE, order: 'newest', live: true, archived: filter.archived, ...(filter.q ? { q: filter.q } : {}) })
      .then((page) => {
        if (mine === epoch) apply(pageLoaded(state, page))
      }, failed)
      .finally(() => {
        loading = null
        if (mine === epoch) {
          apply(state)
          if (state.next !== null && onScreen(sentinel)) void load()
        }
      })
    loading = reading
    return reading
  }

  /** Starts the list over for the current filter. */
  function restart(): Promise<void> {
    epoch++
    loading = null
    shown.clear()
    list.replaceChildren()
    apply(emptyList({ q: search.value.trim(), archived: archivedToggle.checked }))
    return load()
  }

  let typing: ReturnType<typeof setTimeout> | undefined
  search.addEventListener('input', () => {
    clearTimeout(typing)
    typing = setTimeout(() => void restart(), 200)
  })
  archivedToggle.addEventListener('change', () => void restart())
  const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && void load())
  observer.observe(sentinel)
  const stop = deps.events.subscribe((session, frame) => {
    if (frame.kind === 'event') apply(eventSeen(state, session, frame.envelope))
  })
  void restart()
  let shownOnce = false

  return {
    // Coming back to the pane reads the list again, so sessions made elsewhere since are listed
    // (the frame shows the pane once right after mounting it, which has just read it).
    show: () => {
      if (shownOnce) void restart()
      shownOnce = true
    },
    unmount() {
      observer.disconnect()
      stop()
      clearTimeout(typing)
      epoch++
    },
  }
}

/** Whether `el` is within the viewport (an observer fires only on a change). */
function onScreen(el: HTMLElement): boolean {
  const box = el.getBoundingClientRect()
  return box.bottom >= 0 && box.top <= window.innerHeight && box.width + box.height > 0
}
