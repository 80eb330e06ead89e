/**
 * A tiny DOM helper shared by the demo apps.
 *
 * @example
 * mount(el('button', { onclick: go }, 'Go'))
 */
type Props = Record<string, string | number | boolean | ((event: Event) => void)>

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag)
  for (const [key, value] of Object.entries(props)) {
    if (typeof value === 'function') node.addEventListener(key.replace(/^on/, ''), value)
    else if (key === 'value' || key === 'hidden' || key === 'max') (node as unknown as Record<string, unknown>)[key] = value
    else if (value !== false) node.setAttribute(key, value === true ? '' : String(value))
  }
  node.append(...children)
  return node
}

export function mount(...nodes: Node[]): void {
  document.body.append(...nodes)
}
