/**
 * Which URLs the server may fetch for a user (an MCP server, its OAuth endpoints, config
 * instructions and skills given by URL): one rule for every server-side fetch of a URL that came
 * from outside the code. Production Workers cannot reach a private network at all (their fetch
 * goes out to the public internet), but a URL naming a loopback, private, link-local,
 * unspecified, multicast or otherwise reserved address, or `localhost`, is still refused here so
 * the rule is stated once and tested. IPv6 forms that embed an IPv4 address (mapped `::ffff:`,
 * compatible `::a.b.c.d`, NAT64 `64:ff9b::`) are refused whole: a public service has no reason
 * to be named that way. Loopback is reachable only when the deployment runs with
 * `NEURON_ENV=development` (what `wrangler dev` and the tests use); outside development a URL
 * must use https. Names are not resolved here: a public name that resolves to a private address
 * is what the platform's own network refuses. Pure: no platform imports.
 */
import { NeuronError } from '../core/errors.ts'

/** Whether loopback may be reached: `NEURON_ENV === 'development'`. */
export type OutboundPolicy = { development: boolean }

/**
 * The parsed URL, or throws `code` (400) when `url` may not be fetched under `policy`.
 *
 * @example
 * checkOutboundUrl('https://mcp.example.com/mcp', { development: false }, 'MCP_URL_REFUSED') // ok
 * checkOutboundUrl('http://127.0.0.1:3000/x', { development: true }, 'URL_REFUSED')        // ok: loopback in development
 * checkOutboundUrl('http://[::ffff:127.0.0.1]/x', { development: true }, 'URL_REFUSED')    // throws URL_REFUSED
 */
export function checkOutboundUrl(url: string, policy: OutboundPolicy, code = 'URL_REFUSED'): URL {
  const refused = (why: string) => new NeuronError(code, `${url.slice(0, 200)} is refused: ${why}`, { status: 400, details: { url: url.slice(0, 2048), reason: why } })
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw refused('it is not a URL')
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw refused('only http and https URLs are fetched')
  if (parsed.username || parsed.password) throw refused('credentials in a URL are not sent')
  const host = parsed.hostname.toLowerCase().replace(/^\[|\]$/g, '')
  const kind = addressKind(host)
  if (kind === 'loopback') {
    if (policy.development) return parsed
    throw refused('a loopback address is reachable only in development (NEURON_ENV=development)')
  }
  if (kind !== 'public') throw refused(`${kind} addresses are never reached`)
  if (parsed.protocol !== 'https:' && !policy.development) throw refused('URLs are fetched over https')
  return parsed
}

type Kind = 'public' | 'loopback' | 'private, link-local or reserved' | 'IPv4-embedding IPv6'

/** What a URL's host names: the WHATWG parser has already turned `2130706433` or `127.1` into dotted form. */
function addressKind(host: string): Kind {
  if (host === 'localhost' || host.endsWith('.localhost')) return 'loopback'
  const v4 = ipv4(host)
  if (v4) return ipv4Kind(v4)
  if (!host.includes(':')) return 'public'
  const groups = ipv6(host)
  if (!groups) return 'private, link-local or reserved'
  const [a, b] = groups
  const zeros = (n: number) => groups.slice(0, n).every((g) => g === 0)
  if (zeros(7) && groups[7] === 1) return 'loopback'
  if (zeros(8)) return 'private, link-local or reserved'
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), 64:ff9b::a.b.c.d and 64:ff9b:1::/48 (NAT64).
  if ((zeros(5) && groups[5] === 0xffff) || zeros(6) || (a === 0x64 && b === 0xff9b)) return 'IPv4-embedding IPv6'
  // fc00::/7 unique local, fe80::/10 link-local, fec0::/10 site-local, ff00::/8 multicast,
  // 2001:db8::/32 documentation, 100::/64 discard, 2001::/23 IETF protocol assignments.
  if ((a! & 0xfe00) === 0xfc00 || (a! & 0xffc0) === 0xfe80 || (a! & 0xffc0) === 0xfec0 || (a! & 0xff00) === 0xff00) return 'private, link-local or reserved'
  if ((a === 0x2001 && b === 0xdb8) || (a === 0x100 && zeros(4)) || (a === 0x2001 && b! < 0x200)) return 'private, link-local or reserved'
  return 'public'
}

function ipv4(host: string): number[] | null {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host)
  return match ? match.slice(1).map(Number) : null
}

/** Special-purpose IPv4 ranges (IANA registry): everything but the public unicast space. */
function ipv4Kind([a, b, c]: number[]): Kind {
  if (a === 127) return 'loopback'
  const reserved =
    a === 0 || a === 10 || (a === 100 && b! >= 64 && b! <= 127) || (a === 169 && b === 254) || (a === 172 && b! >= 16 && b! <= 31) ||
    (a === 192 && b === 0 && (c === 0 || c === 2)) || (a === 192 && b === 88 && c === 99) || (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19)) || (a === 198 && b === 51 && c === 100) || (a === 203 && b === 0 && c === 113) || a! >= 224
  return reserved ? 'private, link-local or reserved' : 'public'
}

/** The eight 16-bit groups of a (WHATWG-serialized) IPv6 address, or null. */
function ipv6(host: string): number[] | null {
  const [head, tail, extra] = host.split('::')
  if (extra !== undefined) return null
  const parse = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : [])
  const left = parse(head)
  const right = parse(tail)
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill(0), ...right]
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null
}
