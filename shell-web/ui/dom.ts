/**
 * A tiny element builder for the trusted page. Text is always set as text
 * (never HTML), because much of what the shell shows is untrusted app metadata.
 *
 * @example
 * h('button', { class: 'primary', onclick: () => allow() }, 'Allow')
 */
type Props = Record<string, string | number | boolean | ((event: Event) => void) | undefined>
type Child = Node | string | number | null | undefined | false

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag)
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue
    if (typeof value === 'function') el.addEventListener(key.replace(/^on/, ''), value)
    else if (value === true) el.setAttribute(key, '')
    else el.setAttribute(key, String(value))
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) el.append(typeof child === 'number' ? String(child) : child)
  return el
}

/** Re-renders at most every `ms` however often `schedule` is called. */
export function throttled(render: () => void, ms = 50): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined
  return () => {
    timer ??= setTimeout(() => {
      timer = undefined
      render()
    }, ms)
  }
}
