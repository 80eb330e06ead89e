/**
 * The orchestrations view: `#orchestrations` lists the signed-in person's orchestrations,
 * `#orchestrations/<id>` shows one live. The address is the state, so a reload or a shared link
 * opens the same page; signed out it says so, and signing in shows the page.
 *
 * @example
 * mountOrchestrations(viewSlot('orchestrations', 'Orchestrations'), { signedIn, openSession })
 */
import { problemPage, SIGNED_OUT } from '../problem.ts'
import type { ViewDeps } from '../signed-in.ts'
import { routeOf } from '../view-slot.ts'
import { showOrchestration } from './detail.ts'
import { showOrchestrationList } from './list.ts'

export function mountOrchestrations(container: HTMLElement, deps: ViewDeps): void {
  let stop = () => {}
  let shown: string | undefined
  const render = () => {
    const route = routeOf('orchestrations')
    const client = deps.signedIn.client
    const key = route === undefined ? undefined : `${client ? 'in' : 'out'}:${route}`
    if (key === shown) return
    shown = key
    stop()
    stop = () => {}
    if (route === undefined) return container.replaceChildren()
    if (!client) return container.replaceChildren(problemPage(SIGNED_OUT))
    if (route === '') void showOrchestrationList(container, client)
    else stop = showOrchestration(container, client, route, deps.openSession)
  }
  addEventListener('hashchange', render)
  deps.signedIn.watch(() => {
    shown = undefined
    render()
  })
  render()
}
