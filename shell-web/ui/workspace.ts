/**
 * Workspaces and their tiles. Only the active workspace's tiles are mounted:
 * switching away closes their frames (their endpoints stop being live), and
 * switching back mounts fresh instances that fetch a full snapshot.
 *
 * @example
 * const ws = new Workspaces(kernel, document.querySelector('#workspace')!, document.querySelector('#workspaces')!)
 * ws.openTile('notes', { q: 'roadmap' }) // { endpoint: 'app:notes:tile:t1:instance:…' }
 */
import { h } from './dom.ts'
import type { FrameRecord } from '../kernel/bus/frames.ts'
import type { Kernel } from '../kernel/kernel.ts'
import { type BusErrorShape, fail } from '../protocol/codes.ts'
import { LIMITS } from '../protocol/limits.ts'
import type { TileLayout } from './tile-layout.ts'

interface Tile {
  tileId: string
  app: string
  params: Record<string, string>
}

export class Workspaces {
  readonly list: { name: string; tiles: Tile[] }[] = [
    { name: 'Main', tiles: [] },
    { name: 'Side', tiles: [] },
  ]
  active = 0
  #mounted = new Map<Tile, { frame: FrameRecord; el: HTMLElement }>()
  #nextTile = 1
  /** The person opened, closed or switched (not an app going away): the frame keeps the layout. */
  onLayout: (layout: TileLayout) => void = () => {}

  constructor(
    private readonly kernel: Kernel,
    private readonly root: HTMLElement,
    private readonly tabs: HTMLElement,
  ) {
    kernel.endpoints.onChange(() => this.#labels())
    this.#tabs()
  }

  openTile(app: string, params: Record<string, string> = {}): { endpoint: string } | BusErrorShape {
    const workspace = this.list[this.active]!
    if (workspace.tiles.length >= LIMITS.maxTilesPerWorkspace) return fail('LIMIT_REACHED', `at most ${LIMITS.maxTilesPerWorkspace} tiles per workspace`)
    if (!this.kernel.manifest(app)?.entries.tile) return fail('UNKNOWN_TARGET', `app "${app}" has no tile`)
    const tile: Tile = { tileId: `t${this.#nextTile++}`, app, params }
    workspace.tiles.push(tile)
    const endpoint = this.#mount(tile)
    this.onLayout(this.layout())
    return { endpoint }
  }

  /** Which apps' tiles each workspace shows, and which is active (tile-layout.ts keeps it). */
  layout(): TileLayout {
    return { active: this.active, workspaces: this.list.map((w) => w.tiles.map((t) => ({ app: t.app, params: { ...t.params } }))) }
  }

  /** Reopens a kept layout's tiles (of apps still installed with a tile); true when it had any. */
  restore(layout: TileLayout): boolean {
    let opened = 0
    for (const [index, tiles] of layout.workspaces.entries()) {
      const workspace = this.list[index]
      if (!workspace) continue
      for (const { app, params } of tiles) {
        if (workspace.tiles.length >= LIMITS.maxTilesPerWorkspace || !this.kernel.manifest(app)?.entries.tile) continue
        const tile: Tile = { tileId: `t${this.#nextTile++}`, app, params }
        workspace.tiles.push(tile)
        if (index === this.active) this.#mount(tile)
        opened++
      }
    }
    if (layout.active !== this.active && this.list[layout.active]) this.switchTo(layout.active)
    return opened > 0
  }

  closeTile(tileId: string): void {
    const workspace = this.list[this.active]!
    const tile = workspace.tiles.find((t) => t.tileId === tileId)
    if (!tile) return
    workspace.tiles.splice(workspace.tiles.indexOf(tile), 1)
    this.#unmount(tile)
    this.onLayout(this.layout())
  }

  switchTo(index: number): void {
    if (index === this.active || !this.list[index]) return
    for (const tile of this.list[this.active]!.tiles) this.#unmount(tile)
    this.active = index
    for (const tile of this.list[index]!.tiles) this.#mount(tile)
    this.#tabs()
    this.onLayout(this.layout())
  }

  /** Closes every tile of an app (it was uninstalled). */
  forget(app: string): void {
    for (const workspace of this.list) {
      for (const tile of workspace.tiles.filter((t) => t.app === app)) {
        workspace.tiles.splice(workspace.tiles.indexOf(tile), 1)
        this.#unmount(tile)
      }
    }
  }

  frameOf(tileId: string): FrameRecord | undefined {
    for (const [tile, mounted] of this.#mounted) if (tile.tileId === tileId) return mounted.frame
  }

  #mount(tile: Tile): string {
    const title = this.kernel.manifest(tile.app)?.title ?? tile.app
    const body = h('div', { class: 'tile-body' })
    const label = h('code', { class: 'endpoint' }, 'connecting…')
    const el = h(
      'section',
      { class: 'tile', 'data-tile': tile.tileId, 'data-app': tile.app },
      h('header', {},
        h('span', { class: 'tile-title' }, title),
        label,
        h('button', { class: 'icon', title: 'Reload', 'aria-label': `Reload ${title}`, 'data-action': 'reload', onclick: () => this.kernel.reload(frame) }, '↻'),
        h('button', { class: 'icon', title: 'Close', 'aria-label': `Close ${title}`, 'data-action': 'close', onclick: () => this.closeTile(tile.tileId) }, '×'),
      ),
      body,
    )
    this.root.append(el)
    const frame = this.kernel.mount({ app: tile.app, kind: 'tile', tileId: tile.tileId, parent: body, params: tile.params })
    this.#mounted.set(tile, { frame, el })
    return this.kernel.frames.expectedId(frame)
  }

  #unmount(tile: Tile) {
    const mounted = this.#mounted.get(tile)
    if (!mounted) return
    this.kernel.unmount(mounted.frame)
    mounted.el.remove()
    this.#mounted.delete(tile)
  }

  #labels() {
    for (const { frame, el } of this.#mounted.values()) {
      el.querySelector('.endpoint')!.textContent = frame.endpoint?.id ?? 'connecting…'
    }
  }

  #tabs() {
    this.tabs.replaceChildren(
      ...this.list.map((w, i) =>
        h('button', { class: i === this.active ? 'tab active' : 'tab', 'aria-pressed': String(i === this.active), 'data-workspace': i, onclick: () => this.switchTo(i) }, w.name),
      ),
    )
  }
}
