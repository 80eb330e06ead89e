/**
 * The model's text as Markdown, safely: `marked` parses it with raw HTML turned into text (the model
 * writes no markup of its own into the trusted page), `DOMPurify` sanitizes what marked made (no
 * scripts, handlers or styles), links keep only http(s) and mailto targets and open apart
 * (`rel="noopener noreferrer"`), images are left out (they would fetch from anywhere), and every
 * code block gets a Copy button. Nothing here evaluates code, so the shell's CSP stays strict.
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

/** Markdown source to a sanitized fragment, with a Copy button on each code block. */
export function renderMarkdown(source: string): DocumentFragment {
  const html = marked.parse(source) as string
  const fragment = purify.sanitize(html, OPTIONS) as unknown as DocumentFragment
  for (const pre of fragment.querySelectorAll('pre')) {
    const code = pre.textContent ?? ''
    const copy = h('button', { type: 'button', class: 'copy', 'data-action': 'copy-code', 'aria-label': 'Copy code' }, 'Copy')
    copy.addEventListener('click', () => {
      void navigator.clipboard?.writeText(code).then(
        () => (copy.textContent = 'Copied'),
        () => (copy.textContent = 'Copy failed'),
      )
    })
    const wrap = h('div', { class: 'code-block' })
    pre.replaceWith(wrap)
    wrap.append(copy, pre)
  }
  return fragment
}
