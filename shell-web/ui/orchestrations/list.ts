/**
 * The person's orchestrations (`#/orchestrations`): a page at a time from `GET /v1/orchestrations`,
 * each with its live status, package count and burn read from its view, and a link to its DAG.
 *
 * @example
 * await showOrchestrationList(root, client)
 */
import type { NeuronClient, OrchestrationListing, OrchestrationView } from '../../../client/index.ts'
import { h } from '../dom.ts'
import { hashOf } from '../frame.ts'
import { problemOf, problemPage } from '../problem.ts'

/** Listings shown per page (each reads one view). */
export const LIST_PAGE = 20

export async function showOrchestrationList(root: HTMLElement, client: NeuronClient): Promise<void> {
  const items = h('ul', { class: 'orchestration-list' })
  const more = h('button', { 'data-action': 'more', hidden: true }, 'Show more')
  const heading = h('div', { class: 'orchestration-head' }, h('h2', {}, 'Orchestrations'), h('div', { class: 'spacer' }), h('button', { 'data-action': 'refresh', onclick: () => void showOrchestrationList(root, client) }, 'Refresh'))
  let after = 0
  const load = async () => {
    const page = await client.orchestrations({ after, limit: LIST_PAGE })
    const views = await Promise.allSettled(page.items.map((listed) => client.orchestration(listed.id).view()))
    items.append(...page.items.map((listed, i) => row(listed, views[i]!.status === 'fulfilled' ? (views[i] as PromiseFulfilledResult<OrchestrationView>).value : undefined)))
    after = page.next ?? after
    more.hidden = page.next === null
    return page.items.length
  }
  try {
    const shown = await load()
    root.replaceChildren(heading, shown === 0 ? empty() : items, more)
  } catch (error) {
    root.replaceChildren(problemPage(problemOf(error, 'orchestration list', 'yours')))
    return
  }
  more.onclick = () => void load().catch((error) => more.replaceWith(problemPage(problemOf(error, 'orchestration list', 'yours'))))
}

function row(listed: OrchestrationListing, view: OrchestrationView | undefined): HTMLElement {
  const status = view?.status ?? 'unknown'
  return h('li', { 'data-orchestration': listed.id },
    h('a', { href: hashOf({ view: 'orchestrations', orchestration: listed.id }) }, listed.goal || listed.id),
    h('span', { class: 'status', 'data-status': status }, status),
    h('span', { class: 'muted' }, view ? `${view.packages.length} packages · ${view.burn.tokens} tokens · ` : '', new Date(listed.createdAt).toLocaleString()))
}

function empty(): HTMLElement {
  return h('div', { class: 'empty', 'data-empty': 'orchestrations' },
    h('p', {}, 'No orchestrations yet.'),
    h('p', { class: 'muted' }, 'Start one from a plan file with ', h('code', {}, 'npx neuron run docs/examples/plan.json'), ' (or POST /v1/orchestrations); it shows here as it runs.'))
}
