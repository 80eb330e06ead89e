/**
 * One memory as a list item: its text, pinned or not, when and by whom it was remembered, where it
 * came from (a session's agent, its sources: a conversation opens its session), and Forget, which
 * asks for a reason first.
 *
 * @example
 * list.append(memoryCard(memory, { client, me: deps.me.id, openSession, forget: (m) => forgetFlow(m) }))
 */
import type { NeuronClient } from '../../../client/index.ts'
import { h } from '../dom.ts'
import { conversationSession, type Memory, sessionOf } from './memories.ts'

export interface CardDeps {
  client: NeuronClient
  /** The signed-in person's id: their own memories say "you". */
  me: string
  openSession(id: string): void
  forget(memory: Memory): void
}

/** At most this many sources are resolved to sessions per memory (each is one read). */
const RESOLVED_SOURCES = 3

export function memoryCard(memory: Memory, deps: CardDeps): HTMLElement {
  const pinned = memory.edge.type === 'pins'
  const session = sessionOf(memory)
  const sources = h('ul', { class: 'sources', 'aria-label': 'Where it came from' },
    session ? h('li', {}, 'Remembered by an agent in ', sessionButton(session, deps)) : h('li', {}, `Remembered through the API by ${memory.edge.author === deps.me ? 'you' : memory.edge.author}`),
    ...memory.sources.map((address, i) => source(address, i < RESOLVED_SOURCES, deps)))
  return h('li', { class: 'memory', 'data-memory': memory.address, 'data-type': memory.edge.type },
    h('p', { class: 'text' }, memory.text),
    h('p', { class: 'muted' },
      pinned ? h('strong', { class: 'pin' }, 'Pinned · ') : null,
      new Date(memory.edge.time).toLocaleString(),
      memory.score !== undefined ? ` · score ${memory.score.toFixed(2)}` : ''),
    sources,
    h('button', { class: 'danger', 'data-action': 'forget', 'aria-label': `Forget: ${memory.text.slice(0, 60)}`, onclick: () => deps.forget(memory) }, 'Forget…'))
}

function sessionButton(session: string, deps: CardDeps): HTMLElement {
  return h('button', { class: 'link', 'data-action': 'open-session', 'data-session': session, onclick: () => deps.openSession(session) }, `session ${session}`)
}

/** A source address; a conversation's becomes a button that opens its session once resolved. */
function source(address: string, resolve: boolean, deps: CardDeps): HTMLElement {
  const item = h('li', { 'data-source': address }, 'Regards ', h('code', {}, address))
  if (resolve && address.startsWith('node.conversation.')) {
    void conversationSession(deps.client, address).then(
      (session) => session && item.replaceChildren('From the conversation of ', sessionButton(session, deps)),
      () => {},
    )
  }
  return item
}
