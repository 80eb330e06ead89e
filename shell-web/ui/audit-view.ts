/**
 * The audit log and live endpoints as the person sees them (newest first).
 * The table is updated incrementally — new rows in, evicted rows out, folded
 * counts patched — so a busy bus does not cost the kernel's thread a full
 * re-render of 200 rows.
 *
 * @example
 * new AuditView(kernel, document.querySelector('#audit')!, document.querySelector('#endpoints')!)
 */
import { h, throttled } from './dom.ts'
import type { AuditEntry } from '../kernel/bus/audit.ts'
import type { Kernel } from '../kernel/kernel.ts'

/** Rows kept in the DOM unless the person asks for all of them. */
const SHOWN = 50

export class AuditView {
  #rows = new Map<number, { tr: HTMLTableRowElement; count: number }>()
  #all = false
  #toggle = h('button', { class: 'link', type: 'button', onclick: () => ((this.#all = !this.#all), this.render()) })
  #title = h('h2', {})
  #body = h('tbody', {})

  constructor(
    private readonly kernel: Kernel,
    auditPanel: HTMLElement,
    private readonly endpointPanel: HTMLElement,
  ) {
    auditPanel.replaceChildren(
      this.#title,
      h('table', { class: 'audit' }, h('thead', {}, h('tr', {}, ...['time', 'caller → target', 'tool', 'status', 'ms'].map((c) => h('th', {}, c)))), this.#body),
    )
    kernel.audit.onChange(throttled(() => this.render(), 250))
    kernel.endpoints.onChange(throttled(() => this.renderEndpoints()))
    this.render()
    this.renderEndpoints()
  }

  render(): void {
    const all = this.kernel.audit.list()
    const entries = this.#all ? all : all.slice(-SHOWN)
    const present = new Set(entries.map((e) => e.seq))
    for (const [seq, row] of this.#rows) {
      if (present.has(seq)) continue
      row.tr.remove()
      this.#rows.delete(seq)
    }
    for (const entry of entries) {
      const row = this.#rows.get(entry.seq)
      if (row && row.count === entry.count) continue
      const tr = this.#row(entry)
      if (row) row.tr.replaceWith(tr)
      else this.#body.prepend(tr)
      this.#rows.set(entry.seq, { tr, count: entry.count })
    }
    this.#title.textContent = `Audit log (${all.length}/200${all.length > entries.length ? `, newest ${entries.length} shown` : ''}) `
    if (all.length > SHOWN) this.#title.append(this.#toggle)
    this.#toggle.textContent = this.#all ? 'show fewer' : 'show all'
  }

  renderEndpoints(): void {
    this.endpointPanel.replaceChildren(
      h('h2', {}, 'Live endpoints'),
      h('ul', { class: 'endpoints' }, ...this.kernel.endpoints.list().map((ep) => h('li', { 'data-endpoint': ep.id }, h('code', {}, ep.id)))),
    )
  }

  #row(e: AuditEntry): HTMLTableRowElement {
    return h('tr', { class: e.status, 'data-seq': e.seq, 'data-code': e.code ?? '' },
      h('td', { title: new Date(e.at).toISOString() }, new Date(e.at).toTimeString().slice(0, 8)),
      h('td', { class: 'route', title: `${e.caller} → ${e.target}` }, h('code', {}, e.caller), h('code', {}, `→ ${e.target}`)),
      h('td', { class: 'tool', title: [e.args, e.result].filter(Boolean).join('\n') }, e.tool),
      h('td', {}, e.code ?? e.status, e.count > 1 ? ` ×${e.count}` : ''),
      h('td', {}, e.durationMs),
    )
  }
}
