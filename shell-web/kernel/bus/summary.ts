/**
 * A bounded, human-readable summary of a JSON value for the audit log. It walks
 * only as far as the budget allows, so summarizing a 1 MiB payload costs about
 * as much as summarizing a small one.
 *
 * @example
 * summarize({ query: 'roadmap', limit: 5 }, 40) // '{"query":"roadmap","limit":5}'
 */
export function summarize(value: unknown, max = 160): string {
  let out = ''
  const emit = (s: string) => {
    out += s
    if (out.length > max) throw FULL
  }
  const walk = (v: unknown, depth: number): void => {
    if (v === null || typeof v === 'boolean' || typeof v === 'number') return emit(String(v))
    if (typeof v === 'string') return emit(JSON.stringify(v.length > max ? v.slice(0, max) : v))
    if (typeof v !== 'object') return emit(`<${typeof v}>`)
    if (depth > 4) return emit('…')
    if (Array.isArray(v)) {
      emit('[')
      v.forEach((item, i) => {
        if (i) emit(',')
        walk(item, depth + 1)
      })
      return emit(']')
    }
    const proto: unknown = Object.getPrototypeOf(v)
    if (proto !== Object.prototype && proto !== null) return emit(`<${(v as object).constructor?.name ?? 'object'}>`)
    emit('{')
    Object.keys(v).forEach((key, i) => {
      if (i) emit(',')
      emit(JSON.stringify(key.length > 40 ? key.slice(0, 40) : key) + ':')
      walk((v as Record<string, unknown>)[key], depth + 1)
    })
    emit('}')
  }
  try {
    walk(value, 0)
    return out
  } catch (error) {
    if (error !== FULL) return '<unsummarizable>'
    return out.slice(0, max - 1) + '…'
  }
}

const FULL = Symbol('full')
