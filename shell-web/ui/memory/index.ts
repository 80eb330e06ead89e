/**
 * The memory view (view.ts, `#/memory`): the signed-in person's memories, a page at a time, a
 * recall search, and Forget with a reason (asked for in a confirmation; the graph's history keeps
 * the memory and the reason, recall never returns it again). A memory's session opens in the
 * conversation pane.
 *
 * @example
 * // main.ts, in VIEWS:  memory: () => import('./memory/index.ts'),
 */
import type { NeuronClient } from '../../../client/index.ts'
import { h } from '../dom.ts'
import { confirmDialog, problemOf, problemPage } from '../problem.ts'
import type { MountView } from '../view.ts'
import { memoryCard } from './card.ts'
import { browseMemories, type Memory, recallMemories } from './memories.ts'

export const mount: MountView = (container, deps) => {
  showMemory(container, deps.client, deps.me.id, (session) => deps.navigate({ view: 'conversation', session }))
}

function showMemory(root: HTMLElement, client: NeuronClient, me: string, openSession: (id: string) => void): void {
  const list = h('ul', { class: 'memories', 'aria-live': 'polite' })
  const more = h('button', { 'data-action': 'more', hidden: true }, 'Show more')
  const status = h('p', { class: 'muted', 'data-memory-status': '' })
  const query = h('input', { type: 'search', name: 'recall', 'aria-label': 'Recall memories about', placeholder: 'Recall memories about…' })
  const cardDeps = { client, me, openSession, forget: (memory: Memory) => void forget(memory) }
  let after = 0
  let mode: 'browse' | 'recall' = 'browse'

  const fail = (error: unknown) => root.replaceChildren(problemPage(problemOf(error, 'memory', 'yours')))
  const browse = async (fresh: boolean) => {
    mode = 'browse'
    if (fresh) after = 0
    const page = await browseMemories(client, { after })
    if (fresh) list.replaceChildren()
    list.append(...page.items.map((m) => memoryCard(m, cardDeps)))
    after = page.next ?? after
    more.hidden = page.next === null
    status.textContent = list.childElementCount === 0 ? 'No memories yet. Agents remember with their memory_remember tool; you can with POST /v1/memory/remember.' : `${list.childElementCount} memories${page.next === null ? '' : ' so far'}`
  }
  const recall = async (text: string) => {
    mode = 'recall'
    const hits = await recallMemories(client, text)
    list.replaceChildren(...hits.map((m) => memoryCard(m, cardDeps)))
    more.hidden = true
    status.textContent = hits.length === 0 ? `Nothing recalled for “${text}”.` : `${hits.length} recalled for “${text}”, best first`
  }
  const again = () => (mode === 'recall' && query.value.trim() ? recall(query.value.trim()) : browse(true))

  async function forget(memory: Memory) {
    const reason = h('input', { name: 'reason', required: true, maxlength: 1024, value: 'forgotten from the shell' })
    const label = h('label', { class: 'field' }, 'Why (kept in the graph’s history) ', reason)
    if (!(await confirmDialog(root, 'Forget this memory?', `“${memory.text.slice(0, 200)}” will no longer be recalled or offered to sessions.`, 'Forget', 'Keep it', label))) return
    try {
      await client.memory().forget({ address: memory.address, reason: reason.value.trim() || 'forgotten from the shell' })
      await again()
    } catch (error) {
      status.textContent = `Forget failed: ${(error as Error).message}`
    }
  }

  more.onclick = () => void browse(false).catch(fail)
  root.replaceChildren(
    h('div', { class: 'memory-view' },
      h('h2', {}, 'Memory'),
      h('form', { class: 'row', role: 'search', onsubmit: (e) => {
        e.preventDefault()
        const text = query.value.trim()
        void (text ? recall(text) : browse(true)).catch((error) => (status.textContent = `Recall failed: ${(error as Error).message}`))
      } }, query, h('button', { type: 'submit' }, 'Recall'), h('button', { type: 'button', 'data-action': 'browse', onclick: () => {
        query.value = ''
        void browse(true).catch(fail)
      } }, 'All memories')),
      status, list, more))
  void browse(true).catch(fail)
}
