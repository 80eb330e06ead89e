/**
 * The DAG of an orchestration drawn as SVG: one box per package, coloured by its beat, with its
 * attempts and burn, and an edge per `needs` (dashed when a replan added it). Pure drawing from
 * the view: the picture is never a second source of truth.
 *
 * @example
 * drawGraph(svg, await client.orchestration(id).view(), (pkg) => openSession(pkg.session!))
 */
import type { OrchestrationView } from '../../../client/index.ts'
import { layout } from './layout.ts'

type Package = OrchestrationView['packages'][number]

const SVG = 'http://www.w3.org/2000/svg'
const W = 170
const H = 64
const GAP_X = 70
const GAP_Y = 24

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag)
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v))
  if (text !== undefined) el.textContent = text
  return el
}

/** A fresh, empty graph element (an image to assistive technology: the package table says the same). */
export function graphElement(): SVGSVGElement {
  return svg('svg', { class: 'graph', role: 'img', 'aria-label': 'The plan as a graph' })
}

/** Redraws `graph` from `view`; a click on a package with a session calls `open`. */
export function drawGraph(graph: SVGSVGElement, view: OrchestrationView, open: (pkg: Package) => void): void {
  const placed = layout(view.packages)
  const columns = Math.max(1, ...[...placed.values()].map((p) => p.column + 1))
  const rows = Math.max(1, ...[...placed.values()].map((p) => p.row + 1))
  graph.setAttribute('width', String(columns * (W + GAP_X)))
  graph.setAttribute('height', String(rows * (H + GAP_Y) + GAP_Y))
  graph.setAttribute('aria-label', `The plan as a graph: ${view.packages.map((p) => `${p.id} ${p.beat}`).join(', ')}`)
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
      graph.append(svg('line', { x1: from.x + W, y1: from.y + H / 2, x2: to.x, y2: to.y + H / 2, class: pkg.added.includes(need) ? 'edge added' : 'edge' }))
    }
  }
  for (const pkg of view.packages) {
    const { x, y } = at(pkg.id)
    const node = svg('g', { class: pkg.session ? 'package opens' : 'package', 'data-package': pkg.id, 'data-beat': pkg.beat, transform: `translate(${x},${y})` })
    node.append(
      svg('rect', { width: W, height: H, rx: 8, class: `beat-${pkg.beat}` }),
      svg('text', { x: 10, y: 20, class: 'name' }, pkg.id),
      svg('text', { x: 10, y: 38, class: 'beat' }, pkg.attempts > 1 ? `${pkg.beat} (attempt ${pkg.attempts})` : pkg.beat),
      svg('text', { x: 10, y: 55, class: 'burn' }, `${pkg.burn.tokens} tokens`),
    )
    if (pkg.reason) node.append(svg('title', {}, pkg.reason))
    if (pkg.session) node.addEventListener('click', () => open(pkg))
    graph.append(node)
  }
}
