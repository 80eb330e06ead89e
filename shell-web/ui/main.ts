/**
 * The trusted shell page: the kernel plus the UI that draws workspaces, the
 * tray, grants and the audit log. `window.neutron` is the devtools handle to
 * the kernel; app frames are cross-origin (opaque) and cannot reach it.
 *
 * `?demo=0` starts without the demo apps (tests and benchmarks install their own).
 */
import { AgentModeView } from './agent-mode-view.ts'
import { AgentPanel } from './agent-panel.ts'
import { AuditView } from './audit-view.ts'
import { h } from './dom.ts'
import { GrantsView } from './grants-view.ts'
import { Tray } from './tray.ts'
import { Workspaces } from './workspace.ts'
import { DEMO_APPS } from '../apps/registry.ts'
import { Kernel } from '../kernel/kernel.ts'

const $ = <T extends HTMLElement>(selector: string) => document.querySelector<T>(selector)!

let workspaces: Workspaces | undefined
const kernel = new Kernel({
  backgrounds: $('#backgrounds'),
  openTile: (app, params) => workspaces!.openTile(app, params),
})
workspaces = new Workspaces(kernel, $('#workspace'), $('#workspaces'))
const tray = new Tray(kernel, $('#tray'))
new GrantsView(kernel, $('#grants'), $<HTMLDialogElement>('#grant-dialog'))
new AuditView(kernel, $('#audit'), $('#endpoints'))
new AgentModeView(kernel, $('#agent-mode'), $<HTMLDialogElement>('#agent-dialog'))

const launcher = $('#launcher')
const renderChrome = () => {
  tray.render()
  launcher.replaceChildren(
    ...kernel.apps().filter((a) => a.entries.tile).map((a) => h('button', { class: 'launch', 'data-open': a.id, onclick: () => workspaces!.openTile(a.id) }, `+ ${a.title}`)),
  )
}
kernel.onChange(renderChrome)

const install = (manifest: unknown) => kernel.install(manifest)
const uninstall = (app: string) => {
  workspaces!.forget(app)
  if (tray.openFrame?.spec.app === app) tray.close()
  kernel.uninstall(app)
}

if (new URLSearchParams(location.search).get('demo') !== '0') {
  for (const manifest of DEMO_APPS) install(manifest)
  workspaces.openTile('notes')
  workspaces.openTile('planner')
}
renderChrome()

/**
 * Signing out closes every app port and removes every endpoint: Agent Mode ends (its calls with
 * it) and every app is uninstalled; signing in again installs the same apps afresh.
 */
let signedOut: unknown[] = []
const panel = new AgentPanel(kernel, $('#agent-panel'), {
  onSignOut() {
    kernel.agentMode.clear('signed out')
    signedOut = kernel.apps()
    for (const app of kernel.apps()) uninstall(app.id)
  },
  onSignIn() {
    for (const manifest of signedOut.splice(0)) install(manifest)
  },
})

Object.assign(globalThis, { neutron: { kernel, workspaces, tray, install, uninstall, panel } })
