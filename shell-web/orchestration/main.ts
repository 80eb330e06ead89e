/**
 * The trusted orchestration view (`/orchestration?id=ID#token=TOKEN`): the DAG
 * drawn as a graph, each package coloured by its beat with its live burn, and a
 * cancel button. It reads the API directly (same origin) with the bearer token
 * from the URL fragment, which never reaches a server. It redraws from the
 * orchestration's view whenever the decision stream says something happened:
 * the view is the fold, so the picture is never a second source of truth.
 */
import { h } from '../ui/dom.ts'
import { layout } from './layout.ts'

interface PackageView {
  id: string
  needs: string[]
  added: string[]
  beat: string
  agent: string | null
  attempts: number
  burn: { tokens: number; cost: number }
  reason: string | null
}
interface View {
  id: string
  goal: string
  status: string
  reason: string | null
  burn: { tokens: number; cost: number }
  packages: PackageView[]
}

const SVG = 'http://www.w3.org/2000/svg'
const W = 170
const H = 64
const GAP_X = 70
const GAP_Y = 24

const id = new URLSearchParams(location.search).get('id') ?? ''
const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? ''
const auth = { authorization: `Bearer ${token}` }

const status = h('span', { id: 'status', class: 'status' })
const burn = h('span', { id: 'burn', class: 'burn' })
const message = h('p', { id: 'message', class: 'muted' })
const cancel = h('button', { id: 'cancel', class: 'danger', onclick: () => void cancelAll() }, 'Cancel orchestration')
const graph = document.createElementNS(SVG, 'svg')
graph.id = 'graph'

document.body.append(
  h('header', { class: 'bar' }, h('strong', { class: 'brand' }, 'Orchestration'), h('code', {}, id), status, burn, h('div', { class: 'spacer' }), cancel),
  h('main', { class: 'orchestration' }, message, graph),
)

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag)
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v))
  if (text !== undefined) el.textContent = text
  return el
}

function draw(view: View): void {
  status.textContent = view.status
  status.dataset.status = view.status
  burn.textContent = `${view.burn.tokens} tokens · $${view.burn.cost.toFixed(4)}`
  message.textContent = view.reason ?? view.goal.split('\n')[0] ?? ''
  cancel.toggleAttribute('disabled', view.status !== 'running')
  const placed = layout(view.packages)
  const columns = Math.max(1, ...[...placed.values()].map((p) => p.column + 1))
  const rows = Math.max(1, ...[...placed.values()].map((p) => p.row + 1))
  graph.setAttribute('width', String(columns * (W + GAP_X)))
  graph.setAttribute('height', String(rows * (H + GAP_Y) + GAP_Y))
  graph.replaceChildren()
  const at = (pkg: string) => {
    const p = placed.get(pkg)!
    return { x: p.column * (W + GAP_X) + 10, y: p.row * (H + GAP_Y) + GAP_Y }
  }
  for (const pkg of view.packages) {
    for (const need of pkg.needs) {
      if (!placed.has(need)) continue
      const from = at(need)
      const to = at(pkg.id)
      const line = svg('line', { x1: from.x + W, y1: from.y + H / 2, x2: to.x, y2: to.y + H / 2, class: pkg.added.includes(need) ? 'edge added' : 'edge' })
      graph.append(line)
    }
  }
  for (const pkg of view.packages) {
    const { x, y } = at(pkg.id)
    const node = svg('g', { class: 'package', 'data-package': pkg.id, 'data-beat': pkg.beat, transform: `translate(${x},${y})` })
    node.append(
      svg('rect', { width: W, height: H, rx: 8, class: `beat-${pkg.beat}` }),
      svg('text', { x: 10, y: 20, class: 'name' }, pkg.id),
      svg('text', { x: 10, y: 38, class: 'beat' }, pkg.attempts > 1 ? `${pkg.beat} (attempt ${pkg.attempts})` : pkg.beat),
      svg('text', { x: 10, y: 55, class: 'burn' }, `${pkg.burn.tokens} tokens`),
    )
    if (pkg.reason) node.append(svg('title', {}, pkg.reason))
    graph.append(node)
  }
}

async function refresh(): Promise<View | null> {
  const res = await fetch(`/v1/orchestrations/${encodeURIComponent(id)}`, { headers: auth })
  if (!res.ok) {
    message.textContent = `cannot read orchestration ${id}: ${res.status}`
    return null
  }
  const view = (await res.json()) as View
  draw(view)
  return view
}

/** Follows the decision stream; any decision redraws (coalesced to one fetch in flight). */
async function follow(): Promise<void> {
  let pending = false
  let running: Promise<unknown> = Promise.resolve()
  const redraw = () => {
    if (pending) return
    pending = true
    running = running.then(async () => {
      pending = false
      await refresh()
    })
  }
  for (let after = 0; ; ) {
    try {
      const res = await fetch(`/v1/orchestrations/${encodeURIComponent(id)}/events?after=${after}`, { headers: auth })
      if (!res.ok || !res.body) throw new Error(String(res.status))
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
      let buffer = ''
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        buffer += value
        const frames = buffer.split('\n\n')
        buffer = frames.pop() ?? ''
        for (const frame of frames) {
          const seq = /^id: (\d+)$/m.exec(frame)?.[1]
          if (seq) after = Number(seq)
          if (/^event: /m.test(frame)) redraw()
        }
      }
    } catch {
      // A dropped stream resumes after the last sequence seen.
    }
    await new Promise((r) => setTimeout(r, 1000))
  }
}

async function cancelAll(): Promise<void> {
  cancel.setAttribute('disabled', '')
  const res = await fetch(`/v1/orchestrations/${encodeURIComponent(id)}/cancel`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ reason: 'cancelled from the shell' }),
  })
  if (!res.ok) message.textContent = `cancel failed: ${res.status}`
  await refresh()
}

void refresh().then(() => follow())
