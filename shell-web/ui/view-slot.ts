/**
 * A place for a full view (orchestrations, memory) over the workspace, shown while the page's
 * address is `#<name>` or `#<name>/…`, with a link to it in the top bar. The address is the state:
 * a reload, or a link someone shares, opens the same view.
 *
 * @example
 * mountMemory(viewSlot('memory', 'Memory'), deps)
 */
import { h } from './dom.ts'

/** The route under `#<name>/`: `''` for the view's own page, undefined when another view shows. */
export function routeOf(name: string, hash = location.hash): string | undefined {
  const path = decodeURIComponent(hash.replace(/^#/, ''))
  if (path === name) return ''
  return path.startsWith(`${name}/`) ? path.slice(name.length + 1) : undefined
}

export function viewSlot(name: string, title: string): HTMLElement {
  const slot = h('section', { id: `${name}-view`, class: 'view-slot', 'aria-label': title, hidden: true })
  document.querySelector('.layout')!.append(slot)
  const link = h('a', { class: 'view-link', href: `#${name}`, 'data-view': name }, title)
  document.querySelector('.bar .spacer')!.before(link)
  const show = () => {
    const shown = routeOf(name) !== undefined
    slot.hidden = !shown
    if (shown) link.setAttribute('aria-current', 'page')
    else link.removeAttribute('aria-current')
  }
  addEventListener('hashchange', show)
  show()
  return slot
}
