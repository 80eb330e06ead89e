/**
 * The tray: one button per app that declares a tray page. A popover's frame
 * exists only while it is open; closing it destroys the frame and its endpoint.
 *
 * @example
 * const tray = new Tray(kernel, document.querySelector('#tray')!)
 * tray.render()
 * tray.open('notes')
 */
import { h } from './dom.ts'
import type { FrameRecord } from '../kernel/bus/frames.ts'
import type { Kernel } from '../kernel/kernel.ts'

export class Tray {
  #open?: { app: string; frame: FrameRecord; popover: HTMLElement }

  constructor(
    private readonly kernel: Kernel,
    private readonly root: HTMLElement,
  ) {
    document.addEventListener('keydown', (e) => e.key === 'Escape' && this.close())
    document.addEventListener('pointerdown', (e) => {
      if (this.#open && !this.#open.popover.contains(e.target as Node) && !(e.target as HTMLElement).closest?.('.tray-button')) this.close()
    })
  }

  render(): void {
    const apps = this.kernel.apps().filter((a) => a.entries.tray)
    this.root.replaceChildren(
      ...apps.map((a) =>
        h('button', { class: 'tray-button', 'data-app': a.id, 'aria-expanded': String(this.#open?.app === a.id), onclick: () => this.toggle(a.id) }, a.title, ...this.#badge(a.id)),
      ),
    )
  }

  /** The badge the app's background set (tray.set_state), drawn by the trusted page as a number only. */
  #badge(app: string): HTMLElement[] {
    const badge = this.kernel.trayBadges.get(app)
    return badge === undefined ? [] : [h('span', { class: 'badge', 'data-badge': String(badge), 'aria-label': `${badge} pending` }, badge > 999 ? '999+' : String(badge))]
  }

  toggle(app: string): void {
    if (this.#open?.app === app) this.close()
    else this.open(app)
  }

  open(app: string): void {
    this.close()
    const button = this.root.querySelector<HTMLElement>(`.tray-button[data-app="${CSS.escape(app)}"]`)
    const popover = h('div', { class: 'popover', role: 'dialog', 'aria-label': `${app} tray`, 'data-app': app })
    document.body.append(popover)
    if (button) {
      const rect = button.getBoundingClientRect()
      popover.style.top = `${rect.bottom + 6}px`
      popover.style.left = `${Math.max(8, Math.min(rect.left, innerWidth - 340))}px`
    }
    const frame = this.kernel.mount({ app, kind: 'tray', parent: popover })
    this.#open = { app, frame, popover }
    this.render()
  }

  close(): void {
    if (!this.#open) return
    this.kernel.unmount(this.#open.frame)
    this.#open.popover.remove()
    this.#open = undefined
    this.render()
  }

  get openFrame(): FrameRecord | undefined {
    return this.#open?.frame
  }
}
