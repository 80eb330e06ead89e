/**
 * The trusted shell page: the kernel plus the UI that draws workspaces, the
 * tray, grants and the audit log. `window.neutron` is the devtools handle to
 * the kernel; app frames are cross-origin (opaque) and cannot reach it.
 *
 * Installs are kept across reloads (installs.ts); on the very first start the demo apps are
 * installed, unless `?demo=0` (tests and benchmarks install their own).
 */
import { AgentModeView } from './agent-mode-view.ts'
import { AgentPanel } from './agent-panel.ts'
import { AuditView } from './audit-view.ts'
import { BackendConsentView } from './backend-consent-view.ts'
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
let panel: AgentPanel | undefined
const kernel = new Kernel({
  backgrounds: $('#backgrounds'),
  openTile: (app, params) => workspaces!.openTile(app, params),
  closeTray: (frame) => tray.openFrame === frame && tray.close(),
  // App backends are reached as the signed-in person, through the panel's client; frames never see its token.
  server: () => panel?.connection?.client.apps,
})
workspaces = new Workspaces(kernel, $('#workspace'), $('#workspaces'))
tray = new Tray(kernel, $('#tray'))
new GrantsView(kernel, $('#grants'), $<HTMLDialogElement>('#grant-dialog'))
new AuditView(kernel, $('#audit'), $('#endpoints'))
new AgentModeView(kernel, $('#agent-mode'), $<HTMLDialogElement>('#agent-dialog'))
new BackendConsentView(kernel, $<HTMLDialogElement>('#backend-dialog'))

const launcher = $('#launcher')
const renderChrome = () => {
  tray.render()
  launcher.replaceChildren(
    ...kernel.apps().filter((a) => a.entries.tile).map((a) => h('button', { class: 'launch', 'data-open': a.id, onclick: () => workspaces!.openTile(a.id) }, `+ ${a.title}`)),
  )
}
kernel.onChange(renderChrome)

/** The apps installed when the person signed out (null: signed in, or never signed in). */
let signedOut: unknown[] | null = null
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
kernel.onChange(() => signedOut === null && saveInstalls(localStorage, kernel.apps()))
renderChrome()

/**
 * Signing out closes every app port and removes every endpoint: Agent Mode ends (its calls with
 * it) and every app is uninstalled; signing in again installs the same apps afresh. The stored
 * installs stay as they were while signed out, so a reload then still knows them.
 */
panel = new AgentPanel(kernel, $('#agent-panel'), {
  onSignOut() {
    kernel.agentMode.clear('signed out')
    kernel.backendConsent.clear()
    signedOut = kernel.apps()
    for (const app of kernel.apps()) uninstall(app.id)
  },
  onSignIn() {
    const apps = signedOut ?? []
    signedOut = null
    for (const manifest of apps) install(manifest)
  },
})

Object.assign(globalThis, { neutron: { kernel, workspaces, tray, install, upgrade, uninstall, panel } })
