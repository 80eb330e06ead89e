/**
 * The Apps section of the trusted page: whose installs the shell is running
 * (this browser's, or the signed-in person's on the server), the installs it
 * could not run and why, and, signed in, buttons to install the demo apps and
 * to read the person's installs again (after installing from the CLI or curl).
 *
 * @example
 * const view = new InstallsView(document.querySelector('#installs')!, { refresh, installDemos })
 * view.show({ owner: 'ada', skipped: [] })
 */
import { h } from './dom.ts'

export interface InstallsState {
  /** The signed-in person, or null: installs kept in this browser (or none, after sign-out). */
  owner: string | null
  skipped: { app: string; reason: string }[]
  error?: string
}

export class InstallsView {
  constructor(
    private readonly root: HTMLElement,
    private readonly actions: { refresh(): Promise<void>; installDemos(): Promise<void> },
  ) {}

  show(state: InstallsState): void {
    const act = (label: string, name: string, run: () => Promise<void>) => h('button', { 'data-action': name, onclick: () => void run() }, label)
    this.root.replaceChildren(
      h('h2', {}, 'Apps'),
      h('p', { class: 'muted', 'data-installs-owner': state.owner ?? 'local' }, state.owner ? `Installed for ${state.owner}, kept on the server.` : 'The built-in demo apps. Sign in to install and keep your own.'),
      state.owner ? h('div', { class: 'row' }, act('Install demo apps', 'install-demos', this.actions.installDemos), act('Refresh', 'refresh-installs', this.actions.refresh)) : '',
      state.error ? h('p', { class: 'error', role: 'alert' }, state.error) : '',
      ...state.skipped.map((s) => h('p', { class: 'error', 'data-skipped': s.app }, `${s.app} could not run: ${s.reason}`)),
    )
  }
}
