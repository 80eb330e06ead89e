/**
 * The agent panel's permission cards: one card per request of the open session (agent/permissions.ts
 * folds them from its frames), showing the tool, what the call acts on, its input and its reason,
 * with three answers: allow once, always allow, reject with a reason (the model reads it). A card
 * is built once and updated in place, so a reason being typed survives the panel's redraws; when
 * its request settles — answered here or on any other surface, expired, or its call ended — the
 * answers go and the card says how it ended. Plain buttons and a form: every answer is reachable by
 * keyboard (Enter in the reason field rejects), and a status line announces what waits.
 *
 * @example
 * const cards = new PermissionCards(async (card, reply, reason) => void (await socket.answerPermission({ toolCallId: card.toolCallId, reply, reason })), (by) => (by === me.id ? 'you' : by))
 * root.append(cards.root); cards.sync(requests.list())
 */
import type { PermissionAnswer } from '../../client/index.ts'
import type { PermissionCard } from '../agent/permissions.ts'
import { h } from './dom.ts'

/** The owner's answers (docs/approvals.md). */
export type Reply = PermissionAnswer['reply']
/** Sends an answer; throws the server's refusal, which the card then shows. */
export type Answer = (card: PermissionCard, reply: Reply, reason?: string) => Promise<void>

/** The input shown on a card: the server already bounds it to 8 KiB; the card shows its start. */
const MAX_INPUT_CHARS = 600

interface Drawn {
  root: HTMLElement
  actions: HTMLElement
  outcome: HTMLElement
  state: string
}

let drawnCount = 0

export class PermissionCards {
  readonly root: HTMLElement
  readonly #summary: HTMLElement
  readonly #list: HTMLElement
  #drawn = new Map<string, Drawn>()

  /** `answer` sends the owner's answer; `who` names an answer's author (the signed-in person is "you"). */
  constructor(
    private readonly answer: Answer,
    private readonly who: (by: string) => string = (by) => by,
  ) {
    this.#summary = h('p', { class: 'muted', role: 'status', 'data-permission-summary': true })
    this.#list = h('div', { class: 'permission-list' })
    this.root = h('section', { class: 'permissions', 'aria-label': 'Permission requests' }, this.#summary, this.#list)
  }

  /** Draws the cards of `cards` (oldest first), building only new ones and updating settled ones. */
  sync(cards: PermissionCard[]): void {
    const keys = new Set(cards.map((card) => card.key))
    for (const [key, drawn] of this.#drawn) if (!keys.has(key)) (drawn.root.remove(), this.#drawn.delete(key))
    for (const card of cards) {
      let drawn = this.#drawn.get(card.key)
      if (!drawn) {
        drawn = this.#draw(card)
        this.#drawn.set(card.key, drawn)
        this.#list.append(drawn.root)
      }
      if (drawn.state !== card.state) this.#settled(drawn, card)
    }
    const waiting = cards.filter((card) => card.state === 'pending').length
    this.#summary.textContent = waiting === 0 ? '' : waiting === 1 ? '1 tool call waits for your answer' : `${waiting} tool calls wait for your answer`
    this.root.hidden = cards.length === 0
  }

  #draw(card: PermissionCard): Drawn {
    const id = `permission-${++drawnCount}`
    const reason = h('input', { name: 'reason', autocomplete: 'off', maxlength: 1024, placeholder: 'Reason (the model reads it)', 'aria-label': `Reason for rejecting ${card.tool}` })
    const buttons: HTMLButtonElement[] = []
    const send = async (reply: Reply) => {
      outcome.textContent = 'Sending the answer…'
      // A disabled button drops the focus to the page: the keyboard's place moves to the card's status first.
      if (root.contains(document.activeElement)) outcome.focus()
      for (const button of buttons) button.disabled = true
      try {
        await this.answer(card, reply, reply === 'reject' ? reason.value.trim() || undefined : undefined)
        // Accepted: the answer's event settles the card (it may already have).
      } catch (error) {
        if (this.#drawn.get(card.key)?.state !== 'pending') return
        for (const button of buttons) button.disabled = false
        const code = (error as { code?: unknown }).code
        outcome.textContent = `Not answered: ${typeof code === 'string' ? `${code} ` : ''}${error instanceof Error ? error.message : String(error)}`
      }
    }
    const button = (reply: Reply, label: string, className: string, props: Record<string, string> = {}) => {
      const b = h('button', { type: reply === 'reject' ? 'submit' : 'button', class: className, 'data-answer': reply, ...props, ...(reply === 'reject' ? {} : { onclick: () => void send(reply) }) }, label)
      buttons.push(b)
      return b
    }
    const actions = h('div', { class: 'answers' },
      h('div', { class: 'row', role: 'group', 'aria-label': `Allow ${card.tool}` },
        button('once', 'Allow once', 'primary'),
        button('always', 'Always allow', '', { title: 'Allow this call now, and calls like it in this session from now on' })),
      h('form', { class: 'row', onsubmit: (e) => (e.preventDefault(), void send('reject')) }, reason, button('reject', 'Reject', 'danger')))
    const outcome = h('p', { class: 'outcome', role: 'status', tabindex: -1 })
    const input = JSON.stringify(card.input) ?? 'null'
    const root = h('article', { class: 'permission', 'data-permission': card.toolCallId, 'data-state': card.state, 'aria-labelledby': id },
      h('h3', { id }, `${card.tool} asks before it acts`),
      card.subjects.length > 0 ? h('ul', { class: 'subjects', 'aria-label': 'What the call acts on' }, ...card.subjects.map((subject) => h('li', {}, h('code', {}, subject)))) : null,
      h('pre', { class: 'input', 'aria-label': 'The call’s input' }, input.length > MAX_INPUT_CHARS ? `${input.slice(0, MAX_INPUT_CHARS)}…` : input),
      h('p', { class: 'reason' }, `Why: ${card.reason}`),
      h('p', { class: 'muted' }, `${card.source} · waits until ${new Date(card.expiresAt).toLocaleTimeString()}`),
      actions,
      outcome)
    return { root, actions, outcome, state: 'pending' }
  }

  /** The request settled: the answers go, and the card says how it ended. */
  #settled(drawn: Drawn, card: PermissionCard) {
    drawn.state = card.state
    drawn.root.dataset.state = card.state
    const focused = drawn.root.contains(document.activeElement)
    drawn.actions.remove()
    drawn.outcome.textContent = outcomeText(card, card.by === undefined ? '' : this.who(card.by))
    if (focused) drawn.outcome.focus()
  }
}

function outcomeText(card: PermissionCard, by: string): string {
  switch (card.state) {
    case 'once':
      return `Allowed once by ${by}`
    case 'always':
      return `Always allowed by ${by}: ${(card.rules ?? []).map(ruleText).join(', ') || card.tool} from now on in this session`
    case 'reject':
      return card.why ? `Rejected by ${by}: ${card.why}` : `Rejected by ${by}`
    case 'expired':
      return 'Expired: nobody answered in time'
    default:
      return 'Cancelled: the call ended before an answer'
  }
}

function ruleText(rule: unknown): string {
  const { tool, source, match } = rule as { tool?: string; source?: string; match?: string }
  return [tool ?? source, match].filter(Boolean).join(' ')
}
