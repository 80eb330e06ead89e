/**
 * Vitest globalSetup (Node, outside workerd): the official SDK's MCP server on
 * 127.0.0.1 (test/support/mcp-server.ts), and next to it one that needs OAuth, built from the
 * SDK's auth server parts (test/support/mcp-oauth-server.ts). Tests in workerd reach them at
 * `inject('mcpServerUrl')` and `inject('mcpOAuthServerUrl')`.
 */
import type { TestProject } from 'vitest/node'
import { startMcpServer } from '../support/mcp-server.ts'
import { startOAuthMcpServer } from '../support/mcp-oauth-server.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    mcpServerUrl: string
    mcpOAuthServerUrl: string
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [server, oauth] = await Promise.all([startMcpServer(), startOAuthMcpServer()])
  project.provide('mcpServerUrl', server.url)
  project.provide('mcpOAuthServerUrl', oauth.url)
  return async () => void (await Promise.all([server.close(), oauth.close()]))
}
