/**
 * The orchestrations view (view.ts): `#/orchestrations` lists the signed-in person's
 * orchestrations, `#/orchestrations/<id>` follows one live. The route is the state, so a reload or
 * a shared link opens the same page; a package's session opens in the conversation pane.
 *
 * @example
 * // main.ts, in VIEWS:  orchestrations: () => import('./orchestrations/index.ts'),
 */
import type { MountView, Route } from '../view.ts'
import { showOrchestration } from './detail.ts'
import { showOrchestrationList } from './list.ts'

export const mount: MountView = (container, deps) => {
  let stop = () => {}
  let shown: string | null | undefined
  const show = (route: Route) => {
    const id = route.orchestration ?? null
    if (id === shown) return
    shown = id
    stop()
    stop = () => {}
    if (id === null) void showOrchestrationList(container, deps.client)
    else stop = showOrchestration(container, deps.client, id, (session) => deps.navigate({ view: 'conversation', session }))
  }
  show({ view: 'orchestrations' })
  return { show, unmount: () => stop() }
}
