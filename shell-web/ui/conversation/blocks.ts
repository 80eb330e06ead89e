/**
 * One element per conversation block (fold.ts), drawn again only when its content changed: a
 * prompt turn with its tokens and cost, the model's text as sanitized Markdown (markdown.ts),
 * reasoning folded away, a tool call as a collapsible card with its input, progress and output
 * (and, for a file tool, the changes it made, read when opened), a step's usage, and notices
 * that say what happened and what to do.
 *
 * @example
 * const drawn = drawBlock(block, { changes: (from, to) => changesOf(ws, from, to) })
 * list.append(drawn.el); drawn.update(next)
 */
import { h } from '../dom.ts'
import { FILE_CHANGERS } from './changes.ts'
import type { Block } from './fold.ts'
import { MarkdownView } from './markdown.ts'

export interface BlockDeps {
  /** The changes a file tool call made between two sequences. */
  changes(from: number, to: number): Promise<HTMLElement>
}

export interface Drawn {
  el: HTMLElement
  update(block: Block): void
}

/** An output or input shown on a card is cut past this (the API has it whole). */
const MAX_SHOWN = 8_000

const cut = (text: string) => (text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}\n… (${(text.length - MAX_SHOWN).toLocaleString()} more characters)` : text)

/** Tokens as a person reads them: `1,234 in · 56 out`. */
export function tokensText(u: { inputTokens: number; outputTokens: number }): string {
  return `${u.inputTokens.toLocaleString('en')} in · ${u.outputTokens.toLocaleString('en')} out`
}

/** A cost in USD, or that the provider priced nothing. */
export function costText(cost: number | null): string {
  if (cost === null) return 'no cost reported'
  return cost === 0 ? '$0' : cost < 0.01 ? `$${cost.toFixed(4)}` : `$${cost.toFixed(2)}`
}

/** A block's content in a string: equal strings draw the same. */
function signature(block: Block): string {
  switch (block.kind) {
    case 'text':
    case 'reasoning':
      return `${block.text.length}:${'streaming' in block && block.streaming}`
    case 'tool':
      return `${block.state}:${block.progress ?? ''}:${block.endedSeq ?? ''}`
    default:
      return JSON.stringify(block)
  }
}

export function drawBlock(block: Block, deps: BlockDeps): Drawn {
  const el = h(block.kind === 'turn' ? 'section' : 'div', { class: `block ${block.kind}`, 'data-block': block.kind, 'data-key': block.key })
  let drawn = ''
  let markdown: MarkdownView | undefined
  const update = (next: Block) => {
    const sig = signature(next)
    if (sig === drawn) return
    drawn = sig
    if (next.kind === 'tool') return tool(el, next, deps)
    if (next.kind === 'text') {
      // The text keeps its Markdown view: a redraw parses only the blocks that grew.
      if (!markdown) el.replaceChildren((markdown = new MarkdownView()).root)
      markdown.set(next.text)
      return void el.toggleAttribute('data-streaming', next.streaming)
    }
    el.replaceChildren(...content(next))
  }
  update(block)
  return { el, update }
}

function content(block: Block): Node[] {
  switch (block.kind) {
    case 'turn':
      return [
        ...block.prompts.map((p) => h('div', { class: 'prompt', 'data-delivery': p.delivery }, h('span', { class: 'who' }, 'You'), h('p', {}, p.text))),
        h('p', { class: 'turn-usage muted', 'data-turn-usage': true }, block.steps === 0 ? 'Turn started' : `Turn: ${block.steps} step${block.steps === 1 ? '' : 's'} · ${tokensText(block)} tokens · ${costText(block.cost)}`),
      ]
    case 'reasoning':
      return [h('details', { class: 'reasoning' }, h('summary', {}, 'Thinking'), h('p', {}, cut(block.text)))]
    case 'usage':
      return [h('p', { class: 'muted' }, `Step: ${tokensText(block)} tokens · ${costText(block.cost)}${block.finish === 'tool-calls' ? '' : ` · ${block.finish}`}`)]
    case 'notice':
      return [h('div', { class: `notice ${block.tone}`, role: block.tone === 'retry' ? 'status' : 'alert', 'data-notice': block.tone },
        h('strong', {}, block.title), h('p', {}, block.detail), h('p', { class: 'advice' }, block.advice))]
    default:
      return []
  }
}

const STATE_TEXT = { running: 'running…', succeeded: 'done', failed: 'failed', cancelled: 'cancelled' } as const

/** A tool card keeps its element (and whether it is open) across redraws; its parts are redrawn. */
function tool(el: HTMLElement, block: Extract<Block, { kind: 'tool' }>, deps: BlockDeps) {
  el.dataset.state = block.state
  el.dataset.tool = block.name
  let details = el.querySelector<HTMLDetailsElement>(':scope > details')
  if (!details) {
    details = h('details', { class: 'tool-card' })
    el.append(details)
  }
  const input = JSON.stringify(block.input, null, 2) ?? 'null'
  const parts: Node[] = [
    h('summary', {}, h('span', { class: 'tool-name' }, block.name), ' ', h('span', { class: `tool-state ${block.state}`, 'data-tool-state': block.state }, STATE_TEXT[block.state]), block.progress ? h('span', { class: 'progress muted' }, ` ${block.progress}`) : null),
    h('h4', {}, 'Input'),
    h('pre', { class: 'tool-input' }, cut(input)),
  ]
  if (block.output !== undefined) parts.push(h('h4', {}, block.state === 'succeeded' ? 'Output' : 'Outcome'), h('pre', { class: `tool-output ${block.state}` }, cut(block.output)))
  if (FILE_CHANGERS.has(block.name) && block.state === 'succeeded' && block.endedSeq !== undefined) {
    const changes = h('div', { class: 'tool-changes', 'data-tool-changes': true }, h('p', { class: 'muted' }, 'Reading the changes…'))
    const [from, to] = [block.calledSeq, block.endedSeq]
    const load = () => void deps.changes(from, to).then((shown) => changes.replaceChildren(h('h4', {}, 'Changes'), shown), (error: Error) => changes.replaceChildren(h('p', { class: 'error' }, `The changes were not read: ${error.message}`)))
    if (details.open) load()
    else details.addEventListener('toggle', load, { once: true })
    parts.push(changes)
  }
  details.replaceChildren(...parts)
}
