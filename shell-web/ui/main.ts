/**
 * The trusted shell page: the kernel plus the UI that draws workspaces, the
 * tray, grants and the audit log. `window.neutron` is the devtools handle to
 * the kernel; app frames are cross-origin (opaque) and cannot reach it.
 *
 * Installs are kept across reloads (installs.ts); on the very first start the demo apps are
 * installed, unless `?demo=0` (tests and benchmarks install their own).
 */
import { AuditView } from './audit-view.ts'
import { h } from './dom.ts'
import { GrantsView } from './grants-view.ts'
import { loadInstalls, saveInstalls } from './installs.ts'
import { Tray } from './tray.ts'
import { Workspaces } from './workspace.ts'
import { DEMO_APPS } from '../apps/registry.ts'
import { Kernel } from '../kernel/kernel.ts'

const $ = <T extends HTMLElement>(selector: string) => document.querySelector<T>(selector)!

let workspaces: Workspaces | undefined
let tray: Tray
const kernel = new Kernel({
  backgrounds: $('#backgrounds'),
  openTile: (app, params) => workspaces!.openTile(app, params),
  closeTray: (frame) => tray.openFrame === frame && tray.close(),
})
workspaces = new Workspaces(kernel, $('#workspace'), $('#workspaces'))
tray = new Tray(kernel, $('#tray'))
new GrantsView(kernel, $('#grants'), $<HTMLDialogElement>('#grant-dialog'))
new AuditView(kernel, $('#audit'), $('#endpoints'))

const launcher = $('#launcher')
const renderChrome = () => {
  tray.render()
  launcher.replaceChildren(
    ...kernel.apps().filter((a) => a.entries.tile).map((a) => h('button', { class: 'launch', 'data-open': a.id, onclick: () => workspaces!.openTile(a.id) }, `+ ${a.title}`)),
  )
}
kernel.onChange(renderChrome)

const install = (manifest: unknown) => kernel.install(manifest)
const upgrade = (manifest: unknown) => kernel.upgrade(manifest)
const uninstall = (app: string) => {
  workspaces!.forget(app)
  if (tray.openFrame?.spec.app === app) tray.close()
  kernel.uninstall(app)
}

const stored = loadInstalls(localStorage)
if (stored) {
  for (const manifest of stored) {
    try {
      install(manifest)
    } catch (error) {
      console.warn('a stored install was skipped', error)
    }
  }
} else if (new URLSearchParams(location.search).get('demo') !== '0') {
  for (const manifest of DEMO_APPS) install(manifest)
}
if (kernel.manifest('notes')?.entries.tile) workspaces.openTile('notes')
if (kernel.manifest('planner')?.entries.tile) workspaces.openTile('planner')
kernel.onChange(() => saveInstalls(localStorage, kernel.apps()))
renderChrome()

Object.assign(globalThis, { neutron: { kernel, workspaces, tray, install, upgrade, uninstall } })
