/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728), open to anyone: what Neuron's API and its MCP
 * endpoint are as OAuth resources, and which authorization server issues their tokens (the
 * deployment's `AUTH_ISSUER`). Served for the whole API at `/.well-known/oauth-protected-resource`
 * and for the MCP endpoint at `/.well-known/oauth-protected-resource/v1/mcp` (RFC 9728 §3.1: the
 * resource's path after the well-known name), where MCP clients look first.
 */
import { Hono } from 'hono'
import type { AppEnv } from '../env.ts'

const WELL_KNOWN = '/.well-known/oauth-protected-resource'
/** Resources with their own metadata document; any other path is described by the API's. */
const RESOURCES = ['/v1/mcp']

/**
 * The metadata URL a 401 for `path` names.
 *
 * @example
 * metadataUrlOf('https://neuron.example', '/v1/mcp') // 'https://neuron.example/.well-known/oauth-protected-resource/v1/mcp'
 */
export function metadataUrlOf(origin: string, path: string): string {
  return `${origin}${WELL_KNOWN}${RESOURCES.includes(path) ? path : ''}`
}

function metadata(origin: string, resourcePath: string, issuer: string | undefined) {
  return {
    resource: `${origin}${resourcePath}`,
    ...(issuer ? { authorization_servers: [issuer] } : {}),
    bearer_methods_supported: ['header'],
    resource_name: resourcePath === '/v1/mcp' ? 'Neuron MCP server' : 'Neuron API',
    resource_documentation: `${origin}/v1/docs`,
  }
}

export const protectedResource = new Hono<AppEnv>()
  .get('/', (c) => c.json(metadata(new URL(c.req.url).origin, '', c.env.AUTH_ISSUER)))
  .get('/v1/mcp', (c) => c.json(metadata(new URL(c.req.url).origin, '/v1/mcp', c.env.AUTH_ISSUER)))
