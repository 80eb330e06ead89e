/**
 * The model's text as Markdown, safely: `marked` parses it with raw HTML turned into text (the model
 * writes no markup of its own into the trusted page), `DOMPurify` sanitizes what marked made (no
 * scripts, handlers or styles), links keep only http(s) and mailto targets and open apart
 * (`rel="noopener noreferrer"`), images are left out (they would fetch from anywhere), and every
 * code block gets a Copy button. Nothing here evaluates code, so the shell's CSP stays strict.
 * A streaming text is drawn block by block (`MarkdownView`), so a redraw parses only what grew.
 *
 * @example
 * el.replaceChildren(renderMarkdown('**bold** and `code`'))
 */
import DOMPurify from 'dompurify'
import { Marked } from 'marked'
import { h } from '../dom.ts'

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    // Raw HTML in the model's text is shown as the text it is.
    html: ({ text }) => escape(text),
    image: ({ text }) => escape(text),
  },
})

const SAFE_URL = /^(https?:|mailto:)/i
const purify = DOMPurify()
purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName !== 'A') return
  const href = node.getAttribute('href') ?? ''
  if (!SAFE_URL.test(href.trim())) node.removeAttribute('href')
  else {
    node.setAttribute('target', '_blank')
    node.setAttribute('rel', 'noopener noreferrer')
  }
})
const OPTIONS = { FORBID_TAGS: ['style', 'img', 'form', 'input', 'button', 'iframe', 'svg', 'math'], FORBID_ATTR: ['style', 'class', 'id'], ADD_ATTR: ['target'], RETURN_DOM_FRAGMENT: true as const }

/** A block past this many characters is shown as plain text (parsing it on every redraw would stall the page). */
export const MAX_BLOCK_CHARS = 16_000

/** Markdown source to a sanitized fragment, with a Copy button on each code block. */
export function renderMarkdown(source: string): DocumentFragment {
  const fragment = document.createDocumentFragment()
  for (const block of splitBlocks(source)) fragment.append(renderBlock(block))
  return fragment
}

/**
 * A text that grows while it streams, drawn block by block: each top-level block (split at blank
 * lines outside code fences) is parsed once, and a redraw parses only the blocks that changed
 * (while streaming, the last one). A fenced code block is drawn as text, never parsed.
 *
 * @example
 * const md = new MarkdownView(); el.append(md.root); md.set('# Title\n\nbody')
 */
export class MarkdownView {
  readonly root = h('div', { class: 'markdown' })
  #blocks: { source: string; node: HTMLElement }[] = []

  set(source: string): void {
    const sources = splitBlocks(source)
    sources.forEach((block, i) => {
      const drawn = this.#blocks[i]
      if (drawn?.source === block) return
      // A long plain block that grew keeps its chunks and fills them: the layout of the rest stays cached.
      if (drawn && drawn.node.classList.contains('plain') && block.length > MAX_BLOCK_CHARS && block.startsWith(drawn.source)) return void (fillPlain(drawn.node, block), (drawn.source = block))
      const node = renderBlock(block)
      if (drawn) drawn.node.replaceWith(node)
      else this.root.append(node)
      this.#blocks[i] = { source: block, node }
    })
    for (const gone of this.#blocks.splice(sources.length)) gone.node.remove()
  }
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/

/** Top-level blocks: runs of lines between blank lines, a fenced code block whole (open or closed). */
export function splitBlocks(source: string): string[] {
  const blocks: string[] = []
  let current: string[] = []
  let fence: string | null = null
  const end = () => {
    if (current.length) blocks.push(current.join('\n'))
    current = []
  }
  for (const line of source.split('\n')) {
    if (fence !== null) {
      current.push(line)
      const close = FENCE.exec(line)
      if (close && close[1]!.startsWith(fence) && close[2]!.trim() === '') (fence = null), end()
      continue
    }
    const open = FENCE.exec(line)
    if (open) {
      end()
      fence = open[1]!
      current.push(line)
    } else if (line.trim() === '') end()
    else current.push(line)
  }
  end()
  return blocks
}

function renderBlock(source: string): HTMLElement {
  const fence = FENCE.exec(source.split('\n', 1)[0]!)
  if (fence) {
    const lines = source.split('\n').slice(1)
    if (lines.length && FENCE.test(lines.at(-1)!)) lines.pop()
    const code = lines.join('\n') + (lines.length ? '\n' : '')
    const lang = fence[2]!.trim().split(/\s/)[0] ?? ''
    return codeBlock(code, lang)
  }
  if (source.length > MAX_BLOCK_CHARS) return fillPlain(h('div', { class: 'plain' }), source)
  const wrap = h('div', { class: 'md-block' })
  const fragment = purify.sanitize(marked.parse(source) as string, OPTIONS) as unknown as DocumentFragment
  for (const pre of fragment.querySelectorAll('pre')) pre.replaceWith(codeBlock(pre.textContent ?? '', ''))
  wrap.append(fragment)
  return wrap
}

/** Characters per chunk of a plain block: a chunk is its own box, so the text growing re-lays out the last one only. */
const PLAIN_CHUNK = 2_000

/** Sets a plain block's text as chunks, appending to the last and adding new ones (the text only grows). */
function fillPlain(node: HTMLElement, source: string): HTMLElement {
  let shown = 0
  for (const chunk of node.children) shown += chunk.textContent!.length
  let last = node.lastElementChild as HTMLElement | null
  while (shown < source.length) {
    if (!last || last.textContent!.length >= PLAIN_CHUNK) node.append((last = h('span', { class: 'chunk' })))
    const room = PLAIN_CHUNK - last.textContent!.length
    const piece = source.slice(shown, shown + room)
    last.append(piece)
    shown += piece.length
  }
  return node
}

function codeBlock(code: string, lang: string): HTMLElement {
  const copy = h('button', { type: 'button', class: 'copy', 'data-action': 'copy-code' }, 'Copy')
  copy.addEventListener('click', () => {
    void navigator.clipboard?.writeText(code).then(
      () => (copy.textContent = 'Copied'),
      () => (copy.textContent = 'Copy failed'),
    )
  })
  return h('div', { class: 'code-block' }, copy, h('pre', { tabindex: 0 }, h('code', { 'data-lang': lang || undefined }, code)))
}
