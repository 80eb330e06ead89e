/**
 * Which MCP server URLs a session may reach. Production Workers cannot reach a
 * private network at all (their fetch goes out to the public internet), but a
 * URL naming a loopback, private or link-local address, or `localhost`, is
 * still refused here so the rule is stated once and tested: such a server is
 * reachable only when the deployment runs with `NEURON_ENV=development` (what
 * `wrangler dev` and the tests use), and then only on loopback. Outside
 * development a server must use https.
 */
import { NeuronError } from '../../errors.ts'

/**
 * Throws `MCP_URL_REFUSED` (400) when `url` may not be fetched under this policy.
 *
 * @example
 * checkMcpUrl('https://mcp.example.com/mcp', { development: false }) // ok
 * checkMcpUrl('http://127.0.0.1:3000/mcp', { development: true })   // ok: loopback in development
 * checkMcpUrl('http://10.0.0.5/mcp', { development: true })         // throws MCP_URL_REFUSED
 */
export function checkMcpUrl(url: string, policy: { development: boolean }): URL {
  const parsed = new URL(url)
  const host = parsed.hostname.toLowerCase().replace(/^\[|\]$/g, '')
  const loopback = host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host)
  if (loopback) {
    if (policy.development) return parsed
    throw refused(url, 'a loopback address is reachable only in development (NEURON_ENV=development)')
  }
  if (isPrivate(host)) throw refused(url, 'private, link-local and unspecified addresses are never reached')
  if (parsed.protocol !== 'https:' && !policy.development) throw refused(url, 'MCP servers are reached over https')
  return parsed
}

function isPrivate(host: string): boolean {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host)
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])]
    return a === 0 || a === 10 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)
  }
  if (!host.includes(':')) return false
  // IPv4-mapped addresses are refused whole: a public service has no reason to be named that way.
  return host.startsWith('::ffff:') || host === '::' || /^f[cd][0-9a-f]{2}:/.test(host) || /^fe[89ab][0-9a-f]:/.test(host)
}

function refused(url: string, why: string): NeuronError {
  return new NeuronError('MCP_URL_REFUSED', `MCP server ${url.slice(0, 200)}: ${why}`, { status: 400, details: { url: url.slice(0, 2048) } })
}
