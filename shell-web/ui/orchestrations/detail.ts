/**
 * One orchestration inside the shell (`#/orchestrations/<id>`): its DAG coloured by beat with live
 * burn, a table of its packages (each with a session opens its agent's conversation), and cancel,
 * which asks first. It redraws from the orchestration's view whenever its decision stream says
 * something happened: the view is the fold, so a reconnect shows what a never-disconnected page
 * shows. An unknown id or a refusal is a page that says so, with no live buttons.
 *
 * @example
 * const stop = showOrchestration(root, client, 'demo-orch', (session) => openSession(session))
 */
import type { NeuronClient, OrchestrationView } from '../../../client/index.ts'
import { h } from '../dom.ts'
import { hashOf } from '../frame.ts'
import { confirmDialog, problemOf, problemPage } from '../problem.ts'
import { drawGraph, graphElement } from './graph.ts'

const back = () => h('a', { href: hashOf({ view: 'orchestrations' }), class: 'back' }, '← All orchestrations')

/** Shows orchestration `id` in `root` and follows it; returns the function that stops following. */
export function showOrchestration(root: HTMLElement, client: NeuronClient, id: string, openSession: (session: string) => void): () => void {
  const handle = client.orchestration(id)
  const stop = new AbortController()
  const title = h('h2', { class: 'goal' })
  const status = h('span', { class: 'status', 'data-orchestration': 'status' })
  const burn = h('span', { class: 'burn', 'data-orchestration': 'burn' })
  const message = h('p', { class: 'muted', 'data-orchestration': 'message' })
  const cancel = h('button', { class: 'danger', 'data-action': 'cancel', disabled: true, onclick: () => void confirmCancel() }, 'Cancel orchestration…')
  const graph = graphElement()
  const rows = h('tbody')
  const page = h('div', { class: 'orchestration-detail', 'data-orchestration-id': id },
    back(),
    h('div', { class: 'orchestration-head' }, title, status, burn, h('div', { class: 'spacer' }), cancel),
    message,
    h('div', { class: 'graph-scroll' }, graph),
    h('table', { class: 'packages' },
      h('caption', {}, 'Packages'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Package'), h('th', { scope: 'col' }, 'Beat'), h('th', { scope: 'col' }, 'Tokens'), h('th', { scope: 'col' }, 'Agent'))),
      rows))
  root.replaceChildren(h('p', { class: 'muted' }, `Loading ${id}…`))
  let view: OrchestrationView | undefined

  const open = (pkg: OrchestrationView['packages'][number]) => pkg.session && openSession(pkg.session)
  const draw = (next: OrchestrationView) => {
    view = next
    if (!page.isConnected) root.replaceChildren(page)
    title.textContent = next.goal.split('\n')[0] ?? next.id
    status.textContent = next.status
    status.dataset.status = next.status
    burn.textContent = `${next.burn.tokens} tokens · $${next.burn.cost.toFixed(4)}`
    message.textContent = next.reason ?? ''
    cancel.disabled = next.status !== 'running'
    drawGraph(graph, next, open)
    rows.replaceChildren(...next.packages.map((pkg) =>
      h('tr', { 'data-package': pkg.id, 'data-beat': pkg.beat },
        h('th', { scope: 'row' }, pkg.id),
        h('td', {}, pkg.attempts > 1 ? `${pkg.beat} (attempt ${pkg.attempts})` : pkg.beat, pkg.reason ? h('span', { class: 'muted' }, ` — ${pkg.reason}`) : null),
        h('td', {}, pkg.burn.tokens),
        h('td', {}, pkg.session
          ? h('button', { 'data-action': 'open-session', 'data-session': pkg.session, onclick: () => open(pkg) }, pkg.profile === 'default' ? 'Open session' : `Open ${pkg.profile} session`)
          : h('span', { class: 'muted' }, pkg.inline ? `inline: ${pkg.inline}` : 'not started')))))
  }
  /** A failure before anything was drawn replaces the page; later ones (a dropped stream) are retried by `follow`. */
  const refresh = async () => {
    try {
      draw(await handle.view())
    } catch (error) {
      if (stop.signal.aborted) return
      if (!view) {
        stop.abort()
        root.replaceChildren(problemPage(problemOf(error, 'orchestration', id), back()))
      } else message.textContent = `Could not refresh: ${(error as Error).message}`
    }
  }

  async function confirmCancel() {
    if (!view) return
    const goal = view.goal.split('\n')[0] ?? id
    if (!(await confirmDialog(root, `Cancel “${goal}”?`, 'Every package not yet finished stops, durably; this cannot be undone.', 'Cancel orchestration', 'Keep it running'))) return
    cancel.disabled = true
    try {
      await handle.cancel({ reason: 'cancelled from the shell' })
    } catch (error) {
      message.textContent = `Cancel failed: ${(error as Error).message}`
    }
    await refresh()
  }

  // Any decision redraws, coalesced: at most one view read in flight and one queued.
  let queued = false
  let reading: Promise<void> = Promise.resolve()
  const redraw = () => {
    if (queued) return
    queued = true
    reading = reading.then(() => {
      queued = false
      return stop.signal.aborted ? undefined : refresh()
    })
  }
  void (async () => {
    await refresh()
    if (stop.signal.aborted) return
    try {
      for await (const _frame of handle.events({ signal: stop.signal })) redraw()
    } catch {
      // Aborted by leaving the page; the client itself resumes dropped streams.
    }
  })()
  return () => stop.abort()
}
