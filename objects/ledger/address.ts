/**
 * Addresses are dot-separated segments (`session.abc`, `orchestration.o1.agent.t7`).
 * The hierarchy is the filtering scheme (spec §1.3): a pattern matches segment by
 * segment, `*` matches one segment and a trailing `**` matches the rest (zero or more).
 */

const SEGMENT = /^[A-Za-z0-9_:\-]+$/

/** True when `address` is one or more non-empty segments of `[A-Za-z0-9_:-]`. */
export function isAddress(address: string): boolean {
  if (address.length === 0 || address.length > 512) return false
  return address.split('.').every((segment) => SEGMENT.test(segment))
}

/**
 * Whether `address` matches `pattern`.
 *
 * @example
 * matchAddress('session.*', 'session.s1')              // true
 * matchAddress('orchestration.*.**', 'orchestration.o1.agent.t7') // true
 * matchAddress('session.*', 'session.s1.stream')       // false
 */
export function matchAddress(pattern: string, address: string): boolean {
  const want = pattern.split('.')
  const have = address.split('.')
  for (let i = 0; i < want.length; i++) {
    const segment = want[i]
    if (segment === '**' && i === want.length - 1) return true
    if (i >= have.length) return false
    if (segment !== '*' && segment !== have[i]) return false
  }
  return want.length === have.length
}
