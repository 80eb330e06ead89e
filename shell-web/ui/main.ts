/**
 * The trusted shell page: the kernel plus the frame (frame.ts: navigation, panes, the Developer
 * drawer) and the views mounted into it (view.ts), the workspaces of app tiles, the tray, grants,
 * installs and the audit log. `window.neutron` is the devtools
 * handle to the kernel; app frames are cross-origin (opaque) and cannot reach it.
 *
 * Whose apps run: signed out, the built-in demo apps only (unless `?demo=0`: tests and
 * benchmarks install their own through the devtools handle); nothing is stored in or run from this
 * browser's storage, since nobody is signed in to vouch for it. Signed in, the person's installs on
 * the server (person-installs.ts; on a person's first sign-in in this browser, the demo apps as
 * packages). Signing in or out changes the installation scope, so nothing of one owner's apps
 * survives into the other's; signing out — or the sign-in ending on its own — tears every
 * endpoint down.
 */
import { AgentModeView } from './agent-mode-view.ts'
import { AgentPanel } from './agent-panel.ts'
import { AuditView } from './audit-view.ts'
import { BackendConsentView } from './backend-consent-view.ts'
import { h, throttled } from './dom.ts'
import { GrantsView } from './grants-view.ts'
import { demosInstalledFor, forgetStoredInstalls, markDemosInstalled } from './installs.ts'
import { InstallsView } from './installs-view.ts'
import { OfferView } from './offer-view.ts'
import { PersonInstalls } from './person-installs.ts'
import { loadLayout, saveLayout } from './tile-layout.ts'
import { Tray } from './tray.ts'
import { Workspaces } from './workspace.ts'
import { Connection } from '../agent/connection.ts'
import { DEMO_APPS } from '../apps/registry.ts'
import { Kernel } from '../kernel/kernel.ts'
import { Frame } from './frame.ts'
import type { ViewModule, ViewName } from './view.ts'

/**
 * The views mounted into the frame's panes when the person signs in (view.ts: each module exports
 * `mount(container, deps)`). One line each, e.g. `sessions: () => import('./sessions/index.ts'),`;
 * a pane without one says what to do next.
 */
const VIEWS: Partial<Record<ViewName, ViewModule | undefined>> = {
  sessions: undefined,

  conversation: undefined,

  orchestrations: () => import('./orchestrations/index.ts'),

  memory: () => import('./memory/index.ts'),
}

const $ = <T extends HTMLElement>(selector: string) => document.querySelector<T>(selector)!
const demos = new URLSearchParams(location.search).get('demo') !== '0'

let workspaces: Workspaces | undefined
let tray: Tray
/** The signed-in person's installs (undefined: signed out). */
let person: PersonInstalls | undefined
let panel: AgentPanel | undefined
const kernel = new Kernel({
  backgrounds: $('#backgrounds'),
  openTile: (app, params) => workspaces!.openTile(app, params),
  closeTray: (frame) => tray.openFrame === frame && tray.close(),
  installer: () => person,
  // App backends are reached as the signed-in person, through the panel's client; frames never see its token.
  server: () => panel?.connection?.client.apps,
})
workspaces = new Workspaces(kernel, $('#workspace'), $('#workspaces'))
tray = new Tray(kernel, $('#tray'))
new GrantsView(kernel, $('#grants'), $<HTMLDialogElement>('#grant-dialog'))
new AuditView(kernel, $('#audit'), $('#endpoints'))
new AgentModeView(kernel, $('#agent-mode'), $<HTMLDialogElement>('#agent-dialog'))
new OfferView(kernel.installOffers, $<HTMLDialogElement>('#offer-dialog'))
new BackendConsentView(kernel, $<HTMLDialogElement>('#backend-dialog'))

const launcher = $('#launcher')
const renderChrome = () => {
  tray.render()
  launcher.replaceChildren(
    ...kernel.apps().filter((a) => a.entries.tile).map((a) => h('button', { class: 'launch', 'data-open': a.id, onclick: () => workspaces!.openTile(a.id) }, `+ ${a.title}`)),
  )
}
kernel.onChange(renderChrome)
// A flood of badge changes redraws the tray at most every 100 ms, and nothing else.
kernel.onBadge(throttled(() => tray.render(), 100))

const install = (manifest: unknown) => kernel.install(manifest)
const upgrade = (manifest: unknown) => kernel.upgrade(manifest)
/** Removes an app from the shell (signed in, `neutron.uninstall` removes it for the person too). */
const remove = (app: string) => {
  workspaces!.forget(app)
  if (tray.openFrame?.spec.app === app) tray.close()
  kernel.uninstall(app)
}
const uninstall = (app: string) => (person ? person.uninstall(app) : remove(app))
const removeAll = () => kernel.apps().forEach((a) => remove(a.id))
const openDemoTiles = () => {
  for (const app of ['notes', 'planner']) if (kernel.manifest(app)?.entries.tile) workspaces!.openTile(app)
}

const installsView = new InstallsView($('#installs'), {
  refresh: () => runPersonInstalls(),
  installDemos: () => person ? showing(() => person!.installDemos().then(openDemoTiles)) : Promise.resolve(),
})
/** Runs `work`, showing its failure (with the server's code) in the Apps section. */
async function showing(work: () => Promise<unknown>, skipped: { app: string; reason: string }[] = []): Promise<void> {
  let error: string | undefined
  try {
    await work()
  } catch (e) {
    error = `${(e as { code?: string }).code ?? ''} ${(e as Error).message}`.trim()
  }
  installsView.show({ owner: panel?.connection?.me.subject ?? null, skipped, error })
}

/** Signed out: the built-in demo apps, and nothing this browser's storage holds (an older shell kept installs there). */
function runBuiltIns() {
  forgetStoredInstalls(localStorage)
  for (const manifest of demos ? DEMO_APPS : []) install(manifest)
  openDemoTiles()
  installsView.show({ owner: null, skipped: [] })
}

/** The signed-in person's installs, read again from the server (every app restarts from what it lists). */
async function runPersonInstalls() {
  const connection = panel?.connection
  if (!connection) return
  removeAll()
  kernel.setScope(`person:${connection.me.id}`)
  person = new PersonInstalls(connection.client, { has: (app) => !!kernel.manifest(app), install, upgrade, uninstall: remove })
  const skipped: { app: string; reason: string }[] = []
  await showing(async () => {
    skipped.push(...(await person!.load()))
    // A person's first sign-in in this browser installs the demo apps for them, through the API.
    if (demos && !demosInstalledFor(localStorage, connection.me.id)) {
      await person!.installDemos()
      markDemosInstalled(localStorage, connection.me.id)
    }
    // The tiles the person had open here (a reload, a sign-in again), else the demo tiles.
    const kept = loadLayout(localStorage, connection.me.id)
    if (!kept || !workspaces!.restore(kept)) openDemoTiles()
    workspaces!.onLayout = (layout) => saveLayout(localStorage, connection.me.id, layout)
    saveLayout(localStorage, connection.me.id, workspaces!.layout())
  }, skipped)
}

let frame: Frame | undefined
panel = new AgentPanel(kernel, $('#agent-panel'), {
  onSignIn: (connection) => (frame?.signedIn(connection.client, connection.me), runPersonInstalls()),
  onSignOut(reason) {
    frame?.signedOut()
    workspaces!.onLayout = () => {}
    kernel.agentMode.clear(reason ? `the sign-in ended: ${reason.code}` : 'signed out')
    kernel.backendConsent.clear()
    person = undefined
    removeAll()
    kernel.setScope('local')
    installsView.show({ owner: null, skipped: [], ...(reason ? { error: `${reason.code}: ${reason.message}` } : {}) })
  },
  onRestoreFailed: () => runBuiltIns(),
})
frame = new Frame(document, VIEWS, panel.events)
if (!Connection.remembered()) runBuiltIns()
renderChrome()

Object.assign(globalThis, { neutron: { kernel, workspaces, tray, install, upgrade, uninstall, panel, frame, installs: () => person } })
